// SPDX-License-Identifier: GPL-2.0-or-later
// socklnd_traffic - real socklnd-framed TCP traffic for the live-capture
// test: a minimal acceptor and a minimal connecting peer that speak the
// acceptor connreq, HELLO V3 and KSOCK_MSG_LNET/NOOP over a real TCP
// connection (docs/protocol.md 5.1), as two Lustre nodes' socklnd would.
//
//   socklnd_traffic server LISTEN_IP PORT MY_NID
//   socklnd_traffic client SERVER_IP PORT MY_NID SERVER_NID COUNT [SRC_PORT]
//
// The client sends COUNT PUTs (match bits 1..COUNT, payloads of 0..~9 kB)
// and waits for the server's ACK of each; then a NOOP, then it closes.
// Over IPv6 both sides use HELLO V4, connreq v2 and 96-byte nid16 headers,
// as socklnd does for IPv6 sockets.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "socklnd_builders.h"

namespace {

using namespace lnetcap;
using namespace lnetcap::test;

[[noreturn]] void die(const std::string& what) {
  std::perror(what.c_str());
  std::exit(1);
}

void send_all(int fd, const Bytes& b) {
  std::size_t off = 0;
  while (off < b.size()) {
    ssize_t n = ::send(fd, b.data() + off, b.size() - off, MSG_NOSIGNAL);
    if (n <= 0) die("send");
    off += static_cast<std::size_t>(n);
  }
}

// false at a clean EOF before the first byte.
bool recv_all(int fd, std::uint8_t* p, std::size_t len) {
  std::size_t off = 0;
  while (off < len) {
    ssize_t n = ::recv(fd, p + off, len - off, 0);
    if (n == 0 && off == 0) return false;
    if (n <= 0) die("recv");
    off += static_cast<std::size_t>(n);
  }
  return true;
}

// IPv4 or IPv6 socket address; socklnd uses HELLO V4 (large NIDs) on IPv6.
sockaddr_storage addr(const char* ip, int port, socklen_t* len) {
  sockaddr_storage ss{};
  auto* a4 = reinterpret_cast<sockaddr_in*>(&ss);
  auto* a6 = reinterpret_cast<sockaddr_in6*>(&ss);
  if (inet_pton(AF_INET, ip, &a4->sin_addr) == 1) {
    a4->sin_family = AF_INET;
    a4->sin_port = htons(static_cast<std::uint16_t>(port));
    *len = sizeof *a4;
  } else if (inet_pton(AF_INET6, ip, &a6->sin6_addr) == 1) {
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons(static_cast<std::uint16_t>(port));
    *len = sizeof *a6;
  } else {
    die(std::string("bad address ") + ip);
  }
  return ss;
}

Nid must_nid(const char* s) {
  auto n = Nid::parse(s);
  if (!n) {
    std::cerr << "bad NID " << s << "\n";
    std::exit(2);
  }
  return *n;
}

// Offsets in the connreq, and in the HELLO and LNet header of the form a
// connection uses (v4: struct lnet_nid NIDs, else nid4).
#define CR(f) LNETCAP_OFFSETOF(struct lnetcap_acceptor_connreq, f)
#define HELLO(f) (v4 ? LNETCAP_OFFSETOF(struct lnetcap_ksock_hello, f) \
                     : LNETCAP_OFFSETOF(struct lnetcap_ksock_hello_nid4, f))
#define LNET(f) (v4 ? LNETCAP_OFFSETOF(struct lnetcap_hdr_nid16, f) \
                    : LNETCAP_OFFSETOF(struct lnetcap_hdr_nid4, f))

int server(const char* ip, int port, const Nid& me) {
  socklen_t alen = 0;
  sockaddr_storage a = addr(ip, port, &alen);
  int ls = ::socket(a.ss_family, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(ls, reinterpret_cast<sockaddr*>(&a), alen) != 0) die("bind");
  if (::listen(ls, 4) != 0) die("listen");
  std::cout << "listening" << std::endl;
  int fd = ::accept(ls, nullptr, nullptr);
  if (fd < 0) die("accept");
  // Acceptor: connreq (v1 16 bytes, v2 28), then the peer's HELLO (V3 56
  // bytes with nid4 NIDs, V4 80 with struct lnet_nid).
  // The V4 (large NID) and V3 (nid4) forms differ in their NID fields, so
  // every offset below is taken from the form the peer sent.
  std::uint8_t creq[sizeof(struct lnetcap_acceptor_connreq_v2)], h[sizeof(struct lnetcap_ksock_hello)];
  if (!recv_all(fd, creq, CR(acr_nid)) || load_le32(creq) != LNETCAP_LNET_PROTO_ACCEPTOR_MAGIC)
    die("connreq");
  recv_all(fd, creq + CR(acr_nid),
           load_le32(creq + CR(acr_version)) == LNETCAP_LNET_PROTO_ACCEPTOR_VERSION_16
               ? sizeof(struct lnetcap_nid)
               : sizeof(std::uint64_t));
  const std::size_t hello_head = LNETCAP_OFFSETOF(struct lnetcap_ksock_hello, kshm_src_nid);
  if (!recv_all(fd, h, hello_head) || load_le32(h) != LNETCAP_LNET_PROTO_MAGIC) die("hello");
  const bool v4 = load_le32(h + LNETCAP_OFFSETOF(struct lnetcap_ksock_hello, kshm_version)) ==
                  LNETCAP_KSOCK_PROTO_V4;
  recv_all(fd, h + hello_head,
           (v4 ? sizeof(struct lnetcap_ksock_hello) : sizeof(struct lnetcap_ksock_hello_nid4)) - hello_head);
  HelloSpec reply;
  reply.version = v4 ? 4 : 3;
  reply.src = me;
  reply.dst = v4 ? Nid::from_lnet_nid(h + HELLO(kshm_src_nid)) : Nid::from_nid4(load_le64(h + HELLO(kshm_src_nid)));
  reply.dst_incarnation = load_le64(h + HELLO(kshm_src_incarnation));
  reply.ctype = static_cast<std::int32_t>(load_le32(h + HELLO(kshm_ctype)));
  send_all(fd, hello(reply));
  // Messages: ACK every PUT; stop at EOF.
  const std::size_t hl = v4 ? LNETCAP_HDR_NID16_LEN : LNETCAP_HDR_NID4_LEN;
  for (;;) {
    std::uint8_t kh[sizeof(struct lnetcap_ksock_msg_hdr)];
    if (!recv_all(fd, kh, sizeof(kh))) break;
    if (load_le32(kh) == LNETCAP_KSOCK_MSG_NOOP) continue;
    std::uint8_t lh[LNETCAP_HDR_NID16_LEN];
    recv_all(fd, lh, hl);
    std::uint32_t plen = load_le32(lh + LNET(payload_length));
    Bytes payload(plen);
    if (plen) recv_all(fd, payload.data(), plen);
    LnetHeaderSpec ack;
    ack.type = LNETCAP_MSG_ACK;
    ack.nid16 = v4;
    ack.src = me;
    ack.dst = v4 ? Nid::from_lnet_nid(lh + LNET(src_nid)) : Nid::from_nid4(load_le64(lh + LNET(src_nid)));
    ack.match_bits = load_le64(lh + LNET(msg) + LNETCAP_OFFSETOF(struct lnetcap_put, match_bits));
    ack.mlength = plen;
    send_all(fd, ksock_lnet(ack, {}));
  }
  ::close(fd);
  ::close(ls);
  return 0;
}

