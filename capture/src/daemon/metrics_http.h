// SPDX-License-Identifier: GPL-2.0-or-later
// metrics_http.h - the tiny HTTP/1.1 responder lnetcapd serves its
// Prometheus metrics with: GET (or HEAD) /metrics answers the text format,
// anything else 404/405, one request per connection (Connection: close).
// It runs in its own thread so a slow scraper never delays the capture.
// Connections are served side by side (poll, non-blocking sockets), so a
// client that sends nothing (slowloris) or never reads its answer (a tiny
// receive window) holds up no one: each has 2 s to send its request and
// 10 s to take the answer, at most kMaxConnections are open, and when
// they are all taken a new one evicts the one idle longest.  Requests
// within 1 s of a render share that page (one copy, held by every
// connection still sending it), so the number of clients asking costs
// neither renders nor memory.
// (libmicrohttpd would add a dependency for one route and one content type.)
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace lnetcap::daemon {

class MetricsHttpServer {
 public:
  /// listen: "PORT" (every address), "ADDR:PORT" or "[IPv6]:PORT"; port 0
  /// lets the kernel pick (address() names it).  body() renders the page;
  /// it gets the number of scrapes served when it renders, that one
  /// included (scrapes within 1 s share the page).  Throws
  /// Error when it cannot listen.
  MetricsHttpServer(const std::string& listen, std::function<std::string(std::uint64_t)> body);
  ~MetricsHttpServer();
  MetricsHttpServer(const MetricsHttpServer&) = delete;
  MetricsHttpServer& operator=(const MetricsHttpServer&) = delete;

  /// "http://127.0.0.1:9788/metrics" with the port actually bound.
  const std::string& address() const { return address_; }
  std::uint64_t scrapes() const { return scrapes_; }
  /// Pages rendered: at most one a second, however many scrape.
  std::uint64_t renders() const { return renders_; }

  static constexpr std::size_t kMaxConnections = 32;

 private:
  struct Connection;
  struct Answer {
    std::string head;                               // status line and headers (or a whole short answer)
    std::shared_ptr<const std::string> page;        // the metrics page, shared; null for HEAD and errors
  };
  void run();
  /// The answer to a whole request head.
  Answer answer(const std::string& request, std::chrono::steady_clock::time_point now);

  std::function<std::string(std::uint64_t)> body_;
  int listen_fd_ = -1;
  int wake_fd_ = -1;  // eventfd: the destructor wakes the thread
  std::string address_;
  std::atomic<std::uint64_t> scrapes_{0};
  std::atomic<std::uint64_t> renders_{0};
  std::shared_ptr<const std::string> page_;  // the last page rendered (the server's thread only)
  std::chrono::steady_clock::time_point page_rendered_at_;
  std::thread thread_;
};

}  // namespace lnetcap::daemon
