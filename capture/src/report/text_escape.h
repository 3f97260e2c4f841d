// SPDX-License-Identifier: GPL-2.0-or-later
// text_escape.h - how strings from the wire leave lnetcap, and quoting for
// the formats the reports emit (JSON strings, Prometheus label values,
// XML/HTML text, Mermaid labels).  Jobids, task names and interface names
// come from the wire or from a file anyone may have crafted: every one goes
// through wire_text() before it is printed anywhere (lines, -p, -v,
// summaries, charts, errors), and then through the format's own quoting.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace lnetcap::report {

/// A wire string made safe for a terminal, as tcpdump does: printable ASCII
/// stays, a backslash becomes two, and every other byte (control
/// characters such as ESC, BEL, CR, LF; DEL; bytes >= 0x80) becomes a
/// backslash and three octal digits (ESC is \033).  The result is never longer
/// than 4 times the input and holds only printable ASCII.
std::string wire_text(std::string_view s);
/// JSON string literal including the quotes; control bytes as \u00XX and
/// bytes >= 0x80 that are not valid UTF-8 as \u00XX of the byte (lossy but valid).
std::string json_string(std::string_view s);
/// Prometheus label value (without quotes): \\, \" and \n escaped.
std::string prom_label(std::string_view s);
/// XML text or attribute value: & < > " ' escaped; control bytes dropped.
std::string xml_escape(std::string_view s);
/// Text that is safe inside a Mermaid participant alias or message: ';' and
/// '#' become Mermaid entity codes, newlines spaces.
std::string mermaid_text(std::string_view s);
/// Human-readable duration: "850ns", "12.3us", "4.56ms", "1.23s".
std::string format_duration(std::uint64_t ns);
/// Human-readable byte count with decimal units: "512 B", "2.1 MB".
std::string format_bytes(std::uint64_t bytes);

}  // namespace lnetcap::report
