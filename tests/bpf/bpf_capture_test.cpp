// SPDX-License-Identifier: GPL-2.0-or-later
// bpf_capture_test.cpp - the real lnetcap hook programs (uprobe flavour of
// bpf/lnetcap.bpf.c) on fake LNet objects: records come out byte-exact and
// parse_record accepts them; direction, hook, NIDs, health, task, payload
// and status are right; PUT/REPLY are taken at lnet_finalize and GET/ACK at
// lnet_parse, each exactly once; the pushed-down filter rejects in the
// kernel and counts; a tiny ring produces counted drops that surface as
// epb_dropcount.
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <ctime>
#include <thread>

#include "fake_lnet.h"
#include "filter/kernel_clauses.h"
#include "live/privdrop.h"
#include "live/subfilter_writer.h"
#include "lnetcap_kprobe.skel.h"
#include "live/ring_source.h"
#include "message.h"
#include "record.h"

namespace lnetcap::test {
namespace {

const Nid kLocal = *Nid::parse("10.0.0.1@tcp");
const Nid kPeer = *Nid::parse("10.0.0.2@tcp");
const Nid kRemote = *Nid::parse("192.168.5.9@o2ib3");
const lnetcap_layout kLo = live::builtin_layout("2.16.1")->lo;

struct Got {
  std::vector<std::uint8_t> bytes;
  RecordView view;
  std::uint64_t drops_before;
  std::uint32_t epb_flags;
  std::uint32_t iface;
};

std::vector<Got> drain(live::RingSource& src) {
  src.request_stop();
  std::vector<Got> out;
  CapturedRecord r;
  while (src.next(r)) {
    Got g;
    g.bytes.assign(r.bytes.begin(), r.bytes.end());
    std::string why;
    auto v = parse_record(ByteSpan(g.bytes), &why);
    EXPECT_TRUE(v) << why;
    if (!v) continue;
    g.view = *v;
    g.drops_before = r.drops_before;
    g.epb_flags = r.epb_flags;
    g.iface = r.interface_id;
    out.push_back(std::move(g));
  }
  return out;
}

class BpfCapture : public ::testing::Test {
 protected:
  void start(const lnetcap_cfg& cfg, std::uint32_t ring = 1u << 20) {
    cap_ = std::make_unique<UprobeCapture>(cfg, ring);
    src_ = std::make_unique<live::RingSource>(std::move(cap_->loaded()),
                                              std::vector<std::string>{"10.0.0.1@tcp"},
                                              cfg.snaplen, "test");
  }
  void SetUp() override {
    fake_.set_ni(kLocal);
    fake_.set_ni(kRemote, true);
    fake_.set_peer(kPeer);
    prctl(PR_SET_NAME, "ptlrpcd_01_00");
  }
  FakeLnet fake_{kLo};
  std::unique_ptr<UprobeCapture> cap_;
  std::unique_ptr<live::RingSource> src_;
};

TEST_F(BpfCapture, SendPutRecordIsExact) {
  start(default_cfg(1024));
  auto hdr = make_hdr(LNETCAP_MSG_PUT, kLocal, kPeer, 300, 12);
  fake_.set_hdr(hdr);
  fake_.set_msg(LNETCAP_MSG_PUT, 300, 300, false, false);
  fake_.set_flags(true, false, false);
  fake_.set_health(0, 2);
  lnet_ni_send(fake_.ni(), fake_.msg());
  auto got = drain(*src_);
  ASSERT_EQ(got.size(), 1u);
  const auto& g = got[0];
  const auto& h = g.view.hdr;
  EXPECT_EQ(h.direction, LNETCAP_DIR_SEND);
  EXPECT_EQ(h.hook, LNETCAP_HOOK_LNET_NI_SEND);
  EXPECT_EQ(h.lnd_type, LNETCAP_LND_SOCKLND);
  EXPECT_EQ(h.local_nid, kLocal);
  EXPECT_EQ(h.peer_nid, kPeer);
  EXPECT_EQ(h.retry_count, 2);
  EXPECT_TRUE(h.flags & LNETCAP_REC_F_HEALTH_VALID);
  EXPECT_TRUE(h.flags & LNETCAP_REC_F_TASK_VALID);
  EXPECT_FALSE(h.flags & LNETCAP_REC_F_PAYLOAD_UNREADABLE);
  EXPECT_EQ(h.pid, static_cast<std::uint32_t>(syscall(SYS_gettid)));
  EXPECT_EQ(h.comm, "ptlrpcd_01_00");
  EXPECT_EQ(h.payload_len, 300u);
  ASSERT_EQ(g.view.payload.size(), 300u);
  EXPECT_EQ(0, std::memcmp(g.view.payload.data(), fake_.payload().data() + 16, 300));
  ASSERT_EQ(g.view.lnet_header.size(), 96u);
  EXPECT_EQ(0, std::memcmp(g.view.lnet_header.data(), hdr.data(), 96));
  EXPECT_EQ(g.epb_flags, 2u);
  EXPECT_EQ(g.iface, 0u);
  EXPECT_EQ(g.drops_before, 0u);
  // Byte-exact against the reference encoder.
  RecordHeader ref = h;
  std::vector<std::uint8_t> enc;
  encode_record(ref, g.view.lnet_header, g.view.payload, enc);
  EXPECT_EQ(enc, g.bytes);
  auto st = src_->stats();
  EXPECT_EQ(st.received, 1u);
  EXPECT_EQ(st.dropped, 0u);
}

TEST_F(BpfCapture, SnaplenCutsAndSmallClass) {
  start(default_cfg(1024));
  fake_.set_hdr(make_hdr(LNETCAP_MSG_PUT, kLocal, kPeer, 3000, 12));
  fake_.set_msg(LNETCAP_MSG_PUT, 3000, 3000, false, false);
  lnet_ni_send(fake_.ni(), fake_.msg());
  fake_.set_msg(LNETCAP_MSG_PUT, 100, 100, false, false);
  lnet_ni_send(fake_.ni(), fake_.msg());
  auto got = drain(*src_);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].view.payload.size(), 1024u);
  EXPECT_EQ(got[0].view.hdr.payload_len, 3000u);
  EXPECT_TRUE(got[0].view.truncated());
  EXPECT_EQ(got[1].view.payload.size(), 100u);
  EXPECT_EQ(0, std::memcmp(got[1].view.payload.data(), fake_.payload().data() + 16, 100));
}

TEST_F(BpfCapture, HeadersOnlyWithSnaplenZero) {
  start(default_cfg(0));
  fake_.set_hdr(make_hdr(LNETCAP_MSG_PUT, kLocal, kPeer, 300, 12));
  fake_.set_msg(LNETCAP_MSG_PUT, 300, 300, false, false);
  lnet_ni_send(fake_.ni(), fake_.msg());
  auto got = drain(*src_);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].view.payload.size(), 0u);
  EXPECT_FALSE(got[0].view.hdr.flags & LNETCAP_REC_F_PAYLOAD_UNREADABLE);
}

TEST_F(BpfCapture, ForwardedAndPagePayloadsAreMarked) {
  start(default_cfg(1024));
  fake_.set_hdr(make_hdr(LNETCAP_MSG_PUT, kRemote, kPeer, 500, 6));
  fake_.set_msg(LNETCAP_MSG_PUT, 500, 500, false, true);  // router buffer: no MD
  fake_.set_flags(true, true, true);
  lnet_ni_send(fake_.ni(), fake_.msg());
  fake_.set_flags(true, false, false);
  fake_.set_msg(LNETCAP_MSG_PUT, 500, 500, true, false);  // bulk: KIOV MD
  lnet_ni_send(fake_.ni(), fake_.msg());
  auto got = drain(*src_);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].view.hdr.direction, LNETCAP_DIR_FORWARD);
  EXPECT_FALSE(got[0].view.hdr.flags & LNETCAP_REC_F_TASK_VALID);
  for (const auto& g : got) {
    // No page translation configured: unreadable, and the record says why.
    EXPECT_TRUE(g.view.hdr.flags & LNETCAP_REC_F_PAYLOAD_UNREADABLE);
    EXPECT_TRUE(g.view.hdr.flags & LNETCAP_REC_F_PAYLOAD_NO_PAGE_MAP);
    EXPECT_EQ(g.view.payload.size(), 0u);
  }
  EXPECT_EQ(got[1].view.hdr.direction, LNETCAP_DIR_SEND);
}

