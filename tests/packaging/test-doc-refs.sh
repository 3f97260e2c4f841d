#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# packaging.doc-refs: every file the project's sources and docs point at is
# in the repository.  It fails on
#  - a mention of a repository path (docs/X.md, tests/.../x.sh, include/...,
#    any name with a source or document extension under a top-level folder)
#    that does not exist;
#  - a "docs/protocol.md N.M" citation whose section heading is missing;
#  - a citation of a document that lives outside the repository (the
#    research notes PROTOCOL.md, KERNEL-RIG.md, WIRESHARK.md, ... or
#    anything under ../shared), which a clone does not have.
# Paths of Lustre's and the kernel's own trees (include/uapi/..., the
# kernel's scripts/) are named when citing them and are not checked.
source "$(dirname "$0")/common.sh"
need python3 "apt-get install python3"
cd "$SRC" || fail "cannot cd to $SRC"
python3 - "$SRC" <<'PY' || fail "dangling references (listed above): fix the path or the section"
import glob, os, re, subprocess, sys
os.chdir(sys.argv[1])
if os.path.isdir(".git") or os.path.isfile(".git"):
    files = subprocess.run(["git", "ls-files"], capture_output=True, text=True, check=True).stdout.split("\n")
else:  # a source tarball: everything but build trees
    files = [os.path.relpath(os.path.join(d, f)) for d, ds, fs in os.walk(".")
             for f in fs if not d.startswith(("./build", "./.git"))]
# This file names what it looks for.
files = [f for f in files if f and f != "tests/packaging/test-doc-refs.sh"
         and not f.endswith((".pcap", ".pcapng", ".png", ".gz"))]
# Split so that this file does not match itself.
outside = re.compile(r"PROTOCOL\.md|KERNEL-RIG\.md|WIRESHARK\.md|STYLE-ANCHORS|CODE-REVIEW\.md|\.\./" + r"shared/")
roots = "bpf|capture|cmake|completion|debian|docs|include|kmod|packaging|samples|scripts|tests|wireshark-plugin"
exts = "md|sh|cpp|c|h|py|cmake|txt|5|8|pcapng|pcap|spec|service|conf"
# A path starts a word (not inside another path, a variable or <bpf/x.h>).
path_re = re.compile(r"(?<![\w./$}<-])((?:%s)/[A-Za-z0-9_./*+-]*\.(?:%s))(?![\w/-])" % (roots, exts))
foreign = re.compile(r"^include/(uapi|linux)/")
# Illustrations, not references: (file, path).
examples = {("capture/src/subscribe/protocol.h", "samples/x.pcapng")}
sec_re = re.compile(r"docs/protocol\.md,?(?: sections?| section| §)? ?(\d+(?:\.\d+)?(?:(?:[-/]| and |, )\d+(?:\.\d+)?)*)")
proto = open("docs/protocol.md").read() if os.path.exists("docs/protocol.md") else ""
anchors = set(re.findall(r"^##+ (\d+(?:\.\d+)?)\.? ", proto, re.M))
problems, checked = [], 0
for f in files:
    try:
        text = open(f, encoding="utf-8").read()
    except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
        continue
    for n, line in enumerate(text.split("\n"), 1):
        if outside.search(line):
            problems.append(f"{f}:{n}: cites a document that is not in the repository: {line.strip()}")
        for m in path_re.finditer(line):
            p = m.group(1).rstrip(".")
            if foreign.match(p) or (f, p) in examples:
                continue
            checked += 1
            if not (glob.glob(p) if "*" in p else os.path.exists(p)):
                problems.append(f"{f}:{n}: {p} does not exist")
        for m in sec_re.finditer(line):
            for s in re.findall(r"\d+(?:\.\d+)?", m.group(1)):
                checked += 1
                if s not in anchors:
                    problems.append(f"{f}:{n}: docs/protocol.md has no section {s}")
for p in problems:
    print("FAIL:", p, file=sys.stderr)
print(f"{checked} references in {len(files)} files checked, {len(problems)} dangling")
sys.exit(1 if problems else 0)
PY
pass "every path and docs/protocol.md section the sources and docs name exists"
