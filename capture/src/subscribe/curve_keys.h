// SPDX-License-Identifier: GPL-2.0-or-later
// curve_keys.h - CurveZMQ key files shared by lnetcapd and lnetcap --from
// (docs/DAEMON.md, "TCP with CurveZMQ").
//
// A key file holds two lines, "public-key Z85" and "secret-key Z85"
// (40 characters each); lines starting with '#' are comments.  It is
// written mode 0600: whoever reads it can act as its owner.
#pragma once

#include <set>
#include <string>

namespace lnetcap::subscribe {

struct CurveKeyPair {
  std::string public_z85, secret_z85;
};

/// Whether libzmq was built with CURVE (Debian's is).
bool curve_available();

/// Reads a key file.  Throws Error naming the file and what is wrong.
CurveKeyPair read_key_file(const std::string& path);

/// Makes a new key pair and writes it to path (mode 0600, never over an
/// existing file).  Throws Error.
CurveKeyPair write_new_key_file(const std::string& path);

/// Reads the public key of `text`: a Z85 key itself, or a file holding
/// one (a key file's public-key line or a bare key).  Throws Error.
std::string read_public_key(const std::string& text, const char* what);

/// Reads an authorized-keys file: one Z85 public key a line, '#' comments
/// and blank lines allowed, text after the key ignored (a name).  Throws
/// Error naming the file and line of a malformed key.
std::set<std::string> read_authorized_keys(const std::string& path);

/// Whether text is a well-formed 40-character Z85 CURVE key.
bool is_z85_key(const std::string& text);

}  // namespace lnetcap::subscribe
