// SPDX-License-Identifier: GPL-2.0-or-later
// Placeholder until the socklnd reassembler lands.
#include "socklnd_source.h"

#include "../error.h"

namespace lnetcap {

std::unique_ptr<RecordSource> open_socklnd_file(const Options& opts) {
  throw Error(opts.read_file + ": reading socklnd TCP captures is not implemented yet");
}
std::unique_ptr<RecordSource> open_socklnd_live(const Options& opts) {
  throw Error(opts.interface + ": live socklnd capture is not implemented yet");
}

}  // namespace lnetcap
