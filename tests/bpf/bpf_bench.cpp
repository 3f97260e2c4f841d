// SPDX-License-Identifier: GPL-2.0-or-later
// bpf_bench.cpp - throughput of the eBPF capture path on this host.
//
// Producer (CPU 0): the real lnet_ni_send hook body (bench flavour of
// bpf/lnetcap.bpf.c: bpf_probe_read_kernel, as in production) run in a
// bpf_loop through BPF_PROG_TEST_RUN on a fake PUT held in a map value, so
// every record goes through the full builder: struct reads via the 2.16
// layout, filter, sequence, reserve, payload copy, batched wake-ups.
// Consumer (CPU 1), in the same run:
//   bare   - RingReader only: count samples, release them;
//   agent  - RingSource (validation with parse_record, UTC time, NI map,
//            sequence-gap drops) -> pcapng::Writer to /dev/null.
// Records are 256 bytes (104 record header + 96 LNet header + 56 payload).
// Reported: (1) fill-then-drain: the producer's own rate and each
// consumer's drain rate, independent of each other; (2) both running at
// once: consumed records/s and ring-full drops; and a paced run at 2 M
// records/s to check zero loss.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "fake_lnet.h"
#include "live/ring_source.h"
#include "pcapng/writer.h"
#include "record.h"

using namespace lnetcap;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::uint32_t kSnap = 56;  // 104 + 96 + 56 = 256-byte records
constexpr std::uint32_t kBatch = 256;

void pin(int cpu) {
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu % std::max(1u, std::thread::hardware_concurrency()), &s);
  sched_setaffinity(0, sizeof(s), &s);
}

struct Result {
  double secs = 0;
  std::uint64_t consumed = 0, emitted = 0, dropped = 0;
  double rate() const { return consumed / secs; }
};

// pace_rps = 0: flat out.
Result run(bool agent, double seconds, double pace_rps) {
  const Nid local = *Nid::parse("10.0.0.1@tcp"), peer = *Nid::parse("10.0.0.2@tcp");
  auto lo = live::builtin_layout("2.16.1")->lo;
  test::FakeLnet fake(lo);
  fake.set_ni(local);
  fake.set_peer(peer);
  fake.set_hdr(test::make_hdr(LNETCAP_MSG_PUT, local, peer, 4096, 12));
  fake.set_msg(LNETCAP_MSG_PUT, 4096, 4096, false, false);
  fake.set_flags(true, false, false);

  test::KernelBenchCapture cap(test::default_cfg(kSnap), 8u << 20, fake);
  live::RingSource src(std::move(cap.loaded()), {"10.0.0.1@tcp"}, kSnap, "bench");
  live::RingReader* bare = nullptr;
  std::unique_ptr<live::RingReader> bare_reader;
  if (!agent) {
    bare_reader = std::make_unique<live::RingReader>(src.bpf().ring_fd(), src.bpf().ring_bytes());
    bare = bare_reader.get();
  }
  pcapng::Writer out("/dev/null");
  if (agent) {
    out.begin_section({"lnetcap bench", "Linux", "x86_64", {}});
    for (const auto& i : src.interfaces()) out.add_interface(LNETCAP_LINKTYPE, i);
  }

  std::atomic<bool> done{false};
  std::thread producer([&] {
    pin(0);
    auto start = Clock::now();
    std::uint64_t sent = 0;
    while (Clock::now() - start < std::chrono::duration<double>(seconds)) {
      if (pace_rps > 0) {
        double due = std::chrono::duration<double>(Clock::now() - start).count() * pace_rps;
        if (sent >= due) continue;
      }
      cap.send(kBatch);
      sent += kBatch;
    }
    done = true;
    // As the SIGINT handler would: the agent drains and its next() ends.
    if (agent) src.request_stop();
  });

  pin(1);
  Result r;
  auto t0 = Clock::now();
  CapturedRecord rec;
  std::uint32_t known_ifaces = static_cast<std::uint32_t>(src.interfaces().size());
  for (;;) {
    bool got;
    if (agent) {
      got = src.next(rec);
      if (got) {
        while (known_ifaces < src.interfaces().size())
          out.add_interface(LNETCAP_LINKTYPE, src.interfaces()[known_ifaces++]);
        out.write_packet(rec.interface_id, rec.ts_ns, rec.bytes, rec.orig_len, rec.epb_flags,
                         rec.has_drops_before ? std::optional<std::uint64_t>(rec.drops_before)
                                              : std::nullopt);
      } else {
        break;
      }
    } else {
      auto s = bare->next();
      got = s.has_value();
      if (!got) {
        if (done.load(std::memory_order_relaxed) && !bare->next()) break;
        bare->wait(100);
        continue;
      }
    }
    ++r.consumed;
  }
  r.secs = std::chrono::duration<double>(Clock::now() - t0).count();
  producer.join();
  auto k = src.bpf().stats();
  r.emitted = k[LNETCAP_STAT_EMITTED];
  r.dropped = k[LNETCAP_STAT_RING_FULL];
  out.close();
  return r;
}

