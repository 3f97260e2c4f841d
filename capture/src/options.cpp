// SPDX-License-Identifier: GPL-2.0-or-later
#include "options.h"

#include <getopt.h>
#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

#include "error.h"

namespace lnetcap {
namespace {

constexpr std::size_t kMaxFilterFile = 1024 * 1024;

enum LongOnly {
  kOptVersion = 1000,
  kOptPrint,
  kOptNano,
  kOptBtf,
  kOptAttach,
  kOptLustreVersion,
  kOptPort,
  kOptLocalNid,
  kOptStatsInterval,
  kOptSummary,
  kOptNidNames,
  kOptChart,
  kOptChartOutput,
  kOptAssert,
  kOptOnlyCommand,
  kOptAnonymize,
  kOptAnonKey,
  kOptExtcapInterfaces,
  kOptExtcapDlts,
  kOptExtcapConfig,
  kOptExtcapCapture,
  kOptExtcapInterface,
  kOptExtcapFifo,
  kOptExtcapCaptureFilter,
  kOptExtcapVersion,
  kOptFrom,
  kOptCurveKey,
  kOptServerKey,
  kOptDump,
  kOptStatus,
};

// '+': stop at the first non-option, so filter terms such as "status == -2"
// and the command after --assert are never taken for options.
constexpr char kShortOptions[] = "+B:c:C:DF:G:hi:np:qQ:r:s:UvW:w:xz:Z:";

const option kLongOptions[] = {
    {"buffer-size", required_argument, nullptr, 'B'},
    {"count", required_argument, nullptr, 'c'},
    {"file-size", required_argument, nullptr, 'C'},
    {"list-interfaces", no_argument, nullptr, 'D'},
    {"filter-file", required_argument, nullptr, 'F'},
    {"rotate-seconds", required_argument, nullptr, 'G'},
    {"help", no_argument, nullptr, 'h'},
    {"interface", required_argument, nullptr, 'i'},
    {"pretty", required_argument, nullptr, 'p'},
    {"quiet", no_argument, nullptr, 'q'},
    {"direction", required_argument, nullptr, 'Q'},
    {"read", required_argument, nullptr, 'r'},
    {"snapshot-length", required_argument, nullptr, 's'},
    {"packet-buffered", no_argument, nullptr, 'U'},
    {"verbose", no_argument, nullptr, 'v'},
    {"file-count", required_argument, nullptr, 'W'},
    {"write", required_argument, nullptr, 'w'},
    {"hex", no_argument, nullptr, 'x'},
    {"postrotate-command", required_argument, nullptr, 'z'},
    {"relinquish-privileges", required_argument, nullptr, 'Z'},
    {"version", no_argument, nullptr, kOptVersion},
    {"print", no_argument, nullptr, kOptPrint},
    {"nano", no_argument, nullptr, kOptNano},
    {"btf", required_argument, nullptr, kOptBtf},
    {"attach", required_argument, nullptr, kOptAttach},
    {"lustre-version", required_argument, nullptr, kOptLustreVersion},
    {"port", required_argument, nullptr, kOptPort},
    {"local-nid", required_argument, nullptr, kOptLocalNid},
    {"stats-interval", required_argument, nullptr, kOptStatsInterval},
    {"summary", optional_argument, nullptr, kOptSummary},
    {"nid-names", required_argument, nullptr, kOptNidNames},
    {"chart", required_argument, nullptr, kOptChart},
    {"chart-output", required_argument, nullptr, kOptChartOutput},
    {"assert", required_argument, nullptr, kOptAssert},
    {"only-command", no_argument, nullptr, kOptOnlyCommand},
    {"anonymize", no_argument, nullptr, kOptAnonymize},
    {"anon-key", required_argument, nullptr, kOptAnonKey},
    {"extcap-interfaces", no_argument, nullptr, kOptExtcapInterfaces},
    {"extcap-dlts", no_argument, nullptr, kOptExtcapDlts},
    {"extcap-config", no_argument, nullptr, kOptExtcapConfig},
    {"capture", no_argument, nullptr, kOptExtcapCapture},
    {"extcap-interface", required_argument, nullptr, kOptExtcapInterface},
    {"fifo", required_argument, nullptr, kOptExtcapFifo},
    {"extcap-capture-filter", required_argument, nullptr, kOptExtcapCaptureFilter},
    {"extcap-version", optional_argument, nullptr, kOptExtcapVersion},
    {"from", required_argument, nullptr, kOptFrom},
    {"curve-key", required_argument, nullptr, kOptCurveKey},
    {"server-key", required_argument, nullptr, kOptServerKey},
    {"dump", no_argument, nullptr, kOptDump},
    {"status", no_argument, nullptr, kOptStatus},
    {nullptr, 0, nullptr, 0},
};

template <typename T>
T parse_number(const char* opt, const std::string& text, T min, T max) {
  T v{};
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || v < min || v > max)
    throw Error("invalid value '" + text + "' for " + opt + " (expected a number from " +
                    std::to_string(min) + " to " + std::to_string(max) + ")",
                "see lnetcap -h");
  return v;
}

// A -F file: lines starting with '#' are comments, as in tcpdump -F files.
// They are blanked, not removed, so that an error's offset still gives its
// line and column in the file (Filter::parse with the file as origin).
std::string read_filter_file(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    throw Error("cannot read filter file " + path + ": " + std::strerror(errno));
  if (S_ISDIR(st.st_mode))
    throw Error("filter file " + path + " is a directory",
                "-F takes a file holding the expression");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read filter file " + path + ": " + std::strerror(errno));
  // Bounded: -F /dev/zero or a log given by mistake must not eat memory.
  std::string s(kMaxFilterFile + 1, '\0');
  in.read(s.data(), static_cast<std::streamsize>(s.size()));
  s.resize(static_cast<std::size_t>(in.gcount()));
  if (s.size() > kMaxFilterFile)
    throw Error("filter file " + path + " is larger than " + std::to_string(kMaxFilterFile / 1024) +
                    " KiB",
                "-F takes a file holding one filter expression");
  std::string out;
  std::istringstream lines(s);
  for (std::string line; std::getline(lines, line);)
    out += (!line.empty() && line[0] == '#' ? std::string(line.size(), ' ') : line) + "\n";
  return out;
}

}  // namespace

