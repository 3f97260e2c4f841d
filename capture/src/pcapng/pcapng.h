// SPDX-License-Identifier: GPL-2.0-or-later
// pcapng.h - block and option codes of the pcapng format
// (draft-ietf-opsawg-pcapng) that lnetcap writes and reads.
#pragma once

#include <cstdint>

namespace lnetcap::pcapng {

constexpr std::uint32_t kBlockSHB = 0x0A0D0D0A;
constexpr std::uint32_t kBlockIDB = 0x00000001;
constexpr std::uint32_t kBlockSPB = 0x00000003;
constexpr std::uint32_t kBlockISB = 0x00000005;
constexpr std::uint32_t kBlockEPB = 0x00000006;
constexpr std::uint32_t kByteOrderMagic = 0x1A2B3C4D;

constexpr std::uint16_t kOptEndOfOpt = 0;
constexpr std::uint16_t kOptComment = 1;
constexpr std::uint16_t kShbHardware = 2;
constexpr std::uint16_t kShbOs = 3;
constexpr std::uint16_t kShbUserAppl = 4;
constexpr std::uint16_t kIfName = 2;
constexpr std::uint16_t kIfDescription = 3;
constexpr std::uint16_t kIfTsresol = 9;
constexpr std::uint16_t kIfFilter = 11;
constexpr std::uint16_t kIfOs = 12;
constexpr std::uint16_t kIfHardware = 15;
constexpr std::uint16_t kEpbFlags = 2;
constexpr std::uint16_t kEpbDropCount = 4;
constexpr std::uint16_t kIsbStartTime = 2;
constexpr std::uint16_t kIsbEndTime = 3;
constexpr std::uint16_t kIsbIfRecv = 4;
constexpr std::uint16_t kIsbIfDrop = 5;
constexpr std::uint16_t kIsbFilterAccept = 6;
constexpr std::uint16_t kIsbOsDrop = 7;
constexpr std::uint16_t kIsbUsrDeliv = 8;

/// epb_flags direction bits.
constexpr std::uint32_t kEpbInbound = 0x1;
constexpr std::uint32_t kEpbOutbound = 0x2;

}  // namespace lnetcap::pcapng
