// The watcher's bookkeeping (berth::Watcher, no daemon): which paths it reports changed since a
// token, on a real tree in a temp dir, and when it must answer "/" (anything may have changed).
#include "core/watch.hpp"
#include "util/paths.hpp"
#include "util/temp_dir.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <optional>
#include <set>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace {

namespace fs = std::filesystem;
using Paths = std::set<std::string>;

struct Answer {
  std::string token;
  Paths paths;
};

// "TOKEN\0path\0path\0": every path NUL-terminated, as git's fsmonitor protocol v2 wants.
Answer parse(const std::string& raw) {
  Answer a;
  size_t nul = raw.find('\0');
  if (nul == std::string::npos) {
    ADD_FAILURE() << "no NUL after the token in [" << raw << "]";
    return a;
  }
  a.token = raw.substr(0, nul);
  for (size_t pos = nul + 1; pos < raw.size();) {
    size_t end = raw.find('\0', pos);
    if (end == std::string::npos) {
      ADD_FAILURE() << "unterminated path in the answer: " << raw.substr(pos);
      break;
    }
    EXPECT_TRUE(a.paths.insert(raw.substr(pos, end - pos)).second)
        << "path listed twice: " << raw.substr(pos, end - pos);
    pos = end + 1;
  }
  return a;
}

const Paths kEverything{"/"};

// A folder that came or went is reported as "dir/" and as a path inside it (git's untracked
// cache forgets its listing of a folder only when told of a path inside that folder; "dir/"
// alone makes it forget the parent's listing). That path is not a real file: this name.
const std::string kListing = ".berth-watch";
Paths folder(const std::string& rel) {
  return {rel + "/", rel + "/" + kListing};
}
Paths operator+(Paths a, const Paths& b) {
  a.insert(b.begin(), b.end());
  return a;
}

class WatcherTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto made = util::TempDir::create("berth-test-watch-");
    ASSERT_TRUE(made) << made.error();
    dir_.emplace(std::move(*made));
    auto real = util::real_path(dir_->path());
    ASSERT_TRUE(real) << real.error();
    root_ = *real + "/ws";
    fs::create_directories(root_ + "/keep");
    fs::create_directories(root_ + "/old/inner");
    fs::create_directories(root_ + "/gone/sub");
    fs::create_directories(root_ + "/.git/objects");
    put("a.txt", "a\n");
    put("keep/k.txt", "k\n");
    put("old/o.txt", "o\n");
    put("old/inner/i.txt", "i\n");
    put("gone/g1.txt", "g1\n");
    put("gone/sub/g2.txt", "g2\n");
    put(".git/HEAD", "ref: refs/heads/main\n");
    ASSERT_GE(watcher_.fd(), 0) << "inotify is not available";
  }

  std::string at(const std::string& rel) const { return root_ + "/" + rel; }
  void put(const std::string& rel, const std::string& text) {
    std::ofstream(at(rel), std::ios::app) << text;
  }
  void overwrite(const std::string& rel, const std::string& text) {
    std::ofstream(at(rel), std::ios::trunc) << text;
  }

  // since(root, token), parsed; `token` becomes the answer's.
  Paths since(std::string& token) {
    Answer a = parse(watcher_.since(root_, token));
    EXPECT_EQ(a.token.rfind("berth:" + watcher_.instance() + ":", 0), 0u) << a.token;
    token = a.token;
    return a.paths;
  }
  // Register the root and take a token from which changes are known.
  std::string start() {
    std::string token;
    EXPECT_EQ(since(token), kEverything) << "a root seen for the first time";
    return token;
  }

  std::optional<util::TempDir> dir_;
  std::string root_;
  berth::Watcher watcher_;
};

TEST_F(WatcherTest, FirstAskRegistersAndAnswersEverything) {
  EXPECT_EQ(watcher_.root_count(), 0u);
  std::string token = start();
  EXPECT_EQ(watcher_.root_count(), 1u);
  // ws, keep, old, old/inner, gone, gone/sub: not .git or anything in it.
  EXPECT_EQ(watcher_.watch_count(), 6u);
  EXPECT_EQ(since(token), Paths{}) << "nothing changed since";
  EXPECT_EQ(since(token), Paths{}) << "still nothing";
  // Even an empty token, asked again, is "anything may have changed".
  std::string empty;
  EXPECT_EQ(since(empty), kEverything);
}

