// SPDX-License-Identifier: GPL-2.0-or-later
// bench_foundation - the figures of docs/PERFORMANCE.md "Foundation":
//  1. record -> pcapng throughput of pcapng::Writer against a bare fwrite()
//     of the same record bytes to the same kind of file, in one run;
//  2. `lnetcap -r FILE` text printing, in records per second.
// Runs alternate the two writers several times and keep each one's best,
// so background noise on a shared machine hurts both alike.
//
// Usage: bench_foundation LNETCAP_BINARY [RECORDS]
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "lnet_builders.h"
#include "lnetcap/record.h"
#include "pcapng/writer.h"

using namespace lnetcap;
using Clock = std::chrono::steady_clock;

namespace {

std::vector<std::vector<std::uint8_t>> make_records(std::size_t n) {
  // A realistic mix: PtlRPC request PUTs of about 300 bytes and ACK-sized
  // header-only records.
  test::RpcSpec rpc;
  rpc.opc = LNETCAP_OPC_LDLM_ENQUEUE;
  rpc.jobid = "bench.1";
  rpc.buffers.push_back(test::ldlm_request(0x200000401ULL, 7));
  auto payload = test::lustre_msg(rpc);
  test::LnetHeaderSpec h;
  h.src = test::nid("10.0.3.2@tcp");
  h.dst = test::nid("10.0.3.1@tcp");
  h.portal = LNETCAP_PORTAL_MDS_REQUEST;
  h.payload_length = static_cast<std::uint32_t>(payload.size());
  test::RecordSpec r;
  r.local = h.src;
  r.peer = h.dst;
  std::vector<std::vector<std::uint8_t>> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    h.match_bits = 0x6554000000000ULL + 128 * i;
    r.seq = i + 1;
    out.push_back(i % 4 == 3 ? test::record(r, test::lnet_header(h), {})
                             : test::record(r, test::lnet_header(h), payload));
  }
  return out;
}

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

double bench_fwrite(const std::vector<std::vector<std::uint8_t>>& recs, const std::string& path) {
  auto t = Clock::now();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  // Same 256 KiB buffering as pcapng::Writer, so only the encoding differs.
  std::setvbuf(f, nullptr, _IOFBF, 256 * 1024);
  for (const auto& r : recs) std::fwrite(r.data(), 1, r.size(), f);
  std::fclose(f);
  return seconds_since(t);
}

double bench_writer(const std::vector<std::vector<std::uint8_t>>& recs, const std::string& path) {
  auto t = Clock::now();
  pcapng::Writer w(path);
  w.begin_section({});
  w.add_interface(LNETCAP_LINKTYPE, {"tcp", "bench", "", "", "", 0});
  std::uint64_t ts = 1700000000000000000ULL;
  for (const auto& r : recs) w.write_packet(0, ts += 1000, r, static_cast<std::uint32_t>(r.size()), 2, std::nullopt);
  w.close();
  return seconds_since(t);
}

double run_reader(const std::string& lnetcap, const std::string& path) {
  auto t = Clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    std::freopen("/dev/null", "w", stdout);
    execl(lnetcap.c_str(), lnetcap.c_str(), "-r", path.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "bench: lnetcap -r failed\n");
    std::exit(1);
  }
  return seconds_since(t);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s LNETCAP_BINARY [RECORDS]\n", argv[0]);
    return 1;
  }
  const std::size_t n = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 500000;
  const auto recs = make_records(n);
  std::size_t bytes = 0;
  for (const auto& r : recs) bytes += r.size();
  const std::string dir = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
  const std::string a = dir + "/bench-fwrite.bin", b = dir + "/bench-writer.pcapng";
  double best_fwrite = 1e9, best_writer = 1e9;
  for (int i = 0; i < 5; ++i) {
    best_fwrite = std::min(best_fwrite, bench_fwrite(recs, a));
    best_writer = std::min(best_writer, bench_writer(recs, b));
  }
  double best_read = 1e9;
  for (int i = 0; i < 3; ++i) best_read = std::min(best_read, run_reader(argv[1], b));
  std::printf("records: %zu (%.1f MB of record bytes, mean %.0f B)\n", n, bytes / 1e6,
              double(bytes) / n);
  std::printf("bare fwrite      : %8.1f MB/s  %6.2f M records/s\n", bytes / best_fwrite / 1e6,
              n / best_fwrite / 1e6);
  std::printf("pcapng::Writer   : %8.1f MB/s  %6.2f M records/s\n", bytes / best_writer / 1e6,
              n / best_writer / 1e6);
  std::printf("writer / fwrite  : %8.2f  (goal >= 0.80)\n", best_fwrite / best_writer);
  std::printf("lnetcap -r (text): %8.0f records/s\n", n / best_read);
  std::remove(a.c_str());
  std::remove(b.c_str());
  return 0;
}
