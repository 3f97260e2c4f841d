// SPDX-License-Identifier: GPL-2.0-or-later
// socklnd_source.cpp - the RecordSource for socklnd TCP traffic: libpcap
// reads a pcap/pcapng file or captures from a network interface, each
// frame is decoded to a TCP segment and the converter turns the segments
// into lnetcap records.
#include "socklnd_source.h"

#include <pcap/pcap.h>
#include <poll.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <optional>

#include "../error.h"
#include "../nid.h"
#include "../signals.h"
#include "lnetcap/record.h"
#include "packet_decode.h"
#include "socklnd_converter.h"

namespace lnetcap {
namespace {

using socklnd::ConverterConfig;
using socklnd::DecodeStatus;
using socklnd::OutRecord;
using socklnd::SocklndConverter;
using socklnd::TcpSegment;

// Whole frames: TCP segments of a socklnd stream must not be cut short.
constexpr int kLiveSnaplen = 262144;
// How often a live capture returns without packets to expire connections.
constexpr int kLiveTimeoutMs = 200;

ConverterConfig make_config(const Options& opts) {
  ConverterConfig cfg;
  cfg.port = opts.lnet_port;
  cfg.bulk_port = opts.lnet_bulk_port;
  cfg.snaplen = opts.snaplen.value_or(LNETCAP_DEFAULT_SNAPLEN);
  if (cfg.snaplen > LNETCAP_MAX_SNAPLEN) cfg.snaplen = LNETCAP_MAX_SNAPLEN;
  if (!opts.local_nid.empty()) {
    auto nid = Nid::parse(opts.local_nid);
    if (!nid)
      throw Error("--local-nid: '" + opts.local_nid + "' is not a NID",
                  "write it as Lustre prints it, e.g. 10.0.3.1@tcp");
    cfg.local_nid = *nid;
  }
  return cfg;
}

class PcapSocklndSource final : public RecordSource {
 public:
  PcapSocklndSource(pcap_t* pcap, std::string name, bool live, const Options& opts)
      : pcap_(pcap), name_(std::move(name)), live_(live), conv_(make_config(opts)) {
    dlt_ = pcap_datalink(pcap_);
    nano_ = pcap_get_tstamp_precision(pcap_) == PCAP_TSTAMP_PRECISION_NANO;
  }
  ~PcapSocklndSource() override { pcap_close(pcap_); }

  bool next(CapturedRecord& out) override {
    for (;;) {
      if (conv_.pop(current_)) {
        out.ts_ns = current_.ts_ns;
        out.interface_id = current_.interface_id;
        out.bytes = ByteSpan(current_.bytes);
        out.orig_len = current_.orig_len;
        out.drops_before = 0;
        out.has_drops_before = false;
        out.epb_flags = current_.epb_flags;
        out.comments.clear();
        return true;
      }
      if (done_) {
        if (error_) {
          Error e = *error_;
          error_.reset();
          throw e;
        }
        return false;
      }
      read_one();
      if (live_ && status_pending()) {  // idle: let the pipeline print its status line
        out = CapturedRecord{};
        return true;
      }
    }
  }

  const std::vector<CaptureInterface>& interfaces() const override { return conv_.interfaces(); }

  SourceStats stats() const override {
    SourceStats s;
    const auto& c = conv_.counters();
    s.received = c.records;
    // Messages whose header fell into data the capture did not hold.
    s.dropped = c.socklnd.lost_messages;
    s.details.emplace_back("frames read", frames_);
    s.details.emplace_back("frames without TCP", not_tcp_);
    s.details.emplace_back("IP fragments (not reassembled)", fragments_);
    s.details.emplace_back("frames truncated or malformed", bad_frames_);
    s.details.emplace_back("tcp segments on other ports", c.other_port);
    if (live_) {
      pcap_stat ps{};
      if (pcap_stats(pcap_, &ps) == 0) {
        s.details.emplace_back("packets dropped by the kernel", ps.ps_drop);
        s.details.emplace_back("packets dropped by the interface", ps.ps_ifdrop);
      }
    }
    for (auto& d : conv_.details()) s.details.push_back(std::move(d));
    return s;
  }

