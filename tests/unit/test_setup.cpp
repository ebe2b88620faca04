// Workspace set-up: the pure pieces (paths, patterns, trust text, list values) and tree copies.
#include "berth/config.hpp"
#include "core/setup.hpp"
#include "util/atomic_file.hpp"
#include "util/copy_tree.hpp"
#include "util/paths.hpp"
#include "util/temp_dir.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace {

TEST(SetupPath, CanonicalRelativePaths) {
  EXPECT_EQ(berth::setup_path("node_modules/"), "node_modules");
  EXPECT_EQ(berth::setup_path("node_modules"), "node_modules");
  EXPECT_EQ(berth::setup_path("web/node_modules//"), "web/node_modules");
  EXPECT_EQ(berth::setup_path(".venv"), ".venv");
  EXPECT_EQ(berth::setup_path(".husky/_"), ".husky/_");
  EXPECT_EQ(berth::setup_path(".gitignore"), ".gitignore") << "only .git itself is refused";
}

TEST(SetupPath, RefusesWhatLeavesTheProject) {
  for (const char* bad : {"", "/", "/etc", "~", "~/x", ".", "./", "..", "../x", "a/../../b",
                          "a/./b", "a//b", ".git", ".git/", ".git/hooks", "a/.."})
    EXPECT_EQ(berth::setup_path(bad), "") << bad;
}

TEST(IncludePatterns, FileThenConfigOnePerLine) {
  EXPECT_EQ(berth::include_patterns("", {}), "");
  EXPECT_EQ(berth::include_patterns(".env\n!.env.example", {"*.local"}),
            ".env\n!.env.example\n*.local\n");
  EXPECT_EQ(berth::include_patterns(".env\n", {"a", "b/"}), ".env\na\nb/\n");
}

TEST(TrustText, UnambiguousAndOrdered) {
  EXPECT_NE(berth::trust_text({"a b"}), berth::trust_text({"a", "b"}));
  EXPECT_NE(berth::trust_text({"a", "b"}), berth::trust_text({"b", "a"}));
  EXPECT_NE(berth::trust_text({"a\",\"b"}), berth::trust_text({"a", "b"}));
  EXPECT_NE(berth::trust_text({}), berth::trust_text({""}));
  EXPECT_EQ(berth::trust_text({"npm ci", "make"}), "[\"npm ci\",\"make\"]\n") << "stable format";
}

TEST(ListText, TomlArrayOrLines) {
  auto parse = [](const std::string& text) {
    auto r = berth::parse_list_text(text, "test");
    if (!r) throw std::runtime_error(r.error().message);
    return *r;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(parse("npm ci"), V{"npm ci"});
  EXPECT_EQ(parse("npm ci\nmake -j4\n"), (V{"npm ci", "make -j4"}));
  EXPECT_EQ(parse("a\r\n\n  \nb"), (V{"a", "b"})) << "blank lines are dropped";
  EXPECT_EQ(parse(""), V{});
  EXPECT_EQ(parse("[\"npm ci\", \"make\"]"), (V{"npm ci", "make"}));
  EXPECT_EQ(parse(" []"), V{});
  EXPECT_EQ(parse("[ -f x ] && make"), V{"[ -f x ] && make"}) << "a shell test is a command";
  auto bad = berth::parse_list_text("[1, 2]", "BERTH_SETUP_RUN");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, berth::ErrorCode::config_invalid);
  EXPECT_NE(bad.error().message.find("BERTH_SETUP_RUN"), std::string::npos);
}

TEST(ListText, ToStringIsATomlArray) {
  EXPECT_EQ(berth::to_string(berth::ConfigValue(std::vector<std::string>{})), "[]");
  EXPECT_EQ(berth::to_string(berth::ConfigValue(std::vector<std::string>{"a", "b c"})),
            "[\"a\", \"b c\"]");
  std::vector<std::string> tricky{"echo \"hi\"", "a\\b", "two\nlines", "tab\there", "\x01"};
  std::string shown = berth::to_string(berth::ConfigValue(tricky));
  auto back = berth::parse_list_text(shown, "x");
  ASSERT_TRUE(back) << shown;
  EXPECT_EQ(*back, tricky) << shown;
}

class CopyTreeTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto dir = util::TempDir::create("berth-test-copy-");
    if (!dir) throw std::runtime_error(dir.error());
    dir_.emplace(std::move(*dir));
  }
  std::string path(const std::string& rel) const { return util::join(dir_->path(), rel); }
  void write(const std::string& rel, const std::string& content) {
    ASSERT_TRUE(util::make_dirs(util::dirname(path(rel))));
    ASSERT_TRUE(util::write_file_atomic(path(rel), content));
  }
  std::optional<util::TempDir> dir_;
};

TEST_F(CopyTreeTest, KeepsContentModesLinksAndTimes) {
  write("src/a.txt", "alpha");
  write("src/sub/run.sh", "#!/bin/sh\n");
  ASSERT_EQ(::chmod(path("src/sub/run.sh").c_str(), 0750), 0);
  ASSERT_EQ(::symlink("../a.txt", path("src/sub/link").c_str()), 0);
  ASSERT_EQ(::symlink("/nonexistent/target", path("src/dangling").c_str()), 0);
  timespec old[2] = {{1000000000, 0}, {1000000000, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path("src/a.txt").c_str(), old, 0), 0);
  ASSERT_EQ(::utimensat(AT_FDCWD, path("src/sub").c_str(), old, 0), 0);

  uint64_t last_progress = 0;
  util::CopyOptions options;
  options.progress = [&](uint64_t bytes) { last_progress = bytes; };
  options.progress_every = 1;
  auto stats = util::copy_tree(path("src"), path("dst"), options);
  ASSERT_TRUE(stats) << stats.error();
  EXPECT_EQ(stats->files, 4u);
  EXPECT_EQ(stats->bytes, 5u + 10u);
  EXPECT_TRUE(stats->any_file);
  EXPECT_GT(last_progress, 0u);

  EXPECT_EQ(util::read_file(path("dst/a.txt")).value_or(""), "alpha");
  struct stat st;
  ASSERT_EQ(::stat(path("dst/sub/run.sh").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0750u);
  ASSERT_EQ(::stat(path("dst/a.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_mtim.tv_sec, 1000000000);
  ASSERT_EQ(::lstat(path("dst/sub").c_str(), &st), 0);
  EXPECT_EQ(st.st_mtim.tv_sec, 1000000000) << "a folder's time survives writing its entries";
  EXPECT_TRUE(util::is_symlink(path("dst/sub/link")));
  EXPECT_TRUE(util::is_symlink(path("dst/dangling")));
  char target[64] = {};
  ASSERT_GT(::readlink(path("dst/sub/link").c_str(), target, sizeof target - 1), 0);
  EXPECT_STREQ(target, "../a.txt");
}

TEST_F(CopyTreeTest, TheCopyIsIndependent) {
  write("src/data.bin", std::string(200000, 'x'));
  auto stats = util::copy_tree(path("src"), path("dst"));
  ASSERT_TRUE(stats) << stats.error();
  write("dst/data.bin", "changed");
  EXPECT_EQ(util::read_file(path("src/data.bin")).value_or("").size(), 200000u);
  std::string method(util::copy_method_name(stats->method));
  EXPECT_TRUE(method == "reflink" || method == "copy_file_range" || method == "copy") << method;
}

TEST_F(CopyTreeTest, RefusesAnExistingTarget) {
  write("src/a", "a");
  write("dst/a", "mine");
  EXPECT_FALSE(util::copy_tree(path("src/a"), path("dst/a")));
  EXPECT_EQ(util::read_file(path("dst/a")).value_or(""), "mine");
}

} // namespace
