#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Cross-check: the plugin against Wireshark's built-in lustre dissector.

usage: crosscheck.py BUILTIN.pdml PLUGIN.pdml

BUILTIN.pdml is `tshark -T pdml` of a socklnd TCP capture (built-in lnet +
lustre dissectors), PLUGIN.pdml the same of its lnetcap conversion (this
plugin).  Messages are paired by (LNet match bits, pb_type, pb_opc) and
their order among equal keys.  For every field pair in FIELDS that both
decode in a message, the values (all occurrences, in order) must agree,
except the fields in BUILTIN_ERRORS: places where the built-in dissector
(Wireshark 4.0, written for Lustre 2.10) is wrong about Lustre 2.16, each
with the Lustre source line that proves it.  Prints one line per
disagreement and a summary; exits 1 on any disagreement outside that list,
or if too few values were compared for the check to mean anything.
"""
import datetime
import re
import sys
import xml.etree.ElementTree as ET

# (built-in field, plugin field(s)).  A name "parent>child" means child
# directly under parent, for sub-fields both sides reuse (FIDs, handles).
FIELDS = [
    # lustre_msg_v2 and ptlrpc_body
    ("lustre.lustre_msg_v2.lm_bufcount", "lnetcap.ptlrpc.msg.bufcount"),
    ("lustre.lustre_msg_v2.lm_secflvr", "lnetcap.ptlrpc.msg.secflvr"),
    ("lustre.lustre_msg_v2.lm_magic", "lnetcap.ptlrpc.msg.magic"),
    ("lustre.lustre_msg_v2.lm_repsize", "lnetcap.ptlrpc.msg.repsize"),
    ("lustre.lustre_msg_v2.lm_cksum", "lnetcap.ptlrpc.msg.cksum"),
    ("lustre.lustre_msg_v2.lm_flags", "lnetcap.ptlrpc.msg.flags"),
    ("lustre.lustre_msg_v2.lm_buflens", "lnetcap.ptlrpc.msg.buflen"),
    ("lustre.ptlrpc_body.pb_handle>lustre.lustre_handle.cookie", "lnetcap.ptlrpc.handle"),
    ("lustre.ptlrpc_body.pb_type", "lnetcap.ptlrpc.type"),
    # The built-in's pb_version field carries a 0xffff mask: it shows only
    # PTLRPC_MSG_VERSION, not the LUSTRE_*_VERSION target bits.
    ("lustre.ptlrpc_body.pb_version", "lnetcap.ptlrpc.version", lambda v: v & 0xffff),
    ("lustre.ptlrpc_body.pb_opc", "lnetcap.ptlrpc.opc"),
    ("lustre.ptlrpc_body.pb_status",
     ("lnetcap.ptlrpc.status", "lnetcap.ptlrpc.sender_pid", "lnetcap.ptlrpc.io_bytes")),
    ("lustre.ptlrpc_body.pb_last_xid", "lnetcap.ptlrpc.last_xid"),
    ("lustre.ptlrpc_body.pb_last_committed", "lnetcap.ptlrpc.last_committed"),
    ("lustre.ptlrpc_body.pb_transno", "lnetcap.ptlrpc.transno"),
    ("lustre.ptlrpc_body.pb_flags", "lnetcap.ptlrpc.flags"),
    ("lustre.ptlrpc_body.pb_op_flags", "lnetcap.ptlrpc.op_flags"),
    ("lustre.ptlrpc_body.pb_conn_cnt", "lnetcap.ptlrpc.conn_cnt"),
    ("lustre.ptlrpc_body.pb_timeout", "lnetcap.ptlrpc.timeout"),
    ("lustre.ptlrpc_body.pb_service_time", "lnetcap.ptlrpc.service_time"),
    ("lustre.ptlrpc_body.pb_limit", "lnetcap.ptlrpc.limit"),
    ("lustre.ptlrpc_body.pb_slv", "lnetcap.ptlrpc.slv"),
    ("lustre.ptlrpc_body.pb_pre_version", "lnetcap.ptlrpc.pre_version"),
    ("lustre.ptlrpc_body.pb_jobid", "lnetcap.ptlrpc.jobid"),
    # connect
    ("lustre.target_uuid>lustre.obd_uuid", "lnetcap.obd.target_uuid"),
    ("lustre.client_uuid>lustre.obd_uuid", "lnetcap.obd.client_uuid"),
] + [("lustre.obd_connect_data.%s" % b, "lnetcap.obd.ocd.%s" % p) for b, p in [
    ("ocd_connect_flags", "connect_flags"), ("ocd_version", "version"), ("ocd_grant", "grant"),
    ("ocd_index", "index"), ("ocd_brw_size", "brw_size"), ("ocd_ibits_known", "ibits_known"),
    ("grant_blkbits", "grant_blkbits"), ("grant_inobits", "grant_inobits"),
    ("grant_tax_kb", "grant_tax_kb"), ("grant_max_blks", "grant_max_blks"),
    ("ocd_transno", "transno"), ("ocd_group", "group"), ("ocd_cksum_types", "cksum_types"),
    ("ocd_max_easize", "max_easize"), ("ocd_instance", "instance"), ("ocd_maxbytes", "maxbytes"),
    ("ocd_maxmodrpcs", "maxmodrpcs"), ("ocd_connect_flags2", "connect_flags2")]
] + [("lustre.obd_statfs.os_%s" % f, "lnetcap.obd.statfs.%s" % f) for f in [
    "type", "blocks", "bfree", "bavail", "files", "ffree", "fsid", "bsize", "namelen",
    "maxbytes", "state", "fprecreated"]
] + [
    # mdt_body
] + [("lustre.mdt_body.%s" % f, "lnetcap.mdt.%s" % f) for f in [
    "valid", "size", "mtime", "atime", "ctime", "blocks", "fsuid", "fsgid", "capability",
    "mode", "uid", "gid", "flags", "rdev", "nlink", "suppgid", "eadatasize", "aclsize",
    "max_mdsize", "uid_h", "gid_h"]
] + [
    ("lustre.mdt_body.padding_9", "lnetcap.mdt.padding_9"),
    ("lustre.mdt_body.handle>lustre.lustre_handle.cookie", "lnetcap.mdt.open_handle"),
    ("lustre.mdt_ioepoch.handle>lustre.lustre_handle.cookie", "lnetcap.mdt.ioepoch.open_handle"),
    # mdt_ioepoch's unused slots (the built-in names them as 2.10 used them)
    ("lustre.mdt_ioepoch.ioepoch", "lnetcap.mdt.ioepoch.unused1"),
    ("lustre.mdt_ioepoch.flags", "lnetcap.mdt.ioepoch.unused2"),
    # layout_intent of IT_LAYOUT enqueues
    ("lustre.layout_intent.opc", "lnetcap.ldlm.layout_intent.opc"),
    ("lustre.layout_intent.flags", "lnetcap.ldlm.layout_intent.flags"),
    ("lustre.layout_intent.start", "lnetcap.ldlm.layout_intent.start"),
    ("lustre.layout_intent.end", "lnetcap.ldlm.layout_intent.end"),
    # reint records
] + [("lustre.mdt_rec_reint.%s" % f, "lnetcap.mdt.reint.%s" % f) for f in [
    "opcode", "cap", "fsuid", "fsgid", "suppgid1", "suppgid2", "mode", "bias", "flags",
    "flags_h", "umask", "rdev", "time", "valid", "uid", "gid", "mtime", "atime", "ctime",
    "attr_flags", "projid", "blocks"]
] + [
    ("lustre.mdt_rec_reint.size64", "lnetcap.mdt.reint.size"),
    ("lustre.name", "lnetcap.mdt.name"),
    # LDLM
    ("lustre.ldlm_request.lock_flags", ("lnetcap.ldlm.flags", "lnetcap.elc.flags")),
    ("lustre.ldlm_reply.lock_flags", "lnetcap.ldlm.flags"),
    ("lustre.ldlm_request.lock_count", ("lnetcap.ldlm.lock_count", "lnetcap.elc.lock_count")),
    ("lustre.ldlm_resource_desc.lr_type", "lnetcap.ldlm.res.type"),
    ("lustre.ldlm_res_id.name", "lnetcap.ldlm.res.name"),
    ("lustre.ldlm_lock_desc.l_req_mode", "lnetcap.ldlm.lock.req_mode"),
    ("lustre.ldlm_lock_desc.l_granted_mode", "lnetcap.ldlm.lock.granted_mode"),
    ("lustre.ldlm_extent.start", "lnetcap.ldlm.extent.start"),
    ("lustre.ldlm_extent.end", "lnetcap.ldlm.extent.end"),
    ("lustre.ldlm_extent.gid", "lnetcap.ldlm.extent.gid"),
    ("lustre.ldlm_inodebits.bits", "lnetcap.ldlm.inodebits"),
    ("lustre.ldlm_inodebits.try_bits", "lnetcap.ldlm.inodebits.try_bits"),
    ("lustre.ldlm_request.lock_handle>lustre.lustre_handle.cookie", "lnetcap.ldlm.handle"),
    ("lustre.ldlm_reply.lock_handle>lustre.lustre_handle.cookie", "lnetcap.ldlm.reply.handle"),
    ("lustre.ldlm_reply.lock_policy_res1", "lnetcap.ldlm.reply.policy_res1"),
    ("lustre.ldlm_reply.lock_policy_res2", "lnetcap.ldlm.reply.policy_res2"),
    # LOV layouts (MDT_MD)
    ("lustre.lov_mds_md.lmm_magic", "lnetcap.lov.magic"),
    ("lustre.lov_mds_md.lmm_pattern", "lnetcap.lov.pattern"),
    ("lustre.lov_mds_md.lmm_stripe_size", "lnetcap.lov.stripe_size"),
    ("lustre.lov_mds_md.lmm_stripe_count", "lnetcap.lov.stripe_count"),
    ("lustre.lov_mds_md.lmm_layout_gen", "lnetcap.lov.layout_gen"),
    ("lustre.lov_ost_data_v1.l_ost_gen", "lnetcap.lov.object.gen"),
    ("lustre.lov_ost_data_v1.l_ost_idx", "lnetcap.lov.object.ost_idx"),
    # LLOG (llogd_body of every LLOG RPC, llog_log_hdr of READ_HEADER replies)
    ("lustre.llogd_body.lgd_ctxt_idx", "lnetcap.llog.ctxt_idx"),
    ("lustre.llogd_body.lgd_llh_flags", "lnetcap.llog.llh_flags"),
    ("lustre.llogd_body.lgd_index", "lnetcap.llog.index"),
    ("lustre.llogd_body.lgd_saved_index", "lnetcap.llog.saved_index"),
    ("lustre.llogd_body.lgd_len", "lnetcap.llog.len"),
    ("lustre.llogd_body.lgd_cur_offset", "lnetcap.llog.cur_offset"),
    ("lustre.llog_log_hdr.llh_count", "lnetcap.llog.hdr.count"),
    ("lustre.llog_log_hdr.llh_bitmap_offset", "lnetcap.llog.hdr.bitmap_offset"),
    ("lustre.llog_log_hdr.llh_size", "lnetcap.llog.hdr.size"),
    ("lustre.llog_log_hdr.llh_flags", "lnetcap.llog.hdr.flags"),
    ("lustre.llog_log_hdr.llh_cat_idx", "lnetcap.llog.hdr.cat_idx"),
    # SEQ
    ("lustre.seq_opc", "lnetcap.seq.op"),
    ("lustre.seq_range.start", "lnetcap.seq.range.start"),
    ("lustre.seq_range.end", "lnetcap.seq.range.end"),
    ("lustre.seq_range.index", "lnetcap.seq.range.index"),
    ("lustre.seq_range.flags", "lnetcap.seq.range.flags"),
    # OST
    ("lustre.obd_ioobj.ioo_max_brw", "lnetcap.ost.ioobj.max_brw"),
    ("lustre.obd_ioobj.ioo_bufcnt", "lnetcap.ost.ioobj.bufcnt"),
    ("lustre.niobuf_remote.offset", "lnetcap.ost.niobuf.offset"),
    ("lustre.niobuf_remote.len", "lnetcap.ost.niobuf.len"),
    ("lustre.niobuf_remote.flags", "lnetcap.ost.niobuf.flags"),
    ("lustre.rcs.rc", "lnetcap.ost.rc"),
    ("lustre.ost_layout.stripe_size", "lnetcap.ost.oa.layout.stripe_size"),
    ("lustre.ost_layout.stripe_count", "lnetcap.ost.oa.layout.stripe_count"),
    ("lustre.ost_layout.comp_start", "lnetcap.ost.oa.layout.comp_start"),
    ("lustre.ost_layout.comp_end", "lnetcap.ost.oa.layout.comp_end"),
    ("lustre.ost_layout.comp_id", "lnetcap.ost.oa.layout.comp_id"),
    # obdo's ost_id as a FID (the built-in shows obd_ioobj's only as raw halves).
    ("lustre.obdo>lustre.ost_id>lustre.ost_id.fid>lustre.lu_fid.f_seq",
     "lnetcap.ost.oa.oi>lnetcap.ost.oi.fid>lnetcap.fid.seq"),
    ("lustre.obdo>lustre.ost_id>lustre.ost_id.fid>lustre.ll_fid.f_oid",
     "lnetcap.ost.oa.oi>lnetcap.ost.oi.fid>lnetcap.fid.oid"),
    ("lustre.obdo>lustre.ost_id>lustre.ost_id.fid>lustre.ll_fid.f_ver",
     "lnetcap.ost.oa.oi>lnetcap.ost.oi.fid>lnetcap.fid.ver"),
] + [("lustre.obdo.o_%s" % f, "lnetcap.ost.oa.%s" % f) for f in [
    "valid", "parent_seq", "size", "mtime", "atime", "ctime", "blocks", "grant", "blksize",
    "mode", "uid", "gid", "flags", "nlink", "parent_oid", "misc", "ioepoch", "stripe_idx",
    "parent_ver", "uid_h", "gid_h", "data_version", "projid"]
] + [("%s>lustre.%s" % (parent, child), "%s>lnetcap.fid.%s" % (ours, mine))
     for parent, ours in [("lustre.mdt_body.fid1", "lnetcap.mdt.fid1"),
                          ("lustre.mdt_body.fid2", "lnetcap.mdt.fid2"),
                          ("lustre.mdt_rec_reint.fid1", "lnetcap.mdt.reint.fid1"),
                          ("lustre.mdt_rec_reint.fid2", "lnetcap.mdt.reint.fid2")]
     for child, mine in [("lu_fid.f_seq", "seq"), ("ll_fid.f_oid", "oid"), ("ll_fid.f_ver", "ver")]]

# Where the built-in is wrong about Lustre 2.16 (lustre-release v2_16_1,
# lustre/include/uapi/linux/lustre/lustre_idl.h).  Each entry: built-in
# field, the messages it applies to (None: all), and why, with the source
# line proving it.
REINT_CREATE, REINT_OPEN = 2, 6


def reint_op_in(*ops):
    return lambda m: any(v in ops for v in m.get("lnetcap.mdt.reint.opcode", []))


BUILTIN_ERRORS = [
    ("lustre.mdt_rec_reint.mode", reint_op_in(REINT_CREATE, REINT_OPEN),
     "CREATE/OPEN records are struct mdt_rec_create, whose cr_mode is at +112 and cr_bias "
     "at +116 (lustre_idl.h:2076-2077); the built-in reads them with the generic "
     "mdt_rec_reint layout, rr_bias at +112 and rr_mode at +116 (lustre_idl.h:2259-2260)"),
    ("lustre.mdt_rec_reint.bias", reint_op_in(REINT_CREATE, REINT_OPEN),
     "same as mode: cr_bias is at +116 (lustre_idl.h:2077), not rr_bias's +112"),
]


def num(show):
    """Normalises a PDML show value: integers compare by value, dates by
    their seconds since the epoch."""
    s = " ".join(show.split())
    m = re.match(r"^(\w{3} \d{1,2}, \d{4} \d\d:\d\d:\d\d)\.\d+ UTC$", s)
    if m:
        d = datetime.datetime.strptime(m.group(1), "%b %d, %Y %H:%M:%S")
        return int(d.replace(tzinfo=datetime.timezone.utc).timestamp())
    m = re.search(r"\((-?\d+|0x[0-9a-fA-F]+)\)$", s)
    if m:
        s = m.group(1)
    try:
        return int(s, 0)
    except ValueError:
        return s


def fields_of(elem, path, out):
    """Records every field under its name and under "a>b>name" for each
    chain of its named ancestors."""
    for f in elem.findall("field"):
        name = f.get("name")
        if name:
            if f.get("show") is not None:
                v = num(f.get("show"))
                out.setdefault(name, []).append(v)
                for k in range(1, len(path) + 1):
                    out.setdefault(">".join(path[-k:] + [name]), []).append(v)
            fields_of(f, path + [name], out)
        else:
            fields_of(f, path, out)


def builtin_messages(path):
    """Messages of the built-in dissectors: an lnet proto starts one, the
    lustre proto after it fills it."""
    msgs = []
    for pkt in ET.parse(path).getroot().iter("packet"):
        cur = None
        for proto in pkt.findall("proto"):
            name = proto.get("name")
            if name == "lnet":
                cur = {"_frame": pkt.find("proto/field[@name='frame.number']").get("show")}
                fields_of(proto, [], cur)
            elif name == "lustre" and cur is not None:
                fields_of(proto, [], cur)
                msgs.append(cur)
                cur = None
    return msgs


def plugin_messages(path):
    msgs = []
    for pkt in ET.parse(path).getroot().iter("packet"):
        # One message per frame: LNetCap and the protocols above it
        # (lnetcap.ptlrpc and the body protocols lnetcap.mdt, ...).
        m = {"_frame": pkt.find("proto/field[@name='frame.number']").get("show")}
        for proto in pkt.findall("proto"):
            name = proto.get("name")
            if name == "lnetcap" or name.startswith("lnetcap."):
                fields_of(proto, [], m)
        if "lnetcap.ptlrpc.type" in m:
            msgs.append(m)
    return msgs


def keyed(msgs, mb, typ, opc):
    out, seen = {}, {}
    for m in msgs:
        if mb not in m or typ not in m or opc not in m:
            continue
        k = (m[mb][0], m[typ][0], m[opc][0])
        n = seen.get(k, 0)
        seen[k] = n + 1
        out[k + (n,)] = m
    return out


def main():
    b = keyed(builtin_messages(sys.argv[1]), "lnet.msg_dst_match_bits",
              "lustre.ptlrpc_body.pb_type", "lustre.ptlrpc_body.pb_opc")
    p = keyed(plugin_messages(sys.argv[2]), "lnetcap.lnet.match_bits",
              "lnetcap.ptlrpc.type", "lnetcap.ptlrpc.opc")
    common = sorted(set(b) & set(p))
    compared = agreed = known = 0
    bad = []
    for k in common:
        bm, pm = b[k], p[k]
        for entry in FIELDS:
            bf, pf = entry[0], entry[1]
            fix = entry[2] if len(entry) > 2 else (lambda v: v)
            bv = bm.get(bf)
            pfs = pf if isinstance(pf, tuple) else (pf,)
            # A tuple names where the plugin may show the value: the first
            # of them the message has (LDLM_CANCEL shows its lock_count both
            # as lnetcap.ldlm.lock_count and lnetcap.elc.lock_count).
            pv = [fix(v) for v in next((pm[f] for f in pfs if pm.get(f)), [])]
            if not bv or not pv:
                continue
            compared += len(bv)
            if bv == pv:
                agreed += len(bv)
            elif any(f == bf and (when is None or when(pm)) for f, when, _ in BUILTIN_ERRORS):
                known += len(bv)
            else:
                bad.append("frame %s/%s %s=%s but %s=%s" % (bm["_frame"], pm["_frame"], bf, bv,
                                                           "|".join(pfs), pv))
    for line in bad:
        print("DISAGREE:", line)
    print("%d messages paired (built-in %d, plugin %d); %d values compared: %d agree, "
          "%d in known built-in errors, %d disagree" %
          (len(common), len(b), len(p), compared, agreed, known, len(bad)))
    for f, _, why in BUILTIN_ERRORS:
        print("known built-in error:", f, "-", why)
    if len(common) < 100 or compared < 3000:
        print("too little compared: the pairing is broken")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