  void request_stop() override {
    stop_.store(true);
    pcap_breakloop(pcap_);
  }

 private:
  void end() {
    conv_.finish();
    done_ = true;
  }

  // A blocking read on an idle TPACKET_V3 socket does not return when its
  // read timeout expires, nor when SIGINT arrives (libpcap retries the
  // interrupted poll), so a live capture with no traffic never stopped.
  // The handle is non-blocking; the wait is here, bounded, and a signal
  // ends it so the caller sees stop_requested() at once.
  bool wait_readable() {
    pollfd p{pcap_get_selectable_fd(pcap_), POLLIN, 0};
    return poll(&p, 1, kLiveTimeoutMs) > 0;
  }

  // Let idle connections expire on wall-clock time.  A busy capture drains
  // the ring many times a second; looking for idle connections once per
  // read timeout is enough.
  void expire_idle() {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    const auto now_ns = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(now).count());
    if (now_ns - last_expire_ns_ < kLiveTimeoutMs * 1000000ull) return;
    last_expire_ns_ = now_ns;
    conv_.expire(now_ns);
  }

  void read_one() {
    if (stop_.load() || (live_ && stop_requested())) return end();
    if (live_ && !wait_readable()) {
      expire_idle();  // nothing to read for a while, or a signal arrived
      return;
    }
    pcap_pkthdr* h = nullptr;
    const u_char* data = nullptr;
    int r = pcap_next_ex(pcap_, &h, &data);
    if (r == 1) {
      ++frames_;
      std::uint64_t ts = static_cast<std::uint64_t>(h->ts.tv_sec) * 1000000000ull +
                         static_cast<std::uint64_t>(h->ts.tv_usec) * (nano_ ? 1u : 1000u);
      TcpSegment seg;
      switch (socklnd::decode_frame(dlt_, ByteSpan(data, h->caplen), &seg)) {
        case DecodeStatus::kTcp: conv_.add(ts, seg); break;
        case DecodeStatus::kNotTcp: ++not_tcp_; break;
        case DecodeStatus::kFragment: ++fragments_; break;
        case DecodeStatus::kTruncated:
        case DecodeStatus::kMalformed: ++bad_frames_; break;
      }
    } else if (r == 0) {
      expire_idle();
    } else if (r == PCAP_ERROR_BREAK) {
      end();  // end of file, or request_stop()
    } else {
      std::string where = "after frame " + std::to_string(frames_);
      if (!live_) {
        if (FILE* f = pcap_file(pcap_)) {
          long off = std::ftell(f);
          if (off >= 0) where += ", file offset " + std::to_string(off);
        }
      }
      error_ = Error(name_ + ": " + pcap_geterr(pcap_) + " (" + where + ")",
                     live_ ? "" : "the records before this point were delivered");
      end();
    }
  }

  pcap_t* pcap_;
  std::string name_;
  bool live_;
  int dlt_ = 0;
  bool nano_ = false;
  SocklndConverter conv_;
  OutRecord current_;
  bool done_ = false;
  std::optional<Error> error_;
  std::atomic<bool> stop_{false};
  std::uint64_t last_expire_ns_ = 0;
  std::uint64_t frames_ = 0, not_tcp_ = 0, fragments_ = 0, bad_frames_ = 0;
};

void check_link_type(pcap_t* p, const std::string& name) {
  int dlt = pcap_datalink(p);
  if (dlt == LNETCAP_LINKTYPE) {
    pcap_close(p);
    throw Error(name + ": lnetcap records need pcapng, and this is a classic pcap file (link type " +
                    std::to_string(LNETCAP_LINKTYPE) + ")",
                "convert it first: editcap -F pcapng " + name + " new.pcapng");
  }
  if (!socklnd::link_type_supported(dlt)) {
    pcap_close(p);
    throw Error(name + ": link type " + socklnd::link_type_name(dlt) +
                    " is not supported for socklnd import",
                "supported: EN10MB (Ethernet), LINUX_SLL, LINUX_SLL2, RAW, IPV4, IPV6, NULL, LOOP");
  }
}

}  // namespace

