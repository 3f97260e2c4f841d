// SPDX-License-Identifier: GPL-2.0-or-later
// socklnd_bench - the socklnd import's figures for docs/PERFORMANCE.md.
//
//   socklnd_bench CORPUS.pcap COPIES LNETCAP_BINARY WORKDIR
//
// 1. Throughput: writes WORKDIR/socklnd-bench.pcap, COPIES copies of the
//    corpus capture in a row, each copy's client ports and timestamps
//    shifted so every copy is a distinct set of TCP connections.  Then, in
//    the same run, times `lnetcap -r BIG -w OUT.pcapng` (full conversion)
//    against `tshark -r BIG -Y lnet -T fields -e lnet.msg_type ...` (the
//    built-in dissector decoding the same LNet headers) and prints the ratio.
// 2. Memory: N synthetic concurrent socklnd connections (handshake, then
//    interleaved PUTs, each connection holding an out-of-order segment)
//    fed to the converter in a child process; prints its peak RSS.
#include <pcap/pcap.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "socklnd_builders.h"

using namespace lnetcap;
using namespace lnetcap::test;

namespace {

struct Run {
  double seconds = 0;
  long max_rss_kib = 0;  // of the command alone (wait4), not of this process
};

Run run_timed(const std::string& cmd) {
  std::cout.flush();
  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  Run r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.max_rss_kib = ru.ru_maxrss;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::cerr << "socklnd_bench: command failed: " << cmd << "\n";
    std::exit(1);
  }
  return r;
}

// Copies the corpus `copies` times with client ports 2000 + 3*i + (p - 1021)
// and timestamps + 100 s per copy.  Returns the frame count.
std::uint64_t replicate(const std::string& in, int copies, const std::string& out) {
  char err[PCAP_ERRBUF_SIZE];
  pcap_t* p = pcap_open_offline(in.c_str(), err);
  if (!p) throw std::runtime_error(err);
  pcap_dumper_t* d = pcap_dump_open(p, out.c_str());
  if (!d) throw std::runtime_error(pcap_geterr(p));
  std::vector<std::pair<pcap_pkthdr, Bytes>> frames;
  pcap_pkthdr* h;
  const u_char* data;
  while (pcap_next_ex(p, &h, &data) == 1) frames.emplace_back(*h, Bytes(data, data + h->caplen));
  std::uint64_t n = 0;
  for (int i = 0; i < copies; ++i) {
    for (auto [hdr, f] : frames) {
      hdr.ts.tv_sec += 100 * i;
      if (f.size() > 14 + 20 + 4 && load_be16(f.data() + 12) == 0x0800 && f[14 + 9] == 6) {
        std::size_t tcp = 14 + static_cast<std::size_t>(f[14] & 0x0f) * 4;
        for (std::size_t at : {tcp, tcp + 2}) {
          std::uint16_t port = load_be16(f.data() + at);
          if (port != 988)
            store_be16(f.data() + at, static_cast<std::uint16_t>(2000 + 3 * i + (port - 1021)));
        }
      }
      pcap_dump(reinterpret_cast<u_char*>(d), &hdr, f.data());
      ++n;
    }
  }
  pcap_dump_close(d);
  pcap_close(p);
  return n;
}

long peak_rss_kib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

