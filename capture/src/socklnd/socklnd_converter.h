// SPDX-License-Identifier: GPL-2.0-or-later
// socklnd_converter.h - TCP segments in, lnetcap records out.  Keeps one
// entry per TCP connection on the LNet port (two reassembled directions,
// each cut into socklnd messages), names each connection as a pcapng
// interface, and turns every LNet message into a record with hook
// SOCKLND_STREAM.  Memory is bounded: out-of-order data shares one budget,
// closed and idle connections expire.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "../nid.h"
#include "../source.h"
#include "packet_decode.h"
#include "socklnd_parser.h"
#include "tcp_reassembly.h"

namespace lnetcap::socklnd {

struct ConverterConfig {
  std::uint16_t port = 988;          // the acceptor port (--port)
  // Lustre 2.17's accept_port_bulk (--bulk-port): socklnd may open its
  // bulk connections to this second acceptor port; 0 = none.
  std::uint16_t bulk_port = 0;
  bool is_lnet_port(std::uint16_t p) const { return p == port || (bulk_port && p == bulk_port); }
  /// The libpcap filter of the LNet ports: "tcp port 988 or tcp port 989".
  std::string pcap_filter() const;
  std::optional<Nid> local_nid;      // --local-nid: SEND/RECV instead of WIRE
  std::uint32_t snaplen = 1024;      // payload bytes kept per message
  std::size_t ooo_per_stream = 1u << 20;
  std::size_t ooo_total = 64u << 20;
  std::uint64_t idle_timeout_ns = 600ull * 1000000000ull;   // no packet for 10 min
  std::uint64_t closed_timeout_ns = 30ull * 1000000000ull;  // after FIN/RST both ways
  // Connections tracked at once; past it the least recently active tenth
  // is flushed and forgotten (about 3 KiB each plus buffered data).
  std::size_t max_connections = 262144;
};

struct ConverterCounters {
  std::uint64_t segments = 0;         // TCP segments on the LNet ports
  std::uint64_t other_port = 0;       // TCP segments on other ports, ignored
  std::uint64_t connections = 0;      // connections tracked
  std::uint64_t expired = 0;          // connections expired (closed or idle)
  std::uint64_t evicted = 0;          // connections forgotten to stay under max_connections
  std::uint64_t peak_connections = 0;
  std::uint64_t records = 0;
  ReassemblyCounters tcp;
  ParserCounters socklnd;
};

/// A record ready for the pipeline.
struct OutRecord {
  std::uint64_t ts_ns = 0;
  std::uint32_t interface_id = 0;
  std::uint32_t epb_flags = 0;
  std::uint32_t orig_len = 0;  // the record's length with the whole payload
  std::vector<std::uint8_t> bytes;
};

class SocklndConverter {
 public:
  explicit SocklndConverter(ConverterConfig config);
  ~SocklndConverter();
  SocklndConverter(const SocklndConverter&) = delete;
  SocklndConverter& operator=(const SocklndConverter&) = delete;

  /// One decoded TCP segment captured at ts_ns.
  void add(std::uint64_t ts_ns, const TcpSegment& seg);
  /// Expires connections idle since before now_ns (capture time); add()
  /// calls it as capture time advances, a live source also on timeouts.
  void expire(std::uint64_t now_ns);
  /// End of input: every connection is flushed and forgotten.
  void finish();

  /// Takes the oldest finished record.
  bool pop(OutRecord& out);
  bool has_records() const { return !out_.empty(); }

  const std::vector<CaptureInterface>& interfaces() const { return interfaces_; }
  const ConverterCounters& counters() const { return counters_; }
  std::size_t connection_count() const { return conns_.size(); }
  std::size_t buffered_bytes() const { return budget_.used; }
  /// (name, value) pairs for `lnetcap -v` statistics.
  std::vector<std::pair<std::string, std::uint64_t>> details() const;

 private:
  struct Connection;
  struct FlowKey {
    std::array<std::uint8_t, 37> raw{};
    bool operator==(const FlowKey&) const = default;
  };
  struct FlowHash {
    std::size_t operator()(const FlowKey& k) const;
  };

  Connection& lookup(std::uint64_t ts_ns, const TcpSegment& seg, int* side);
  void close(Connection& c);
  void make_room();
  void message(Connection& c, int side, const ParsedMessage& m);
  std::uint32_t interface_for(Connection& c, int side, const ParsedMessage& m);
  friend struct ConnectionEvents;

  ConverterConfig config_;
  ReassemblyBudget budget_;
  ConverterCounters counters_;
  std::unordered_map<FlowKey, std::unique_ptr<Connection>, FlowHash> conns_;
  std::vector<CaptureInterface> interfaces_;
  std::deque<OutRecord> out_;
  std::vector<OutRecord> spare_;  // recycled record buffers
  std::uint64_t seq_ = 0;
  std::uint64_t now_ns_ = 0;
  std::uint64_t last_sweep_ns_ = 0;
};

}  // namespace lnetcap::socklnd
