// compare's pure parts (src/core/compare.hpp): a patch split per file, the change sets and their
// similarity (identical / overlapping / disjoint, Jaccard of files and of lines), and the review
// page's escaping of everything an attempt wrote.
#include "core/compare.hpp"
#include "core/diff_cache.hpp"

#include <algorithm>
#include <gtest/gtest.h>

namespace {

using berth::FileChange;
using berth::FilePatch;

const char* kPatch =
    "diff --git a/README.md b/README.md\n"
    "index 1111111111111111111111111111111111111111..2222222222222222222222222222222222222222 "
    "100644\n"
    "--- a/README.md\n"
    "+++ b/README.md\n"
    "@@ -1 +1,3 @@\n"
    " # app\n"
    "+one\n"
    "+one\n"
    "-gone\n"
    "diff --git a/blob.bin b/blob.bin\n"
    "new file mode 100644\n"
    "index 0000000000000000000000000000000000000000..3333333333333333333333333333333333333333\n"
    "GIT binary patch\n"
    "literal 3\n"
    "+zzz\n"
    "\n";

FileChange change(std::string path, char status = 'M') {
  FileChange f;
  f.path = std::move(path);
  f.status = status;
  f.new_mode = "100644";
  return f;
}

TEST(Compare, SplitsAPatchPerFile) {
  auto files = berth::split_patch(kPatch);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].new_oid, std::string(40, '2'));
  EXPECT_EQ(files[0].new_mode, "100644");
  EXPECT_EQ(files[0].added, (std::vector<std::string>{"one", "one"}));
  EXPECT_EQ(files[0].removed, (std::vector<std::string>{"gone"}));
  EXPECT_FALSE(files[0].binary);
  EXPECT_TRUE(files[1].binary);
  EXPECT_EQ(files[1].new_oid, std::string(40, '3'));
  // The binary data's lines are not changed lines.
  EXPECT_TRUE(files[1].added.empty());
  EXPECT_EQ(files[0].text.rfind("diff --git a/README.md", 0), 0u);
  EXPECT_TRUE(berth::split_patch("").empty());
}

TEST(Compare, RepeatedLinesCountEachTime) {
  auto patches = berth::split_patch(kPatch);
  auto set = berth::change_set({change("README.md"), change("blob.bin", 'A')}, patches);
  // +one twice, -gone, and the binary file as one change.
  EXPECT_EQ(set.lines.size(), 4u);
  ASSERT_EQ(set.files.size(), 2u);
  EXPECT_EQ(set.files[0].first, "README.md");
  EXPECT_EQ(set.files[1].first, "blob.bin");
}

berth::ChangeSet set_of(std::vector<std::pair<std::string, std::string>> files,
                        std::vector<std::string> lines) {
  berth::ChangeSet s;
  s.files = std::move(files);
  s.lines = std::move(lines);
  std::sort(s.files.begin(), s.files.end());
  std::sort(s.lines.begin(), s.lines.end());
  return s;
}