TEST_F(WatcherTest, ReportsFilesChangedCreatedAndDeleted) {
  std::string token = start();
  put("a.txt", "more\n");
  EXPECT_EQ(since(token), Paths{"a.txt"});

  overwrite("a.txt", "A\n"); // same size
  EXPECT_EQ(since(token), Paths{"a.txt"});

  put("b.txt", "b\n");
  fs::remove(at("keep/k.txt"));
  ASSERT_EQ(::chmod(at("old/o.txt").c_str(), 0755), 0);
  fs::create_symlink("a.txt", at("link"));
  fs::create_directory_symlink("keep", at("dirlink"));
  EXPECT_EQ(since(token), (Paths{"b.txt", "keep/k.txt", "old/o.txt", "link", "dirlink"}));
  EXPECT_EQ(watcher_.watch_count(), 6u) << "a symlink to a folder is not followed";

  fs::rename(at("b.txt"), at("keep/b.txt"));
  EXPECT_EQ(since(token), (Paths{"b.txt", "keep/b.txt"}));
  EXPECT_EQ(since(token), Paths{});
}

TEST_F(WatcherTest, FollowsFoldersMadeAfterRegistration) {
  std::string token = start();
  fs::create_directory(at("fresh"));
  EXPECT_EQ(since(token), folder("fresh"));
  EXPECT_EQ(watcher_.watch_count(), 7u);

  put("fresh/f.txt", "f\n");
  EXPECT_EQ(since(token), Paths{"fresh/f.txt"}) << "the new folder is watched";

  // Made together (before the watcher could watch the first): found by reading it.
  fs::create_directories(at("fresh/deeper/deepest"));
  EXPECT_EQ(since(token), (folder("fresh/deeper") + folder("fresh/deeper/deepest")));
  EXPECT_EQ(watcher_.watch_count(), 9u) << "both new folders are watched";
  put("fresh/deeper/deepest/d.txt", "d\n");
  put("fresh/deeper/e.txt", "e\n");
  EXPECT_EQ(since(token), (Paths{"fresh/deeper/deepest/d.txt", "fresh/deeper/e.txt"}));
}

TEST_F(WatcherTest, FollowsRenamedFolders) {
  std::string token = start();
  // Everything in a folder moved in is reported: none of it had an event under its new name.
  fs::rename(at("old"), at("renamed"));
  EXPECT_EQ(since(token), (folder("old") + folder("renamed") + folder("renamed/inner") +
                           Paths{"renamed/o.txt", "renamed/inner/i.txt"}));
  EXPECT_EQ(watcher_.watch_count(), 6u) << "the moved folders are watched once, by their new name";

  put("renamed/inner/i.txt", "changed\n");
  put("renamed/n.txt", "n\n");
  EXPECT_EQ(since(token), (Paths{"renamed/inner/i.txt", "renamed/n.txt"}));

  // Moved out of the tree: no longer followed; moved in: followed.
  fs::rename(at("renamed"), dir_->path() + "/outside");
  EXPECT_EQ(since(token), folder("renamed"));
  EXPECT_EQ(watcher_.watch_count(), 4u);
  put("../outside/n.txt", "outside\n");
  EXPECT_EQ(since(token), Paths{}) << "what happens outside the tree is not reported";
  fs::rename(dir_->path() + "/outside", at("back"));
  EXPECT_EQ(since(token), (folder("back") + folder("back/inner") +
                           Paths{"back/o.txt", "back/n.txt", "back/inner/i.txt"}));
  EXPECT_EQ(watcher_.watch_count(), 6u);
  put("back/inner/i.txt", "again\n");
  EXPECT_EQ(since(token), Paths{"back/inner/i.txt"});
}

