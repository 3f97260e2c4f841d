// SPDX-License-Identifier: GPL-2.0-or-later
// text_escape.h - quoting for the formats the reports emit (JSON strings,
// Prometheus label values, XML/HTML text, Mermaid labels).  Jobids and comm
// names come from the wire, so every one of them goes through here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace lnetcap::report {

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