// Page vectors (every MD on Lustre 2.15+) read through the direct map:
// one piece, several pieces with odd offsets and an offset into the
// vector, through KASLR-style variables, received at lnet_finalize.
class BpfPages : public BpfCapture {
 protected:
  lnetcap_cfg pages_cfg(std::uint32_t snaplen, bool vars) {
    lnetcap_cfg c = default_cfg(snaplen);
    c.km = fake_.kmem(vars);
    return c;
  }
  /// Sends one PUT of len bytes and returns its record (views into
  /// got_, valid until the next send).
  const Got& send(std::uint32_t len) {
    fake_.set_hdr(make_hdr(LNETCAP_MSG_PUT, kLocal, kPeer, len, 12));
    put_len(len);
    fake_.set_flags(true, false, false);
    lnet_ni_send(fake_.ni(), fake_.msg());
    got_.push_back(drain(*src_));
    EXPECT_EQ(got_.back().size(), 1u);
    if (got_.back().empty()) got_.back().emplace_back();
    return got_.back()[0];
  }
  std::vector<std::vector<Got>> got_;
  void put_len(std::uint32_t len) {
    std::uint32_t v[2] = {len, len};
    std::memcpy(static_cast<std::uint8_t*>(fake_.msg()) + kLo.msg_len, v, sizeof(v));
  }
};

TEST_F(BpfPages, OnePieceIsReadExactly) {
  start(pages_cfg(1024, false));
  fake_.set_msg(LNETCAP_MSG_PUT, 0, 0, true, false);
  fake_.set_kiov({{2, 100, 3000}}, 40);
  auto g = send(700);
  EXPECT_FALSE(g.view.hdr.flags & LNETCAP_REC_F_PAYLOAD_UNREADABLE);
  EXPECT_EQ(g.view.payload.size(), 700u);
  EXPECT_EQ(std::vector<std::uint8_t>(g.view.payload.begin(), g.view.payload.end()),
            fake_.kiov_bytes(700));
}

TEST_F(BpfPages, SeveralPiecesAreGathered) {
  for (bool vars : {false, true}) {
    start(pages_cfg(3000, vars));
    fake_.set_msg(LNETCAP_MSG_PUT, 0, 0, true, false);
    // msg_offset 1300 skips the first piece and 300 bytes of the second;
    // the payload then spans four pieces, one of them empty.
    fake_.set_kiov({{5, 3096, 1000}, {1, 0, 700}, {3, 4000, 96}, {0, 0, 0}, {7, 10, 4000}},
                   1300);
    const auto& g = send(2500);
    EXPECT_FALSE(g.view.hdr.flags & LNETCAP_REC_F_PAYLOAD_UNREADABLE) << vars;
    ASSERT_EQ(g.view.payload.size(), 2500u) << vars;
    EXPECT_EQ(std::vector<std::uint8_t>(g.view.payload.begin(), g.view.payload.end()),
              fake_.kiov_bytes(2500))
        << vars;
    // Cut by the snap length, not unreadable.
    const auto& cut = send(4000);
    EXPECT_EQ(cut.view.payload.size(), 3000u);
    EXPECT_FALSE(cut.view.hdr.flags & LNETCAP_REC_F_PAYLOAD_UNREADABLE);
    EXPECT_EQ(std::vector<std::uint8_t>(cut.view.payload.begin(), cut.view.payload.end()),
              fake_.kiov_bytes(3000));
  }
}

TEST_F(BpfPages, SmallClassFromSeveralPieces) {
  start(pages_cfg(1024, false));
  fake_.set_msg(LNETCAP_MSG_PUT, 0, 0, true, false);
  fake_.set_kiov({{4, 4090, 6}, {6, 0, 4096}}, 0);
  auto g = send(200);
  ASSERT_EQ(g.view.payload.size(), 200u);
  EXPECT_EQ(std::vector<std::uint8_t>(g.view.payload.begin(), g.view.payload.end()),
            fake_.kiov_bytes(200));
}

// Device (GPU) memory is never read, sent or received: its struct pages
// are not host memory behind the direct map.  The record says why.
TEST_F(BpfPages, GpuMemoryIsNeverRead) {
  start(pages_cfg(1024, false));
  fake_.set_msg(LNETCAP_MSG_PUT, 0, 0, true, false);
  fake_.set_kiov({{2, 100, 3000}}, 40);
  fake_.add_md_bits(0, LNETCAP_LNET_MD_FLAG_GPU);
  const auto& g = send(700);
  EXPECT_EQ(g.view.payload.size(), 0u);
  EXPECT_TRUE(g.view.hdr.flags & LNETCAP_REC_F_PAYLOAD_UNREADABLE);
  EXPECT_TRUE(g.view.hdr.flags & LNETCAP_REC_F_PAYLOAD_DEVICE_MEMORY);
  EXPECT_EQ(g.view.hdr.payload_len, 700u);
}

// LNET_MD_DISCARD: what a receive leaves in the MD is not what was sent,
// so a received payload is left out; a send from such an MD is read.
TEST_F(BpfPages, DiscardMdReceivesAreNotRead) {
  start(pages_cfg(1024, true));
  fake_.set_hdr(make_hdr(LNETCAP_MSG_PUT, kPeer, kLocal, 900, 12));
  fake_.set_msg(LNETCAP_MSG_PUT, 900, 900, true, false);
  fake_.set_kiov({{1, 2048, 2048}, {2, 0, 4096}}, 1500);
  fake_.add_md_bits(LNETCAP_LNET_MD_DISCARD, 0);
  fake_.set_from(kPeer);
  fake_.set_flags(false, true, false);
  lnet_finalize(fake_.msg(), 0);
  auto got = drain(*src_);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].view.hdr.direction, LNETCAP_DIR_RECV);
  EXPECT_EQ(got[0].view.payload.size(), 0u);
  EXPECT_TRUE(got[0].view.hdr.flags & LNETCAP_REC_F_PAYLOAD_DISCARDED);

  start(pages_cfg(1024, true));
  fake_.set_msg(LNETCAP_MSG_PUT, 0, 0, true, false);
  fake_.set_kiov({{2, 100, 3000}}, 40);
  fake_.add_md_bits(LNETCAP_LNET_MD_DISCARD, 0);
  const auto& s = send(700);
  EXPECT_FALSE(s.view.hdr.flags & LNETCAP_REC_F_PAYLOAD_UNREADABLE);
  EXPECT_EQ(std::vector<std::uint8_t>(s.view.payload.begin(), s.view.payload.end()),
            fake_.kiov_bytes(700));
}

TEST_F(BpfPages, ReceivedPutAtFinalize) {
  start(pages_cfg(1024, true));
  fake_.set_hdr(make_hdr(LNETCAP_MSG_PUT, kPeer, kLocal, 900, 12));
  fake_.set_msg(LNETCAP_MSG_PUT, 900, 900, true, false);
  fake_.set_kiov({{1, 2048, 2048}, {2, 0, 4096}}, 1500);
  fake_.set_from(kPeer);
  fake_.set_flags(false, true, false);
  lnet_finalize(fake_.msg(), 0);
  auto got = drain(*src_);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].view.hdr.direction, LNETCAP_DIR_RECV);
  EXPECT_EQ(std::vector<std::uint8_t>(got[0].view.payload.begin(), got[0].view.payload.end()),
            fake_.kiov_bytes(900));
}

