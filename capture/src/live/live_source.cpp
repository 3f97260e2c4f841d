// SPDX-License-Identifier: GPL-2.0-or-later
// Placeholder until the eBPF capture lands.
#include "live_source.h"

#include "../error.h"

namespace lnetcap {

std::unique_ptr<RecordSource> open_live_capture(const Options&, const filter::Filter&) {
  throw Error("live eBPF capture is not implemented yet");
}
int list_live_interfaces(const Options&) {
  throw Error("live eBPF capture is not implemented yet");
}

}  // namespace lnetcap