std::optional<std::uint64_t> parse_size(const std::string& text, std::uint64_t plain_unit) {
  if (text.empty()) return std::nullopt;
  std::uint64_t unit = plain_unit;
  std::string digits = text;
  switch (text.back()) {
    case 'k': case 'K': unit = 1024; digits.pop_back(); break;
    case 'm': case 'M': unit = 1024 * 1024; digits.pop_back(); break;
    case 'g': case 'G': unit = 1024ULL * 1024 * 1024; digits.pop_back(); break;
    default: break;
  }
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || p != digits.data() + digits.size() || v == 0) return std::nullopt;
  if (v > kMaxSize / unit) return std::nullopt;  // would wrap (to 0: a file per record)
  return v * unit;
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 0; i < argc; ++i) o.command_line += (i ? " " : "") + std::string(argv[i]);
  optind = 0;  // full reset (glibc), so tests can parse repeatedly
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, kShortOptions, kLongOptions, nullptr)) != -1) {
    const std::string arg = optarg ? optarg : "";
    switch (c) {
      case 'B': o.buffer_kib = parse_number<std::uint32_t>("-B", arg, 4, 4u << 20); break;
      case 'c': o.count = parse_number<std::uint64_t>("-c", arg, 1, UINT64_MAX); break;
      case 'C': {
        auto s = parse_size(arg, 1000000);
        if (!s)
          throw Error("invalid file size '" + arg + "' for -C (expected 1 to " +
                          std::to_string(kMaxSize / 1000000) + " millions of bytes, or 1k to " +
                          std::to_string(kMaxSize >> 30) + "g)",
                      "e.g. -C 100 (MB) or -C 512k");
        o.rotate_size = s;
        break;
      }
      case 'D': o.list_interfaces = true; break;
      case 'F': o.filter_file = arg; break;
      case 'G': o.rotate_seconds = parse_number<std::uint32_t>("-G", arg, 1, 365u * 86400); break;
      case 'h': o.show_help = true; break;
      case 'i': o.interface = arg; break;
      case 'p': o.print_format = arg; break;
      case 'q': o.quiet = true; break;
      case 'Q':
        if (arg == "in") o.direction = Direction::kIn;
        else if (arg == "out") o.direction = Direction::kOut;
        else if (arg == "inout") o.direction = Direction::kBoth;
        else throw Error("invalid direction '" + arg + "' for -Q", "use in, out or inout");
        break;
      case 'r': o.read_file = arg; break;
      case 's': o.snaplen = parse_number<std::uint32_t>("-s", arg, 0, 1u << 20); break;
      case 'U': o.packet_buffered = true; break;
      case 'v': ++o.verbose; break;
      case 'W': o.file_count = parse_number<std::uint32_t>("-W", arg, 1, 1000000); break;
      case 'w': o.write_file = arg; break;
      case 'x': o.hex = true; break;
      case 'z': o.post_rotate_command = arg; break;
      case 'Z': o.drop_user = arg; break;
      case kOptVersion: o.show_version = true; break;
      case kOptPrint: o.print_with_write = true; break;
      case kOptNano: o.nano = true; break;
      case kOptBtf: o.btf_file = arg; break;
      case kOptAttach:
        if (arg != "auto" && arg != "fentry" && arg != "kprobe")
          throw Error("invalid attach mode '" + arg + "'", "use auto, fentry or kprobe");
        o.attach_mode = arg;
        break;
      case kOptLustreVersion: o.lustre_version = arg; break;
      case kOptPort: o.lnet_port = parse_number<std::uint16_t>("--port", arg, 1, 65535); break;
      case kOptLocalNid: o.local_nid = arg; break;
      case 'n': o.numeric = true; break;
      case kOptNidNames: o.nid_names = arg; break;
      case kOptStatsInterval:
        o.stats_interval = parse_number<std::uint32_t>("--stats-interval", arg, 1, 86400);
        break;
      case kOptSummary:
        o.summary = arg.empty() ? "table" : arg;
        if (o.summary != "table" && o.summary != "json" && o.summary != "prometheus")
          throw Error("invalid summary format '" + arg + "'", "use table, json or prometheus");
        break;
      case kOptChart:
        if (arg != "mermaid" && arg != "html")
          throw Error("invalid chart format '" + arg + "'", "use mermaid or html");
        o.chart = arg;
        break;
      case kOptChartOutput: o.chart_output = arg; break;
      case kOptAssert: o.assertions.push_back(arg); break;
      case kOptOnlyCommand: o.only_command = true; break;
      case kOptAnonymize: o.anonymize = true; break;
      case kOptAnonKey: o.anon_key = arg; o.anonymize = true; break;
      case kOptExtcapInterfaces: o.extcap_interfaces = true; break;
      case kOptExtcapDlts: o.extcap_dlts = true; break;
      case kOptExtcapConfig: o.extcap_config = true; break;
      case kOptExtcapCapture: o.extcap_capture = true; break;
      case kOptExtcapInterface: o.extcap_interface = arg; break;
      case kOptExtcapFifo: o.extcap_fifo = arg; break;
      case kOptExtcapCaptureFilter:
        o.extcap_capture_filter = arg;
        o.has_extcap_capture_filter = true;
        break;
      case kOptExtcapVersion: break;  // we speak the protocol of every 4.x
      case kOptFrom: o.from.push_back(arg); break;
      case kOptCurveKey: o.curve_key = arg; break;
      case kOptServerKey: o.server_key = arg; break;
      case kOptDump: o.dump = true; break;
      case kOptStatus: o.daemon_status = true; break;
      case '?':
      default: {
        std::string bad = optopt ? std::string("-") + static_cast<char>(optopt)
                                 : std::string(argv[optind - 1]);
        bool missing = false;
        for (const char* p = kShortOptions; *p; ++p)
          if (optopt && *p == optopt && p[1] == ':') missing = true;
        throw Error(missing ? "option " + bad + " requires an argument"
                            : "unknown option " + bad,
                    "see lnetcap -h");
      }
    }
  }
  std::vector<std::string> rest(argv + optind, argv + argc);
  if (!o.assertions.empty()) {
    o.command = rest;
  } else {
    for (const auto& r : rest) o.filter += (o.filter.empty() ? "" : " ") + r;
  }
  if (o.only_command && (o.command.empty() || !o.read_file.empty() || !o.from.empty()))
    throw Error("--only-command counts what a command run live causes",
                "lnetcap --assert EXPR --only-command -- COMMAND [ARGS] (no -r, no --from)");
  if (!o.filter_file.empty()) {
    if (!o.filter.empty()) throw Error("give a filter with -F or on the command line, not both");
    o.filter = read_filter_file(o.filter_file);
  }
  if (!o.from.empty() && (!o.read_file.empty() || !o.interface.empty()))
    throw Error("--from reads from lnetcapd: give no -r or -i with it",
                "lnetcapd's own command line chooses what it captures");
  if ((o.dump || o.daemon_status) && o.from.empty())
    throw Error(std::string(o.dump ? "--dump" : "--status") + " asks lnetcapd: give --from URI",
                "e.g. lnetcap --from local --dump -w incident.pcapng");
  if (o.dump && o.daemon_status) throw Error("give --dump or --status, not both");
  return o;
}

