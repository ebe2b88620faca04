// The pure rules of gc and the trash (src/core/gc.hpp): durations, sizes, expiry, quota order.
#include "core/gc.hpp"

#include <gtest/gtest.h>

namespace {

using berth::ErrorCode;

TEST(GcDuration, UnitsAndRefusals) {
  EXPECT_EQ(*berth::parse_duration("45s", "x"), 45);
  EXPECT_EQ(*berth::parse_duration("30m", "x"), 1800);
  EXPECT_EQ(*berth::parse_duration("12h", "x"), 12 * 3600);
  EXPECT_EQ(*berth::parse_duration("7d", "x"), 7 * 86400);
  EXPECT_EQ(*berth::parse_duration("2w", "x"), 14 * 86400);
  EXPECT_EQ(*berth::parse_duration("0", "x"), 0);
  for (const char* bad : {"", "7", "d", "7x", "-1d", "1.5h", "7 d", "99999999999999999d"}) {
    auto r = berth::parse_duration(bad, "--older-than");
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::bad_duration);
    EXPECT_NE(r.error().message.find("--older-than"), std::string::npos);
  }
}

TEST(GcSize, UnitsAndRefusals) {
  EXPECT_EQ(*berth::parse_size("", "x"), 0u);
  EXPECT_EQ(*berth::parse_size("4096", "x"), 4096u);
  EXPECT_EQ(*berth::parse_size("500M", "x"), 500ull << 20);
  EXPECT_EQ(*berth::parse_size("20G", "x"), 20ull << 30);
  for (const char* bad : {"G", "1.5G", "10g", "-1"})
    EXPECT_FALSE(berth::parse_size(bad, "x")) << bad;
}

TEST(GcExpiry, OlderThanDaysAndBeyondTheNewestKept) {
  const int64_t day = 86400, now = 100 * day;
  std::vector<berth::TrashEntry> e = {
      {"a", now - 40 * day}, {"a", now - 1 * day},  {"a", now - 50 * day}, {"a", now - 35 * day},
      {"b", now - 90 * day}, {"c", now - 60 * day}, {"c", now - 70 * day}};
  // keep 2, 30 days: a's two newest stay (1 and 35 days old), its 40- and 50-day ones go;
  // b's only one stays however old; c's older one goes.
  EXPECT_EQ(berth::expired_snapshots(e, 2, 30, now), (std::vector<size_t>{0, 2}));
  EXPECT_EQ(berth::expired_snapshots(e, 1, 30, now), (std::vector<size_t>{0, 2, 3, 6}));
  // Nothing is old enough: nothing expires, whatever keep says.
  EXPECT_TRUE(berth::expired_snapshots(e, 0, 1000, now).empty());
  EXPECT_EQ(berth::expired_snapshots(e, 0, 0, now).size(), e.size());
}

TEST(GcQuota, OldestRemovableFirstNeverAnotherOne) {
  std::vector<berth::QuotaCandidate> c = {
      {300, 10, true}, {100, 10, false}, {200, 10, true}, {50, 10, true}};
  // 4 workspaces, at most 2: the two oldest removable ones (50, then 200), never the dirty 100.
  EXPECT_EQ(berth::quota_victims(c, 2, 0), (std::vector<size_t>{3, 2}));
  EXPECT_TRUE(berth::quota_victims(c, 4, 0).empty());
  EXPECT_TRUE(berth::quota_victims(c, 0, 0).empty());
  // At most one: only the three removable ones can go; the limit stays exceeded.
  EXPECT_EQ(berth::quota_victims(c, 1, 0), (std::vector<size_t>{3, 2, 0}));
  // Disk: 40 bytes, at most 25: two go.
  EXPECT_EQ(berth::quota_victims(c, 0, 25), (std::vector<size_t>{3, 2}));
}

TEST(GcSnapshotSpec, NameAtTimeAndRefs) {
  EXPECT_EQ(*berth::snapshot_ref_of("feat/x@1700000000"), "refs/berth/trash/feat-x/1700000000");
  EXPECT_EQ(*berth::snapshot_ref_of("x@1700000000-2"), "refs/berth/trash/x/1700000000-2");
  EXPECT_EQ(*berth::snapshot_ref_of("refs/berth/trash/x/1"), "refs/berth/trash/x/1");
  // The time as --json gives it.
  EXPECT_EQ(*berth::snapshot_ref_of("x@2023-11-14T22:13:20Z"), "refs/berth/trash/x/1700000000");
  for (const char* bad :
       {"x", "@1", "x@", "x@yesterday", "x@1-", "x@1-a", "..@1", "x@2023-11-14T22:13:20",
        "x@2023-13-14T22:13:20Z", "x@2023-11-14 22:13:20Z"}) {
    auto r = berth::snapshot_ref_of(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::bad_snapshot);
  }
}

} // namespace
