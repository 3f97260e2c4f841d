// SPDX-License-Identifier: GPL-2.0-or-later
// option_table.cpp - the rows of lnetcap's options (option_table.h).
#include "option_table.h"

#include "error.h"
#include "option_values.h"

namespace lnetcap {
namespace {

using A = OptionArgument;
using S = OptionSection;

// A row's apply: a captureless lambda, so the table stays a constant.
#define SET(statement) [](const AgentOption& row, const std::string& v, Options& o) { (void)row, (void)v, (void)o; statement; }

void choose(const AgentOption& row, const std::string& v, std::initializer_list<const char*> choices,
            const char* what, const char* hint) {
  for (const char* c : choices)
    if (v == c) return;
  throw Error("invalid " + std::string(what) + " '" + v + "' for " + row.name(), hint);
}

const std::vector<AgentOption> kOptions = {
    // Input
    {.option = "read", .short_option = 'r', .argument = A::kRequired, .apply = SET(o.read_file = v),
     .section = S::kInput, .usage = " FILE",
     .help = "read a capture: lnetcap pcapng, or a tcpdump\npcap/pcapng of socklnd TCP traffic (\"-\" = stdin)"},
    {.option = "strict", .apply = SET(o.strict = true), .section = S::kInput,
     .help = "with -r: stop with exit status 1 at the first\ndamaged lnetcap record instead of warning and\n"
             "reading on (a broken pcapng framing always stops)"},
    {.option = "interface", .short_option = 'i', .argument = A::kRequired, .apply = SET(o.interface = v),
     .section = S::kInput, .usage = " NAME",
     .help = "live capture; NAME is an LNet net or NID (\"tcp\",\n\"o2ib1\", \"10.0.0.1@tcp\") to restrict the eBPF\n"
             "capture to local NIs, or a network interface\n(\"eth0\") to decode socklnd traffic with libpcap"},
    {.option = "from", .argument = A::kRequired, .apply = SET(o.from.push_back(v)), .section = S::kInput,
     .usage = " URI",
     .help = "subscribe to lnetcapd (repeatable: streams merged\nin time order); URI is local (the default socket\n"
             "/run/lnetcap/lnetcapd.sock), a socket path,\nipc://PATH or tcp://HOST:PORT; the filter and -s\n"
             "are evaluated by the daemon (docs/DAEMON.md)"},
    {.option = "curve-key", .argument = A::kRequired, .apply = SET(o.curve_key = v), .section = S::kInput,
     .usage = " FILE",
     .help = "for tcp:// --from: this client's CurveZMQ key pair\n(make one with lnetcapd --gen-key FILE; its public\n"
             "key goes into the daemon's authorized-keys file)"},
    {.option = "server-key", .argument = A::kRequired, .apply = SET(o.server_key = v), .section = S::kInput,
     .usage = " KEY", .help = "for tcp:// --from: the daemon's public key (Z85)\nor a file holding it"},
    {.option = "reconnect", .argument = A::kRequired, .min = 0, .max = 86400,
     .apply = SET(o.reconnect_seconds = static_cast<std::uint32_t>(row.number(v))), .section = S::kInput,
     .usage = " S",
     .help = "with --from: when a daemon goes away without\nending the stream (killed, restarted), subscribe\n"
             "again as soon as it is back, for at most S\nseconds (default 60; 0: give up at once)"},
    {.option = "dump", .apply = SET(o.dump = true), .section = S::kInput,
     .help = "with --from: the records lnetcapd's flight\nrecorder holds (filter and sinks as usual), e.g.\n"
             "lnetcap --from local --dump -w incident.pcapng"},
    {.option = "status", .apply = SET(o.daemon_status = true), .section = S::kInput,
     .help = "with --from: print lnetcapd's status (flight\nrecorder memory and window, triggers, files\n"
             "written and skipped, metrics scrapes) and exit"},
    {.option = "consumer-group", .argument = A::kRequired, .apply = SET(o.consumer_group = v),
     .section = S::kInput, .usage = " NAME",
     .help = "with --from: join lnetcapd's consumer group NAME\n(letters, digits, . _ -): each record goes to\n"
             "one member, an RPC's messages to the same one;\nmembers use the same filter (docs/DAEMON.md)"},
    {.option = "list-interfaces", .short_option = 'D', .apply = SET(o.list_interfaces = true), .section = S::kInput,
     .help = "list local LNet NIs and the attach mode"},
    {.option = "snapshot-length", .short_option = 's', .argument = A::kRequired, .min = 0, .max = 1u << 20,
     .apply = SET(o.snaplen = static_cast<std::uint32_t>(row.number(v))), .section = S::kInput, .usage = " N",
     .help = "payload bytes kept per message (default 1024;\n0 = LNet headers only)"},
    {.option = "buffer-size", .short_option = 'B', .argument = A::kRequired, .min = 4, .max = 4u << 20,
     .apply = SET(o.buffer_kib = static_cast<std::uint32_t>(row.number(v))), .section = S::kInput,
     .usage = " KIB", .help = "eBPF ring buffer size"},
    {.option = "direction", .short_option = 'Q', .argument = A::kRequired,
     .apply = SET(choose(row, v, {"in", "out", "inout"}, "direction", "use in, out or inout");
                  o.direction = v == "in" ? Direction::kIn : v == "out" ? Direction::kOut : Direction::kBoth),
     .section = S::kInput, .usage = " DIR", .help = "in, out or inout (default)"},
    {.option = "relinquish-privileges", .short_option = 'Z', .argument = A::kRequired,
     .apply = SET(o.drop_user = v), .section = S::kInput, .usage = " USER", .help = "drop to USER after attaching"},
    {.option = "btf", .argument = A::kRequired, .apply = SET(o.btf_file = v), .section = S::kInput,
     .usage = " FILE", .help = "BTF of the lnet module (for kprobe mode offsets)"},
    {.option = "attach", .argument = A::kRequired,
     .apply = SET(choose(row, v, {"auto", "fentry", "kprobe"}, "attach mode", "use auto, fentry or kprobe");
                  o.attach_mode = v),
     .section = S::kInput, .usage = " MODE", .help = "auto (default), fentry or kprobe"},
    {.option = "lustre-version", .argument = A::kRequired, .apply = SET(o.lustre_version = v),
     .section = S::kInput, .usage = " V",
     .help = "Lustre release X.Y.Z whose built-in offsets to use (2.15.0-2.17.57\nread; another gets the nearest older table if the self-check proves it)"},
    {.option = "port", .argument = A::kRequired, .min = 1, .max = 65535,
     .apply = SET(o.lnet_port = static_cast<std::uint16_t>(row.number(v))), .section = S::kInput, .usage = " N",
     .help = "socklnd TCP port (default 988)"},
    {.option = "bulk-port", .argument = A::kRequired, .min = 1, .max = 65535,
     .apply = SET(o.lnet_bulk_port = static_cast<std::uint16_t>(row.number(v))), .section = S::kInput,
     .usage = " N", .help = "socklnd's second port for bulk connections (Lustre 2.17\naccept_port_bulk; default none)"},
    {.option = "local-nid", .argument = A::kRequired, .apply = SET(o.local_nid = v), .section = S::kInput,
     .usage = " NID", .help = "direction of imported TCP traffic relative to NID"},

    // Output
    {.option = "write", .short_option = 'w', .argument = A::kRequired, .apply = SET(o.write_file = v),
     .usage = " FILE", .help = "write pcapng (\"-\" = stdout, for wireshark -k -i -)"},
    {.option = "count", .short_option = 'c', .argument = A::kRequired, .min = 1, .max = UINT64_MAX,
     .apply = SET(o.count = row.number(v)), .usage = " N", .help = "stop after N records"},
    {.option = "pretty", .short_option = 'p', .argument = A::kRequired, .apply = SET(o.print_format = v),
     .usage = " FORMAT", .help = "print with an lnetdump-style format (see below)"},
    {.option = "quiet", .short_option = 'q', .apply = SET(o.quiet = true), .help = "terse output"},
    {.option = "verbose", .short_option = 'v', .apply = SET(++o.verbose), .help = "more detail (repeat for more)"},
    {.option = "hex", .short_option = 'x', .apply = SET(o.hex = true), .help = "hex dump of each payload prefix"},
    {.short_option = 'n', .apply = SET(o.numeric = true), .help = "NIDs as numbers: no names from the NID names file\nor the resolver"},
    {.option = "nid-names", .argument = A::kRequired, .apply = SET(o.nid_names = v), .usage = " FILE",
     .help = "names for NIDs (default /etc/lnetcap/nids when it exists)"},
    {.option = "resolve-nids", .apply = SET(o.resolve_nids = true),
     .help = "also name IP NIDs through the system resolver\n(/etc/hosts, DNS; bounded in time)"},
    {.option = "packet-buffered", .short_option = 'U', .apply = SET(o.packet_buffered = true),
     .help = "flush output after every message"},
    {.option = "print", .apply = SET(o.print_with_write = true), .help = "print text even when writing a file"},
    {.option = "nano", .apply = SET(o.nano = true), .help = "nanosecond timestamps in text"},
    {.option = "file-size", .short_option = 'C', .argument = A::kRequired,
     .apply = SET(const auto size = parse_size(v, 1000000);
                  if (!size) throw Error("invalid file size '" + v + "' for -C (expected 1 to " +
                                             std::to_string(kMaxSize / 1000000) + " millions of bytes, or 1k to " +
                                             std::to_string(kMaxSize >> 30) + "g)",
                                         "e.g. -C 100 (MB) or -C 512k");
                  o.rotate_size = size),
     .usage = " SIZE", .help = "rotate -w files after SIZE (millions of bytes,\nor with k/m/g suffix)"},
    {.option = "rotate-seconds", .short_option = 'G', .argument = A::kRequired, .min = 1, .max = 365u * 86400,
     .apply = SET(o.rotate_seconds = static_cast<std::uint32_t>(row.number(v))), .usage = " N",
     .help = "rotate -w files every N seconds"},
    {.option = "file-count", .short_option = 'W', .argument = A::kRequired, .min = 1, .max = 1000000,
     .apply = SET(o.file_count = static_cast<std::uint32_t>(row.number(v))), .usage = " N",
     .help = "with -C: keep N files in a ring; with -G: stop\nafter N files"},
    {.option = "postrotate-command", .short_option = 'z', .argument = A::kRequired,
     .apply = SET(o.post_rotate_command = v), .usage = " CMD", .help = "run CMD FILE after each rotation"},
    {.option = "stats-interval", .argument = A::kRequired, .min = 1, .max = 86400,
     .apply = SET(o.stats_interval = static_cast<std::uint32_t>(row.number(v))), .usage = " N",
     .help = "print a status line every N seconds"},
    {.option = "summary", .argument = A::kOptional,
     .apply = SET(o.summary = v.empty() ? "table" : v;
                  choose(row, o.summary, {"table", "json", "prometheus"}, "summary format", "use table, json or prometheus")),
     .usage = "[=FMT]", .help = "per-opcode/portal/peer/jobid summary at the end:\ntable (default), json or prometheus"},
    {.option = "chart", .argument = A::kRequired,
     .apply = SET(choose(row, v, {"mermaid", "html"}, "chart format", "use mermaid or html"); o.chart = v),
     .usage = " FMT", .help = "sequence chart of RPCs: mermaid or html"},
    {.option = "chart-output", .argument = A::kRequired, .apply = SET(o.chart_output = v), .usage = " FILE",
     .help = "where to write the chart (default stdout)"},
    {.option = "assert", .argument = A::kRequired, .apply = SET(o.assertions.push_back(v)), .usage = " EXPR",
     .help = "check what a command caused, e.g.\n'count(opcode LDLM_ENQUEUE) <= 2'"},
    {.option = "only-command", .apply = SET(o.only_command = true),
     .help = "count only the messages of the command's own\nRPCs (its session's Lustre jobid; needs\njobid_var=session)"},
    {.option = "top", .apply = SET(o.top = true),
     .help = "live view of the busiest jobs, clients, opcodes,\ntargets and NIs, refreshed every second (keys:\n"
             "docs/REPORTS.md \"Top\"); text blocks when not on a\nterminal"},
    {.option = "top-batch", .apply = SET(o.top = o.top_batch = true),
     .help = "--top as plain text blocks even on a terminal\n(like top -b)"},
    {.option = "anonymize", .apply = SET(o.anonymize = true),
     .help = "make the output safe to share: NIDs, jobids,\nuids/gids/projids and names replaced, bulk\n"
             "data dropped (docs/ANONYMIZE.md)"},
    {.option = "anon-key", .argument = A::kRequired, .apply = SET(o.anon_key = v; o.anonymize = true),
     .usage = " FILE", .help = "key for consistent pseudonyms across files\n(created with a random key when missing)"},
    {.option = "filter-file", .short_option = 'F', .argument = A::kRequired, .apply = SET(o.filter_file = v),
     .usage = " FILE", .help = "read the filter expression from FILE"},
    {.option = "help", .short_option = 'h', .apply = SET(o.show_help = true), .help = "this text"},
    {.option = "version", .apply = SET(o.show_version = true), .help = "print the version"},

    // The extcap protocol (docs/EXTCAP.md)
    {.option = "extcap-interfaces", .apply = SET(o.extcap_interfaces = true), .section = S::kHidden},
    {.option = "extcap-dlts", .apply = SET(o.extcap_dlts = true), .section = S::kHidden},
    {.option = "extcap-config", .apply = SET(o.extcap_config = true), .section = S::kHidden},
    {.option = "capture", .apply = SET(o.extcap_capture = true), .section = S::kHidden},
    {.option = "extcap-interface", .argument = A::kRequired, .apply = SET(o.extcap_interface = v),
     .section = S::kHidden},
    {.option = "fifo", .argument = A::kRequired, .apply = SET(o.extcap_fifo = v), .section = S::kHidden},
    {.option = "extcap-capture-filter", .argument = A::kRequired,
     .apply = SET(o.extcap_capture_filter = v; o.has_extcap_capture_filter = true), .section = S::kHidden},
    // Wireshark names its version; lnetcap speaks the protocol of every 4.x.
    {.option = "extcap-version", .argument = A::kOptional, .apply = SET(), .section = S::kHidden},
};

#undef SET

}  // namespace

std::string AgentOption::name() const {
  return short_option ? std::string("-") + short_option : std::string("--") + option;
}

std::uint64_t AgentOption::number(const std::string& value) const {
  const auto v = parse_whole_number(value, min, max);
  if (!v)
    throw Error("invalid value '" + value + "' for " + name() + " (expected " + number_range_text(min, max) + ")",
                "see lnetcap -h");
  return *v;
}

const std::vector<AgentOption>& agent_options() { return kOptions; }

}  // namespace lnetcap
