// confine: every way out of a root directory is refused by the kernel's path resolution, and a
// symlink swapped in while we open does not get through either.
#include "core/confine.hpp"
#include "util/paths.hpp"
#include "util/temp_dir.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <gtest/gtest.h>
#include <optional>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace {

using berth::Access;
using berth::ErrorCode;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void spit(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

class ConfineTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto made = util::TempDir::create("berth-test-confine-");
    ASSERT_TRUE(made) << made.error();
    dir_.emplace(std::move(*made));
    base_ = *util::real_path(dir_->path());
    root_ = util::join(base_, "ws");
    ASSERT_EQ(::mkdir(root_.c_str(), 0755), 0);
    ASSERT_EQ(::mkdir(util::join(base_, "ws2").c_str(), 0755), 0); // sibling with the same prefix
    ASSERT_EQ(::mkdir(util::join(root_, "sub").c_str(), 0755), 0);
    spit(util::join(root_, "sub/in.txt"), "inside\n");
    spit(util::join(base_, "secret"), "secret\n");
    spit(util::join(base_, "ws2/secret"), "sibling\n");
  }

  std::optional<util::TempDir> dir_;
  std::string base_, root_;
};

void expect_escape(const berth::Result<std::string>& r) {
  ASSERT_FALSE(r) << "escaped and read: " << *r;
  EXPECT_EQ(r.error().code, ErrorCode::escape_refused) << r.error().message;
}

TEST_F(ConfineTest, ReadsAndWritesInside) {
  auto r = berth::read_beneath(root_, "sub/in.txt");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, "inside\n");
  ASSERT_TRUE(berth::write_beneath(root_, "sub/in.txt", "changed\n"));
  EXPECT_EQ(slurp(util::join(root_, "sub/in.txt")), "changed\n");
  ASSERT_TRUE(berth::write_beneath(root_, "new.txt", "new\n"));
  EXPECT_EQ(slurp(util::join(root_, "new.txt")), "new\n");
  // A `..` that stays inside is fine.
  EXPECT_TRUE(berth::read_beneath(root_, "sub/../sub/in.txt"));
}

TEST_F(ConfineTest, DotDotRefused) {
  expect_escape(berth::read_beneath(root_, "../secret"));
  expect_escape(berth::read_beneath(root_, "sub/../../secret"));
  auto w = berth::write_beneath(root_, "../written", "x");
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().code, ErrorCode::escape_refused);
  EXPECT_FALSE(util::exists(util::join(base_, "written")));
}

TEST_F(ConfineTest, AbsolutePathsRefused) {
  expect_escape(berth::read_beneath(root_, util::join(base_, "secret")));
  expect_escape(berth::read_beneath(root_, "/etc/passwd"));
  // Even one that names a file inside the root: the API takes relative paths only.
  expect_escape(berth::read_beneath(root_, util::join(root_, "sub/in.txt")));
}

TEST_F(ConfineTest, ProcSelfRootRefused) {
  // A symlink into /proc inside the root, and /proc reached through `..`.
  ASSERT_EQ(::symlink("/proc/self/root/etc/passwd", util::join(root_, "magic").c_str()), 0);
  expect_escape(berth::read_beneath(root_, "magic"));
  ASSERT_EQ(::symlink("/proc/self", util::join(root_, "self").c_str()), 0);
  expect_escape(berth::read_beneath(root_, "self/root/etc/passwd"));
  // With the root being / itself, magic links are still refused.
  auto r = berth::read_beneath("/", "proc/self/root/etc/hostname");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::escape_refused);
}

TEST_F(ConfineTest, SiblingPrefixDirectoryRefused) {
  // "ws2" starts with "ws": a string prefix check would let it through.
  expect_escape(berth::read_beneath(root_, "../ws2/secret"));
  ASSERT_EQ(::symlink(util::join(base_, "ws2").c_str(), util::join(root_, "s").c_str()), 0);
  expect_escape(berth::read_beneath(root_, "s/secret"));
}

