// SPDX-License-Identifier: GPL-2.0-or-later
// signals.h - SIGINT/SIGTERM/SIGHUP ask for a clean stop (drain, flush,
// write the ISB, exit 0); SIGUSR1 asks for a status line, as in tcpdump.
// Live sources poll stop_requested() in their wait loops so that a signal
// ends a blocking next() within one poll interval.
#pragma once

namespace lnetcap {

void install_signal_handlers();
/// Makes SIGHUP a reload request instead of a stop (lnetcapd re-reads its
/// config file, as daemons do).
void install_reload_signal();
/// True once per SIGHUP after install_reload_signal().
bool take_reload_request();
/// True once SIGINT, SIGTERM or SIGHUP arrived (or request_stop_now() ran).
bool stop_requested();
/// Sets the stop flag from ordinary code (e.g. --assert after the command ends).
void request_stop_now();
/// True once per SIGUSR1 (or per --stats-interval tick).
bool take_status_request();
/// True while a status request waits to be taken: live sources that are
/// idle return an empty record (see RecordSource::next) so it is served.
bool status_pending();
/// Arms a status request every `seconds` (0 disables), using SIGALRM.
void set_status_interval(unsigned seconds);

}  // namespace lnetcap
