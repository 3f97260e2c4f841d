// SPDX-License-Identifier: GPL-2.0-or-later
// socklnd_input.h - the input format of fuzz_socklnd, shared by the target
// and the seed maker (which turns real tcpdump captures into it):
//
//   input  := config frame*
//   config := 1 byte: bits 0-2 link type (kLinkTypes), bit 3 --local-nid,
//             bit 4 a 64-byte snap length, bit 5 a tiny out-of-order
//             budget, bit 6 at most 4 connections
//   frame  := u16 little-endian length, u8 clock step, length bytes
//
// The clock advances by step milliseconds per frame, except that step 255
// jumps 11 minutes, past the idle timeout.  A short, simple framing lets
// the fuzzer change TCP flags, sequence numbers and socklnd bytes directly
// instead of spending its effort on a file format's bookkeeping.
#pragma once

#include <pcap/dlt.h>

#include <cstdint>

namespace lnetcap::fuzz {

inline constexpr int kLinkTypes[8] = {DLT_EN10MB, DLT_LINUX_SLL, DLT_LINUX_SLL2, DLT_RAW,
                                      DLT_IPV4,   DLT_IPV6,      DLT_NULL,       DLT_LOOP};
enum : std::uint8_t {
  kCfgLinkMask = 0x07,
  kCfgLocalNid = 0x08,
  kCfgSmallSnaplen = 0x10,
  kCfgTinyBudget = 0x20,
  kCfgFewConnections = 0x40,
};
inline constexpr std::uint8_t kStepJump = 255;
inline constexpr std::uint64_t kJumpNs = 660ull * 1000000000ull;

}  // namespace lnetcap::fuzz