TEST_F(ConfineTest, SymlinkToOutsideRefused) {
  ASSERT_EQ(::symlink(util::join(base_, "secret").c_str(), util::join(root_, "abs").c_str()), 0);
  ASSERT_EQ(::symlink("../secret", util::join(root_, "rel").c_str()), 0);
  expect_escape(berth::read_beneath(root_, "abs"));
  expect_escape(berth::read_beneath(root_, "rel"));
  for (const char* name : {"abs", "rel"}) {
    auto fd = berth::open_beneath(root_, name, Access::write);
    ASSERT_FALSE(fd);
    EXPECT_EQ(fd.error().code, ErrorCode::escape_refused);
    EXPECT_FALSE(berth::write_beneath(root_, name, "pwned"));
  }
  EXPECT_EQ(slurp(util::join(base_, "secret")), "secret\n");
  // A symlink that stays inside is followed.
  ASSERT_EQ(::symlink("sub/in.txt", util::join(root_, "ok").c_str()), 0);
  auto r = berth::read_beneath(root_, "ok");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, "inside\n");
}

TEST_F(ConfineTest, HardLinkRefusedForWriting) {
  ASSERT_EQ(::link(util::join(base_, "secret").c_str(), util::join(root_, "hard").c_str()), 0);
  auto fd = berth::open_beneath(root_, "hard", Access::write);
  ASSERT_FALSE(fd);
  EXPECT_EQ(fd.error().code, ErrorCode::escape_refused);
  auto w = berth::write_beneath(root_, "hard", "pwned");
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().code, ErrorCode::escape_refused);
  EXPECT_EQ(slurp(util::join(base_, "secret")), "secret\n");
}

TEST_F(ConfineTest, CreateIsExclusive) {
  auto fd = berth::open_beneath(root_, "fresh", Access::create);
  ASSERT_TRUE(fd) << fd.error().message;
  ::close(*fd);
  auto again = berth::open_beneath(root_, "fresh", Access::create);
  ASSERT_FALSE(again);
  // Create through a dangling symlink to outside: O_EXCL does not follow it.
  ASSERT_EQ(::symlink(util::join(base_, "made").c_str(), util::join(root_, "dangling").c_str()), 0);
  EXPECT_FALSE(berth::open_beneath(root_, "dangling", Access::create));
  EXPECT_FALSE(util::exists(util::join(base_, "made")));
}

TEST_F(ConfineTest, FifoDoesNotHang) {
  ASSERT_EQ(::mkfifo(util::join(root_, "fifo").c_str(), 0644), 0);
  auto r = berth::read_beneath(root_, "fifo");
  ASSERT_FALSE(r);
  EXPECT_FALSE(berth::write_beneath(root_, "fifo", "x"));
}

// One thread keeps swapping `root/swap` between a real directory and a symlink to outside while
// the other opens `swap/secret` in a loop: the kernel's resolution has no window to race through.
TEST_F(ConfineTest, SymlinkSwapRaceNeverEscapes) {
  std::string outside = util::join(base_, "out");
  ASSERT_EQ(::mkdir(outside.c_str(), 0755), 0);
  spit(util::join(outside, "secret"), "escaped\n");
  std::string real = util::join(root_, "real");
  ASSERT_EQ(::mkdir(real.c_str(), 0755), 0);
  spit(util::join(real, "secret"), "inside\n");
  std::string link_tmp = util::join(root_, "link.tmp"), dir_tmp = util::join(root_, "dir.tmp");
  std::string swap = util::join(root_, "swap");
  ASSERT_EQ(::symlink(outside.c_str(), swap.c_str()), 0);

  std::atomic<bool> stop{false};
  std::thread swapper([&] {
    bool to_dir = true;
    while (!stop) {
      // Atomic replacement of `swap` by a symlink to outside, or by a symlink to the real dir
      // inside; both created aside and renamed over.
      const std::string& tmp = to_dir ? dir_tmp : link_tmp;
      ::unlink(tmp.c_str());
      ::symlink(to_dir ? "real" : outside.c_str(), tmp.c_str());
      ::rename(tmp.c_str(), swap.c_str());
      to_dir = !to_dir;
    }
  });
  int escapes = 0, inside = 0, refused = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (std::chrono::steady_clock::now() < deadline) {
    auto r = berth::read_beneath(root_, "swap/secret");
    if (r && *r == "escaped\n") ++escapes;
    if (r && *r == "inside\n") ++inside;
    if (!r) ++refused;
    auto w = berth::write_beneath(root_, "swap/secret", "inside\n");
    (void)w;
  }
  stop = true;
  swapper.join();
  EXPECT_EQ(escapes, 0);
  EXPECT_EQ(slurp(util::join(outside, "secret")), "escaped\n");
  EXPECT_GT(inside + refused, 0);
}

