// SPDX-License-Identifier: GPL-2.0-or-later
// LnetcapFileSource on damaged files (issue 33): a damaged record whose
// block framing is whole is stepped over when a handler will say so, and
// fatal otherwise; a broken framing ends the read, saying how far it got.
// Also the bounded warnings lnetcap prints for them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>

#include "error.h"
#include "file_source.h"
#include "lnetcap/record.h"
#include "output/damage_warnings.h"
#include "pcapng/writer.h"
#include "record.h"

using namespace lnetcap;

namespace {

constexpr int kRecords = 6;
// An EPB's packet data starts after type, length, interface, two timestamp
// words, caplen and orig_len.
constexpr std::uint64_t kEpbData = 28;

std::string temp_path(const char* name) {
  return ::testing::TempDir() + "/" + name + "-" + std::to_string(getpid()) + ".pcapng";
}

std::vector<std::uint8_t> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void write_bytes(const std::string& path, const std::vector<std::uint8_t>& f) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(f.data()), static_cast<std::streamsize>(f.size()));
}

// kRecords valid records, seq 1..kRecords, with epb_dropcount where
// drops names the record; returns each block's offset.
std::vector<std::uint64_t> write_records(const std::string& path,
                                         const std::map<int, std::uint64_t>& drops = {}) {
  {
    pcapng::Writer w(path);
    w.begin_section({});
    w.add_interface(LNETCAP_LINKTYPE, {});
    for (int i = 1; i <= kRecords; ++i) {
      RecordHeader h;
      h.direction = LNETCAP_DIR_SEND;
      h.seq = static_cast<std::uint64_t>(i);
      std::vector<std::uint8_t> rec;
      encode_record(h, {}, {}, rec);
      const auto d = drops.find(i);
      w.write_packet(0, 1000 + i, rec, static_cast<std::uint32_t>(rec.size()), 0,
                     d == drops.end() ? std::nullopt : std::optional<std::uint64_t>(d->second));
    }
    w.close();
  }
  std::vector<std::uint64_t> offsets;
  pcapng::Reader r(path);
  pcapng::Packet p;
  while (r.next(p)) offsets.push_back(p.offset);
  return offsets;
}

std::uint64_t seq_of(const CapturedRecord& rec) {
  std::string why;
  const auto v = parse_record(rec.bytes, &why);
  return v ? v->hdr.seq : 0;
}

// The seq numbers next() delivers, to the end.
std::vector<std::uint64_t> read_all(LnetcapFileSource& src) {
  std::vector<std::uint64_t> seqs;
  CapturedRecord rec;
  while (src.next(rec)) seqs.push_back(seq_of(rec));
  return seqs;
}

struct DamagedFile {
  std::string path;
  std::vector<std::uint64_t> offsets;
};

// The file with the record magic of record `number` (from 1) spoiled.
DamagedFile with_bad_magic(const char* name, std::initializer_list<int> numbers) {
  DamagedFile d{temp_path(name), {}};
  d.offsets = write_records(d.path);
  auto f = slurp(d.path);
  for (int n : numbers) f.at(d.offsets.at(n - 1) + kEpbData) ^= 0xff;
  write_bytes(d.path, f);
  return d;
}

}  // namespace

TEST(FileSource, ADamagedRecordIsFatalWithoutAHandler) {
  const DamagedFile d = with_bad_magic("fatal", {3});
  LnetcapFileSource src(d.path);
  CapturedRecord rec;
  ASSERT_TRUE(src.next(rec));
  ASSERT_TRUE(src.next(rec));
  try {
    src.next(rec);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), d.path + ": offset " + std::to_string(d.offsets[2]) +
                                         ": record 3: bad lnetcap record: record magic is not \"LNCR\"");
  }
  EXPECT_EQ(src.stats().received, 2u);
  std::remove(d.path.c_str());
}

TEST(FileSource, SkipsDamagedRecordsAndNamesEachOne) {
  const DamagedFile d = with_bad_magic("skip", {2, 5});
  LnetcapFileSource src(d.path);
  std::vector<DamagedRecord> seen;
  src.skip_damaged([&](const DamagedRecord& r) { seen.push_back(r); });
  EXPECT_EQ(read_all(src), (std::vector<std::uint64_t>{1, 3, 4, 6}));
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].file, d.path);
  EXPECT_EQ(seen[0].offset, d.offsets[1]);
  EXPECT_EQ(seen[0].number, 2u);
  EXPECT_EQ(seen[0].why, "bad lnetcap record: record magic is not \"LNCR\"");
  EXPECT_EQ(seen[1].offset, d.offsets[4]);
  EXPECT_EQ(seen[1].number, 5u);
  EXPECT_EQ(src.stats().received, 4u);
  EXPECT_EQ(src.stats().damaged, 2u);
  std::remove(d.path.c_str());
}

TEST(FileSource, SkipsPacketBlocksDamagedInsideWholeFraming) {
  DamagedFile d{temp_path("epb"), {}};
  d.offsets = write_records(d.path);
  auto f = slurp(d.path);
  f.at(d.offsets[3] + 8) = 9;  // the fourth EPB names interface 9
  write_bytes(d.path, f);
  LnetcapFileSource src(d.path);
  std::vector<DamagedRecord> seen;
  src.skip_damaged([&](const DamagedRecord& r) { seen.push_back(r); });
  EXPECT_EQ(read_all(src), (std::vector<std::uint64_t>{1, 2, 3, 5, 6}));
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].offset, d.offsets[3]);
  EXPECT_EQ(seen[0].number, 4u);
  EXPECT_EQ(seen[0].why, "packet refers to interface 9 but the section defines 1");
  EXPECT_EQ(src.stats().damaged, 1u);
  std::remove(d.path.c_str());
}