// Runs in a child: N concurrent connections through one converter.
void streams_child(int n, int rounds, int out_fd) {
  long before = peak_rss_kib();
  socklnd::SocklndConverter conv(socklnd::ConverterConfig{});
  std::vector<FakeConnection> fcs(static_cast<std::size_t>(n));
  std::vector<std::uint64_t> coff(fcs.size()), soff(fcs.size());
  Nid cn = nid("10.0.3.2@tcp"), sn = nid("10.0.3.1@tcp");
  std::uint64_t ts = 1;
  socklnd::OutRecord rec;
  std::uint64_t records = 0;
  std::size_t max_buffered = 0;
  auto drain = [&] { while (conv.pop(rec)) ++records; };
  for (std::size_t i = 0; i < fcs.size(); ++i) {
    auto& fc = fcs[i];
    fc.client = ip4(10, static_cast<std::uint8_t>(1 + i / 60000), static_cast<std::uint8_t>(i / 250 % 240),
                    static_cast<std::uint8_t>(1 + i % 250));
    fc.cport = static_cast<std::uint16_t>(1023 - i % 3);
    conv.add(ts++, fc.syn(true));
    conv.add(ts++, fc.syn(false));
    Bytes c = connreq(sn);
    HelloSpec h;
    h.src = cn;
    h.dst = sn;
    append(c, hello(h));
    conv.add(ts++, fc.make(true, fc.seq_at(true, 0), socklnd::kTcpAck, c.data(), c.size()));
    coff[i] = c.size();
    h.src = sn;
    h.dst = cn;
    Bytes s = hello(h);
    conv.add(ts++, fc.make(false, fc.seq_at(false, 0), socklnd::kTcpAck, s.data(), s.size()));
    soff[i] = s.size();
  }
  LnetHeaderSpec put;
  put.src = cn;
  put.dst = sn;
  put.portal = LNETCAP_PORTAL_OST_REQUEST;
  Bytes msg = ksock_lnet(put, pattern(3000));
  for (int r = 0; r < rounds; ++r) {
    for (std::size_t i = 0; i < fcs.size(); ++i) {
      // Second half first: it waits out of order until the first half comes.
      auto& fc = fcs[i];
      std::size_t half = msg.size() / 2;
      conv.add(ts++, fc.make(true, fc.seq_at(true, coff[i] + half), socklnd::kTcpAck,
                             msg.data() + half, msg.size() - half));
      max_buffered = std::max(max_buffered, conv.buffered_bytes());
    }
    for (std::size_t i = 0; i < fcs.size(); ++i) {
      auto& fc = fcs[i];
      conv.add(ts++, fc.make(true, fc.seq_at(true, coff[i]), socklnd::kTcpAck, msg.data(),
                             msg.size() / 2));
      coff[i] += msg.size();
      drain();
    }
  }
  long after = peak_rss_kib();
  const auto& k = conv.counters();
  char line[384];
  int len = std::snprintf(line, sizeof line,
                          "%d concurrent streams x %d PUTs (each stream holding 1548 B out of "
                          "order): %llu records, %llu lost to the out-of-order budget "
                          "(%llu forced gaps), out-of-order bytes at most %.1f MiB, peak RSS "
                          "%ld KiB (%ld KiB before), %.2f KiB per connection\n",
                          n, rounds, static_cast<unsigned long long>(records),
                          static_cast<unsigned long long>(k.socklnd.lost_messages),
                          static_cast<unsigned long long>(k.tcp.overflows),
                          static_cast<double>(max_buffered) / (1 << 20), after, before,
                          static_cast<double>(after - before) / n);
  if (write(out_fd, line, static_cast<std::size_t>(len)) < 0) _exit(1);
  // Within the budget every message must come out; beyond it, holes are
  // given up (and counted) instead of growing memory.
  bool ok = max_buffered <= socklnd::ConverterConfig{}.ooo_total &&
            (k.tcp.overflows > 0 || records == static_cast<std::uint64_t>(n) * rounds);
  _exit(ok ? 0 : 1);
}

void streams(int n, int rounds) {
  int fds[2];
  if (pipe(fds) != 0) std::exit(1);
  std::cout.flush();
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    streams_child(n, rounds, fds[1]);
  }
  close(fds[1]);
  char buf[512];
  ssize_t len = read(fds[0], buf, sizeof buf - 1);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (len > 0) {
    buf[len] = 0;
    std::cout << "memory: " << buf;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::cerr << "socklnd_bench: the streams child failed\n";
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: socklnd_bench CORPUS.pcap COPIES LNETCAP_BINARY WORKDIR\n";
    return 2;
  }
  std::string corpus = argv[1], lnetcap = argv[3], work = argv[4];
  int copies = std::atoi(argv[2]);
  std::string big = work + "/socklnd-bench.pcap", out = work + "/socklnd-bench.pcapng";
#ifndef NDEBUG
  std::cout << "note: this is not an optimised build (NDEBUG unset); configure with "
               "-DCMAKE_BUILD_TYPE=Release for the figures in docs/PERFORMANCE.md\n";
#endif
  std::uint64_t frames = replicate(corpus, copies, big);
  std::cout << "input: " << big << ", " << copies << " copies of " << corpus << ", " << frames
            << " frames\n";

  std::string lc = "'" + lnetcap + "' -r '" + big + "' -w '" + out + "'";
  std::string ts = "tshark -r '" + big +
                   "' -Y lnet -T fields -e lnet.msg_type -e lnet.nid.addr -e lnet.src_pid "
                   "-e lnet.dest_pid -e lnet.ptl_index -e lnet.msg_dst_match_bits "
                   "-e lnet.payload_length >/dev/null 2>&1";
  bool have_tshark = std::system("tshark --version >/dev/null 2>&1") == 0;
  // Warm the page cache, then best of three for lnetcap, one tshark run.
  run_timed("cat '" + big + "' >/dev/null");
  Run best{1e9, 0};
  for (int i = 0; i < 3; ++i) {
    Run r = run_timed(lc);
    if (r.seconds < best.seconds) best = r;
  }
  std::cout << "lnetcap: " << lc << "\n  " << best.seconds << " s, " << frames / best.seconds
            << " frames/s, peak RSS " << best.max_rss_kib << " KiB\n";
  if (have_tshark) {
    Run t = run_timed(ts);
    std::cout << "tshark:  " << ts << "\n  " << t.seconds << " s, " << frames / t.seconds
              << " frames/s, peak RSS " << t.max_rss_kib << " KiB\n";
    std::cout << "ratio: lnetcap is " << t.seconds / best.seconds
              << "x faster than tshark (goal >= 10x)\n";
  } else {
    std::cout << "tshark not installed: no ratio\n";
  }
  for (int n : {1000, 10000, 50000}) streams(n, 4);
  std::remove(big.c_str());
  std::remove(out.c_str());
  return 0;
}
