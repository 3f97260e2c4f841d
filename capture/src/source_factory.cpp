// SPDX-License-Identifier: GPL-2.0-or-later
#include "source_factory.h"

#include <net/if.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "error.h"
#include "file_source.h"
#include "live/live_source.h"
#include "nid.h"
#include "socklnd/socklnd_source.h"

namespace lnetcap {
namespace {

// -i NAME: an LNet net or NID selects the eBPF capture restricted to those
// NIs; anything else must be a network interface for socklnd decoding.
bool names_network_interface(const std::string& name) {
  if (name.empty()) return false;
  if (Nid::parse(name) || Net::parse(name)) return false;
  return if_nametoindex(name.c_str()) != 0 || name == "any";
}

// A FIFO, pipe (/dev/stdin, <(zcat x.pcapng.gz)), socket or character
// device yields its bytes once: it is read like "-", never probed and
// reopened.
bool is_stream_path(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return false;
  return S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode);
}

}  // namespace

std::unique_ptr<RecordSource> open_capture_source(const Options& opts, const filter::Filter& filter,
                                                  KernelClauses clauses) {
  if (!opts.read_file.empty()) {
    if (opts.read_file == "-" || is_stream_path(opts.read_file)) {
      // A pipe cannot be opened twice: one byte tells pcapng (0x0A, the SHB)
      // from classic pcap (0xA1/0xD4/0x4D...), and goes back for the reader.
      const bool std_in = opts.read_file == "-";
      const std::string name = std_in ? "standard input" : opts.read_file;
      std::FILE* in = std_in ? stdin : std::fopen(opts.read_file.c_str(), "rb");
      if (!in) throw Error("cannot open " + name + ": " + std::strerror(errno));
      const int c = std::getc(in);
      if (c == EOF) {
        if (!std_in) std::fclose(in);
        throw Error(name + " is empty");
      }
      std::ungetc(c, in);
      if (c == 0x0A) return std::make_unique<LnetcapFileSource>(in, name);
      return open_socklnd_file(opts, in);
    }
    if (LnetcapFileSource::is_lnetcap_capture(opts.read_file))
      return std::make_unique<LnetcapFileSource>(opts.read_file);
    return open_socklnd_file(opts);
  }
  if (names_network_interface(opts.interface)) return open_socklnd_live(opts);
  return open_live_capture(opts, filter, clauses);
}

}  // namespace lnetcap