TEST_F(BpfPages, BadPagePointerSaysWhy) {
  start(pages_cfg(1024, false));
  fake_.set_msg(LNETCAP_MSG_PUT, 0, 0, true, false);
  fake_.set_kiov({{1, 0, 100}, {2, 0, 4096}}, 0);
  fake_.set_kiov_page_ptr(1, 8);  // not a struct page of the vmemmap
  auto g = send(1000);
  EXPECT_TRUE(g.view.hdr.flags & LNETCAP_REC_F_PAYLOAD_UNREADABLE);
  EXPECT_TRUE(g.view.hdr.flags & LNETCAP_REC_F_PAYLOAD_NO_PAGE_MAP);
  EXPECT_LT(g.view.payload.size(), 1000u);
}

TEST_F(BpfCapture, ReceivedGetAtParseOnly) {
  start(default_cfg(1024));
  std::uint8_t from[20];
  kPeer.to_lnet_nid(from);
  auto get = make_hdr(LNETCAP_MSG_GET, kPeer, kLocal, 0, 8);
  lnet_parse(fake_.ni(), get.data(), from, nullptr, 0);
  auto put = make_hdr(LNETCAP_MSG_PUT, kPeer, kLocal, 200, 12);
  lnet_parse(fake_.ni(), put.data(), from, nullptr, 0);  // waits for lnet_finalize
  auto routed = make_hdr(LNETCAP_MSG_GET, kPeer, kRemote, 0, 8);
  lnet_parse(fake_.ni(), routed.data(), from, nullptr, 0);  // forwarded: ni_send records it
  // To ourselves over 0@lo: the header names our tcp NID, the NI is lo.
  FakeLnet lo(kLo);
  lo.set_ni(*Nid::parse("0@lo"));
  auto self = make_hdr(LNETCAP_MSG_GET, kLocal, kLocal, 0, 8);
  lnet_parse(lo.ni(), self.data(), from, nullptr, 0);
  auto got = drain(*src_);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].view.hdr.local_nid, *Nid::parse("0@lo"));
  const auto& h = got[0].view.hdr;
  EXPECT_EQ(h.direction, LNETCAP_DIR_RECV);
  EXPECT_EQ(h.hook, LNETCAP_HOOK_LNET_PARSE);
  EXPECT_EQ(h.peer_nid, kPeer);
  EXPECT_EQ(h.local_nid, kLocal);
  EXPECT_FALSE(h.flags & (LNETCAP_REC_F_TASK_VALID | LNETCAP_REC_F_HEALTH_VALID));
  EXPECT_EQ(0, std::memcmp(got[0].view.lnet_header.data(), get.data(), 96));
  EXPECT_EQ(got[0].epb_flags, 1u);
}

TEST_F(BpfCapture, ReceivedPutAtFinalizeWithPayloadAndStatus) {
  start(default_cfg(1024));
  auto put = make_hdr(LNETCAP_MSG_PUT, kPeer, kLocal, 700, 12);
  fake_.set_hdr(put);
  fake_.set_from(kPeer);
  fake_.set_msg(LNETCAP_MSG_PUT, 700, 600, false, false);  // MD takes 600 of 700
  fake_.set_flags(false, true, false);
  fake_.set_health(LNETCAP_HEALTH_REMOTE_DROPPED, 1);
  lnet_finalize(fake_.msg(), -5);
  // Our own REPLY to a GET and a PUT's ACK are rx+tx committed: not RX records.
  fake_.set_flags(true, true, false);
  lnet_finalize(fake_.msg(), 0);
  // The REPLY of an RDMA GET we serve completes on the receive path,
  // addressed away and without a source NID (lnet_prep_send cleared it):
  // it is our SEND, with the NI's NID as its source.
  fake_.set_flags(false, true, false);
  fake_.set_hdr(make_hdr(LNETCAP_MSG_REPLY, Nid{}, kPeer, 700, 0));
  fake_.set_msg(LNETCAP_MSG_REPLY, 700, 700, false, false);
  lnet_finalize(fake_.msg(), 0);
  // A genuine received REPLY.
  fake_.set_hdr(make_hdr(LNETCAP_MSG_REPLY, kPeer, kLocal, 64, 0));
  fake_.set_msg(LNETCAP_MSG_REPLY, 64, 64, false, false);
  lnet_finalize(fake_.msg(), 0);
  auto got = drain(*src_);
  ASSERT_EQ(got.size(), 3u);
  const auto& rdma = got[1].view;
  EXPECT_EQ(rdma.hdr.direction, LNETCAP_DIR_SEND);
  EXPECT_EQ(rdma.hdr.hook, LNETCAP_HOOK_LNET_FINALIZE);
  EXPECT_EQ(rdma.hdr.payload_len, 700u);
  EXPECT_EQ(rdma.payload.size(), 700u);
  const auto sent = make_hdr(LNETCAP_MSG_REPLY, kLocal, kPeer, 700, 0);
  EXPECT_EQ(0, std::memcmp(rdma.lnet_header.data(), sent.data(), 96));
  // A receive that failed is a message LNet dropped, not a RECV.
  const auto& h = got[0].view.hdr;
  EXPECT_EQ(h.hook, LNETCAP_HOOK_LNET_FINALIZE);
  EXPECT_EQ(h.direction, LNETCAP_DIR_DROP);
  EXPECT_EQ(h.drop_reason, LNETCAP_DROP_RECV_FAILED);
  EXPECT_EQ(h.status, -5);
  EXPECT_TRUE(h.flags & LNETCAP_REC_F_STATUS_VALID);
  EXPECT_EQ(h.health_status, LNETCAP_HEALTH_REMOTE_DROPPED);
  EXPECT_EQ(h.retry_count, 1);
  EXPECT_EQ(h.peer_nid, kPeer);
  EXPECT_EQ(got[0].view.payload.size(), 0u);  // failed: nothing landed
  const auto& r = got[2].view;
  EXPECT_EQ(r.hdr.status, 0);
  ASSERT_EQ(r.payload.size(), 64u);
  EXPECT_EQ(0, std::memcmp(r.payload.data(), fake_.payload().data() + 16, 64));
}

TEST_F(BpfCapture, FailedSendIsOneMessageWithALinkedOutcome) {
  start(default_cfg(1024));
  fake_.set_hdr(make_hdr(LNETCAP_MSG_PUT, kLocal, kPeer, 224, 28));
  fake_.set_msg(LNETCAP_MSG_PUT, 224, 224, false, false);
  fake_.set_flags(true, false, false);
  fake_.set_health(0, 0);
  lnet_send(nullptr, fake_.msg(), nullptr);
  lnet_ni_send(fake_.ni(), fake_.msg());
  fake_.set_health(LNETCAP_HEALTH_REMOTE_TIMEOUT, 0);
  lnet_finalize(fake_.msg(), -110);
  // LNet raised the retry count and resends the same msg; its health stays
  // the failed attempt's until the LND completes this one.
  fake_.set_health(LNETCAP_HEALTH_REMOTE_TIMEOUT, 1);
  lnet_send(nullptr, fake_.msg(), nullptr);
  lnet_ni_send(fake_.ni(), fake_.msg());
  fake_.set_health(LNETCAP_HEALTH_OK, 1);
  lnet_finalize(fake_.msg(), 0);  // success: nothing more
  auto got = drain(*src_);
  ASSERT_EQ(got.size(), 3u);
  const auto& s0 = got[0].view.hdr;
  EXPECT_EQ(s0.direction, LNETCAP_DIR_SEND);
  EXPECT_EQ(s0.rec_hdr_len, 128u);
  EXPECT_EQ(s0.msg_id, LNETCAP_MSG_ID(s0.cpu, s0.seq));  // a new message
  EXPECT_FALSE(s0.is_outcome());
  EXPECT_TRUE(s0.flags & LNETCAP_REC_F_QUEUE_VALID);
  const auto& d = got[1].view.hdr;
  EXPECT_EQ(d.direction, LNETCAP_DIR_DROP);
  EXPECT_EQ(d.hook, LNETCAP_HOOK_LNET_FINALIZE);
  EXPECT_TRUE(d.is_outcome());
  EXPECT_EQ(d.msg_id, s0.msg_id);  // the SEND it completes
  EXPECT_EQ(d.drop_reason, LNETCAP_DROP_SEND_FAILED);
  EXPECT_EQ(d.status, -110);
  EXPECT_EQ(d.health_status, LNETCAP_HEALTH_REMOTE_TIMEOUT);
  EXPECT_EQ(d.local_nid, kLocal);
  EXPECT_EQ(d.peer_nid, kPeer);
  EXPECT_EQ(got[1].view.payload.size(), 0u);
  EXPECT_FALSE(d.flags & LNETCAP_REC_F_PAYLOAD_UNREADABLE);
  const auto& s1 = got[2].view.hdr;
  EXPECT_EQ(s1.direction, LNETCAP_DIR_SEND);
  EXPECT_EQ(s1.retry_count, 1);
  EXPECT_TRUE(s1.flags & LNETCAP_REC_F_HEALTH_VALID);
  EXPECT_EQ(s1.health_status, LNETCAP_HEALTH_OK);  // this attempt's, not the last one's
  EXPECT_EQ(s1.msg_id, s0.msg_id);  // the resend is the same message
  EXPECT_FALSE(s1.is_outcome());
}

