// SPDX-License-Identifier: GPL-2.0-or-later
// bpf_bench.cpp - throughput of the eBPF capture path on this host.
//
// Producer (CPU 0): the real lnet_ni_send hook body (uprobe flavour of
// bpf/lnetcap.bpf.c) run in a bpf_loop through BPF_PROG_TEST_RUN on a fake
// PUT, so every record goes through the full builder: struct reads via the
// 2.16 layout, filter, sequence, reserve, payload copy, batched wake-ups.
// Consumer (CPU 1), in the same run:
//   bare   - RingReader only: count samples, release them;
//   agent  - RingSource (validation with parse_record, UTC time, NI map,
//            sequence-gap drops) -> pcapng::Writer to /dev/null.
// Records are 256 bytes (104 record header + 96 LNet header + 56 payload).
// Reported: consumed records/s, produced, ring-full drops; the agent/bare
// ratio; and a paced run at a fixed producer rate to check zero loss.
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

  test::UprobeCapture cap(test::default_cfg(kSnap), 8u << 20);
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
      cap.bench_send(fake.ni(), fake.msg(), kBatch);
      sent += kBatch;
    }
    done = true;
  });

  pin(1);
  Result r;
  auto t0 = Clock::now();
  CapturedRecord rec;
  std::uint32_t known_ifaces = static_cast<std::uint32_t>(src.interfaces().size());
  for (;;) {
    bool got;
    if (agent) {
      // RingSource::next() blocks; poll its ring through next() while
      // the producer runs, then drain with request_stop().
      if (done.load(std::memory_order_relaxed)) src.request_stop();
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

}  // namespace

int main(int argc, char** argv) {
  std::string why = test::bpf_unprivileged_reason();
  if (!why.empty()) {
    std::fprintf(stderr, "SKIP: eBPF benchmark %s\n", why.c_str());
    return 77;
  }
  double secs = argc > 1 ? std::atof(argv[1]) : 2.0;
  int reps = argc > 2 ? std::atoi(argv[2]) : 3;
  std::printf("eBPF capture path, 256-byte records, %.1f s per run, %d runs each, "
              "producer CPU 0, consumer CPU 1\n\n", secs, reps);
  std::printf("| consumer | consumed rec/s | produced | ring-full drops |\n|---|---|---|---|\n");
  std::vector<double> bare_rates, agent_rates;
  for (int i = 0; i < reps; ++i) {
    for (bool agent : {false, true}) {
      Result r = run(agent, secs, 0);
      (agent ? agent_rates : bare_rates).push_back(r.rate());
      std::printf("| %s | %.2f M | %.2f M | %.2f M |\n", agent ? "agent" : "bare", r.rate() / 1e6,
                  (r.emitted + r.dropped) / 1e6, r.dropped / 1e6);
      std::fflush(stdout);
    }
  }
  std::sort(bare_rates.begin(), bare_rates.end());
  std::sort(agent_rates.begin(), agent_rates.end());
  double b = bare_rates[bare_rates.size() / 2], a = agent_rates[agent_rates.size() / 2];
  std::printf("\nmedian: bare %.2f M rec/s, agent %.2f M rec/s, agent/bare = %.2f\n", b / 1e6,
              a / 1e6, a / b);
  double pace = 2.0e6;
  Result p = run(true, secs, pace);
  std::printf("paced at %.1f M rec/s through the agent path: consumed %.2f M rec/s, "
              "%llu records, %llu dropped\n",
              pace / 1e6, p.consumed / std::max(p.secs, 1e-9) / 1e6,
              static_cast<unsigned long long>(p.consumed),
              static_cast<unsigned long long>(p.dropped));
  return 0;
}
