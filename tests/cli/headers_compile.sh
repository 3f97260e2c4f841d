#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every shared protocol header must compile on its own as C11, as C++20 and
# with clang -target bpf: the agent, the plugin and the BPF programs all
# include them.  Usage: headers_compile.sh SOURCE_DIR
set -uo pipefail
src=$1
TEST_CASE=headers-compile
. "$src/tests/support/testlib.sh"
tmp=$(mktemp -d)
on_exit 'rm -rf "$tmp"'
for h in "$src"/include/lnetcap/*.h; do
  name=$(basename "$h")
  printf '#include "lnetcap/%s"\nint lnetcap_header_check;\n' "$name" >"$tmp/t.c"
  cp "$tmp/t.c" "$tmp/t.cpp"
  # Every header is checked in every way before the case ends (fail_later).
  gcc -std=c11 -Wall -Wextra -pedantic -Werror -fsyntax-only -I"$src/include" "$tmp/t.c" ||
    fail_later "$name as C11"
  g++ -std=c++20 -Wall -Wextra -pedantic -Werror -fsyntax-only -I"$src/include" "$tmp/t.cpp" ||
    fail_later "$name as C++20"
  if command -v clang >/dev/null; then
    clang -target bpf -Wall -Werror -fsyntax-only -I"$src/include" \
      -I/usr/include/"$(gcc -dumpmachine)" "$tmp/t.c" || fail_later "$name with clang -target bpf"
  fi
done
check "every header compiles" no_failures_yet
need_cmd clang  # the C and C++ checks ran; without clang the BPF one did not