std::unique_ptr<RecordSource> open_socklnd_file(const Options& opts, std::FILE* stream) {
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  ConverterConfig cfg = make_config(opts);  // validate options before opening
  (void)cfg;
  pcap_t* p = stream ? pcap_fopen_offline_with_tstamp_precision(stream, PCAP_TSTAMP_PRECISION_NANO, errbuf)
                     : pcap_open_offline_with_tstamp_precision(opts.read_file.c_str(),
                                                               PCAP_TSTAMP_PRECISION_NANO, errbuf);
  // libpcap names the file when it cannot open it ("x: No such file or
  // directory"), not when it cannot parse it ("unknown file format").
  const std::string why = errbuf;
  if (!p)
    throw Error(why.rfind(opts.read_file + ": ", 0) == 0 ? why : opts.read_file + ": " + why,
                "-r reads lnetcap pcapng files and pcap/pcapng captures of socklnd TCP traffic");
  check_link_type(p, opts.read_file);
  return std::make_unique<PcapSocklndSource>(p, opts.read_file, false, opts);
}

std::unique_ptr<RecordSource> open_socklnd_live(const Options& opts) {
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  const std::string& dev = opts.interface;
  ConverterConfig cfg = make_config(opts);
  pcap_t* p = pcap_create(dev.c_str(), errbuf);
  if (!p) throw Error(dev + ": " + errbuf);
  pcap_set_snaplen(p, kLiveSnaplen);
  pcap_set_promisc(p, 1);
  pcap_set_timeout(p, kLiveTimeoutMs);
  if (opts.packet_buffered) pcap_set_immediate_mode(p, 1);
  if (opts.buffer_kib) pcap_set_buffer_size(p, static_cast<int>(*opts.buffer_kib) * 1024);
  pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO);  // falls back to micro
  int r = pcap_activate(p);
  if (r < 0) {
    std::string why = pcap_geterr(p);
    pcap_close(p);
    switch (r) {
      case PCAP_ERROR_PERM_DENIED:
        throw Error(dev + ": no permission to capture (" + why + ")",
                    "capturing from a network interface needs CAP_NET_RAW: run as root, or "
                    "setcap cap_net_raw,cap_net_admin=eip on the lnetcap binary");
      case PCAP_ERROR_NO_SUCH_DEVICE:
        throw Error(dev + ": no such network interface (" + why + ")",
                    "`ip link` lists network interfaces; -i also accepts an LNet NI for eBPF capture");
      case PCAP_ERROR_IFACE_NOT_UP:
        throw Error(dev + ": the interface is down", "ip link set " + dev + " up");
      default:
        throw Error(dev + ": cannot capture: " + why);
    }
  }
  check_link_type(p, dev);
  std::string expr = cfg.pcap_filter();
  bpf_program prog{};
  if (pcap_compile(p, &prog, expr.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0 ||
      pcap_setfilter(p, &prog) != 0) {
    std::string why = pcap_geterr(p);
    pcap_freecode(&prog);
    pcap_close(p);
    throw Error(dev + ": cannot set the capture filter '" + expr + "': " + why);
  }
  pcap_freecode(&prog);
  if (pcap_setnonblock(p, 1, errbuf) != 0) {
    pcap_close(p);
    throw Error(dev + ": cannot make the capture non-blocking: " + errbuf);
  }
  return std::make_unique<PcapSocklndSource>(p, dev, true, opts);
}

}  // namespace lnetcap