TEST_F(WatcherTest, ReportsDeletedFolders) {
  std::string token = start();
  fs::remove_all(at("gone"));
  EXPECT_EQ(since(token),
            (folder("gone") + folder("gone/sub") + Paths{"gone/g1.txt", "gone/sub/g2.txt"}));
  EXPECT_EQ(watcher_.watch_count(), 4u);

  // A file where the folder was.
  put("gone", "now a file\n");
  EXPECT_EQ(since(token), Paths{"gone"});
  // And a folder where the file was.
  fs::remove(at("gone"));
  fs::create_directory(at("gone"));
  EXPECT_EQ(since(token), (Paths{"gone"} + folder("gone")));
  put("gone/x", "x\n");
  EXPECT_EQ(since(token), Paths{"gone/x"});
}

TEST_F(WatcherTest, AnOlderTokenGetsEverythingSinceIt) {
  std::string first = start();
  std::string token = first;
  put("a.txt", "1\n");
  EXPECT_EQ(since(token), Paths{"a.txt"});
  std::string middle = token;
  put("keep/k.txt", "2\n");
  fs::create_directory(at("fresh"));
  EXPECT_EQ(since(token), (Paths{"keep/k.txt"} + folder("fresh")));
  put("a.txt", "3\n");
  EXPECT_EQ(since(token), Paths{"a.txt"});

  EXPECT_EQ(since(first), (Paths{"a.txt", "keep/k.txt"} + folder("fresh")));
  EXPECT_EQ(since(middle), (Paths{"a.txt", "keep/k.txt"} + folder("fresh")));
  EXPECT_EQ(since(token), Paths{});
}

TEST_F(WatcherTest, IgnoresTheGitDirectory) {
  std::string token = start();
  put(".git/HEAD", "ref: refs/heads/other\n");
  put(".git/objects/pack", "x\n");
  EXPECT_EQ(since(token), Paths{}) << "nothing inside .git";
  // A new repository inside the tree: its folder appears, what is inside its .git does not.
  fs::create_directories(at("nested/.git"));
  EXPECT_EQ(since(token), folder("nested"));
  put("nested/.git/HEAD", "ref: refs/heads/main\n");
  put("nested/file", "f\n");
  EXPECT_EQ(since(token), Paths{"nested/file"});
}

TEST_F(WatcherTest, UnknownTokensAnswerEverything) {
  std::string token = start();
  put("a.txt", "x\n");
  std::string seq = token.substr(token.rfind(':') + 1);
  for (std::string bad : std::vector<std::string>{
           "garbage", "berth:", "berth:" + watcher_.instance(),
           "berth:" + watcher_.instance() + ":", "berth:" + watcher_.instance() + ":x",
           "berth:" + watcher_.instance() + ":" + seq + "x", "berth:" + watcher_.instance() + ":-1",
           "berth:" + watcher_.instance() + ":99999999999", // from the future
           "berth:0000000000000000:" + seq,                 // another watcher's
           "1795363832000000000"}) {                        // git's own first token
    EXPECT_EQ(since(bad), kEverything) << "token " << bad;
  }
  // Another watcher (another daemon, a restarted one) knows nothing of this one's tokens.
  berth::Watcher other;
  ASSERT_NE(other.instance(), watcher_.instance());
  EXPECT_EQ(parse(other.since(root_, token)).paths, kEverything);
  EXPECT_EQ(parse(other.since(root_, parse(watcher_.since(root_, token)).token)).paths,
            kEverything);
  // And the valid token still works.
  EXPECT_EQ(since(token), Paths{"a.txt"});
}

TEST_F(WatcherTest, TokensFromBeforeARootWasWatchedAnswerEverything) {
  // A token this watcher gave (for another root) before this root was watched: what changed in
  // the tree before then is unknown, even when nothing at all happened in the watched trees
  // meanwhile (the token's number is then the same as the one the watching began at).
  std::string other_root = dir_->path() + "/other";
  fs::create_directory(other_root);
  std::string old_token = parse(watcher_.since(*util::real_path(other_root), "")).token;
  put("a.txt", "x\n");
  std::string token = start();
  EXPECT_EQ(since(old_token), kEverything) << "a token older than the root's watching";
  EXPECT_EQ(since(token), Paths{});
  EXPECT_EQ(watcher_.root_count(), 2u);
}