// A send that completes without error after its waiter unlinked the MD
// (a ping past its timeout): LNet reports -ETIMEDOUT and does not count
// it as sent, when the MD has an event handler (lnet_msg_detach_md).
TEST_F(BpfCapture, SendOnAnAbortedMdIsATimedOutOutcome) {
  start(default_cfg(1024));
  fake_.set_hdr(make_hdr(LNETCAP_MSG_GET, kLocal, kPeer, 0, 0));
  fake_.set_msg(LNETCAP_MSG_GET, 0, 0, false, false);
  fake_.set_flags(true, false, false);
  fake_.set_health(0, 0);
  lnet_send(nullptr, fake_.msg(), nullptr);
  lnet_ni_send(fake_.ni(), fake_.msg());
  fake_.set_md_aborted(true, true);
  lnet_finalize(fake_.msg(), 0);
  // Not resent: the same lnet_msg sent again is a new message.
  fake_.set_md_aborted(false, false);
  lnet_ni_send(fake_.ni(), fake_.msg());
  // Aborted MD without a handler: LNet keeps status 0, nothing more.
  fake_.set_md_aborted(true, false);
  lnet_finalize(fake_.msg(), 0);
  auto got = drain(*src_);
  ASSERT_EQ(got.size(), 3u);
  const auto& s0 = got[0].view.hdr;
  EXPECT_EQ(s0.direction, LNETCAP_DIR_SEND);
  const auto& d = got[1].view.hdr;
  EXPECT_EQ(d.direction, LNETCAP_DIR_DROP);
  EXPECT_TRUE(d.is_outcome());
  EXPECT_EQ(d.msg_id, s0.msg_id);
  EXPECT_EQ(d.drop_reason, LNETCAP_DROP_SEND_FAILED);
  EXPECT_TRUE(d.flags & LNETCAP_REC_F_STATUS_VALID);
  EXPECT_EQ(d.status, -110);
  const auto& s1 = got[2].view.hdr;
  EXPECT_EQ(s1.direction, LNETCAP_DIR_SEND);
  EXPECT_FALSE(s1.is_outcome());
  EXPECT_NE(s1.msg_id, s0.msg_id);
  EXPECT_FALSE(s1.flags & LNETCAP_REC_F_QUEUE_VALID);
}

TEST_F(BpfCapture, QueueTimeRunsFromLnetSendToTheLnd) {
  start(default_cfg(0));
  fake_.set_hdr(make_hdr(LNETCAP_MSG_PUT, kLocal, kPeer, 224, 28));
  fake_.set_msg(LNETCAP_MSG_PUT, 224, 224, false, false);
  fake_.set_flags(true, false, false);
  fake_.set_health(0, 0);
  timespec a{}, b{};
  clock_gettime(CLOCK_MONOTONIC, &a);
  lnet_send(nullptr, fake_.msg(), nullptr);
  usleep(20000);  // credits or a delay rule hold it
  lnet_ni_send(fake_.ni(), fake_.msg());
  clock_gettime(CLOCK_MONOTONIC, &b);
  lnet_finalize(fake_.msg(), 0);
  lnet_ni_send(fake_.ni(), fake_.msg());  // no lnet_send seen: no queue time
  auto got = drain(*src_);
  ASSERT_EQ(got.size(), 2u);
  const auto& h = got[0].view.hdr;
  ASSERT_TRUE(h.flags & LNETCAP_REC_F_QUEUE_VALID);
  const std::uint64_t outer = (b.tv_sec - a.tv_sec) * 1000000000ull + b.tv_nsec - a.tv_nsec;
  EXPECT_GE(h.queue_ns, 20000000u);
  EXPECT_LE(h.queue_ns, outer);
  EXPECT_FALSE(got[1].view.hdr.flags & LNETCAP_REC_F_QUEUE_VALID);
  EXPECT_EQ(got[1].view.hdr.queue_ns, 0u);
}

// A message this node forwards is timed from its arrival (the receive
// commit in lnet_parse), so the wait for a router buffer before LNet
// received it and called lnet_send is in its FORWARD's queue time.
TEST_F(BpfCapture, ForwardQueueTimeIncludesTheRouterBufferWait) {
  start(default_cfg(0));
  fake_.set_hdr(make_hdr(LNETCAP_MSG_PUT, kRemote, kPeer, 500, 6));
  fake_.set_msg(LNETCAP_MSG_PUT, 500, 500, false, true);
  fake_.set_flags(false, false, true);  // routing, not committed yet
  fake_.set_health(0, 0);
  lnet_msg_commit(fake_.msg(), 0);
  usleep(20000);                         // waits for a router buffer
  fake_.set_flags(false, true, true);    // received into it
  lnet_finalize(fake_.msg(), 0);
  lnet_send(nullptr, fake_.msg(), nullptr);
  lnet_msg_commit(fake_.msg(), 0);      // the send commit: not an arrival
  fake_.set_flags(true, true, true);
  lnet_ni_send(fake_.ni(), fake_.msg());
  auto got = drain(*src_);
  ASSERT_EQ(got.size(), 1u);
  const auto& h = got[0].view.hdr;
  EXPECT_EQ(h.direction, LNETCAP_DIR_FORWARD);
  ASSERT_TRUE(h.flags & LNETCAP_REC_F_QUEUE_VALID);
  EXPECT_GE(h.queue_ns, 20000000u);
}

