// SPDX-License-Identifier: GPL-2.0-or-later
#include "metrics_http.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include "../error.h"
#include "accept_gate.h"

namespace lnetcap::daemon {
namespace {

constexpr int kRequestTimeoutMs = 2000;   // to send the request head
constexpr int kResponseTimeoutMs = 10000;  // to take the answer (Prometheus' default scrape timeout)
constexpr std::size_t kMaxRequest = 8192;
// Scrapes this close together share one rendered page: a big site's page
// is megabytes and takes a render of tens of milliseconds (seconds under a
// sanitizer), and each request used to cost one, so a few clients asking
// without reading kept this loop busy past an honest scraper's deadline.
// Prometheus scrapes every 15 s or more; a page up to 1 s old is current.
constexpr auto kPageReuse = std::chrono::milliseconds(1000);

// "9788" -> ("", "9788"); "127.0.0.1:9788"; "[::1]:9788".
std::pair<std::string, std::string> split_listen(const std::string& listen) {
  if (!listen.empty() && listen[0] == '[') {
    const auto close = listen.find("]:");
    if (close == std::string::npos) return {"", ""};
    return {listen.substr(1, close - 1), listen.substr(close + 2)};
  }
  const auto colon = listen.rfind(':');
  if (colon == std::string::npos) return {"", listen};
  return {listen.substr(0, colon), listen.substr(colon + 1)};
}

Error listen_error(const std::string& listen, const std::string& why) {
  return Error("cannot serve metrics on '" + listen + "': " + why,
               "give --metrics-listen PORT, ADDR:PORT or [IPv6]:PORT with a free port");
}

std::string response_head(const char* status, const std::string& type, std::size_t body_size) {
  return std::string("HTTP/1.1 ") + status + "\r\nContent-Type: " + type +
         "\r\nContent-Length: " + std::to_string(body_size) + "\r\nConnection: close\r\n\r\n";
}

std::string response(const char* status, const std::string& type, const std::string& body, bool head) {
  return response_head(status, type, body.size()) + (head ? "" : body);
}

}  // namespace

MetricsHttpServer::MetricsHttpServer(const std::string& listen,
                                     std::function<std::string(std::uint64_t)> body)
    : body_(std::move(body)) {
  auto [host, port] = split_listen(listen);
  if (port.empty() || port.find_first_not_of("0123456789") != std::string::npos)
    throw listen_error(listen, "no port number");
  // getaddrinfo takes the number modulo 65536: 99999 served on 34463.
  if (port.size() > 5 || std::stoul(port) > 65535)
    throw listen_error(listen, "port " + port + " is not a port (1 to 65535; 0: one the kernel picks)");
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  if (int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &res))
    throw listen_error(listen, gai_strerror(rc));
  std::string why = "no address";
  for (addrinfo* a = res; a && listen_fd_ < 0; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int one = 1, zero = 0;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    // "PORT" alone: every IPv4 and IPv6 address.
    if (a->ai_family == AF_INET6 && host.empty()) ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 64) == 0) {
      listen_fd_ = fd;
    } else {
      why = std::strerror(errno);
      ::close(fd);
    }
  }
  ::freeaddrinfo(res);
  if (listen_fd_ < 0) throw listen_error(listen, why);
  accept_gate::ungated_listener(listen_fd_);  // its clients have their own bound (kMaxClients)
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &len);
  char name[INET6_ADDRSTRLEN] = "";
  int bound_port = 0;
  if (bound.ss_family == AF_INET) {
    auto* in = reinterpret_cast<sockaddr_in*>(&bound);
    ::inet_ntop(AF_INET, &in->sin_addr, name, sizeof name);
    bound_port = ntohs(in->sin_port);
  } else {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&bound);
    ::inet_ntop(AF_INET6, &in6->sin6_addr, name, sizeof name);
    bound_port = ntohs(in6->sin6_port);
  }
  const std::string shown = host.empty() ? "0.0.0.0" : name;
  address_ = "http://" + (shown.find(':') != std::string::npos ? "[" + shown + "]" : shown) + ":" +
             std::to_string(bound_port) + "/metrics";
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) {
    ::close(listen_fd_);
    throw Error(std::string("eventfd: ") + std::strerror(errno));
  }
  thread_ = std::thread([this] { run(); });
}

MetricsHttpServer::~MetricsHttpServer() {
  const std::uint64_t one = 1;
  (void)!::write(wake_fd_, &one, sizeof one);
  if (thread_.joinable()) thread_.join();
  ::close(listen_fd_);
  ::close(wake_fd_);
}

struct MetricsHttpServer::Connection {
  int fd = -1;
  std::chrono::steady_clock::time_point deadline;
  std::string request;  // while reading
  Answer out;           // once the request is whole
  std::size_t sent = 0;  // of out.head, then of *out.page
  bool writing = false;

