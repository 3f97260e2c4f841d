// SPDX-License-Identifier: GPL-2.0-or-later
// body_fields.h - the agent's reading of include/lnetcap/fields.h: a body
// field's value in a decoded message, and the rows the filter (keyword),
// -p (code) and the text line (label) offer.  None of them names a body
// field itself: a row is the only place (docs/CONTRIBUTING.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lnetcap/fields.h"
#include "message.h"

namespace lnetcap {

using BodyField = struct lnetcap_body_field;

/// Row i of the table.
inline const BodyField& body_field(std::size_t i) { return lnetcap_body_fields[i]; }

/// The row whose filter keyword (case-insensitive) or -p code is `name`.
std::optional<std::size_t> body_field_by_keyword(std::string_view name);
std::optional<std::size_t> body_field_by_pcode(std::string_view code);
/// The rows that have a text label, in row order.
const std::vector<std::size_t>& body_fields_with_label();

/// Row f's value in m: when m is a PtlRPC message whose format
/// (include/lnetcap/rpc_formats.h) has a buffer of f's kind, that buffer
/// holds f's whole struct, captured, and the struct's valid word has f's
/// bit.  Numbers only (an OSTID row has no value here).
std::optional<std::uint64_t> body_field_value(const Message& m, const BodyField& f);
/// What -p prints for a row the message lacks: lnetdump's no_ptlrpc for
/// the ptlrpc_body's, NA for the others.
const char* body_field_absent(const BodyField& f);
/// The value as the row's display says: 1048576, 0x2a, 0644.
std::string body_field_text(const BodyField& f, std::uint64_t v);
/// The most a row's value can be (its width).
std::uint64_t body_field_max(const BodyField& f);

/// The -h lines of the body fields the agent offers (keyword, code,
/// label), empty when no row offers any.
std::string body_fields_usage();

}  // namespace lnetcap