// LNet lowers a peer NI's health with no message at hand when a response
// times out (the monitor thread); the same call from a send's health check
// right after its failure is that send's DROP, not another record.
TEST_F(BpfCapture, ResponseTimeoutIsOneRecordOnlyFromTheMonitorThread) {
  start(default_cfg(0));
  fake_.set_hdr(make_hdr(LNETCAP_MSG_PUT, kLocal, kPeer, 224, 28));
  fake_.set_msg(LNETCAP_MSG_PUT, 224, 224, false, false);
  fake_.set_flags(true, false, false);
  std::thread monitor([&] {
    prctl(PR_SET_NAME, "monitor_thread");
    fake_.set_health(0, 0);
    lnet_send(nullptr, fake_.msg(), nullptr);
    lnet_ni_send(fake_.ni(), fake_.msg());
    fake_.set_health(LNETCAP_HEALTH_REMOTE_ERROR, 0);
    lnet_finalize(fake_.msg(), -113);
    lnet_handle_remote_failure_locked(fake_.peer());  // its health check
    lnet_handle_remote_failure_locked(fake_.peer());  // a response timeout
  });
  monitor.join();
  lnet_handle_remote_failure_locked(fake_.peer());  // not the monitor thread
  auto got = drain(*src_);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[1].view.hdr.drop_reason, LNETCAP_DROP_SEND_FAILED);
  const auto& r = got[2].view;
  EXPECT_EQ(r.hdr.direction, LNETCAP_DIR_DROP);
  EXPECT_EQ(r.hdr.hook, LNETCAP_HOOK_LNET_REMOTE_FAILURE);
  EXPECT_EQ(r.hdr.drop_reason, LNETCAP_DROP_RESPONSE_TIMEOUT);
  EXPECT_TRUE(r.hdr.is_outcome());
  EXPECT_EQ(r.hdr.msg_id, 0u);  // of a message no record names
  EXPECT_EQ(r.hdr.health_status, LNETCAP_HEALTH_REMOTE_TIMEOUT);
  EXPECT_EQ(r.hdr.status, -110);
  EXPECT_EQ(r.hdr.peer_nid, kPeer);
  EXPECT_EQ(r.lnet_header.size(), 0u);
}

TEST_F(BpfCapture, SendDroppedBeforeTheLndIsOneDrop) {
  start(default_cfg(1024));
  fake_.set_hdr(make_hdr(LNETCAP_MSG_PUT, kLocal, kPeer, 224, 28));
  fake_.set_msg(LNETCAP_MSG_PUT, 224, 224, false, false);
  fake_.set_flags(true, false, false);
  fake_.set_health(LNETCAP_HEALTH_REMOTE_DROPPED, 0);
  lnet_send(nullptr, fake_.msg(), nullptr);
  lnet_finalize(fake_.msg(), -113);  // lnet_post_send_locked: peer not alive
  // Accepted, never committed (no route): LNet frees it with an error.
  fake_.set_flags(false, false, false);
  lnet_send(nullptr, fake_.msg(), nullptr);
  lnet_finalize(fake_.msg(), -113);
  lnet_finalize(fake_.msg(), -113);  // unknown msg, not tx: nothing
  auto got = drain(*src_);
  ASSERT_EQ(got.size(), 2u);
  for (const auto& g : got) {
    const auto& d = g.view.hdr;
    EXPECT_EQ(d.direction, LNETCAP_DIR_DROP);
    EXPECT_FALSE(d.is_outcome());
    EXPECT_EQ(d.msg_id, LNETCAP_MSG_ID(d.cpu, d.seq));
    EXPECT_EQ(d.drop_reason, LNETCAP_DROP_SEND_BEFORE_LND);
    EXPECT_EQ(d.status, -113);
    EXPECT_TRUE(d.flags & LNETCAP_REC_F_QUEUE_VALID);
  }
  EXPECT_EQ(got[0].view.hdr.health_status, LNETCAP_HEALTH_REMOTE_DROPPED);
}

// LNetGetForce (2.17+: lnet_discover_nid_metadata) builds a GET, sets its
// src_nid to the NI's and hands it to the LND's lnd_send: no lnet_send, no
// lnet_ni_send, never committed, no msg_txni/msg_txpeer.  Its lnet_finalize
// is its one record: a SEND (DROP send-failed when it failed), local NID
// from src_nid, peer from dest_nid.  A GET that LNet never committed
// otherwise has no src_nid yet (lnet_handle_send sets it after the commit)
// or is a resend (msg_retry_count > 0): not one of these.
TEST_F(BpfCapture, GetForceSendIsRecordedAtFinalize) {
  start(default_cfg(1024));
  // A failed send leaves its entry in `held` (LNet may resend it); the
  // forced GET below reuses the address and must not inherit it.
  fake_.set_hdr(make_hdr(LNETCAP_MSG_PUT, kLocal, kPeer, 224, 28));
  fake_.set_msg(LNETCAP_MSG_PUT, 224, 224, false, false);
  fake_.set_flags(true, false, false);
  fake_.set_health(0, 0);
  lnet_send(nullptr, fake_.msg(), nullptr);
  lnet_ni_send(fake_.ni(), fake_.msg());
  fake_.set_health(LNETCAP_HEALTH_REMOTE_TIMEOUT, 0);
  lnet_finalize(fake_.msg(), -110);
  const auto get = make_hdr(LNETCAP_MSG_GET, kLocal, kPeer, 0, 0);
  fake_.set_hdr(get);
  fake_.set_msg(LNETCAP_MSG_GET, 0, 0, false, false);
  fake_.set_flags(false, false, false);
  fake_.set_health(LNETCAP_HEALTH_OK, 0);
  lnet_finalize(fake_.msg(), 0);  // the LND sent it
  lnet_finalize(fake_.msg(), -113);  // lnd_send refused the next one
  // Not forced GETs: no src_nid yet (dropped in lnet_send before the
  // commit), and a resend LNet gave up on in its resend queue.
  fake_.set_hdr(make_hdr(LNETCAP_MSG_GET, Nid{}, kPeer, 0, 0));
  lnet_finalize(fake_.msg(), 0);
  fake_.set_hdr(get);
  fake_.set_health(LNETCAP_HEALTH_OK, 1);
  lnet_finalize(fake_.msg(), 0);
  auto got = drain(*src_);
  ASSERT_EQ(got.size(), 4u);  // the PUT's SEND and DROP, the two GETs
  const auto& s = got[2].view;
  EXPECT_EQ(s.hdr.direction, LNETCAP_DIR_SEND);
  EXPECT_EQ(s.hdr.hook, LNETCAP_HOOK_LNET_FINALIZE);
  EXPECT_EQ(s.hdr.local_nid, kLocal);
  EXPECT_EQ(s.hdr.peer_nid, kPeer);
  EXPECT_EQ(s.hdr.lnd_type, LNETCAP_LND_SOCKLND);
  EXPECT_EQ(s.hdr.status, 0);
  EXPECT_TRUE(s.hdr.flags & LNETCAP_REC_F_STATUS_VALID);
  EXPECT_FALSE(s.hdr.flags & LNETCAP_REC_F_QUEUE_VALID);  // LNet never held it
  EXPECT_FALSE(s.hdr.is_outcome());
  EXPECT_EQ(s.hdr.msg_id, LNETCAP_MSG_ID(s.hdr.cpu, s.hdr.seq));  // a message of its own
  EXPECT_EQ(s.hdr.payload_len, 0u);
  EXPECT_EQ(s.payload.size(), 0u);
  ASSERT_EQ(s.lnet_header.size(), 96u);
  EXPECT_EQ(0, std::memcmp(s.lnet_header.data(), get.data(), 96));
  const auto& d = got[3].view.hdr;
  EXPECT_EQ(d.direction, LNETCAP_DIR_DROP);
  EXPECT_EQ(d.hook, LNETCAP_HOOK_LNET_FINALIZE);
  EXPECT_EQ(d.drop_reason, LNETCAP_DROP_SEND_FAILED);
  EXPECT_EQ(d.status, -113);
  EXPECT_FALSE(d.is_outcome());
  EXPECT_EQ(d.local_nid, kLocal);
  EXPECT_EQ(d.peer_nid, kPeer);
  EXPECT_EQ(0, std::memcmp(got[3].view.lnet_header.data(), get.data(), 96));
}

