#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Writes the facts of Lustre's PtlRPC request formats as a small text file.

    scripts/layout-extract.py LUSTRE_GIT_DIR TAG > tests/data/layout-extract-<tag>.txt

For every RQF_* format in lustre/ptlrpc/layout.c at TAG: the opcode whose
server handler table names it (TGT_*_HDL(..., NAME, ...) uses &RQF_NAME),
and its request (client) and reply (server) RMF_* fields in order.  Then
the formats the MDT picks inside a handler (lustre/mdt/mdt_handler.c): by
an MDS_REINT's rr_opcode (reint_fmts[]), by an enqueue's intent
(mdt_intent_opc()'s switch) and by an open intent's rr_opcode
(intent_fmts[]).  Only
facts are written (names and numbers), never Lustre's code; the unit test
RpcFormats.* compares include/lnetcap/rpc_formats.h with these files.

Preprocessor conditions: every `#if LUSTRE_VERSION_CODE < OBD_OCD_VERSION(..)`
is evaluated against TAG's version; `#ifdef HAVE_SERVER_SUPPORT` /
`CONFIG_LUSTRE_FS_SERVER` are taken as defined (lnetcap sees servers' traffic).
Anything else stops the script, so a new kind of condition is looked at.
"""
import re
import subprocess
import sys


def show(git_dir, tag, path):
    return subprocess.run(["git", "-C", git_dir, "show", f"{tag}:{path}"],
                          check=True, capture_output=True, text=True).stdout


def tag_version(tag):
    parts = [int(x) for x in re.findall(r"\d+", tag)]
    return tuple((parts + [0, 0, 0, 0])[:4])


def active_lines(text, version):
    """The lines the preprocessor keeps at `version` (conditions above)."""
    stack = []  # (this branch taken, some branch taken)
    out = []
    for line in text.splitlines():
        s = line.strip()
        m = re.match(r"#\s*if\s+LUSTRE_VERSION_CODE\s*<\s*OBD_OCD_VERSION\(([^)]*)\)", s)
        if m:
            v = tuple(int(x) for x in m.group(1).split(","))
            taken = version < v
            stack.append([taken, taken])
            continue
        if re.match(r"#\s*ifdef\s+(HAVE_SERVER_SUPPORT|CONFIG_LUSTRE_FS_SERVER)\b", s):
            stack.append([True, True])
            continue
        if re.match(r"#\s*if", s):
            sys.exit(f"layout-extract: unknown condition, look at it: {s}")
        if re.match(r"#\s*else", s):
            stack[-1][0] = not stack[-1][1]
            continue
        if re.match(r"#\s*endif", s):
            stack.pop()
            continue
        if all(t for t, _ in stack):
            out.append(line)
    return "\n".join(out)


def field_arrays(src):
    """name -> [RMF names] for `static const struct req_msg_field *name[] = {...};`"""
    arrays = {}
    for m in re.finditer(r"struct\s+req_msg_field\s*\*\s*(\w+)\s*\[\]\s*=\s*\{(.*?)\};", src, re.S):
        arrays[m.group(1)] = re.findall(r"&RMF_(\w+)", m.group(2))
    return arrays


def formats(src, arrays):
    """RQF name -> (request fields, reply fields)."""
    out = {}
    for m in re.finditer(r"struct\s+req_format\s+RQF_(\w+)\s*=\s*DEFINE_REQ_FMT0\(\s*\"[^\"]*\"\s*,"
                         r"\s*(\w+)\s*,\s*(\w+)\s*\)", src, re.S):
        name, client, server = m.groups()
        out[name] = (arrays[client], arrays[server])
    if re.search(r"=\s*DEFINE_REQ_FMT\(", src):
        sys.exit("layout-extract: a DEFINE_REQ_FMT with explicit counts; teach the script")
    return out


def opcode_values(git_dir, tag):
    """Opcode name -> number, from the enums of lustre_idl.h."""
    for path in ("include/uapi/linux/lustre/lustre_idl.h",
                 "lustre/include/uapi/linux/lustre/lustre_idl.h"):
        try:
            idl = show(git_dir, tag, path)
            break
        except subprocess.CalledProcessError:
            continue
    else:
        sys.exit("layout-extract: no lustre_idl.h")
    return {m.group(1): int(m.group(2), 0)
            for m in re.finditer(r"^\s*([A-Z][A-Z0-9_]+)\s*=\s*(0x[0-9a-fA-F]+|\d+)\s*,", idl, re.M)}


def handler_opcodes(git_dir, tag):
    """Names used in the server handler tables with their format (not *_VAR),
    and the local `#define ALIAS NAME`s of those files (OST_BRW_READ)."""
    files = subprocess.run(["git", "-C", git_dir, "grep", "-l", "-E", r"TGT_[A-Z]+_HDL", tag, "--", "lustre/*.c", ":!lustre/mdt/mdt_batch.c"],
                           capture_output=True, text=True).stdout.split()
    names, aliases = set(), {}
    for f in files:
        text = show(git_dir, tag, f.split(":", 1)[1])
        for m in re.finditer(r"\bTGT_[A-Z]+_HDL(?:_HP)?\(\s*[^,]*,\s*(\w+)\s*,", text):
            names.add(m.group(1))
        for m in re.finditer(r"^#define\s+(\w+)\s+(\w+)\s*$", text, re.M):
            aliases[m.group(1)] = m.group(2)
    return names, aliases


def selectors(git_dir, tag, values):
    """(kind, selector value, RQF name) of the MDT's in-handler choices."""
    mdt = show(git_dir, tag, "lustre/mdt/mdt_handler.c")
    out = []
    for table, kind in (("reint_fmts", "reint"), ("intent_fmts", "intent_reint")):
        m = re.search(r"\*" + table + r"\[REINT_MAX\]\s*=\s*\{(.*?)\};", mdt, re.S)
        if not m:
            sys.exit(f"layout-extract: no {table}[] in mdt_handler.c")
        for r in re.finditer(r"\[(REINT_\w+)\]\s*=\s*&RQF_(\w+)", m.group(1)):
            out.append((kind, values[r.group(1)], r.group(2)))
    # mdt_intent_opc(): case labels, then the it_format they set.
    start = mdt.index("mdt_intent_opc(")
    body = mdt[mdt.index("switch (it_opc)", start):]
    body = body[:body.index("\n\tdefault:")]
    pending = []
    for line in body.splitlines():
        c = re.match(r"\s*case\s+([A-Z_|\s]+):", line)
        if c:
            pending.append(sum(values[n.strip()] for n in c.group(1).split("|")))
            continue
        f = re.search(r"it_format\s*=\s*&RQF_(\w+);", line)
        if f:
            out.extend(("intent", v, f.group(1)) for v in pending)
        if f or re.search(r"\bbreak;|RETURN\(", line):
            pending = []
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    git_dir, tag = sys.argv[1], sys.argv[2]
    src = active_lines(show(git_dir, tag, "lustre/ptlrpc/layout.c"), tag_version(tag))
    fmts = formats(src, field_arrays(src))
    values = opcode_values(git_dir, tag)
    handled, aliases = handler_opcodes(git_dir, tag)
    print(f"# layout-extract {tag}: Lustre's PtlRPC request formats (lustre/ptlrpc/layout.c),")
    print("# written by scripts/layout-extract.py; facts only. One line per RQF_ format:")
    print("# NAME opc=N (from a server handler table, - when the format is chosen otherwise)")
    print("# req=RMF,... rep=RMF,... (request and reply buffers in order, RMF_ prefix dropped)")
    for name in sorted(fmts):
        req, rep = fmts[name]
        opc = "-"
        if name in handled:
            opc = str(values[aliases.get(name, name)])
        print(f"{name} opc={opc} req={','.join(req)} rep={','.join(rep)}")
    print("# @KIND SELECTOR RQF: the MDT picks RQF_ for an MDS_REINT whose rr_opcode is SELECTOR")
    print("# (reint), an LDLM_ENQUEUE whose intent is SELECTOR (intent) or an open intent's rr_opcode")
    print("# (intent_reint)")
    for kind, value, name in selectors(git_dir, tag, values):
        print(f"@{kind} {value:#x} {name}")


if __name__ == "__main__":
    main()
