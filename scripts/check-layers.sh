#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check-layers.sh [SRC] - capture/src is built as layer libraries
# (capture/CMakeLists.txt, one per row below); this keeps their boundaries.
#
# Every source includes its neighbours by a path relative to capture/src
# (`#include "../filter/filter.h"`), so include directories cannot stop a
# wrong include: this check does.  It fails, naming the file, the include
# and the rule, when a file includes a file of a layer its own layer may not
# include, or when a file under SRC is in no layer.  The build runs it before
# compiling any layer library; ctest lint.layers runs it on the tree.
#
# The table is the one statement of the layer DAG.  Lower layers come first:
# a layer may include only layers listed above it (checked), so the DAG has
# no cycle.  A pattern ending in / is a folder; `*` matches within a name.
# Keep capture/CMakeLists.txt's target_link_libraries in step with it.
set -uo pipefail
src=${1:-$(dirname "$0")/../capture/src}
cd "$src" || { echo "check-layers: no source folder $src" >&2; exit 2; }

# layer      files (relative to capture/src)                  may include
table='
base       bytes.h error.h signals.*                         -
codec      codec/ pcapng/ record.* message.* body_fields.* nid.* source.h  base
options    options.* option_*.* getopt_table.*               base
filter     filter/                                           codec base
sources    file_source.* source_factory.* capture_metadata.* socklnd/ live/  options filter codec base
output     text/ report/ output/ anon/ sink.h pcapng_sink.* nid_names.* nid_resolver.*  filter codec base
subscribe  subscribe/                                        codec base
daemon     daemon/                                           sources output subscribe options filter codec base
agent      app.* extcap.* main.cpp top/                         sources output subscribe options filter codec base
'
# Edges that look like reaching across, and why they are allowed:
# - sources -> options: every source opens from an Options (-r/-i, snap
#   length, ring size, attach mode: source_factory.h, live/, socklnd/).
# - daemon -> options: DaemonOptions embeds the Options lnetcapd opens its
#   one source with, and parses its flags with the shared option helpers.
# - daemon -> sources: lnetcapd opens that source through source_factory.h,
#   and writes its kernel clause table through live/subfilter_writer.h from
#   the raw map RecordSource::kernel_clause_table() hands out (issue 24: the
#   kernel filter still wants an interface of its own).
# - output: text/ includes report/text_escape.h; both are one layer.

find . \( -name '*.h' -o -name '*.hpp' -o -name '*.cpp' -o -name '*.c' \) -printf '%P\n' | sort |
LC_ALL=C awk -v table="$table" -v where="$src" '
function norm(p,    n, i, k, part, out, parts) {
	n = split(p, part, "/"); k = 0
	for (i = 1; i <= n; i++) {
		if (part[i] == "" || part[i] == ".") continue
		if (part[i] == "..") { if (k > 0) k--; else return "" ; continue }
		parts[++k] = part[i]
	}
	out = ""
	for (i = 1; i <= k; i++) out = out (i > 1 ? "/" : "") parts[i]
	return out
}
function to_regex(pat,    r) {
	r = pat; gsub(/\./, "\\.", r); gsub(/\*/, "[^/]*", r)
	return (r ~ /\/$/) ? "^" r : "^" r "$"
}
BEGIN {
	nrows = split(table, row, "\n"); bad = 0
	for (i = 1; i <= nrows; i++) {
		n = split(row[i], w, /[ \t]+/)
		if (n == 0) continue
		name = w[1]; order[++nl] = name; rank[name] = nl
		# Words that are layers already named are the may-include list;
		# the rest are file patterns.
		for (j = 2; j <= n; j++) {
			if (w[j] == "-") continue
			if (w[j] in rank) {
				if (rank[w[j]] >= rank[name]) {
					print "check-layers: table: layer " name " may include " w[j] ", which is not below it" > "/dev/stderr"; bad = 1
				}
				may[name, w[j]] = 1; mays[name] = mays[name] " " w[j]
			} else {
				np++; pat[np] = to_regex(w[j]); patlayer[np] = name
			}
		}
	}
}
{ file[++nf] = $0; known[$0] = 1 }
END {
	for (f = 1; f <= nf; f++) {
		layer[file[f]] = ""
		for (p = 1; p <= np; p++)
			if (file[f] ~ pat[p]) { layer[file[f]] = patlayer[p]; break }
		if (layer[file[f]] == "") {
			print where "/" file[f] ": in no layer: add it to the table in scripts/check-layers.sh" > "/dev/stderr"; bad = 1
		}
	}
	for (f = 1; f <= nf; f++) {
		me = file[f]; dir = me; if (!sub(/\/[^\/]*$/, "", dir)) dir = ""
		line = 0
		while ((getline text < me) > 0) {
			line++
			if (text !~ /^[ \t]*#[ \t]*include[ \t]*"/) continue
			inc = text; sub(/^[ \t]*#[ \t]*include[ \t]*"/, "", inc); sub(/".*/, "", inc)
			# As the compiler looks: next to the file, then capture/src.
			# Anything else (include/lnetcap, bpf/, generated) is no layer.
			t = norm((dir == "" ? "" : dir "/") inc)
			if (!(t in known)) t = norm(inc)
			if (!(t in known)) continue
			from = layer[me]; to = layer[t]
			if (from == "" || to == "" || from == to || (from, to) in may) continue
			printf "%s/%s:%d: includes \"%s\" (layer %s), but layer %s may include only:%s (layer table in scripts/check-layers.sh)\n", \
				where, me, line, inc, to, from, (mays[from] == "" ? " none" : mays[from]) > "/dev/stderr"
			bad = 1
		}
		close(me)
	}
	exit bad
}'