TEST_F(BpfCapture, ReceivedMessagesLnetDropsAreOneDropEach) {
  start(default_cfg(1024));
  std::uint8_t from[20];
  kPeer.to_lnet_nid(from);
  // A PUT that matches no MD: lnet_parse finalizes it with -ENOENT, then
  // calls lnet_drop_message.  One DROP, no RECV.
  auto put = make_hdr(LNETCAP_MSG_PUT, kPeer, kLocal, 200, 12);
  fake_.set_hdr(put);
  fake_.set_from(kPeer);
  fake_.set_msg(LNETCAP_MSG_PUT, 200, 200, false, false);
  fake_.set_flags(false, true, false);
  parse_body = [&] {
    lnet_finalize(fake_.msg(), -2);
    lnet_drop_message(fake_.ni(), 0, nullptr, 200, LNETCAP_MSG_PUT);
    return 0;
  };
  lnet_parse(fake_.ni(), put.data(), from, nullptr, 0);
  // A GET a drop rule drops: its RECV (at lnet_parse) and the DROP, which
  // is the RECV's outcome.
  auto get = make_hdr(LNETCAP_MSG_GET, kPeer, kLocal, 0, 8);
  std::uint8_t local[20];
  kLocal.to_lnet_nid(local);
  parse_body = [&] {
    drop_rule_verdict = true;
    bool drop = lnet_drop_rule_match(get.data(), local, nullptr);
    drop_rule_verdict = false;
    if (drop) lnet_drop_message(fake_.ni(), 0, nullptr, 0, LNETCAP_MSG_GET);
    return 0;
  };
  lnet_parse(fake_.ni(), get.data(), from, nullptr, 0);
  // A PUT dropped before a message exists (routing off, no memory).
  auto put2 = make_hdr(LNETCAP_MSG_PUT, kPeer, kLocal, 300, 12);
  parse_body = [&] {
    lnet_drop_message(fake_.ni(), 0, nullptr, 300, LNETCAP_MSG_PUT);
    return 0;
  };
  lnet_parse(fake_.ni(), put2.data(), from, nullptr, 0);
  // A malformed header: lnet_parse returns -EPROTO.
  auto bad = make_hdr(LNETCAP_MSG_ACK, kPeer, kLocal, 0, 0);
  parse_body = [] { return -71; };
  lnet_parse(fake_.ni(), bad.data(), from, nullptr, 0);
  // A drop_message outside lnet_parse has no header: not recorded.
  lnet_drop_message(fake_.ni(), 0, nullptr, 1, LNETCAP_MSG_PUT);
  // A receive that fails after lnet_parse (the LND's payload transfer).
  lnet_finalize(fake_.msg(), -5);
  auto got = drain(*src_);
  ASSERT_EQ(got.size(), 7u);
  auto expect_drop = [&](const Got& g, std::uint8_t hook, std::uint8_t reason,
                         const std::vector<std::uint8_t>& hdr) {
    const auto& d = g.view.hdr;
    EXPECT_EQ(d.direction, LNETCAP_DIR_DROP);
    EXPECT_EQ(d.hook, hook);
    EXPECT_EQ(d.drop_reason, reason);
    EXPECT_EQ(d.peer_nid, kPeer);
    EXPECT_EQ(d.local_nid, kLocal);
    EXPECT_EQ(0, std::memcmp(g.view.lnet_header.data(), hdr.data(), 96));
    EXPECT_EQ(g.view.payload.size(), 0u);
  };
  expect_drop(got[0], LNETCAP_HOOK_LNET_FINALIZE, LNETCAP_DROP_RECV_NO_MATCH, put);
  EXPECT_EQ(got[0].view.hdr.status, -2);
  EXPECT_FALSE(got[0].view.hdr.is_outcome());
  EXPECT_EQ(got[1].view.hdr.direction, LNETCAP_DIR_RECV);
  expect_drop(got[2], LNETCAP_HOOK_LNET_DROP, LNETCAP_DROP_DROP_RULE, get);
  EXPECT_TRUE(got[2].view.hdr.is_outcome());
  EXPECT_EQ(got[2].view.hdr.msg_id, got[1].view.hdr.msg_id);
  EXPECT_FALSE(got[2].view.hdr.flags & LNETCAP_REC_F_STATUS_VALID);
  expect_drop(got[3], LNETCAP_HOOK_LNET_DROP, LNETCAP_DROP_PARSE_DROPPED, put2);
  EXPECT_EQ(got[3].view.hdr.payload_len, 300u);
  EXPECT_FALSE(got[3].view.hdr.is_outcome());
  EXPECT_EQ(got[4].view.hdr.direction, LNETCAP_DIR_RECV);  // the ACK, at lnet_parse
  expect_drop(got[5], LNETCAP_HOOK_LNET_PARSE, LNETCAP_DROP_MALFORMED, bad);
  EXPECT_EQ(got[5].view.hdr.status, -71);
  EXPECT_TRUE(got[5].view.hdr.is_outcome());
  expect_drop(got[6], LNETCAP_HOOK_LNET_FINALIZE, LNETCAP_DROP_RECV_FAILED, put);
  EXPECT_EQ(got[6].view.hdr.status, -5);
}

TEST_F(BpfCapture, FinalizeUsesMsgWanted) {
  start(default_cfg(1024));
  fake_.set_hdr(make_hdr(LNETCAP_MSG_PUT, kPeer, kLocal, 700, 12));
  fake_.set_msg(LNETCAP_MSG_PUT, 700, 600, false, false);
  fake_.set_flags(false, true, false);
  lnet_finalize(fake_.msg(), 0);
  auto got = drain(*src_);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].view.payload.size(), 600u);
  EXPECT_EQ(got[0].view.hdr.payload_len, 700u);
}

TEST_F(BpfCapture, KernelFilterRejectsAndCounts) {
  Options o;
  o.interface = "tcp";
  auto cfg = live::make_cfg(o, filter::Filter::parse("type get and portal 8"), kLo, 1024);
  start(cfg);
  std::uint8_t from[20];
  kPeer.to_lnet_nid(from);
  auto get8 = make_hdr(LNETCAP_MSG_GET, kPeer, kLocal, 0, 8);
  auto get9 = make_hdr(LNETCAP_MSG_GET, kPeer, kLocal, 0, 9);
  lnet_parse(fake_.ni(), get8.data(), from, nullptr, 0);  // kept
  lnet_parse(fake_.ni(), get9.data(), from, nullptr, 0);  // portal
  fake_.set_hdr(make_hdr(LNETCAP_MSG_PUT, kLocal, kPeer, 10, 8));
  fake_.set_msg(LNETCAP_MSG_PUT, 10, 10, false, false);
  lnet_ni_send(fake_.ni(), fake_.msg());  // type
  auto get8b = make_hdr(LNETCAP_MSG_GET, kPeer, kRemote, 0, 8);
  kRemote.to_lnet_nid(from);
  lnet_parse(fake_.ni2(), get8b.data(), from, nullptr, 0);  // -i tcp: NI is o2ib3
  auto got = drain(*src_);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(0, std::memcmp(got[0].view.lnet_header.data(), get8.data(), 96));
  auto k = src_->bpf().stats();
  EXPECT_EQ(k[LNETCAP_STAT_SEEN], 4u);
  EXPECT_EQ(k[LNETCAP_STAT_FILTERED], 3u);
  EXPECT_EQ(k[LNETCAP_STAT_EMITTED], 1u);
  EXPECT_EQ(src_->stats().filtered, 3u);
}

