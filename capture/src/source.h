// SPDX-License-Identifier: GPL-2.0-or-later
// source.h - where records come from (a pcapng file, a socklnd TCP capture,
// the eBPF ring buffer) and where they go (pcapng, text).  The pipeline in
// app.cpp connects one RecordSource to its sinks.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bytes.h"

struct lnetcap_subfilter;  // bpf/lnetcap_abi.h

namespace lnetcap {

/// One pcapng interface: an LNet NI (or, for imports, a TCP connection).
struct CaptureInterface {
  std::string name;         // if_name: "tcp", "o2ib1", "10.0.3.1@tcp"
  std::string description;  // if_description: host, NIDs, LND details
  std::string os;           // if_os
  std::string hardware;     // if_hardware
  std::string filter;       // if_filter text (informational)
  std::uint32_t snaplen = 0;
  std::vector<std::string> comments{};  // opt_comment of the IDB (kept when rewriting a file)
};

/// A record as it travels through the pipeline.
struct CapturedRecord {
  std::uint64_t ts_ns = 0;  // UTC nanoseconds since the epoch
  std::uint32_t interface_id = 0;
  ByteSpan bytes;           // the whole lnetcap record (valid until next())
  std::uint32_t orig_len = 0;
  std::uint64_t drops_before = 0;  // records lost just before this one
  bool has_drops_before = false;   // write epb_dropcount
  std::uint32_t epb_flags = 0;     // pcapng direction bits (1 in, 2 out)
  std::vector<std::string> comments;
};

/// A record a file source stepped over: its block was whole, so the file
/// goes on after it, but what the block held was not a valid lnetcap record.
struct DamagedRecord {
  std::string file;          // as named on the command line ("standard input" for -)
  std::uint64_t offset = 0;  // file offset of its block
  std::uint64_t number = 0;  // its packet number in the file, from 1 (Wireshark's frame number)
  std::string why;           // what was wrong, for a person
};

/// Counters every source reports at exit and on SIGUSR1.
struct SourceStats {
  std::uint64_t received = 0;  // records delivered to the pipeline
  std::uint64_t dropped = 0;   // records lost before user space (kernel ring full, gaps)
  std::uint64_t damaged = 0;   // records in a file skipped as damaged (not in `received`)
  std::uint64_t filtered = 0;  // rejected before user space (in-kernel filter)
  // Of `dropped`, those lnetcapd could not queue for this subscriber (--from).
  std::uint64_t queue_dropped = 0;
  // Source-specific counters for -v ("socklnd HELLOs V3", 6), in print order.
  std::vector<std::pair<std::string, std::uint64_t>> details;
  // Events the closing statistics name, one line each ("lnetcapd at URI
  // restarted at T; records in between not seen").
  std::vector<std::string> notes;
};

/// lnetcapd opens its live eBPF source with the subscribers' clause table
/// switched on (RecordSource::kernel_clause_table), so what no subscriber
/// wants stays in the kernel.  Off for lnetcap: the stage is then dead code.
enum class KernelClauses { kOff, kOn };

class RecordSource {
 public:
  virtual ~RecordSource() = default;
  /// Next record; false at the end of the input.  Throws Error on fatal
  /// input errors (after everything before them was delivered).  A live
  /// source that is idle returns true with an EMPTY record (bytes.empty())
  /// when status_pending() or stop_requested() (signals.h) needs the
  /// pipeline's attention; the pipeline skips such records.
  virtual bool next(CapturedRecord& out) = 0;
  /// Interfaces known so far.  May grow while reading; a record's
  /// interface_id always indexes an entry that exists when it is returned.
  virtual const std::vector<CaptureInterface>& interfaces() const = 0;
  virtual SourceStats stats() const { return {}; }
  /// Asks a live source to stop; next() then drains and returns false.
  virtual void request_stop() {}
  /// The in-kernel clause table lnetcapd rewrites as subscribers come and
  /// go (live eBPF source opened with KernelClauses::kOn); nullptr
  /// for every other source.  Shared memory the programs read: write it
  /// only through live::SubfilterWriter.
  virtual lnetcap_subfilter* kernel_clause_table() { return nullptr; }
};

}  // namespace lnetcap