TEST_F(WatcherTest, ATreeMovedAwayAndBackKeepsItsChanges) {
  // The tree is moved aside, changed there, and moved back: its watches followed it (a watch is
  // on the folder, not its name), so the change made while away is reported to both holders of
  // the token from before (berth's list verdict and git's shadow index hold the same one).
  std::string token = start();
  EXPECT_EQ(since(token), Paths{});
  std::string held = token;
  std::string aside = dir_->path() + "/aside";
  fs::rename(root_, aside);
  std::ofstream(aside + "/a.txt", std::ios::app) << "changed while away\n";
  fs::rename(aside, root_);
  EXPECT_EQ(since(token), Paths{"a.txt"}) << "the first to ask after";
  EXPECT_EQ(since(held), Paths{"a.txt"}) << "the second to ask with the token from before";
  EXPECT_EQ(since(token), Paths{});
  EXPECT_EQ(since(held), Paths{});
}

TEST_F(WatcherTest, ARenamedTreeIsFollowedToItsNewName) {
  // A pool slot becoming a workspace: the tree is watched under one name, renamed, changed, and
  // asked about under the new name with the old token: every change since the token, none missed.
  std::string token = start();
  std::string renamed = dir_->path() + "/renamed";
  put("a.txt", "before the rename\n");
  fs::rename(root_, renamed);
  std::ofstream(renamed + "/keep/k.txt", std::ios::app) << "after\n";
  std::ofstream(renamed + "/new.txt") << "new\n";
  fs::create_directory(renamed + "/made");
  std::ofstream(renamed + "/made/m.txt") << "m\n";
  watcher_.drain();
  EXPECT_EQ(watcher_.root_count(), 1u) << "still followed";
  EXPECT_EQ(watcher_.watch_count(), 6u) << "made/ is watched once the tree's new name is known";
  std::ofstream(renamed + "/made/later.txt") << "l\n";
  Answer a = parse(watcher_.since(*util::real_path(renamed), token));
  EXPECT_EQ(a.paths, (Paths{"a.txt", "keep/k.txt", "new.txt", "made/m.txt", "made/later.txt"} +
                      folder("made")));
  EXPECT_EQ(watcher_.watch_count(), 7u);
  std::ofstream(renamed + "/made/m.txt", std::ios::app) << "more\n";
  a = parse(watcher_.since(*util::real_path(renamed), a.token));
  EXPECT_EQ(a.paths, Paths{"made/m.txt"}) << "followed from then on";
  EXPECT_EQ(parse(watcher_.since(*util::real_path(renamed), a.token)).paths, Paths{});
  // Nothing is known of the old name any more: another folder made there is a new tree.
  fs::create_directories(root_);
  std::string fresh = token;
  EXPECT_EQ(since(fresh), kEverything);
  EXPECT_EQ(watcher_.root_count(), 2u);
}

TEST_F(WatcherTest, AnotherFolderUnderAWatchedNameIsNotBelieved) {
  // The folder answered for under a name replaced by another one (renamed away and another
  // renamed in before anything was asked): the new one's changes were never followed.
  std::string token = start();
  std::string other = dir_->path() + "/other";
  fs::create_directories(other);
  std::ofstream(other + "/x.txt") << "x\n";
  fs::rename(root_, dir_->path() + "/aside");
  fs::rename(other, root_);
  EXPECT_EQ(since(token), kEverything);
  EXPECT_EQ(since(token), Paths{});
}

TEST_F(WatcherTest, ForgettingARootAnswersEverythingAgain) {
  std::string token = start();
  watcher_.forget(root_);
  EXPECT_EQ(watcher_.root_count(), 0u);
  EXPECT_EQ(watcher_.watch_count(), 0u);
  put("a.txt", "x\n");
  std::string old = token;
  EXPECT_EQ(since(token), kEverything) << "forgotten: watched afresh";
  EXPECT_EQ(watcher_.root_count(), 1u);
  EXPECT_EQ(since(old), kEverything) << "a token from before it was forgotten";
  EXPECT_EQ(since(token), Paths{});
  watcher_.forget(root_ + "/not-a-root"); // harmless
  EXPECT_EQ(watcher_.root_count(), 1u);
}