// The direct capture's filter as clauses in .rodata (cfg.clause): "ni" and
// disjunctions are tested in the kernel by the same evaluator as
// lnetcapd's table, and keep exactly the messages the filter keeps.
TEST_F(BpfCapture, FixedClausesTestNiAndDisjunctions) {
  struct Case {
    const char* filter;
    std::size_t kept;     // of the four messages below, by the kernel
    std::size_t matched;  // by the filter (fewer: a term left to user space)
  } const cases[] = {
      {"ni 192.168.5.9@o2ib3", 1, 1},              // the GET on the o2ib3 NI
      {"not ni 192.168.5.9@o2ib3", 4, 3},          // user space only: all go up
      {"ni o2ib3 or type ack", 2, 2},              // that GET and the ACK
      {"(type get and portal 9) or (dir send and type put)", 2, 2},
      {"ni tcp and (type ack or portal 8)", 2, 2},  // the ACK and the first GET
      {"ni tcp and (type ack or len > 5)", 3, 2},  // len: every tcp PUT goes up
  };
  std::uint8_t peer[20], remote[20];
  kPeer.to_lnet_nid(peer);
  kRemote.to_lnet_nid(remote);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.filter);
    const filter::Filter f = filter::Filter::parse(c.filter);
    src_.reset();
    cap_.reset();
    start(live::make_cfg(Options{}, f, kLo, 64));
    auto get8 = make_hdr(LNETCAP_MSG_GET, kPeer, kLocal, 0, 8);
    lnet_parse(fake_.ni(), get8.data(), peer, nullptr, 0);
    auto get9 = make_hdr(LNETCAP_MSG_GET, kPeer, kRemote, 0, 9);
    lnet_parse(fake_.ni2(), get9.data(), remote, nullptr, 0);
    auto ack = make_hdr(LNETCAP_MSG_ACK, kPeer, kLocal, 0, 0);
    lnet_parse(fake_.ni(), ack.data(), peer, nullptr, 0);
    fake_.set_hdr(make_hdr(LNETCAP_MSG_PUT, kLocal, kPeer, 10, 12));
    fake_.set_msg(LNETCAP_MSG_PUT, 10, 10, false, false);
    lnet_ni_send(fake_.ni(), fake_.msg());
    auto got = drain(*src_);
    std::size_t matched = 0;
    for (const auto& r : got) matched += f.matches(decode_message(r.view, 0, 0));
    // Nothing the filter keeps is lost, and the kernel passed nothing else
    // unless the filter has a term it cannot test.
    EXPECT_EQ(got.size(), c.kept);
    EXPECT_EQ(matched, c.matched);
    auto k = src_->bpf().stats();
    EXPECT_EQ(k[LNETCAP_STAT_SEEN], 4u);
    EXPECT_EQ(k[LNETCAP_STAT_FILTERED], 4u - c.kept);
  }
}

// lnetcapd's clause table (cfg.filter_sub): what no clause admits is
// filtered in the kernel and takes no sequence number, so it never shows
// as a drop; the table is rewritten while the programs are attached; a
// table being rewritten (odd gen) lets everything through.
TEST_F(BpfCapture, SubscriberClauseTableFiltersWithoutGaps) {
  lnetcap_cfg cfg = default_cfg(1024);
  cfg.filter_sub = 1;
  start(cfg);
  lnetcap_subfilter* table = src_->kernel_clause_table();
  ASSERT_NE(table, nullptr);
  live::SubfilterWriter writer(table);
  cpu_set_t one, old;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  sched_getaffinity(0, sizeof(old), &old);
  sched_setaffinity(0, sizeof(one), &one);  // one per-CPU sequence
  std::uint8_t from[20];
  kPeer.to_lnet_nid(from);
  auto get_peer = make_hdr(LNETCAP_MSG_GET, kPeer, kLocal, 0, 8);
  auto get_remote = make_hdr(LNETCAP_MSG_GET, kRemote, kLocal, 0, 8);
  auto send_put = [&] {
    fake_.set_hdr(make_hdr(LNETCAP_MSG_PUT, kLocal, kPeer, 10, 12));
    fake_.set_msg(LNETCAP_MSG_PUT, 10, 10, false, false);
    fake_.set_flags(true, false, false);
    lnet_ni_send(fake_.ni(), fake_.msg());
  };
  send_put();  // the table starts empty: no subscriber, nothing goes up
  writer.publish(filter::kernel_clauses(filter::Filter::parse("type get and src nid 10.0.0.2@tcp")));
  send_put();                                                   // type
  lnet_parse(fake_.ni(), get_peer.data(), from, nullptr, 0);    // kept
  lnet_parse(fake_.ni(), get_remote.data(), from, nullptr, 0);  // src NID
  send_put();                                                   // type
  lnet_parse(fake_.ni(), get_peer.data(), from, nullptr, 0);    // kept
  table->gen |= 1;  // a writer in the middle of a rewrite: pass
  send_put();
  table->gen += 1;
  writer.publish(filter::KernelClauseSet::everything());
  send_put();
  sched_setaffinity(0, sizeof(old), &old);
  auto got = drain(*src_);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].view.hdr.direction, LNETCAP_DIR_RECV);
  EXPECT_EQ(got[1].view.hdr.direction, LNETCAP_DIR_RECV);
  EXPECT_EQ(got[2].view.hdr.direction, LNETCAP_DIR_SEND);
  EXPECT_EQ(got[3].view.hdr.direction, LNETCAP_DIR_SEND);
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].drops_before, 0u) << "record " << i;
    if (i) {
      EXPECT_EQ(got[i].view.hdr.seq, got[i - 1].view.hdr.seq + 1) << "record " << i;
    }
  }
  auto k = src_->bpf().stats();
  EXPECT_EQ(k[LNETCAP_STAT_SEEN], 8u);
  EXPECT_EQ(k[LNETCAP_STAT_FILTERED], 4u);
  EXPECT_EQ(k[LNETCAP_STAT_EMITTED], 4u);
  EXPECT_EQ(k[LNETCAP_STAT_RING_FULL], 0u);
  auto st = src_->stats();
  EXPECT_EQ(st.dropped, 0u);
  EXPECT_EQ(st.filtered, 4u);
}

// Without cfg.filter_sub (lnetcap itself) there is no table to write.
TEST_F(BpfCapture, ClauseTableOnlyForTheDaemon) {
  start(default_cfg(64));
  EXPECT_EQ(src_->kernel_clause_table(), nullptr);
  fake_.set_hdr(make_hdr(LNETCAP_MSG_PUT, kLocal, kPeer, 10, 12));
  fake_.set_msg(LNETCAP_MSG_PUT, 10, 10, false, false);
  lnet_ni_send(fake_.ni(), fake_.msg());
  EXPECT_EQ(drain(*src_).size(), 1u);
}

// The production kprobe flavour passes the verifier with the clause table
// on (loaded, not attached: kprobes need Lustre), and with it off the
// stage is dead code the verifier removes: fewer instructions.
std::uint32_t xlated_bytes(live::LoadedBpf& bpf, const char* prog) {
  bpf_program* p = bpf_object__find_program_by_name(bpf.object(), prog);
  EXPECT_NE(p, nullptr) << prog;
  if (!p) return 0;
  bpf_prog_info info{};
  std::uint32_t len = sizeof(info);
  EXPECT_EQ(bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len), 0);
  return info.xlated_prog_len;
}

TEST(BpfLoad, KprobeFlavourLoadsWithTheClauseTableAndDropsItWhenOff) {
  lnetcap_cfg cfg = default_cfg(1024);
  auto off = live::load_skeleton<lnetcap_kprobe>(cfg, 1u << 20, false, "kprobe");
  cfg.filter_sub = 1;
  auto on = live::load_skeleton<lnetcap_kprobe>(cfg, 1u << 20, false, "kprobe");
  ASSERT_NE(on->subfilter(), nullptr);
  EXPECT_EQ(off->subfilter(), nullptr);
  for (const char* prog : {"lnetcap_kprobe_lnet_ni_send", "lnetcap_kprobe_lnet_parse",
                           "lnetcap_kprobe_lnet_finalize"}) {
    const std::uint32_t without = xlated_bytes(*off, prog), with = xlated_bytes(*on, prog);
    EXPECT_LT(without, with) << prog;
    std::printf("%s: %u bytes of instructions without the clause table, %u with\n", prog,
                without, with);
  }
}

