// SPDX-License-Identifier: GPL-2.0-or-later
#include "metrics_http.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "../error.h"

namespace lnetcap::daemon {
namespace {

constexpr int kRequestTimeoutMs = 2000;
constexpr std::size_t kMaxRequest = 8192;

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

void send_all(int fd, const std::string& data) {
  std::size_t off = 0;
  while (off < data.size()) {
    const ssize_t n = ::send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the scraper went away: nothing to do
    off += static_cast<std::size_t>(n);
  }
}

std::string response(const char* status, const std::string& type, const std::string& body, bool head) {
  return std::string("HTTP/1.1 ") + status + "\r\nContent-Type: " + type +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" +
         (head ? "" : body);
}

}  // namespace

MetricsHttpServer::MetricsHttpServer(const std::string& listen,
                                     std::function<std::string(std::uint64_t)> body)
    : body_(std::move(body)) {
  auto [host, port] = split_listen(listen);
  if (port.empty() || port.find_first_not_of("0123456789") != std::string::npos || port.size() > 5)
    throw listen_error(listen, "no port number");
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
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 16) == 0) {
      listen_fd_ = fd;
    } else {
      why = std::strerror(errno);
      ::close(fd);
    }
  }
  ::freeaddrinfo(res);
  if (listen_fd_ < 0) throw listen_error(listen, why);
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

void MetricsHttpServer::run() {
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0 && errno != EINTR) return;
    if (fds[1].revents) return;
    if (!(fds[0].revents & POLLIN)) continue;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    serve(fd);
    ::close(fd);
  }
}

void MetricsHttpServer::serve(int fd) {
  // Read the request head (we need only its first line) within the time limit.
  std::string request;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kRequestTimeoutMs);
  while (request.find("\r\n\r\n") == std::string::npos && request.size() < kMaxRequest) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return;
    char buf[2048];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return;
    request.append(buf, static_cast<std::size_t>(n));
  }
  const std::string line = request.substr(0, request.find("\r\n"));
  const auto sp1 = line.find(' '), sp2 = line.find(' ', sp1 + 1);
  if (sp1 == std::string::npos || sp2 == std::string::npos) {
    send_all(fd, response("400 Bad Request", "text/plain", "bad request\n", false));
    return;
  }
  const std::string method = line.substr(0, sp1);
  std::string path = line.substr(sp1 + 1, sp2 - sp1 - 1);
  path = path.substr(0, path.find('?'));
  const bool head = method == "HEAD";
  if (method != "GET" && !head) {
    send_all(fd, response("405 Method Not Allowed", "text/plain", "only GET and HEAD\n", false));
    return;
  }
  if (path != "/metrics") {
    send_all(fd, response("404 Not Found", "text/plain", "lnetcapd serves its metrics at /metrics\n", head));
    return;
  }
  const std::uint64_t n = ++scrapes_;
  send_all(fd, response("200 OK", "text/plain; version=0.0.4; charset=utf-8", body_(n), head));
}

}  // namespace lnetcap::daemon
