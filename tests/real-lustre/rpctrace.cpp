// SPDX-License-Identifier: GPL-2.0-or-later
#include "rpctrace.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <tuple>

#include "error.h"
#include "lnetcap/ptlrpc.h"
#include "lnetcap/record.h"

namespace lnetcap::real_lustre {

namespace {

constexpr std::size_t kMaxExamples = 8;
constexpr std::int32_t kNoReplyMessage = -999;

// "12345-10.77.0.1@tcp" -> "10.77.0.1@tcp" (libcfs_idstr: pid-nid).
std::string nid_of_idstr(const std::string& id) {
  const auto dash = id.find('-');
  return dash == std::string::npos ? id : id.substr(dash + 1);
}

bool over_lo(const std::string& nid) { return nid.ends_with("@lo"); }

// Splits s at sep into at most n fields; the last keeps any further seps.
std::vector<std::string> split(const std::string& s, char sep, std::size_t n) {
  std::vector<std::string> f;
  std::size_t start = 0;
  while (f.size() + 1 < n) {
    const auto at = s.find(sep, start);
    if (at == std::string::npos) break;
    f.push_back(s.substr(start, at - start));
    start = at + 1;
  }
  f.push_back(s.substr(start));
  return f;
}

// Where a request and its reply are looked for: (XID, requester NID as
// its records name it, handler NID as its records name it).
struct RpcKey {
  std::uint64_t xid;
  std::string requester, handler;
  auto operator<=>(const RpcKey&) const = default;
};

enum class Part { kRequest, kReply };


// The records of one capture that belong to RPCs, by key and part.
struct RpcIndex {
  std::map<std::tuple<RpcKey, Part, std::uint8_t>, std::vector<const Captured*>> at;