// -Q out: each received message is counted once as seen and rejected, at
// the hook that would have recorded it (lnet_parse for GET/ACK,
// lnet_finalize for PUT/REPLY), never at both.
TEST_F(BpfCapture, OutOnlyCountsEachReceivedMessageOnce) {
  Options o;
  o.direction = Direction::kOut;
  start(live::make_cfg(o, filter::Filter(), kLo, 1024));
  std::uint8_t from[20];
  kPeer.to_lnet_nid(from);
  // A received PUT: lnet_parse, then lnet_finalize once its payload landed.
  auto put = make_hdr(LNETCAP_MSG_PUT, kPeer, kLocal, 100, 12);
  lnet_parse(fake_.ni(), put.data(), from, nullptr, 0);
  fake_.set_hdr(put);
  fake_.set_msg(LNETCAP_MSG_PUT, 100, 100, false, false);
  fake_.set_flags(false, true, false);
  lnet_finalize(fake_.msg(), 0);
  // A received ACK: lnet_parse, then lnet_finalize of the same message.
  auto ack = make_hdr(LNETCAP_MSG_ACK, kPeer, kLocal, 0, 0);
  lnet_parse(fake_.ni(), ack.data(), from, nullptr, 0);
  fake_.set_hdr(ack);
  fake_.set_msg(LNETCAP_MSG_ACK, 0, 0, false, true);
  lnet_finalize(fake_.msg(), 0);
  // One sent PUT, kept.
  fake_.set_hdr(make_hdr(LNETCAP_MSG_PUT, kLocal, kPeer, 10, 12));
  fake_.set_msg(LNETCAP_MSG_PUT, 10, 10, false, false);
  fake_.set_flags(true, false, false);
  lnet_ni_send(fake_.ni(), fake_.msg());
  auto got = drain(*src_);
  ASSERT_EQ(got.size(), 1u);
  auto k = src_->bpf().stats();
  EXPECT_EQ(k[LNETCAP_STAT_SEEN], 3u);
  EXPECT_EQ(k[LNETCAP_STAT_FILTERED], 2u);
  EXPECT_EQ(k[LNETCAP_STAT_EMITTED], 1u);
}

TEST_F(BpfCapture, DirectionAndNidTerms) {
  Options o;
  o.direction = Direction::kIn;
  start(live::make_cfg(o, filter::Filter::parse("src nid 10.0.0.2@tcp"), kLo, 64));
  std::uint8_t from[20];
  kPeer.to_lnet_nid(from);
  auto ack = make_hdr(LNETCAP_MSG_ACK, kPeer, kLocal, 0, 0);
  auto ack2 = make_hdr(LNETCAP_MSG_ACK, kRemote, kLocal, 0, 0);
  lnet_parse(fake_.ni(), ack.data(), from, nullptr, 0);
  lnet_parse(fake_.ni(), ack2.data(), from, nullptr, 0);
  fake_.set_hdr(make_hdr(LNETCAP_MSG_PUT, kPeer, kLocal, 10, 8));
  fake_.set_msg(LNETCAP_MSG_PUT, 10, 10, false, false);
  lnet_ni_send(fake_.ni(), fake_.msg());  // -Q in
  auto got = drain(*src_);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].view.hdr.direction, LNETCAP_DIR_RECV);
  EXPECT_EQ(src_->stats().filtered, 2u);
}

TEST_F(BpfCapture, TinyRingDropsAreCountedAndReported) {
  // One page holds three 1232-byte records.
  start(default_cfg(1024), 4096);
  fake_.set_hdr(make_hdr(LNETCAP_MSG_PUT, kLocal, kPeer, 2000, 12));
  fake_.set_msg(LNETCAP_MSG_PUT, 2000, 2000, false, false);
  // Pin to one CPU so the per-CPU sequence is one stream.
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  cpu_set_t old;
  sched_getaffinity(0, sizeof(old), &old);
  sched_setaffinity(0, sizeof(one), &one);
  for (int i = 0; i < 10; ++i) lnet_ni_send(fake_.ni(), fake_.msg());
  CapturedRecord r;
  std::vector<std::uint64_t> drops;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(src_->next(r));
    drops.push_back(r.drops_before);
  }
  lnet_ni_send(fake_.ni(), fake_.msg());  // room again
  sched_setaffinity(0, sizeof(old), &old);
  auto rest = drain(*src_);
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(drops, (std::vector<std::uint64_t>{0, 0, 0}));
  EXPECT_EQ(rest[0].drops_before, 7u);
  EXPECT_EQ(rest[0].view.hdr.seq, 10u);
  auto st = src_->stats();
  EXPECT_EQ(st.dropped, 7u);
  EXPECT_EQ(st.received, 4u);
}

TEST_F(BpfCapture, TestRunDriverEmitsRecords) {
  start(default_cfg(256));
  fake_.set_hdr(make_hdr(LNETCAP_MSG_PUT, kLocal, kPeer, 256, 12));
  fake_.set_msg(LNETCAP_MSG_PUT, 256, 256, false, false);
  fake_.set_flags(true, false, false);
  ASSERT_EQ(cap_->bench_send(fake_.ni(), fake_.msg(), 100), 0);
  auto got = drain(*src_);
  ASSERT_EQ(got.size(), 100u);
  EXPECT_EQ(got[99].view.payload.size(), 256u);
}

TEST_F(BpfCapture, WorksAfterDroppingPrivileges) {
  // -Z: the ring and the counters are mmapped before the drop, so records
  // and statistics still flow without CAP_BPF.
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    start(default_cfg(64));
    live::drop_privileges("nobody");
    fake_.set_hdr(make_hdr(LNETCAP_MSG_PUT, kLocal, kPeer, 10, 12));
    fake_.set_msg(LNETCAP_MSG_PUT, 10, 10, false, false);
    lnet_ni_send(fake_.ni(), fake_.msg());
    bool ok = getuid() != 0;
    src_->request_stop();
    CapturedRecord r;
    int n = 0;
    while (src_->next(r)) ++n;
    ok = ok && n == 1 && src_->stats().received == 1 &&
         src_->bpf().stats()[LNETCAP_STAT_EMITTED] == 1;
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(BpfKernelRead, BenchFlavourReadsKernelMemoryExactly) {
  // The same hook body with bpf_probe_read_kernel (the production read),
  // on fake objects in a map value.
  FakeLnet fake(kLo);
  fake.set_ni(kLocal);
  fake.set_peer(kPeer);
  auto hdr = make_hdr(LNETCAP_MSG_PUT, kLocal, kPeer, 300, 12);
  fake.set_hdr(hdr);
  fake.set_msg(LNETCAP_MSG_PUT, 300, 300, false, false);
  fake.set_flags(true, false, false);
  auto cfg = default_cfg(1024);
  KernelBenchCapture cap(cfg, 1u << 20, fake);
  live::RingSource src(std::move(cap.loaded()), {"10.0.0.1@tcp"}, cfg.snaplen, "test");
  ASSERT_EQ(cap.send(5), 0);
  auto got = drain(src);
  ASSERT_EQ(got.size(), 5u);
  const auto& v = got[4].view;
  EXPECT_EQ(v.hdr.local_nid, kLocal);
  EXPECT_EQ(v.hdr.peer_nid, kPeer);
  EXPECT_EQ(v.hdr.seq, 4u);
  EXPECT_EQ(0, std::memcmp(v.lnet_header.data(), hdr.data(), 96));
  ASSERT_EQ(v.payload.size(), 300u);
  EXPECT_EQ(0, std::memcmp(v.payload.data(), fake.payload().data() + 16, 300));
  EXPECT_FALSE(v.hdr.flags & LNETCAP_REC_F_PAYLOAD_UNREADABLE);
}

}  // namespace
}  // namespace lnetcap::test

int main(int argc, char** argv) {
  std::string why = lnetcap::test::bpf_unprivileged_reason();
  if (!why.empty()) {
    std::fprintf(stderr, "SKIP: host eBPF tests %s\n", why.c_str());
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