int client(const char* ip, int port, const Nid& me, const Nid& peer, int count, int src_port) {
  socklen_t alen = 0;
  sockaddr_storage a = addr(ip, port, &alen);
  const bool v4 = a.ss_family == AF_INET6;
  int fd = ::socket(a.ss_family, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  // socklnd's active side binds a privileged port (1023 down to 512).
  sockaddr_storage local{};
  local.ss_family = a.ss_family;
  if (v4) reinterpret_cast<sockaddr_in6*>(&local)->sin6_port = htons(static_cast<std::uint16_t>(src_port));
  else reinterpret_cast<sockaddr_in*>(&local)->sin_port = htons(static_cast<std::uint16_t>(src_port));
  if (::bind(fd, reinterpret_cast<sockaddr*>(&local), alen) != 0) die("bind");
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), alen) != 0) die("connect");
  Bytes start = connreq(peer, v4);
  HelloSpec h;
  h.version = v4 ? 4 : 3;
  h.src = me;
  h.dst = peer;
  append(start, hello(h));
  send_all(fd, start);
  std::uint8_t rh[sizeof(struct lnetcap_ksock_hello)];
  if (!recv_all(fd, rh, v4 ? sizeof(struct lnetcap_ksock_hello) : sizeof(struct lnetcap_ksock_hello_nid4)) ||
      load_le32(rh) != LNETCAP_LNET_PROTO_MAGIC)
    die("hello reply");
  // The ACK: a ksock_msg header, then the LNet header of the peer's form.
  const std::size_t hl = v4 ? LNETCAP_HDR_NID16_LEN : LNETCAP_HDR_NID4_LEN;
  const std::size_t ack_bits = sizeof(struct lnetcap_ksock_msg_hdr) + LNET(msg) +
                               LNETCAP_OFFSETOF(struct lnetcap_ack, match_bits);
  for (int i = 1; i <= count; ++i) {
    LnetHeaderSpec put;
    put.type = LNETCAP_MSG_PUT;
    put.nid16 = v4;
    put.src = me;
    put.dst = peer;
    put.portal = LNETCAP_PORTAL_OST_REQUEST;
    put.match_bits = static_cast<std::uint64_t>(i);
    put.want_ack = true;
    send_all(fd, ksock_lnet(put, pattern(static_cast<std::size_t>(i) * 197 % 9000,
                                         static_cast<std::uint8_t>(i))));
    std::uint8_t ack[sizeof(struct lnetcap_ksock_msg_hdr) + LNETCAP_HDR_NID16_LEN];
    if (!recv_all(fd, ack, sizeof(struct lnetcap_ksock_msg_hdr) + hl) ||
        load_le64(ack + ack_bits) != static_cast<std::uint64_t>(i))
      die("ack");
  }
  send_all(fd, ksock_noop());
  ::shutdown(fd, SHUT_WR);
  std::uint8_t x;
  while (::recv(fd, &x, 1, 0) > 0) {
  }
  ::close(fd);
  return 0;
}

#undef CR
#undef HELLO
#undef LNET
}  // namespace

int main(int argc, char** argv) {
  std::string role = argc > 1 ? argv[1] : "";
  if (role == "server" && argc == 5) return server(argv[2], std::atoi(argv[3]), must_nid(argv[4]));
  if (role == "client" && (argc == 7 || argc == 8))
    return client(argv[2], std::atoi(argv[3]), must_nid(argv[4]), must_nid(argv[5]),
                  std::atoi(argv[6]), argc == 8 ? std::atoi(argv[7]) : 1021);
  std::cerr << "usage: socklnd_traffic server LISTEN_IP PORT MY_NID\n"
               "       socklnd_traffic client SERVER_IP PORT MY_NID SERVER_NID COUNT [SRC_PORT]\n";
  return 2;
}
