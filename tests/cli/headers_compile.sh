#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every shared protocol header must compile on its own as C11, as C++20 and
# with clang -target bpf: the agent, the plugin and the BPF programs all
# include them.  Usage: headers_compile.sh SOURCE_DIR
set -euo pipefail
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for h in "$src"/include/lnetcap/*.h; do
  name=$(basename "$h")
  printf '#include "lnetcap/%s"\nint lnetcap_header_check;\n' "$name" >"$tmp/t.c"
  cp "$tmp/t.c" "$tmp/t.cpp"
  gcc -std=c11 -Wall -Wextra -pedantic -Werror -fsyntax-only -I"$src/include" "$tmp/t.c" ||
    { echo "FAIL: $name as C11"; status=1; }
  g++ -std=c++20 -Wall -Wextra -pedantic -Werror -fsyntax-only -I"$src/include" "$tmp/t.cpp" ||
    { echo "FAIL: $name as C++20"; status=1; }
  if command -v clang >/dev/null; then
    clang -target bpf -Wall -Werror -fsyntax-only -I"$src/include" \
      -I/usr/include/"$(gcc -dumpmachine)" "$tmp/t.c" || { echo "FAIL: $name with clang -target bpf"; status=1; }
  else
    echo "SKIP: clang missing, BPF check not run"; status=77
  fi
  [ $status -ne 0 ] || echo "ok: $name"
done
exit $status
