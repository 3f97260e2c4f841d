// SPDX-License-Identifier: GPL-2.0-or-later
#include "top_runner.h"

#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <memory>

#include "error.h"
#include "message.h"
#include "record.h"
#include "report/top_table.h"
#include "signals.h"
#include "text/checked_write.h"
#include "top_terminal.h"
#include "top_view.h"

namespace lnetcap::top {
namespace {

constexpr std::uint64_t kWindowNs = 1000000000ull;
constexpr std::uint64_t kMsNs = 1000000ull;

std::uint64_t steady_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}
std::uint64_t wall_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

std::string utc_time(std::uint64_t ns) {
  const std::time_t t = static_cast<std::time_t>(ns / 1000000000ull);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

std::string source_label(const Options& o) {
  if (!o.read_file.empty()) return "-r " + o.read_file;
  if (!o.from.empty()) {
    std::string s = "--from";
    for (const std::string& f : o.from) s += " " + f;
    return s;
  }
  return o.interface.empty() ? "live" : "live -i " + o.interface;
}


// Idle live sources return an empty record when a status request is
// pending (source.h), so a timer of status requests (SIGALRM) wakes the
// loop to serve keys and close windows while nothing arrives.
void arm_wakeups(std::uint64_t every_ns) {
  itimerval t{};
  t.it_interval.tv_sec = static_cast<time_t>(every_ns / 1000000000ull);
  t.it_interval.tv_usec = static_cast<suseconds_t>(every_ns % 1000000000ull / 1000);
  t.it_value = t.it_interval;
  setitimer(ITIMER_REAL, &t, nullptr);
}

class TopRun {
 public:
  TopRun(const Options& opts, RecordSource& source, const filter::Filter& filter, RecordSink* writer)
      : opts_(opts), source_(source), filter_(filter), writer_(writer),
        batch_(opts.top_batch || !isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)),
        record_clock_(!opts.read_file.empty()) {
    status_.source = source_label(opts);
  }

  int run() {
    if (!record_clock_) arm_wakeups(100 * kMsNs);
    if (!batch_) terminal_ = std::make_unique<TopTerminal>();
    window_start_steady_ = steady_ns();
    window_start_label_ = wall_ns();
    status_.window_at = utc_time(window_start_label_);
    if (terminal_) draw();
    CapturedRecord rec;
    while (!(opts_.count && matched_ >= *opts_.count)) {
      if (stop_requested()) {
        if (terminal_) return 0;  // Ctrl-C on the screen: like q
        source_.request_stop();
      }
      if (!source_.next(rec)) break;
      take_status_request();  // our wake-up's, served below
      if (!rec.bytes.empty() && !take(rec)) return 0;
      if (!record_clock_ && steady_ns() >= window_start_steady_ + kWindowNs) close_wall_window();
      if (terminal_ && steady_ns() >= next_key_poll_ && serve_keys(0)) return 0;
    }
    return finish();
  }

 private:
  // One record: false when the user quit while its replay waited.
  bool take(const CapturedRecord& rec) {
    std::string why;
    auto view = parse_record(rec.bytes, &why);
    if (!view) throw Error("bad record from the capture source: " + why);
    const Message msg = decode_message(*view, rec.ts_ns, rec.interface_id);
    if (!filter_.matches(msg)) return true;
    if (record_clock_) {
      if (!started_) {
        started_ = true;
        window_start_ns_ = msg.ts_ns;
        replay_origin_ = msg.ts_ns;
        replay_wall_ = steady_ns();
      }
      if (terminal_ && !wait_for_record_time(msg.ts_ns)) return false;
      close_record_windows_before(msg.ts_ns);
    }
    if (writer_) writer_->consume(rec, msg, source_.interfaces());
    windows_.add(msg);
    ++window_messages_;
    ++matched_;
    return true;
  }

  // The replay's clock: record time, at the recorded pace from the first.
  std::uint64_t replay_now() const { return replay_origin_ + (steady_ns() - replay_wall_); }

  // On the screen, a record is taken once the replay clock reaches it;
  // windows it passes on the way are shown a second each.
  bool wait_for_record_time(std::uint64_t ts) {
    for (;;) {
      const std::uint64_t now = replay_now();
      if (now >= window_start_ns_ + kWindowNs) {
        close_record_windows_before(now);
        continue;
      }
      if (now >= ts) return true;
      if (stop_requested()) return false;
      const std::uint64_t wait =
          std::min({ts - now, window_start_ns_ + kWindowNs - now, 250 * kMsNs});
      if (serve_keys(static_cast<int>(std::max<std::uint64_t>(wait / kMsNs, 1)))) return false;
    }
  }

  // Closes every record-time window that ends at or before ts.  Plain text
  // skips the empty windows of a gap in the capture (a block each would
  // only say nothing happened).
  void close_record_windows_before(std::uint64_t ts) {
    while (ts >= window_start_ns_ + kWindowNs) {
      close_window(1.0, window_start_ns_);
      window_start_ns_ += kWindowNs;
      if (batch_ && ts >= window_start_ns_ + kWindowNs)
        window_start_ns_ = ts - (ts - window_start_ns_) % kWindowNs;
    }
  }

  void close_wall_window() {
    const std::uint64_t now = steady_ns();
    close_window(static_cast<double>(now - window_start_steady_) / 1e9, window_start_label_);
    window_start_steady_ = now;
    window_start_label_ = wall_ns();
  }

  void close_window(double seconds, std::uint64_t label_ns) {
    windows_.close_window(seconds);
    status_.window_at = utc_time(label_ns);
    const bool had = window_messages_ != 0;
    window_messages_ = 0;
    if (batch_) {
      if (had || !record_clock_)
        text::write_all(stdout, top_block(windows_.last(), seconds, "window " + status_.window_at),
                        "the --top block");
      std::fflush(stdout);
    } else if (!view_.paused()) {
      draw();
    }
  }

  // The end of the input: the last window, then the whole run.
  int finish() {
    if (stop_requested() && terminal_) return 0;
    if (record_clock_) {
      if (started_) close_window(1.0, window_start_ns_);
    } else {
      close_wall_window();
    }
    const report::SummaryReport total = windows_.total();
    const double span = total.last_ts_ns > total.first_ts_ns
                            ? static_cast<double>(total.last_ts_ns - total.first_ts_ns) / 1e9
                            : 0;
    if (batch_) {
      text::write_all(stdout, top_block(total, span, "total"), "the --top block");
      return 0;
    }
    status_.ended = true;
    view_.show_total(true);
    draw();
    while (!stop_requested())
      if (serve_keys(1000)) break;
    return 0;
  }

  void draw() {
    terminal_->draw(view_.lines(windows_, status_, terminal_->rows(), terminal_->cols()),
                    TopView::kHeadingLine);
  }

  // Keys typed so far (waiting up to timeout_ms for the first); true on q.
  // A paused replay waits here, its clock held, until p again.
  bool serve_keys(int timeout_ms) {
    next_key_poll_ = steady_ns() + 50 * kMsNs;
    for (int ch = terminal_->key(timeout_ms); ch != -1; ch = terminal_->key(0))
      if (serve_key(ch)) return true;
    if (record_clock_ && view_.paused()) {
      const std::uint64_t held = steady_ns();
      while (view_.paused() && !stop_requested()) {
        const int ch = terminal_->key(250);
        if (ch != -1 && serve_key(ch)) return true;
      }
      replay_wall_ += steady_ns() - held;
    }
    return false;
  }

  // One key (or a resize): redraws as it asks; true on q.
  bool serve_key(int ch) {
    if (ch == TopTerminal::kResized) {
      draw();
      return false;
    }
    const TopView::Action a = view_.key(ch);
    if (a == TopView::Action::kRedraw) draw();
    return a == TopView::Action::kQuit;
  }

  const Options& opts_;
  RecordSource& source_;
  const filter::Filter& filter_;
  RecordSink* const writer_;  // -w FILE, or null
  const bool batch_, record_clock_;
  std::unique_ptr<TopTerminal> terminal_;
  report::TopWindows windows_;
  TopView view_;
  TopStatus status_;
  std::uint64_t matched_ = 0, window_messages_ = 0;
  bool started_ = false;
  std::uint64_t window_start_ns_ = 0;  // record clock
  std::uint64_t replay_origin_ = 0, replay_wall_ = 0;
  std::uint64_t window_start_steady_ = 0, window_start_label_ = 0;  // wall clock
  std::uint64_t next_key_poll_ = 0;
};

}  // namespace

void refuse_other_outputs(const Options& o) {
  if (!o.summary.empty() || !o.chart.empty() || !o.assertions.empty() || !o.print_format.empty() ||
      o.print_with_write || o.anonymize || o.dump || o.daemon_status)
    throw Error("--top is a view of its own: give no -p, --print, --summary, --chart, "
                "--assert, --anonymize, --dump or --status with it (-w FILE is kept)",
                "run a second lnetcap (or subscribe to lnetcapd twice) for those");
}

int run_top(const Options& opts, RecordSource& source, const filter::Filter& filter, RecordSink* writer) {
  return TopRun(opts, source, filter, writer).run();
}

}  // namespace lnetcap::top