TEST(Compare, Similarity) {
  auto a = set_of({{"a", "M x"}, {"b", "M y"}}, {"a+1", "b+2"});
  auto same = set_of({{"a", "M x"}, {"b", "M y"}}, {"a+1", "b+2"});
  auto s = berth::similarity(a, same);
  EXPECT_EQ(s.relation, "identical");
  EXPECT_DOUBLE_EQ(s.files, 1.0);
  EXPECT_DOUBLE_EQ(s.lines, 1.0);

  // Shares a (ending differently) and adds c: 1 of 3 files, 1 of 4 lines.
  auto other = set_of({{"a", "M z"}, {"c", "A w"}}, {"a+1", "a+9", "c+3"});
  s = berth::similarity(a, other);
  EXPECT_EQ(s.relation, "overlapping");
  EXPECT_DOUBLE_EQ(s.files, 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(s.lines, 1.0 / 4.0);
  EXPECT_EQ(s.shared_files, std::vector<std::string>{"a"});

  auto apart = set_of({{"d", "M q"}}, {"d+1"});
  s = berth::similarity(a, apart);
  EXPECT_EQ(s.relation, "disjoint");
  EXPECT_DOUBLE_EQ(s.files, 0.0);
  EXPECT_DOUBLE_EQ(s.lines, 0.0);
  EXPECT_TRUE(s.shared_files.empty());

  // Two attempts that changed nothing are identical.
  s = berth::similarity(berth::ChangeSet{}, berth::ChangeSet{});
  EXPECT_EQ(s.relation, "identical");
  EXPECT_DOUBLE_EQ(s.files, 1.0);
}

TEST(Compare, HtmlEscapesEverythingAnAttemptWrote) {
  EXPECT_EQ(berth::html_escape("<script>alert('x') & \"y\"</script>"),
            "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;");
  nlohmann::json doc = {{"task", "<b>t</b>"},
                        {"target", "main"},
                        {"target_commit", std::string(40, 'a')},
                        {"pairs", nlohmann::json::array()},
                        {"agree", nlohmann::json::array()},
                        {"attempts",
                         {{{"name", "<i>n"},
                           {"run", nullptr},
                           {"test", nullptr},
                           {"files_changed", 1},
                           {"additions", 1},
                           {"deletions", 0},
                           {"commits", 0},
                           {"uncommitted", true},
                           {"merges_cleanly", true},
                           {"conflicts", nlohmann::json::array()},
                           {"files", {{{"path", "<script>x.txt"}}}}}}}};
  std::vector<std::vector<FilePatch>> patches(1);
  patches[0] = berth::split_patch("diff --git a/x b/x\n"
                                  "index 1..2 100644\n"
                                  "@@ -0,0 +1 @@\n"
                                  "+<script>document.title='pwned'</script>\n");
  std::string page = berth::compare_html(doc, patches);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("<b>"), std::string::npos);
  EXPECT_EQ(page.find("<i>"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;x.txt"), std::string::npos);
  EXPECT_NE(page.find("+&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;"),
            std::string::npos);
  EXPECT_NE(page.find("default-src 'none'; style-src 'unsafe-inline'"), std::string::npos);
  // Nothing to fetch: no URL anywhere.
  EXPECT_EQ(page.find("://"), std::string::npos);
}

TEST(Compare, HtmlTruncatesALongDiff) {
  std::string patch = "diff --git a/x b/x\nindex 1..2 100644\n@@ -0,0 +1,3000 @@\n";
  for (int i = 0; i < 3000; ++i)
    patch += "+line\n";
  nlohmann::json doc = {{"task", "t"},
                        {"target", "main"},
                        {"target_commit", "a"},
                        {"pairs", nlohmann::json::array()},
                        {"agree", nlohmann::json::array()},
                        {"attempts",
                         {{{"name", "t-1"},
                           {"run", nullptr},
                           {"test", nullptr},
                           {"merges_cleanly", true},
                           {"conflicts", nlohmann::json::array()},
                           {"files", {{{"path", "x"}}}}}}}};
  std::string page = berth::compare_html(doc, {berth::split_patch(patch)});
  EXPECT_NE(page.find("truncated: 1001 more lines"), std::string::npos);
}

// ---- the diff cache's entries (src/core/diff_cache.hpp) -----------------------------------------

const std::string kKey = std::string(40, '1') + " " + std::string(40, '2');
const std::string kSetup = "0123456789abcdef";
const std::string kBody = std::string(":100644 100644 ") + std::string(40, '3') + " " +
                          std::string(40, '4') + std::string(" M\0f\0", 5) +
                          std::string("1\t0\tf\0\0", 7) + "diff --git a/f b/f\n@@ -0,0 +1 @@\n+x\n";

TEST(DiffCache, AnEntryGivesBackItsBody) {
  ASSERT_EQ(std::count(kBody.begin(), kBody.end(), '\0'), 4) << "a body holds NULs";
  std::string entry = berth::diff_cache_entry(kSetup, kKey, kBody);
  EXPECT_EQ(berth::diff_cache_body(entry, kSetup, kKey), kBody);
  EXPECT_EQ(berth::diff_cache_body(berth::diff_cache_entry(kSetup, kKey, ""), kSetup, kKey), "")
      << "the same trees: an empty diff is kept too";
}

TEST(DiffCache, AnotherSetupOrPairIsNotThisEntry) {
  std::string entry = berth::diff_cache_entry(kSetup, kKey, kBody);
  EXPECT_FALSE(berth::diff_cache_body(entry, "fedcba9876543210", kKey))
      << "git or its configuration changed since";
  EXPECT_FALSE(
      berth::diff_cache_body(entry, kSetup, std::string(40, '2') + " " + std::string(40, '1')));
  EXPECT_FALSE(
      berth::diff_cache_body(entry, kSetup, std::string(40, '1') + " " + std::string(40, '5')))
      << "a file renamed by hand";
}

TEST(DiffCache, ADamagedEntryIsNoEntry) {
  std::string entry = berth::diff_cache_entry(kSetup, kKey, kBody);
  // Cut anywhere, or any byte changed: never a body.
  for (size_t n = 0; n < entry.size(); ++n) {
    EXPECT_FALSE(berth::diff_cache_body(entry.substr(0, n), kSetup, kKey)) << "cut at " << n;
    std::string flipped = entry;
    flipped[n] = static_cast<char>(flipped[n] ^ 0x20);
    EXPECT_FALSE(berth::diff_cache_body(flipped, kSetup, kKey)) << "changed at " << n;
  }
  EXPECT_FALSE(berth::diff_cache_body(entry + "more", kSetup, kKey)) << "grown";
  EXPECT_FALSE(berth::diff_cache_body("", kSetup, kKey));
  EXPECT_FALSE(berth::diff_cache_body("{\"not\": \"an entry\"}", kSetup, kKey));
}
} // namespace
