// SPDX-License-Identifier: GPL-2.0-or-later
// options.h - the lnetcap command line, parsed with getopt_long exactly as
// tcpdump does: clustered short options, "--" ends options, the rest of the
// command line is the filter expression (or, with --assert, the command).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lnetcap {

enum class Direction { kBoth, kIn, kOut };  // -Q

struct Options {
  // Input and output
  std::string read_file;      // -r FILE ("-" = stdin)
  bool strict = false;        // --strict: a damaged record in the -r file is fatal
  std::string write_file;     // -w FILE ("-" = stdout)
  std::string interface;      // -i NI, NID, net or network interface
  std::vector<std::string> from;  // --from URI (repeatable): lnetcapd subscriptions
  std::uint32_t reconnect_seconds = 60;  // --reconnect S: wait this long for a daemon that went away (0: not)
  std::string curve_key;          // --curve-key FILE: own key pair for tcp:// --from
  std::string server_key;         // --server-key KEY|FILE: lnetcapd's public key
  bool dump = false;              // --dump: the daemon's flight recorder instead of its stream
  bool daemon_status = false;     // --status: print the daemon's status and exit
  std::string consumer_group;     // --consumer-group NAME: share the stream with the group's members
  bool list_interfaces = false;  // -D
  std::optional<std::uint64_t> count;  // -c N
  bool quiet = false;                  // -q
  int verbose = 0;                     // -v (repeatable)
  bool hex = false;                    // -x: hex dump of the payload prefix
  bool packet_buffered = false;        // -U
  std::string print_format;            // -p FORMAT (lnetdump codes)
  bool print_with_write = false;       // --print: text even with -w
  bool nano = false;                   // --nano: ns timestamps in text
  bool numeric = false;                // -n: NIDs as numbers, no names file
  std::string nid_names;               // --nid-names FILE (default /etc/lnetcap/nids)
  bool resolve_nids = false;           // --resolve-nids: IP NIDs through getnameinfo

  // Live capture (eBPF)
  std::optional<std::uint32_t> snaplen;  // -s LEN (payload bytes; 0 = headers only)
  std::optional<std::uint32_t> buffer_kib;  // -B KiB ring buffer
  std::string drop_user;                 // -Z USER
  Direction direction = Direction::kBoth;  // -Q in|out|inout
  std::string btf_file;                  // --btf FILE
  std::string attach_mode = "auto";      // --attach auto|fentry|kprobe
  std::string lustre_version;            // --lustre-version (override detection)

  // socklnd TCP import
  std::uint16_t lnet_port = 988;  // --port
  std::uint16_t lnet_bulk_port = 0;  // --bulk-port (0: none)
  std::string local_nid;          // --local-nid NID: direction relative to this node

  // Long captures (tcpdump semantics)
  std::optional<std::uint64_t> rotate_size;  // -C SIZE (bytes)
  std::optional<std::uint32_t> rotate_seconds;  // -G SECS
  std::optional<std::uint32_t> file_count;      // -W N
  std::string post_rotate_command;              // -z CMD
  std::optional<std::uint32_t> stats_interval;  // --stats-interval SECS

  // Reports
  std::string summary;  // --summary[=table|json|prometheus]
  std::string chart;    // --chart=mermaid|html
  std::string chart_output;  // --chart-output FILE
  std::vector<std::string> assertions;  // --assert EXPR (repeatable)
  std::vector<std::string> command;     // after "--" with --assert
  bool only_command = false;  // --only-command: count only the command's session
  bool top = false;           // --top: the live view (top/top_runner.h)
  bool top_batch = false;     // --top-batch: its plain-text blocks even on a terminal

  // Sharing
  bool anonymize = false;  // --anonymize
  std::string anon_key;    // --anon-key FILE (created when missing)

  // Filter
  std::string filter;       // trailing expression, or -F FILE contents
  std::string filter_file;  // -F FILE

  // Wireshark extcap protocol (docs/EXTCAP.md)
  bool extcap_interfaces = false;  // --extcap-interfaces
  bool extcap_dlts = false;        // --extcap-dlts
  bool extcap_config = false;      // --extcap-config
  bool extcap_capture = false;     // --capture
  std::string extcap_interface;    // --extcap-interface NAME
  std::string extcap_fifo;         // --fifo PATH
  std::string extcap_capture_filter;  // --extcap-capture-filter EXPR
  bool has_extcap_capture_filter = false;

  std::string command_line;  // argv joined, for the pcapng metadata comment
  bool show_help = false;
  bool show_version = false;
};

/// Parses argv.  Throws Error with a usage hint on a bad option or value.
Options parse_options(int argc, char** argv);
/// The -h text (with EXAMPLES).
/// body_fields: the lines of the body fields (body_fields_usage(), a
/// codec-layer table this layer does not link), placed after the -p codes.
std::string usage_text(std::string_view body_fields = {});

}  // namespace lnetcap