TEST_F(WatcherTest, ARootDeletedIsForgotten) {
  std::string token = start();
  fs::remove_all(root_);
  watcher_.drain();
  EXPECT_EQ(watcher_.root_count(), 0u) << "deleted";
  EXPECT_EQ(watcher_.watch_count(), 0u);
  EXPECT_EQ(since(token), kEverything) << "no tree there";
  EXPECT_EQ(watcher_.root_count(), 0u) << "nothing to watch";
  // Another tree at the same path: nothing is known of it.
  fs::create_directory(root_);
  EXPECT_EQ(since(token), kEverything);
  EXPECT_EQ(since(token), Paths{});

  // Moved away, then deleted there: forgotten too.
  fs::rename(root_, dir_->path() + "/aside");
  fs::remove_all(dir_->path() + "/aside");
  watcher_.drain();
  EXPECT_EQ(watcher_.root_count(), 0u);
  EXPECT_EQ(watcher_.watch_count(), 0u);
}

TEST_F(WatcherTest, RelativeOrMissingRootsAnswerEverythingAndAreNotWatched) {
  std::string token;
  EXPECT_EQ(parse(watcher_.since("ws", "")).paths, kEverything);
  EXPECT_EQ(parse(watcher_.since("", "")).paths, kEverything);
  EXPECT_EQ(parse(watcher_.since(root_ + "/missing", "")).paths, kEverything);
  EXPECT_EQ(parse(watcher_.since(root_ + "/a.txt", "")).paths, kEverything) << "not a folder";
  EXPECT_EQ(watcher_.root_count(), 0u);
}

TEST_F(WatcherTest, LostEventsAnswerEverythingOnce) {
  std::string token = start();
  // More events than the kernel queues (fs.inotify.max_queued_events, 16384 by default) without
  // draining: the queue overflows and the watcher can no longer tell what changed.
  std::ifstream limit_file("/proc/sys/fs/inotify/max_queued_events");
  long limit = 0;
  if (!(limit_file >> limit) || limit > 100000) GTEST_SKIP() << "queue limit " << limit;
  put("b.txt", "b\n");
  EXPECT_EQ(since(token), Paths{"b.txt"});
  // (Alternating between two files: the kernel merges an event identical to the last queued.)
  for (long i = 0; i <= limit; ++i)
    ASSERT_EQ(::truncate(at(i % 2 ? "a.txt" : "b.txt").c_str(), i % 3), 0);
  EXPECT_EQ(since(token), kEverything) << "events were lost";
  put("keep/k.txt", "after\n");
  EXPECT_EQ(since(token), Paths{"keep/k.txt"}) << "known again from the overflow on";
}

// gc's orphans (docs/gc.md, kind `watch`): every root is listed with its folder's identity, a
// renamed one without a path; forgetting one by its identity stops following it, wherever it is
// filed, and a later question about it is a first one again.
TEST_F(WatcherTest, ListsRootsAndForgetsThemByIdentity) {
  std::string token = start();
  struct stat st {};
  ASSERT_EQ(::stat(root_.c_str(), &st), 0);
  std::string line = fmt::format("{}\t{}\t{}\n", root_, st.st_dev, st.st_ino);
  EXPECT_EQ(watcher_.list_roots(), line);
  fs::rename(root_, dir_->path() + "/away");
  watcher_.drain();
  EXPECT_EQ(watcher_.list_roots(), fmt::format("\t{}\t{}\n", st.st_dev, st.st_ino))
      << "renamed: known by its identity only";
  EXPECT_FALSE(watcher_.forget_identity(st.st_dev, st.st_ino + 1));
  EXPECT_TRUE(watcher_.forget_identity(st.st_dev, st.st_ino));
  EXPECT_EQ(watcher_.root_count(), 0u);
  EXPECT_EQ(watcher_.watch_count(), 0u);
  EXPECT_EQ(watcher_.list_roots(), "");
  fs::rename(dir_->path() + "/away", root_);
  EXPECT_EQ(since(token), kEverything) << "forgotten: asked about again, it is a new root";
  EXPECT_TRUE(watcher_.forget_identity(st.st_dev, st.st_ino)) << "filed under its path";
  EXPECT_EQ(watcher_.root_count(), 0u);
}

} // namespace