// Fill-then-drain: the producer fills a large ring with no consumer (its
// rate is the BPF builder's own), then one consumer drains it alone, so the
// consumer's capacity is measured without depending on the producer.
struct Phases {
  double produce_rps = 0, drain_rps = 0;
  std::uint64_t records = 0, dropped = 0;
};

Phases fill_then_drain(bool agent, std::uint32_t ring_bytes) {
  const Nid local = *Nid::parse("10.0.0.1@tcp"), peer = *Nid::parse("10.0.0.2@tcp");
  auto lo = live::builtin_layout("2.16.1")->lo;
  test::FakeLnet fake(lo);
  fake.set_ni(local);
  fake.set_peer(peer);
  fake.set_hdr(test::make_hdr(LNETCAP_MSG_PUT, local, peer, 4096, 12));
  fake.set_msg(LNETCAP_MSG_PUT, 4096, 4096, false, false);
  fake.set_flags(true, false, false);
  test::KernelBenchCapture cap(test::default_cfg(kSnap), ring_bytes, fake);
  live::RingSource src(std::move(cap.loaded()), {"10.0.0.1@tcp"}, kSnap, "bench");

  Phases p;
  // 90% of the ring: 264-byte samples plus the 8-byte ring header.
  std::uint64_t want = std::uint64_t{ring_bytes} / 272 * 9 / 10;
  pin(0);
  auto t0 = Clock::now();
  for (std::uint64_t n = 0; n < want; n += kBatch) cap.send(kBatch);
  p.produce_rps = want / std::chrono::duration<double>(Clock::now() - t0).count();
  auto k = src.bpf().stats();
  p.dropped = k[LNETCAP_STAT_RING_FULL];

  pin(1);
  t0 = Clock::now();
  if (agent) {
    pcapng::Writer out("/dev/null");
    out.begin_section({"lnetcap bench", "Linux", "x86_64", {}});
    for (const auto& i : src.interfaces()) out.add_interface(LNETCAP_LINKTYPE, i);
    src.request_stop();
    CapturedRecord rec;
    while (src.next(rec)) {
      out.write_packet(rec.interface_id, rec.ts_ns, rec.bytes, rec.orig_len, rec.epb_flags,
                       rec.has_drops_before ? std::optional<std::uint64_t>(rec.drops_before)
                                            : std::nullopt);
      ++p.records;
    }
    out.close();
  } else {
    live::RingReader ring(src.bpf().ring_fd(), src.bpf().ring_bytes());
    while (ring.next()) ++p.records;
  }
  p.drain_rps = p.records / std::chrono::duration<double>(Clock::now() - t0).count();
  return p;
}

