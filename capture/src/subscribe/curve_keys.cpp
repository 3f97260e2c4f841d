// SPDX-License-Identifier: GPL-2.0-or-later
#include "curve_keys.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <zmq.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

#include "../error.h"

namespace lnetcap::subscribe {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::ifstream open_or_throw(const std::string& path, const char* what) {
  std::ifstream in(path);
  if (!in)
    throw Error(std::string("cannot read ") + what + " " + path + ": " + std::strerror(errno),
                "check the path and its permissions; make a key pair with lnetcapd --gen-key FILE");
  return in;
}

}  // namespace

bool curve_available() { return zmq_has("curve") != 0; }

bool is_z85_key(const std::string& text) {
  if (text.size() != 40) return false;
  std::uint8_t raw[32];
  return zmq_z85_decode(raw, text.c_str()) != nullptr;
}

CurveKeyPair read_key_file(const std::string& path) {
  auto in = open_or_throw(path, "key file");
  CurveKeyPair pair;
  std::string line;
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string name, key;
    words >> name >> key;
    if (name == "public-key") pair.public_z85 = key;
    else if (name == "secret-key") pair.secret_z85 = key;
  }
  if (!is_z85_key(pair.public_z85) || !is_z85_key(pair.secret_z85))
    throw Error("key file " + path + " has no valid public-key and secret-key lines",
                "make one with lnetcapd --gen-key FILE");
  return pair;
}

CurveKeyPair write_new_key_file(const std::string& path) {
  if (!curve_available()) throw Error("this libzmq has no CURVE support");
  char pub[41], sec[41];
  if (zmq_curve_keypair(pub, sec) != 0) throw Error(std::string("cannot make a key pair: ") + zmq_strerror(errno));
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    throw Error("cannot create key file " + path + ": " + std::strerror(errno),
                errno == EEXIST ? "it exists already; remove it or name another" : "check the directory");
  const std::string text = "# lnetcap CurveZMQ key pair: keep secret; give only the public key away\npublic-key " +
                           std::string(pub) + "\nsecret-key " + sec + "\n";
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int saved = errno;
  ::close(fd);
  if (!ok) {
    ::unlink(path.c_str());
    throw Error("cannot write key file " + path + ": " + std::strerror(saved));
  }
  return {pub, sec};
}

std::string read_public_key(const std::string& text, const char* what) {
  if (is_z85_key(text)) return text;
  auto in = open_or_throw(text, what);
  std::string line;
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string first, second;
    words >> first >> second;
    if (first == "public-key" && is_z85_key(second)) return second;
    if (is_z85_key(first)) return first;
  }
  throw Error(std::string(what) + " " + text + " holds no Z85 public key",
              "give the 40-character key lnetcapd printed, or its key file");
}

std::set<std::string> read_authorized_keys(const std::string& path) {
  auto in = open_or_throw(path, "authorized-keys file");
  std::set<std::string> keys;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string key;
    words >> key;
    if (!is_z85_key(key))
      throw Error(path + ":" + std::to_string(number) + ": '" + key + "' is not a 40-character Z85 public key",
                  "one key a line, as lnetcap --gen-key prints it; '#' starts a comment");
    keys.insert(key);
  }
  return keys;
}

}  // namespace lnetcap::subscribe
