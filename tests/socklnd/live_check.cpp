// SPDX-License-Identifier: GPL-2.0-or-later
// socklnd_live_check - captures from a network interface through
// open_socklnd_live and checks the records against what socklnd_traffic
// sends (COUNT PUTs from CLIENT_NID, each ACKed by SERVER_NID).
//
//   socklnd_live_check IFACE PORT COUNT CLIENT_NID SERVER_NID READY_FILE TIMEOUT_S
//   socklnd_live_check --expect-permission-error IFACE
//
// READY_FILE is created once the capture is active.  Exit 0 = every
// message captured and correct, 1 = wrong, 3 = could not open the capture.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <mutex>
#include <thread>

#include "error.h"
#include "lnetcap/record.h"
#include "message.h"
#include "options.h"
#include "record.h"
#include "socklnd/socklnd_source.h"

using namespace lnetcap;

namespace {

int failures = 0;
#define CHECK(cond, what)                                          \
  do {                                                             \
    if (!(cond)) {                                                 \
      ++failures;                                                  \
      std::cout << "FAIL: " << what << " (" #cond ")" << std::endl; \
    }                                                              \
  } while (0)

int expect_permission_error(const std::string& iface) {
  Options opts;
  opts.interface = iface;
  try {
    open_socklnd_live(opts);
  } catch (const Error& e) {
    std::cout << "error: " << e.what() << "\nhint: " << e.hint() << std::endl;
    bool ok = std::string(e.what()).find("permission") != std::string::npos &&
              e.hint().find("CAP_NET_RAW") != std::string::npos;
    return ok ? 0 : 1;
  }
  std::cout << "FAIL: capture opened without privileges" << std::endl;
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--expect-permission-error")
    return expect_permission_error(argv[2]);
  if (argc != 8) {
    std::cerr << "usage: socklnd_live_check IFACE PORT COUNT CLIENT_NID SERVER_NID READY_FILE "
                 "TIMEOUT_S\n";
    return 2;
  }
  const int count = std::atoi(argv[3]);
  const Nid client = *Nid::parse(argv[4]);
  const Nid server = *Nid::parse(argv[5]);
  // IPv6 NIDs mean socklnd V4: 96-byte nid16 headers.
  const bool v4 = client.size == LNETCAP_NID_SIZE_IPV6;
  Options opts;
  opts.interface = argv[1];
  opts.lnet_port = static_cast<std::uint16_t>(std::atoi(argv[2]));
  opts.local_nid = argv[5];  // the capture runs on the server's side
  std::unique_ptr<RecordSource> src;
  try {
    src = open_socklnd_live(opts);
  } catch (const Error& e) {
    std::cerr << "socklnd_live_check: " << e.what() << " (hint: " << e.hint() << ")\n";
    return 3;
  }
  std::ofstream(argv[6]) << "ready\n";

  // Stop at the timeout, or one second after the last expected record
  // (time for the closing NOOP).
  std::mutex mu;
  std::condition_variable cv;
  bool all_in = false, finished = false;
  std::thread timer([&] {
    std::unique_lock<std::mutex> lock(mu);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(std::atoi(argv[7]));
    cv.wait_until(lock, deadline, [&] { return all_in || finished; });
    if (all_in) cv.wait_for(lock, std::chrono::seconds(1), [&] { return finished; });
    src->request_stop();
  });

  std::vector<std::vector<std::uint8_t>> recs;
  std::vector<std::uint32_t> epb;
  CapturedRecord rec;
  try {
    while (src->next(rec)) {
      if (rec.bytes.empty()) continue;  // an idle live source's wake-up (source.h)
      recs.emplace_back(rec.bytes.begin(), rec.bytes.end());
      epb.push_back(rec.epb_flags);
      if (recs.size() == static_cast<std::size_t>(2 * count)) {
        std::lock_guard<std::mutex> lock(mu);
        all_in = true;
        cv.notify_all();
      }
    }
  } catch (const Error& e) {
    std::cerr << "socklnd_live_check: " << e.what() << "\n";
    ++failures;
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    finished = true;
    cv.notify_all();
  }
  timer.join();

  int puts = 0, acks = 0;
  for (std::size_t i = 0; i < recs.size(); ++i) {
    std::string why;
    auto v = parse_record(recs[i], &why);
    CHECK(v, "record " << i << " parses: " << why);
    if (!v) continue;
    auto m = decode_message(*v, 0, 0);
    CHECK(v->hdr.hook == LNETCAP_HOOK_SOCKLND_STREAM, "hook");
    CHECK(v->lnet_header.size() == (v4 ? 96u : 72u), "record " << i << " header form");
    CHECK(v->hdr.flags == 0, "record " << i << " flags " << v->hdr.flags);
    CHECK(v->hdr.local_nid == server && v->hdr.peer_nid == client, "record " << i << " NIDs");
    if (m.lnet.type == LNETCAP_MSG_PUT) {
      ++puts;
      std::uint32_t want = static_cast<std::uint32_t>(puts) * 197 % 9000;
      CHECK(m.lnet.match_bits == static_cast<std::uint64_t>(puts), "PUT " << puts << " match bits");
      CHECK(m.lnet.payload_length == want, "PUT " << puts << " length " << m.lnet.payload_length);
      CHECK(v->payload.size() == std::min<std::uint32_t>(want, 1024), "PUT " << puts << " prefix");
      bool pattern_ok = true;
      for (std::size_t k = 0; k < v->payload.size(); ++k)
        pattern_ok &= v->payload[k] == static_cast<std::uint8_t>(puts + k);
      CHECK(pattern_ok, "PUT " << puts << " payload bytes");
      CHECK(v->hdr.direction == LNETCAP_DIR_RECV && epb[i] == 1, "PUT " << puts << " is RECV");
      CHECK(m.lnet.src_nid == client, "PUT src");
    } else if (m.lnet.type == LNETCAP_MSG_ACK) {
      ++acks;
      CHECK(m.lnet.match_bits == static_cast<std::uint64_t>(acks), "ACK " << acks << " match bits");
      CHECK(v->hdr.direction == LNETCAP_DIR_SEND && epb[i] == 2, "ACK " << acks << " is SEND");
    } else {
      CHECK(false, "unexpected message type " << m.lnet.type);
    }
  }
  CHECK(puts == count, "PUTs captured: " << puts);
  CHECK(acks == count, "ACKs captured: " << acks);
  auto stats = src->stats();
  std::uint64_t connreqs = 0, hellos = 0, noops = 0;
  const std::string hello_key = v4 ? "socklnd HELLOs V4" : "socklnd HELLOs V3";
  for (const auto& [k, v] : stats.details) {
    if (k == "socklnd connection requests") connreqs = v;
    if (k == hello_key) hellos = v;
    if (k == "socklnd NOOPs") noops = v;
  }
  CHECK(connreqs == 1, "connreqs " << connreqs);
  CHECK(hellos == 2, "HELLOs " << hellos);
  CHECK(noops == 1, "NOOPs " << noops);
  const auto& ifs = src->interfaces();
  CHECK(ifs.size() == 1, "interfaces " << ifs.size());
  if (!ifs.empty()) {
    std::cout << "interface: " << ifs[0].name << ": " << ifs[0].description << std::endl;
    CHECK(ifs[0].description.find(":1021 -> ") != std::string::npos &&
              ifs[0].description.find(v4 ? "socklnd V4 control" : "socklnd V3 control") !=
                  std::string::npos,
          "interface description");
  }
  std::cout << "captured " << recs.size() << " records (" << puts << " PUT, " << acks
            << " ACK), " << connreqs << " connreq, " << hellos << " HELLOs, " << noops
            << " NOOP; " << failures << " failures" << std::endl;
  return failures ? 1 : 0;
}