// The uprobe flavour's producer (bpf_probe_read_user on the test's own
// memory), for comparison with the kernel-memory producer above.
double user_read_producer_rps(std::uint32_t ring_bytes) {
  const Nid local = *Nid::parse("10.0.0.1@tcp"), peer = *Nid::parse("10.0.0.2@tcp");
  test::FakeLnet fake(live::builtin_layout("2.16.1")->lo);
  fake.set_ni(local);
  fake.set_peer(peer);
  fake.set_hdr(test::make_hdr(LNETCAP_MSG_PUT, local, peer, 4096, 12));
  fake.set_msg(LNETCAP_MSG_PUT, 4096, 4096, false, false);
  test::UprobeCapture cap(test::default_cfg(kSnap), ring_bytes);
  std::uint64_t want = std::uint64_t{ring_bytes} / 272 * 9 / 10;
  pin(0);
  auto t0 = Clock::now();
  for (std::uint64_t n = 0; n < want; n += kBatch) cap.bench_send(fake.ni(), fake.msg(), kBatch);
  return want / std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::string why = test::bpf_unprivileged_reason();
  if (!why.empty()) {
    std::fprintf(stderr, "SKIP: eBPF benchmark %s\n", why.c_str());
    return 77;
  }
  double secs = argc > 1 ? std::atof(argv[1]) : 2.0;
  int reps = argc > 2 ? std::atoi(argv[2]) : 3;
  constexpr std::uint32_t kRing = 64u << 20;
  std::printf("eBPF capture path, 256-byte records (104 record header + 96 LNet header + 56 "
              "payload), %d repetitions\n\n", reps);
#ifndef NDEBUG
  std::printf("note: this build is not optimised; use CMAKE_BUILD_TYPE=Release for figures\n\n");
#endif

  std::printf("1. fill a 64 MiB ring with no consumer, then drain it with one consumer\n\n");
  std::printf("| consumer | records | producer rec/s | drain rec/s | drops |\n|---|---|---|---|---|\n");
  std::vector<double> prod, bare, agent;
  for (int i = 0; i < reps; ++i) {
    for (bool a : {false, true}) {
      Phases p = fill_then_drain(a, kRing);
      prod.push_back(p.produce_rps);
      (a ? agent : bare).push_back(p.drain_rps);
      std::printf("| %s | %llu | %.2f M | %.2f M | %llu |\n", a ? "agent" : "bare",
                  static_cast<unsigned long long>(p.records), p.produce_rps / 1e6,
                  p.drain_rps / 1e6, static_cast<unsigned long long>(p.dropped));
      std::fflush(stdout);
    }
  }
  double b = median(bare), a = median(agent);
  std::printf("\n(producer reading user memory, uprobe flavour: %.2f M rec/s)\n",
              user_read_producer_rps(kRing) / 1e6);
  std::printf("\nmedian: producer %.2f M rec/s; drain bare %.2f M rec/s, agent %.2f M rec/s; "
              "agent/bare = %.2f\n\n", median(prod) / 1e6, b / 1e6, a / 1e6, a / b);

  std::printf("2. producer and consumer concurrently, %.1f s per run (8 MiB ring)\n\n", secs);
  std::printf("| consumer | consumed rec/s | produced | ring-full drops |\n|---|---|---|---|\n");
  std::vector<double> cb, ca;
  for (int i = 0; i < reps; ++i) {
    for (bool ag : {false, true}) {
      Result r = run(ag, secs, 0);
      (ag ? ca : cb).push_back(r.rate());
      std::printf("| %s | %.2f M | %.2f M | %.2f M |\n", ag ? "agent" : "bare", r.rate() / 1e6,
                  (r.emitted + r.dropped) / 1e6, r.dropped / 1e6);
      std::fflush(stdout);
    }
  }
  std::printf("\nmedian concurrent: bare %.2f M rec/s, agent %.2f M rec/s, agent/bare = %.2f\n",
              median(cb) / 1e6, median(ca) / 1e6, median(ca) / median(cb));
  double pace = 2.0e6;
  Result p = run(true, secs, pace);
  std::printf("paced at %.1f M rec/s through the agent path: consumed %.2f M rec/s, "
              "%llu records, %llu dropped\n",
              pace / 1e6, p.consumed / std::max(p.secs, 1e-9) / 1e6,
              static_cast<unsigned long long>(p.consumed),
              static_cast<unsigned long long>(p.dropped));
  return 0;
}