std::string usage_text() {
  return R"(Usage: lnetcap [options] [filter expression]
       lnetcap [options] --assert EXPR [--assert EXPR...] -- COMMAND [ARGS...]

Capture LNet messages (and the PtlRPC traffic they carry) on any LND, print
them or save them as pcapng for Wireshark/tshark.

Input:
  -r, --read FILE          read a capture: lnetcap pcapng, or a tcpdump
                           pcap/pcapng of socklnd TCP traffic ("-" = stdin)
  -i, --interface NAME     live capture; NAME is an LNet net or NID ("tcp",
                           "o2ib1", "10.0.0.1@tcp") to restrict the eBPF
                           capture to local NIs, or a network interface
                           ("eth0") to decode socklnd traffic with libpcap
      --from URI           subscribe to lnetcapd (repeatable: streams merged
                           in time order); URI is local (the default socket
                           /run/lnetcap/lnetcapd.sock), a socket path,
                           ipc://PATH or tcp://HOST:PORT; the filter and -s
                           are evaluated by the daemon (docs/DAEMON.md)
      --curve-key FILE     for tcp:// --from: this client's CurveZMQ key pair
                           (make one with lnetcapd --gen-key FILE; its public
                           key goes into the daemon's authorized-keys file)
      --server-key KEY     for tcp:// --from: the daemon's public key (Z85)
                           or a file holding it
      --dump               with --from: the records lnetcapd's flight
                           recorder holds (filter and sinks as usual), e.g.
                           lnetcap --from local --dump -w incident.pcapng
      --status             with --from: print lnetcapd's status (flight
                           recorder memory and window, triggers, files
                           written and skipped, metrics scrapes) and exit
  -D, --list-interfaces    list local LNet NIs and the attach mode
  -s, --snapshot-length N  payload bytes kept per message (default 1024;
                           0 = LNet headers only)
  -B, --buffer-size KIB    eBPF ring buffer size
  -Q, --direction DIR      in, out or inout (default)
  -Z, --relinquish-privileges USER   drop to USER after attaching
      --btf FILE           BTF of the lnet module (for kprobe mode offsets)
      --attach MODE        auto (default), fentry or kprobe
      --lustre-version V   Lustre release whose built-in offsets to use (2.15, 2.16, 2.17)
                           when the node does not publish it
      --port N             socklnd TCP port (default 988)
      --local-nid NID      direction of imported TCP traffic relative to NID
Output:
  -w, --write FILE         write pcapng ("-" = stdout, for wireshark -k -i -)
  -c, --count N            stop after N records
  -p, --pretty FORMAT      print with an lnetdump-style format (see below)
  -q, --quiet              terse output
  -v, --verbose            more detail (repeat for more)
  -x, --hex                hex dump of each payload prefix
  -n                       NIDs as numbers: no names from the NID names file
      --nid-names FILE     names for NIDs (default /etc/lnetcap/nids when it exists)
  -U, --packet-buffered    flush output after every message
      --print              print text even when writing a file
      --nano               nanosecond timestamps in text
  -C, --file-size SIZE     rotate -w files after SIZE (millions of bytes,
                           or with k/m/g suffix)
  -G, --rotate-seconds N   rotate -w files every N seconds
  -W, --file-count N       with -C: keep N files in a ring; with -G: stop
                           after N files
  -z, --postrotate-command CMD   run CMD FILE after each rotation
      --stats-interval N   print a status line every N seconds
      --summary[=FMT]      per-opcode/portal/peer/jobid summary at the end:
                           table (default), json or prometheus
      --chart FMT          sequence chart of RPCs: mermaid or html
      --chart-output FILE  where to write the chart (default stdout)
      --assert EXPR        check what a command caused, e.g.
                           'count(opcode LDLM_ENQUEUE) <= 2'
      --only-command       count only the messages of the command's own
                           RPCs (its session's Lustre jobid; needs
                           jobid_var=session)
      --anonymize          make the output safe to share: NIDs, jobids,
                           uids/gids/projids and names replaced, bulk
                           data dropped (docs/ANONYMIZE.md)
      --anon-key FILE      key for consistent pseudonyms across files
                           (created with a random key when missing)
  -F, --filter-file FILE   read the filter expression from FILE
  -h, --help               this text
      --version            print the version

Filter expression (combine with and, or, not and parentheses):
  type put|get|ack|reply|hello        portal N|NAME (MDS_REQUEST, OST_IO...)
  nid NID   src nid NID   dst nid NID  net NET (tcp, o2ib1)
  opcode N|NAME   xid N   jobid STR   status OP N   uid N   gid N
  dir send|recv|forward|drop           rpc request|reply|error
  health [OP] OK|NAME                  len OP N   (OP: == != < <= > >=)
  rc OP N (LNet status)   drop [REASON]   queue OP TIME (queue > 1ms)

-p FORMAT codes (%[-][width]CODE): %c counter  %Ls send/recv  %Lt LNet type
  %Ll length  %LP portal  %Lm match bits  %Po opcode  %Pj jobid  %Pu uid
  %Pg gid  %Pp projid  %PL pb_limit  %PS pb_slv  %Dt LDLM resource type
  %Dc lock count  %Dn resource as FID
  lnetcap's own: %T time  %Ts epoch seconds  %Ns src NID  %Nd dst NID
  %Ni local NI  %Np peer NID  %Px XID  %Pt rpc type  %Ps status
  %Hs health  %Hr retries  %% a percent sign

Examples:
  sudo lnetcap -w trace.pcapng                 capture everything
  sudo lnetcap -w - | wireshark -k -i -        live into Wireshark
  lnetcap -r trace.pcapng opcode LDLM_ENQUEUE  print lock enqueues
  lnetcap -r tcpdump.pcap -w lnet.pcapng       convert socklnd TCP traffic
  lnetcap -r trace.pcapng 'status < 0'         failed RPCs
  lnetcap -r trace.pcapng -p '%-5c %Lm %-5Ls %-5Lt %-20LP [%-16Pj] %-30Po'
  lnetcap -r trace.pcapng --summary=json
  lnetcap --from local -w - opcode LDLM_ENQUEUE  subscribe to lnetcapd
  lnetcap -r trace.pcapng -w public.pcapng --anon-key site.key
  sudo lnetcap --assert 'count(type put and portal MDS_REQUEST) == 4' -- touch /mnt/lustre/f
)";
}

}  // namespace lnetcap
