// SPDX-License-Identifier: GPL-2.0-or-later
#include "options.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "error.h"
#include "getopt_table.h"
#include "option_table.h"
#include "option_usage.h"
#include "option_values.h"

namespace lnetcap {
namespace {

constexpr std::size_t kMaxFilterFile = 1024 * 1024;

const GetoptTable& getopt_table() {
  static const GetoptTable table = [] {
    std::vector<GetoptRow> rows;
    for (const auto& r : agent_options())
      rows.push_back({r.option, r.short_option,
                      r.argument == OptionArgument::kNone       ? no_argument
                      : r.argument == OptionArgument::kRequired ? required_argument
                                                                : optional_argument});
    return GetoptTable(rows);
  }();
  return table;
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

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 0; i < argc; ++i) o.command_line += (i ? " " : "") + std::string(argv[i]);
  optind = 0;  // full reset (glibc), so tests can parse repeatedly
  opterr = 0;
  int c;
  const GetoptTable& table = getopt_table();
  while ((c = getopt_long(argc, argv, table.short_options(), table.long_options(), nullptr)) != -1) {
    const int row = table.row(c);
    if (row < 0)
      throw Error((table.missing_value() ? "option " + table.refused(argv) + " requires an argument"
                                         : "unknown option " + table.refused(argv)),
                  "see lnetcap -h");
    const AgentOption& r = agent_options()[static_cast<std::size_t>(row)];
    r.apply(r, optarg ? optarg : "", o);
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
  if (!o.consumer_group.empty() && (o.from.empty() || o.dump || o.daemon_status))
    throw Error("--consumer-group shares lnetcapd's live stream among a group's members: give --from URI, "
                "and no --dump or --status",
                "e.g. lnetcap --from local --consumer-group analysis -w part.pcapng");
  if (o.strict && o.read_file.empty())
    throw Error("--strict is about damaged records in a file: give -r FILE with it",
                "e.g. lnetcap -r trace.pcapng --strict");
  return o;
}

std::string usage_text(std::string_view body_fields) {
  std::string text = R"(Usage: lnetcap [options] [filter expression]
       lnetcap [options] --assert EXPR [--assert EXPR...] -- COMMAND [ARGS...]

Capture LNet messages (and the PtlRPC traffic they carry) on any LND, print
them or save them as pcapng for Wireshark/tshark.

Input:
)";
  for (const auto& r : agent_options())
    if (r.section == OptionSection::kInput) text += usage_row(r.short_option, r.option, r.usage ? r.usage : "", r.help);
  text += "Output:\n";
  for (const auto& r : agent_options())
    if (r.section == OptionSection::kOutput) text += usage_row(r.short_option, r.option, r.usage ? r.usage : "", r.help);
  return text + R"(
Filter expression (combine with and, or, not and parentheses):
  type put|get|ack|reply|hello        portal N|NAME (MDS_REQUEST, OST_IO...)
  nid NID   src nid NID   dst nid NID  net NET (tcp, o2ib1)
  ni NID|NET|none (the local NI; none: LNet had chosen none)
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
)" + std::string(body_fields) + R"(
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