  std::size_t size() const { return out.head.size() + (out.page ? out.page->size() : 0); }
  /// Sends what the socket takes now; false when it failed.
  bool send_some() {
    iovec parts[2];
    int n_parts = 0;
    const std::size_t head = out.head.size();
    if (sent < head) parts[n_parts++] = {const_cast<char*>(out.head.data()) + sent, head - sent};
    if (out.page) {
      const std::size_t from = sent > head ? sent - head : 0;
      parts[n_parts++] = {const_cast<char*>(out.page->data()) + from, out.page->size() - from};
    }
    msghdr msg{};
    msg.msg_iov = parts;
    msg.msg_iovlen = static_cast<std::size_t>(n_parts);
    const ssize_t n = ::sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) sent += static_cast<std::size_t>(n);
    return n >= 0 || errno == EAGAIN || errno == EINTR;
  }
};

void MetricsHttpServer::run() {
  using Clock = std::chrono::steady_clock;
  std::vector<Connection> conns;
  auto drop = [&](std::size_t i) {
    ::close(conns[i].fd);
    conns.erase(conns.begin() + static_cast<std::ptrdiff_t>(i));
  };
  for (;;) {
    std::vector<pollfd> fds{{listen_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    auto now = Clock::now();
    Clock::time_point next = now + std::chrono::hours(1);
    for (const auto& c : conns) {
      fds.push_back({c.fd, static_cast<short>(c.writing ? POLLOUT : POLLIN), 0});
      next = std::min(next, c.deadline);
    }
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count();
    if (::poll(fds.data(), fds.size(), static_cast<int>(std::max<long long>(wait, 0) + 1)) < 0 && errno != EINTR)
      return;
    if (fds[1].revents) break;
    now = Clock::now();
    // Connections first (their indexes match fds[2...]), from the back so
    // dropping one keeps the others' indexes.
    for (std::size_t i = conns.size(); i-- > 0;) {
      Connection& c = conns[i];
      const short ev = fds[2 + i].revents;
      if (c.writing && (ev & (POLLOUT | POLLERR | POLLHUP))) {
        if (!c.send_some() || c.sent == c.size()) {
          drop(i);
          continue;
        }
      } else if (!c.writing && (ev & (POLLIN | POLLERR | POLLHUP))) {
        char buf[2048];
        const ssize_t n = ::recv(c.fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
          drop(i);
          continue;
        }
        if (n > 0) c.request.append(buf, static_cast<std::size_t>(n));
        if (c.request.find("\r\n\r\n") != std::string::npos || c.request.size() >= kMaxRequest) {
          c.out = answer(c.request, now);
          c.writing = true;
          c.deadline = now + std::chrono::milliseconds(kResponseTimeoutMs);
          continue;  // sent when the socket takes it
        }
      }
      if (now >= c.deadline) drop(i);  // too slow to ask, or to take the answer
    }
    if (fds[0].revents & POLLIN) {
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd < 0) {
        // Out of descriptors: the connection stays queued; do not spin on it.
        if (errno == EMFILE || errno == ENFILE) ::poll(nullptr, 0, 100);
        continue;
      }
      if (conns.size() >= kMaxConnections) {
        // Full: the connection idle longest (still not asking) makes room;
        // if every one is taking an answer, the new one is turned away.
        std::size_t oldest = conns.size();
        for (std::size_t i = 0; i < conns.size(); ++i)
          if (!conns[i].writing && (oldest == conns.size() || conns[i].deadline < conns[oldest].deadline))
            oldest = i;
        if (oldest == conns.size()) {
          const std::string busy = response("503 Service Unavailable", "text/plain", "busy\n", false);
          (void)!::send(fd, busy.data(), busy.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
          ::close(fd);
          continue;
        }
        drop(oldest);
      }
      Connection c;
      c.fd = fd;
      c.deadline = now + std::chrono::milliseconds(kRequestTimeoutMs);
      conns.push_back(std::move(c));
    }
  }
  for (auto& c : conns) ::close(c.fd);
}

MetricsHttpServer::Answer MetricsHttpServer::answer(const std::string& request,
                                                   std::chrono::steady_clock::time_point now) {
  const std::string line = request.substr(0, request.find("\r\n"));
  const auto sp1 = line.find(' '), sp2 = line.find(' ', sp1 + 1);
  if (sp1 == std::string::npos || sp2 == std::string::npos)
    return {response("400 Bad Request", "text/plain", "bad request\n", false), nullptr};
  const std::string method = line.substr(0, sp1);
  std::string path = line.substr(sp1 + 1, sp2 - sp1 - 1);
  path = path.substr(0, path.find('?'));
  const bool head = method == "HEAD";
  if (method != "GET" && !head)
    return {response("405 Method Not Allowed", "text/plain", "only GET and HEAD\n", false), nullptr};
  if (path != "/metrics")
    return {response("404 Not Found", "text/plain", "lnetcapd serves its metrics at /metrics\n", head), nullptr};
  const std::uint64_t n = ++scrapes_;
  if (!page_ || now - page_rendered_at_ >= kPageReuse) {
    page_ = std::make_shared<const std::string>(body_(n));
    page_rendered_at_ = now;
    ++renders_;
  }
  return {response_head("200 OK", "text/plain; version=0.0.4; charset=utf-8", page_->size()),
          head ? nullptr : page_};
}

}  // namespace lnetcap::daemon
