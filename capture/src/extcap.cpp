// SPDX-License-Identifier: GPL-2.0-or-later
#include "extcap.h"

#include <cstdio>

#include "error.h"
#include "filter/filter.h"
#include "lnetcap/record.h"
#include "version.h"

namespace lnetcap {
namespace {

void print_interfaces() {
  std::printf("extcap {version=%s}{help=https://github.com/lnetcap/lnetcap}\n", LNETCAP_VERSION);
  std::printf("interface {value=%s}{display=LNet messages (lnetcap, eBPF)}\n", kExtcapInterface);
  std::printf("interface {value=%s}{display=LNet messages through lnetcapd (no privileges)}\n",
              kExtcapDaemonInterface);
}

void print_dlts() {
  std::printf("dlt {number=%d}{name=USER%d}{display=LNet capture records (lnetcap)}\n",
              LNETCAP_LINKTYPE, LNETCAP_LINKTYPE_USER_SLOT);
}

// Each argument's call= is an ordinary lnetcap option, so the capture call
// Wireshark builds is parsed by the normal option parser.
void print_config() {
  std::printf(
      "arg {number=0}{call=--interface}{display=LNet NIs}{type=string}"
      "{tooltip=Net or NID to capture on, e.g. o2ib1 or 10.0.0.1@tcp (empty = every NI)}"
      "{group=Capture}\n"
      "arg {number=1}{call=--snapshot-length}{display=Payload bytes per message}{type=unsigned}"
      "{default=%u}{range=0,1048576}{tooltip=0 keeps LNet headers only}{group=Capture}\n"
      "arg {number=2}{call=--direction}{display=Direction}{type=selector}{group=Capture}\n"
      "value {arg=2}{value=inout}{display=Sent and received}{default=true}\n"
      "value {arg=2}{value=in}{display=Received}{default=false}\n"
      "value {arg=2}{value=out}{display=Sent}{default=false}\n"
      "arg {number=3}{call=--attach}{display=Attach mode}{type=selector}{group=Advanced}\n"
      "value {arg=3}{value=auto}{display=Automatic}{default=true}\n"
      "value {arg=3}{value=fentry}{display=fentry (module BTF)}{default=false}\n"
      "value {arg=3}{value=kprobe}{display=kprobe}{default=false}\n"
      "arg {number=4}{call=--btf}{display=BTF of the lnet module}{type=fileselect}"
      "{mustexist=true}{group=Advanced}\n"
      "arg {number=5}{call=--buffer-size}{display=Ring buffer (KiB)}{type=unsigned}"
      "{range=4,4194304}{group=Advanced}\n",
      LNETCAP_DEFAULT_SNAPLEN);
}

// Through the daemon: where it listens and, for tcp://, the CurveZMQ keys.
// Everything the live interface sets is the daemon's business.
void print_daemon_config() {
  std::printf(
      "arg {number=0}{call=--from}{display=lnetcapd endpoint}{type=string}{default=local}"
      "{tooltip=local (/run/lnetcap/lnetcapd.sock), a socket path or tcp://HOST:PORT}"
      "{group=Capture}\n"
      "arg {number=1}{call=--snapshot-length}{display=Payload bytes per message}{type=unsigned}"
      "{range=0,1048576}{tooltip=empty: as the daemon captured}{group=Capture}\n"
      "arg {number=2}{call=--curve-key}{display=Your CurveZMQ key pair (tcp://)}{type=fileselect}"
      "{mustexist=true}{group=CurveZMQ}\n"
      "arg {number=3}{call=--server-key}{display=lnetcapd's public key (tcp://)}{type=string}"
      "{group=CurveZMQ}\n");
}

}  // namespace

std::optional<int> handle_extcap(Options& opts) {
  if (opts.extcap_interfaces) {
    print_interfaces();
    return 0;
  }
  const bool daemon = opts.extcap_interface == kExtcapDaemonInterface;
  const bool ours = opts.extcap_interface.empty() || opts.extcap_interface == kExtcapInterface || daemon;
  if ((opts.extcap_dlts || opts.extcap_config || opts.extcap_capture) && !ours)
    throw Error("unknown extcap interface '" + opts.extcap_interface + "'",
                std::string("lnetcap provides '") + kExtcapInterface + "' and '" +
                    kExtcapDaemonInterface + "'");
  if (opts.extcap_dlts) {
    print_dlts();
    return 0;
  }
  if (opts.extcap_config) {
    if (daemon)
      print_daemon_config();
    else
      print_config();
    return 0;
  }
  if (opts.has_extcap_capture_filter && !opts.extcap_capture) {
    // Wireshark validates the capture filter field: say why it is wrong.
    try {
      filter::Filter::parse(opts.extcap_capture_filter);
    } catch (const Error& e) {
      std::printf("%s\n", e.what());
      return 1;
    }
    return 0;
  }
  if (!opts.extcap_capture) return std::nullopt;
  if (opts.extcap_fifo.empty()) throw Error("--capture needs --fifo PATH");
  opts.write_file = opts.extcap_fifo;
  opts.packet_buffered = true;  // Wireshark shows messages as they come
  if (opts.has_extcap_capture_filter) opts.filter = opts.extcap_capture_filter;
  // The capture filter becomes the subscription's: it runs in the daemon.
  if (daemon && opts.from.empty()) opts.from.push_back("local");
  return std::nullopt;
}

}  // namespace lnetcap