TEST(FileSource, ADamagedRecordsDropCountGoesToTheNextRecord) {
  // Record 3 (damaged) and 4 say how many records the kernel lost before
  // them; those before 3 are lost whatever became of 3 itself.
  DamagedFile d{temp_path("drops"), {}};
  d.offsets = write_records(d.path, {{3, 5}, {4, 2}, {6, 1}});
  auto f = slurp(d.path);
  f.at(d.offsets[2] + kEpbData) ^= 0xff;
  write_bytes(d.path, f);
  LnetcapFileSource src(d.path);
  src.skip_damaged([](const DamagedRecord&) {});
  CapturedRecord rec;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> got;  // seq, drops before it
  while (src.next(rec)) got.emplace_back(seq_of(rec), rec.has_drops_before ? rec.drops_before : 0);
  EXPECT_EQ(got, (std::vector<std::pair<std::uint64_t, std::uint64_t>>{{1, 0}, {2, 0}, {4, 7}, {5, 0}, {6, 1}}));
  EXPECT_EQ(src.stats().dropped, 8u);
  std::remove(d.path.c_str());
}

TEST(FileSource, BrokenFramingEndsTheReadSayingHowFarItGot) {
  // One damaged record, then a file cut inside the fifth block.
  DamagedFile d = with_bad_magic("cut", {2});
  auto f = slurp(d.path);
  f.resize(d.offsets[4] + 20);
  write_bytes(d.path, f);
  LnetcapFileSource src(d.path);
  std::uint64_t damaged = 0;
  src.skip_damaged([&](const DamagedRecord&) { ++damaged; });
  std::vector<std::uint64_t> seqs;
  try {
    CapturedRecord rec;
    while (src.next(rec)) seqs.push_back(seq_of(rec));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(d.path + ": offset " + std::to_string(d.offsets[4]) + ": "), std::string::npos) << what;
    EXPECT_NE(what.find("is truncated"), std::string::npos) << what;
    EXPECT_NE(what.find("; 3 records read before it, 1 damaged record skipped"), std::string::npos) << what;
    EXPECT_NE(e.hint().find("records before this offset were processed"), std::string::npos) << e.hint();
  }
  EXPECT_EQ(seqs, (std::vector<std::uint64_t>{1, 3, 4}));
  EXPECT_EQ(damaged, 1u);
  std::remove(d.path.c_str());
}

TEST(FileSource, ADamagedFirstPacketDoesNotHideTheFileKind) {
  DamagedFile d{temp_path("first"), {}};
  d.offsets = write_records(d.path);
  auto f = slurp(d.path);
  f.at(d.offsets[0] + 8) = 9;
  write_bytes(d.path, f);
  EXPECT_TRUE(LnetcapFileSource::is_lnetcap_capture(d.path));
  std::remove(d.path.c_str());
}

namespace {

std::vector<std::string> lines_of(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::vector<std::string> lines;
  char buf[512];
  while (std::fgets(buf, sizeof(buf), f)) lines.emplace_back(buf);
  return lines;
}

}  // namespace

TEST(DamageWarnings, OneLineEachUpToTheBoundThenOneLineForTheRest) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  output::DamageWarnings w(f, 3);
  for (std::uint64_t n = 1; n <= 7; ++n) w.report({"t.pcapng", 100 * n, n, "bad lnetcap record: why"});
  const auto lines = lines_of(f);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "lnetcap: warning: t.pcapng: offset 100: record 1: bad lnetcap record: why; skipped\n");
  EXPECT_EQ(lines[2], "lnetcap: warning: t.pcapng: offset 300: record 3: bad lnetcap record: why; skipped\n");
  EXPECT_EQ(lines[3],
            "lnetcap: warning: t.pcapng: more than 3 damaged records; the others are counted at the end, not listed\n");
  EXPECT_EQ(w.reported(), 7u);
  std::fclose(f);
}

TEST(DamageWarnings, FileNamesAreEscaped) {
  EXPECT_EQ(output::damage_warning_line({"a\033]0;x\007", 1, 2, "w"}),
            "lnetcap: warning: a\\033]0;x\\007: offset 1: record 2: w; skipped\n");
}

TEST(DamageWarnings, TheClosingCount) {
  EXPECT_EQ(output::damage_count_line(895, 0, 20), "");
  EXPECT_EQ(output::damage_count_line(894, 1, 20),
            "lnetcap: 894 records read, 1 damaged record skipped (listed above; --strict stops at the first)\n");
  EXPECT_EQ(output::damage_count_line(1, 2, 20),
            "lnetcap: 1 record read, 2 damaged records skipped (each listed above; --strict stops at the first)\n");
  EXPECT_EQ(output::damage_count_line(10, 25, 20),
            "lnetcap: 10 records read, 25 damaged records skipped (the first 20 listed above; --strict stops at "
            "the first)\n");
}