  explicit RpcIndex(const std::vector<Captured>& capture) {
    std::map<RpcKey, std::uint64_t> reply_bits;  // (pb_mbits, requester, handler) -> XID
    for (const auto& c : capture) {
      if (!c.xid || c.outcome) continue;
      // A message that arrived and LNet dropped (no-match: a reply to a
      // requester that had timed out, unlinked its reply buffer and resent)
      // is the receiver's record of it, as a RECV is.  Nothing of it landed,
      // so it has no PtlRPC body: a reply by its portal, fields unknown.
      const bool arrived_dropped = c.direction == LNETCAP_DIR_DROP && c.drop_reason == LNETCAP_DROP_RECV_NO_MATCH;
      if (c.direction != LNETCAP_DIR_SEND && c.direction != LNETCAP_DIR_RECV && !arrived_dropped) continue;
      if (!c.rpc.present && !(arrived_dropped && c.lnet.portal && lnetcap_portal_is_reply(*c.lnet.portal))) continue;
      if (c.rpc.present && c.rpc.early_reply) continue;
      const bool request = c.rpc.present && c.rpc.type == LNETCAP_PTL_RPC_MSG_REQUEST;
      // A request goes requester -> handler, a reply handler -> requester.
      const RpcKey k = request ? RpcKey{*c.xid, c.src, c.dst} : RpcKey{*c.xid, c.dst, c.src};
      const std::uint8_t dir = arrived_dropped ? std::uint8_t{LNETCAP_DIR_RECV} : c.direction;
      at[{k, request ? Part::kRequest : Part::kReply, dir}].push_back(&c);
      // A request whose pb_mbits differ from its XID (a resend with new bulk
      // match bits) is answered on those bits (REP_MBITS), not on the XID.
      if (request && c.rpc.mbits && c.rpc.mbits != *c.xid)
        reply_bits[RpcKey{c.rpc.mbits, c.src, c.dst}] = *c.xid;
    }
    // The replies on a request's match bits are also its XID's.
    std::vector<std::pair<std::tuple<RpcKey, Part, std::uint8_t>, std::vector<const Captured*>>> more;
    for (const auto& [key, recs] : at) {
      const auto& [k, part, dir] = key;
      if (part != Part::kReply) continue;
      auto alias = reply_bits.find(k);
      if (alias != reply_bits.end())
        more.push_back({{RpcKey{alias->second, k.requester, k.handler}, Part::kReply, dir}, recs});
    }
    for (auto& [key, recs] : more) {
      auto& to = at[key];
      to.insert(to.end(), recs.begin(), recs.end());
    }
  }
  const std::vector<const Captured*>* find(const RpcKey& k, Part p, std::uint8_t dir) const {
    auto it = at.find({k, p, dir});
    return it == at.end() ? nullptr : &it->second;
  }
};

// Field names in which a request record differs from the line.
std::vector<std::string> request_differs(const Captured& c, const HandledRpc& h) {
  std::vector<std::string> d;
  if (c.rpc.opc != h.opc) d.push_back("opc");
  if (c.rpc.jobid != h.jobid) d.push_back("jobid");
  if (c.rpc.status != h.req_status) d.push_back("request_status");
  return d;
}

std::vector<std::string> reply_differs(const Captured& c, const HandledRpc& h) {
  std::vector<std::string> d;
  if (c.rpc.opc != h.opc) d.push_back("opc");
  if (c.rpc.transno != h.transno) d.push_back("transno");
  if (c.rpc.status != h.reply_status) d.push_back("reply_status");
  return d;
}

// lnetcap's server time of one handled RPC, in us: from the request's
// arrival in LNet (its RECV, at lnet_parse) to the reply's handover to LNet
// (its first SEND less its queue time: the record is taken when the LND
// gets it, lnet_ni_send, and an LNet credit wait behind a bulk transfer to
// the same peer is not the handler's time).  The request is the last copy
// received before the reply (a resent request is handled once); none when
// every copy came after the reply.
std::optional<std::int64_t> server_time_us(const std::vector<const Captured*>& received,
                                           const std::vector<const Captured*>& sent) {
  auto handed_over = [](const Captured* c) { return c->ts_ns - c->queue_ns.value_or(0); };
  std::uint64_t reply = handed_over(sent.front());
  for (const Captured* c : sent) reply = std::min(reply, handed_over(c));
  std::optional<std::uint64_t> request;
  for (const Captured* c : received)
    if (c->ts_ns <= reply && (!request || c->ts_ns > *request)) request = c->ts_ns;
  if (!request) return std::nullopt;
  return static_cast<std::int64_t>((reply - *request) / 1000);
}

std::string describe(const HandledRpc& h, const std::string& handler) {
  std::ostringstream o;
  const char* name = opcode_name(h.opc);
  o << "x" << h.xid << " " << (name ? name : std::to_string(h.opc)) << " " << h.peer << " -> "
    << handler << " (" << h.thread << ")";
  return o.str();
}

}  // namespace

std::optional<HandledRpc> parse_handled(const std::string& line) {
  static const std::string kTag = "Handled RPC req@";
  static const std::string kFields = "pname:cluuid+ref:pid:xid:nid:opc:job ";
  const auto tag = line.find(kTag);
  if (tag == std::string::npos) return std::nullopt;
  const auto fields = line.find(kFields, tag);
  const auto processed = line.find(" Request processed in ", tag);
  if (fields == std::string::npos || processed == std::string::npos) return std::nullopt;
  const auto start = fields + kFields.size();
  // comm:uuid+ref:pid:xXID:pid-nid:opc:jobid (the jobid may hold ':')
  const auto f = split(line.substr(start, processed - start), ':', 7);
  if (f.size() != 7 || f[3].empty() || f[3][0] != 'x') return std::nullopt;
  HandledRpc h;
  try {
    h.thread = f[0];
    h.req_status = std::stoi(f[2]);
    h.xid = std::stoull(f[3].substr(1));
    h.peer = nid_of_idstr(f[4]);
    h.opc = static_cast<std::uint32_t>(std::stoul(f[5]));
    h.jobid = f[6];
    // "... in Nus (Mus total) trans T rc A/B"
    const auto total = line.find(" (", processed);
    if (total != std::string::npos && line.compare(total, 2, " (") == 0)
      h.total_us = std::stoll(line.substr(total + 2));
    const auto trans = line.find(" trans ", processed);
    const auto rc = line.find(" rc ", processed);
    if (trans == std::string::npos || rc == std::string::npos) return std::nullopt;
    h.transno = std::stoull(line.substr(trans + 7));
    const auto slash = line.find('/', rc);
    if (slash == std::string::npos) return std::nullopt;
    h.rq_status = std::stoi(line.substr(rc + 4));
    h.reply_status = std::stoi(line.substr(slash + 1));
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return h;
}

std::vector<HandledRpc> read_handled(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot read the debug log");
  std::vector<HandledRpc> out;
  std::string line;
  while (std::getline(in, line))
    if (auto h = parse_handled(line)) out.push_back(*h);
  return out;
}

bool ServerTimeTolerance::within(std::int64_t total_us, std::int64_t server_us) const {
  const std::int64_t d = total_us > server_us ? total_us - server_us : server_us - total_us;
  return d <= abs_us ||
         static_cast<double>(d) <= rel * static_cast<double>(std::max(total_us, server_us));
}

bool TraceVerdict::passed() const {
  std::size_t handled = 0, timed = 0, outside = 0;
  for (const auto& n : nodes) {
    handled += n.handled;
    timed += n.timed;
    outside += n.time_outside;
    if (n.missing_recv_request || n.missing_send_reply || n.missing_send_request ||
        n.missing_recv_reply || n.wrong)
      return false;
  }
  // Over all nodes: a client handles a few dozen callbacks, too few for a
  // fraction of its own.
  return handled > 0 && static_cast<double>(timed - outside) >=
                            tolerance.min_within * static_cast<double>(timed);
}

TraceVerdict compare_rpctrace(const std::vector<TraceNode>& nodes,
                              const ServerTimeTolerance& tolerance) {
  TraceVerdict v;
  v.tolerance = tolerance;
  std::vector<RpcIndex> index;
  index.reserve(nodes.size());
  for (const auto& n : nodes) index.emplace_back(n.capture);
  auto node_of = [&](const std::string& nid) -> const RpcIndex* {
    for (std::size_t i = 0; i < nodes.size(); i++)
      if (nodes[i].nid == nid) return &index[i];
    return nullptr;
  };

  for (std::size_t i = 0; i < nodes.size(); i++) {
    const auto& node = nodes[i];
    TraceVerdict::PerNode pn;
    pn.nid = node.nid;
    for (const auto& h : node.handled) {
      pn.handled++;
      const char* name = opcode_name(h.opc);
      pn.by_opcode[name ? name : std::to_string(h.opc)]++;
      const bool lo = over_lo(h.peer) || h.peer == node.nid;
      if (lo) pn.over_lo++;
      // Over 0@lo both ends are this node and its records name 0@lo.
      const RpcKey key{h.xid, h.peer, lo && over_lo(h.peer) ? h.peer : node.nid};
      const RpcIndex* requester = lo ? &index[i] : node_of(h.peer);
      const bool want_reply = h.reply_status != kNoReplyMessage;
      if (!want_reply) pn.no_reply_message++;

      bool ok = true;
      std::vector<std::string> wrong;
      // The copies that agree with the line (a resent request, a reply
      // sent again), or none.
      auto check = [&](const RpcIndex* idx, Part part, std::uint8_t dir, std::size_t& missing,
                       const char* what) -> std::vector<const Captured*> {
        const auto* recs = idx ? idx->find(key, part, dir) : nullptr;
        if (!recs) {
          missing++;
          ok = false;
          if (v.examples.size() < kMaxExamples)
            v.examples.push_back("missing " + std::string(what) + ": " + describe(h, node.nid));
          return {};
        }
        std::vector<const Captured*> agree;
        std::vector<std::string> best;
        for (const Captured* c : *recs) {
          // A dropped reply's body never landed: nothing to compare.
          auto d = !c->rpc.present ? std::vector<std::string>{}
                   : part == Part::kRequest ? request_differs(*c, h) : reply_differs(*c, h);
          if (d.empty()) agree.push_back(c);
          else if (best.empty()) best = d;
        }
        if (!agree.empty()) return agree;
        for (const auto& f : best) wrong.push_back(std::string(what) + "." + f);
        if (v.examples.size() < kMaxExamples) {
          std::string s = "wrong " + std::string(what) + ":";
          for (const auto& f : best) s += " " + f;
          v.examples.push_back(s + ": " + describe(h, node.nid));
        }
        return {};
      };
      const auto received = check(&index[i], Part::kRequest, LNETCAP_DIR_RECV,
                                  pn.missing_recv_request, "handler's received request");
      std::vector<const Captured*> sent;
      if (want_reply)
        sent = check(&index[i], Part::kReply, LNETCAP_DIR_SEND, pn.missing_send_reply,
                     "handler's sent reply");
      if (h.total_us >= 0 && !received.empty() && !sent.empty()) {
        if (auto server = server_time_us(received, sent)) {
          const std::int64_t d = h.total_us - *server;
          pn.timed++;
          pn.total_minus_server_us.push_back(d);
          if (!tolerance.within(h.total_us, *server)) {
            pn.time_outside++;
            if (lo) pn.time_outside_lo++;
            if (v.examples.size() < kMaxExamples)
              v.examples.push_back("server time " + std::to_string(*server) + "us, rpctrace total " +
                                   std::to_string(h.total_us) + "us: " + describe(h, node.nid));
          }
        }
      }
      check(requester, Part::kRequest, LNETCAP_DIR_SEND, pn.missing_send_request,
            "requester's sent request");
      if (want_reply)
        check(requester, Part::kReply, LNETCAP_DIR_RECV, pn.missing_recv_reply,
              "requester's received reply");
      if (!wrong.empty()) {
        pn.wrong++;
        for (const auto& f : wrong) pn.wrong_fields[f]++;
      } else if (ok) {
        pn.found++;
      }
    }
    v.nodes.push_back(std::move(pn));
  }
  return v;
}

std::string format_trace_verdict(const TraceVerdict& v) {
  std::ostringstream o;
  for (const auto& n : v.nodes) {
    o << "rpctrace " << n.nid << ": handled=" << n.handled << " (over 0@lo " << n.over_lo
      << ", no reply message " << n.no_reply_message << ") found=" << n.found
      << " missing: recv_request=" << n.missing_recv_request
      << " send_reply=" << n.missing_send_reply << " send_request=" << n.missing_send_request
      << " recv_reply=" << n.missing_recv_reply << " wrong=" << n.wrong << "\n";
    if (!n.wrong_fields.empty()) {
      o << "rpctrace " << n.nid << ": wrong fields:";
      for (const auto& [f, k] : n.wrong_fields) o << " " << f << "=" << k;
      o << "\n";
    }
    if (n.timed) {
      auto d = n.total_minus_server_us;
      std::sort(d.begin(), d.end());
      auto at = [&](double q) { return d[static_cast<std::size_t>(q * static_cast<double>(d.size() - 1))]; };
      o << "rpctrace " << n.nid << ": server time against rpctrace total: timed=" << n.timed
        << " outside=" << n.time_outside << " (over 0@lo " << n.time_outside_lo
        << "; tolerance " << v.tolerance.abs_us << " us or "
        << static_cast<int>(v.tolerance.rel * 100) << "%, for "
        << static_cast<int>(v.tolerance.min_within * 100) << "% of RPCs; total - lnetcap, us: min "
        << d.front() << " p50 " << at(0.5) << " p99 " << at(0.99) << " max " << d.back()
        << ")\n";
    }
    o << "rpctrace " << n.nid << ": by opcode:";
    for (const auto& [name, k] : n.by_opcode) o << " " << name << "=" << k;
    o << "\n";
  }
  for (const auto& e : v.examples) o << "example: " << e << "\n";
  o << "verdict=" << (v.passed() ? "PASS" : "FAIL") << "\n";
  return o.str();
}

}  // namespace lnetcap::real_lustre