TEST_F(ConfineTest, MakeParentsStaysInside) {
  ASSERT_TRUE(berth::write_beneath(root_, "a/b/c.txt", "deep\n", true));
  EXPECT_EQ(slurp(util::join(root_, "a/b/c.txt")), "deep\n");
  // Without make_parents a missing directory is not_found.
  auto w = berth::write_beneath(root_, "x/y.txt", "no\n");
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().code, ErrorCode::not_found);
  // A symlinked directory pointing out is not followed to make directories outside.
  ASSERT_EQ(::symlink(base_.c_str(), util::join(root_, "out").c_str()), 0);
  auto escaped = berth::write_beneath(root_, "out/made/f.txt", "pwned", true);
  ASSERT_FALSE(escaped);
  EXPECT_EQ(escaped.error().code, ErrorCode::escape_refused);
  struct stat st {};
  EXPECT_NE(::stat(util::join(base_, "made").c_str(), &st), 0);
  auto dotdot = berth::write_beneath(root_, "sub/../../made2/f", "pwned", true);
  ASSERT_FALSE(dotdot);
  EXPECT_EQ(dotdot.error().code, ErrorCode::escape_refused);
  EXPECT_NE(::stat(util::join(base_, "made2").c_str(), &st), 0);
}

TEST_F(ConfineTest, DeleteRemovesOnlyInside) {
  ASSERT_TRUE(berth::delete_beneath(root_, "sub/in.txt"));
  struct stat st {};
  EXPECT_NE(::stat(util::join(root_, "sub/in.txt").c_str(), &st), 0);
  // A symlink pointing out is removed itself; its target stays.
  ASSERT_EQ(::symlink(util::join(base_, "secret").c_str(), util::join(root_, "link").c_str()), 0);
  ASSERT_TRUE(berth::delete_beneath(root_, "link"));
  EXPECT_EQ(slurp(util::join(base_, "secret")), "secret\n");
  for (const char* bad : {"../secret", "/etc/passwd", "sub/../../secret", "../ws2/secret"}) {
    auto d = berth::delete_beneath(root_, bad);
    ASSERT_FALSE(d) << bad;
    EXPECT_EQ(d.error().code, ErrorCode::escape_refused) << bad;
  }
  EXPECT_EQ(slurp(util::join(base_, "secret")), "secret\n");
  EXPECT_EQ(slurp(util::join(base_, "ws2/secret")), "sibling\n");
  // Through a symlinked directory: refused, the file outside stays.
  ASSERT_EQ(::symlink(base_.c_str(), util::join(root_, "out").c_str()), 0);
  auto through = berth::delete_beneath(root_, "out/secret");
  ASSERT_FALSE(through);
  EXPECT_EQ(through.error().code, ErrorCode::escape_refused);
  EXPECT_EQ(slurp(util::join(base_, "secret")), "secret\n");
  auto dir = berth::delete_beneath(root_, "sub");
  ASSERT_FALSE(dir);
  EXPECT_EQ(dir.error().code, ErrorCode::usage);
}

TEST_F(ConfineTest, ListSeesOnlyInside) {
  ASSERT_EQ(::symlink(base_.c_str(), util::join(root_, "out").c_str()), 0);
  auto top = berth::list_beneath(root_, "");
  ASSERT_TRUE(top) << top.error().message;
  ASSERT_EQ(top->size(), 2u);
  EXPECT_EQ((*top)[0].name, "out");
  EXPECT_EQ((*top)[0].type, "symlink");
  EXPECT_EQ((*top)[1].name, "sub");
  EXPECT_EQ((*top)[1].type, "dir");
  auto sub = berth::list_beneath(root_, "sub");
  ASSERT_TRUE(sub);
  ASSERT_EQ(sub->size(), 1u);
  EXPECT_EQ((*sub)[0].size, 7);
  for (const char* bad : {"..", "out", "/", "/proc/self/root", "sub/../.."}) {
    auto l = berth::list_beneath(root_, bad);
    ASSERT_FALSE(l) << bad;
    EXPECT_EQ(l.error().code, ErrorCode::escape_refused) << bad;
  }
}

} // namespace
