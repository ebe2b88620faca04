// Parsers of git's machine-readable outputs, on literal strings and on outputs captured from the
// installed git in scratch repositories.
#include "core/admin_files.hpp"
#include "core/capture.hpp"
#include "core/git.hpp"
#include "core/porcelain.hpp"
#include "util/atomic_file.hpp"
#include "util/paths.hpp"
#include "util/temp_dir.hpp"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace {

using namespace std::string_literals;

// "\0"-separated records, written readably: z({"a", "b"}) == "a\0b\0".
std::string z(const std::vector<std::string>& records) {
  std::string out;
  for (const auto& r : records)
    out += r + '\0';
  return out;
}

// A scratch repository whose git sees neither the user's nor the system's configuration.
class Scratch {
public:
  Scratch() : dir_(make_dir()) {}

  const std::string& root() const { return dir_.path(); }
  std::string path(const std::string& rel) const { return util::join(dir_.path(), rel); }

  // A git call in `cwd` (relative to the scratch root), not run.
  berth::GitCall call(const std::string& cwd, std::vector<std::string> args) const {
    return berth::GitCall{std::move(args), path(cwd), env(), {}, util::Stream::pipe};
  }

  // Run git in `cwd` (relative to the scratch root); the test fails if git does.
  std::string git(const std::string& cwd, std::vector<std::string> args) const {
    berth::GitCall call{std::move(args), path(cwd), env(), {}, util::Stream::pipe};
    auto r = berth::git(call);
    if (!r) {
      ADD_FAILURE() << r.error().message << "\n" << (r.error().git ? r.error().git->err : "");
      return {};
    }
    return r->out;
  }

  // The same, fed `input` on stdin.
  std::string git_in(const std::string& cwd, std::vector<std::string> args,
                     const std::string& input) const {
    berth::GitCall call{std::move(args), path(cwd), env(), input, util::Stream::pipe};
    auto r = berth::git(call);
    if (!r) {
      ADD_FAILURE() << r.error().message << "\n" << (r.error().git ? r.error().git->err : "");
      return {};
    }
    return r->out;
  }

  void write(const std::string& rel, const std::string& content) const {
    ASSERT_TRUE(util::make_dirs(util::dirname(path(rel))));
    ASSERT_TRUE(util::write_file_atomic(path(rel), content));
  }

  std::string status(const std::string& cwd, bool ignored = false) const {
    std::vector<std::string> args{"status", "--porcelain=v2", "-z", "--branch"};
    if (ignored) args.push_back("--ignored");
    return git(cwd, args);
  }

private:
  static util::TempDir make_dir() {
    auto dir = util::TempDir::create("berth-test-porcelain-");
    if (!dir) throw std::runtime_error(dir.error());
    return std::move(*dir);
  }
  std::map<std::string, std::optional<std::string>> env() const {
    return {{"GIT_CONFIG_NOSYSTEM", "1"},
            {"GIT_CONFIG_GLOBAL", "/dev/null"},
            {"HOME", dir_.path()},
            {"GIT_AUTHOR_NAME", "Test"},
            {"GIT_AUTHOR_EMAIL", "t@example"},
            {"GIT_COMMITTER_NAME", "Test"},
            {"GIT_COMMITTER_EMAIL", "t@example"}};
  }
  util::TempDir dir_;
};

// ---- status, literal ------------------------------------------------------------------------

TEST(StatusV2, EmptyOutputIsClean) {
  auto s = berth::parse_status_v2("");
  EXPECT_FALSE(s.dirty());
  EXPECT_EQ(s.head, "");
  EXPECT_EQ(s.branch, "");
  EXPECT_TRUE(s.paths.empty());
}

TEST(StatusV2, BranchHeaders) {
  auto s = berth::parse_status_v2(
      z({"# branch.oid 1234567890abcdef1234567890abcdef12345678", "# branch.head feat/x",
         "# branch.upstream origin/feat/x", "# branch.ab +2 -1"}));
  EXPECT_EQ(s.head, "1234567890abcdef1234567890abcdef12345678");
  EXPECT_EQ(s.branch, "feat/x");
  EXPECT_FALSE(s.dirty()) << "headers are not changes";
  EXPECT_TRUE(s.paths.empty());
}

TEST(StatusV2, InitialAndDetached) {
  auto initial = berth::parse_status_v2(z({"# branch.oid (initial)", "# branch.head main"}));
  EXPECT_EQ(initial.head, "") << "an unborn HEAD has no oid";
  EXPECT_EQ(initial.branch, "main");

  auto detached = berth::parse_status_v2(
      z({"# branch.oid abcdef0123456789abcdef0123456789abcdef01", "# branch.head (detached)"}));
  EXPECT_EQ(detached.head, "abcdef0123456789abcdef0123456789abcdef01");
  EXPECT_EQ(detached.branch, "") << "detached: no branch";
}

TEST(StatusV2, SubmodulesAndNestedRepositories) {
  const std::string oid = "78981922613b2afb6025042ff6bd878ac1994e85";
  auto s = berth::parse_status_v2(z({
      "1 .M SCMU 160000 160000 160000 " + oid + " " + oid + " third_party/x",
      "1 .M S..U 160000 160000 160000 " + oid + " " + oid + " third party/y",
      "1 M. N... 100644 100644 100644 " + oid + " " + oid + " plain.c",
      "? vendor/lib/",
      "? file.txt",
  }));
  ASSERT_EQ(s.nested.size(), 3u);
  EXPECT_EQ(s.nested[0].path, "third_party/x");
  EXPECT_TRUE(s.nested[0].gitlink && s.nested[0].new_commit && s.nested[0].modified &&
              s.nested[0].untracked);
  EXPECT_EQ(s.nested[1].path, "third party/y");
  EXPECT_TRUE(s.nested[1].untracked && !s.nested[1].new_commit && !s.nested[1].modified);
  EXPECT_EQ(s.nested[2].path, "vendor/lib") << "an untracked folder under -uall is a repository";
  EXPECT_FALSE(s.nested[2].gitlink);
  EXPECT_EQ(s.modified, 2) << "a submodule with work counts as modified";
  EXPECT_EQ(s.untracked, 2);
}

TEST(StatusV2, OrdinaryRecords) {
  const std::string oid = "78981922613b2afb6025042ff6bd878ac1994e85";
  auto s = berth::parse_status_v2(
      z({"1 .M N... 100644 100644 100644 " + oid + " " + oid + " a.txt",
         "1 M. N... 100644 100644 100644 " + oid + " " + oid + " dir/b.txt",
         "1 MM N... 100644 100644 100644 " + oid + " " + oid + " both",
         "1 A. N... 000000 100644 100644 " + std::string(40, '0') + " " + oid + " added",
         "1 .D N... 100644 100644 000000 " + oid + " " + oid + " name with spaces"}));
  EXPECT_EQ(s.staged, 3);   // M., MM, A.
  EXPECT_EQ(s.modified, 3); // .M, MM, .D
  EXPECT_EQ(s.untracked, 0);
  EXPECT_EQ(s.conflicted, 0);
  EXPECT_TRUE(s.dirty());
  EXPECT_EQ(s.paths,
            (std::vector<std::string>{"a.txt", "dir/b.txt", "both", "added", "name with spaces"}));
}

TEST(StatusV2, RenameRecordConsumesTheOriginalPath) {
  const std::string oid = "4bcfe98e640c8284511312660fb8709b0afa888e";
  // The original path is its own NUL-terminated record; here it even looks like a record itself.
  auto s = berth::parse_status_v2(z(
      {"2 R. N... 100644 100644 100644 " + oid + " " + oid + " R100 new name", "? looks untracked",
       "2 RM N... 100644 100644 100644 " + oid + " " + oid + " R087 moved/and-edited",
       "1 .M N... 100644 100644 100644 " + oid + " " + oid + " old", "? real-untracked"}));
  EXPECT_EQ(s.staged, 2);
  EXPECT_EQ(s.modified, 1) << "only the RM record has a work-tree change";
  EXPECT_EQ(s.untracked, 1) << "the rename's original path is not an untracked record";
  EXPECT_EQ(s.paths, (std::vector<std::string>{"new name", "moved/and-edited", "real-untracked"}));
}

TEST(StatusV2, CopyRecord) {
  const std::string oid = "4bcfe98e640c8284511312660fb8709b0afa888e";
  auto s = berth::parse_status_v2(
      z({"2 C. N... 100644 100644 100644 " + oid + " " + oid + " C100 copy", "orig"}));
  EXPECT_EQ(s.staged, 1);
  EXPECT_EQ(s.paths, std::vector<std::string>{"copy"});
}

TEST(StatusV2, UnmergedUntrackedIgnored) {
  const std::string oid = "df967b96a579e45a18b8251732d16804b2e56a55";
  auto s = berth::parse_status_v2(
      z({"u UU N... 100644 100644 100644 100644 " + oid + " " + oid + " " + oid + " conflict me",
         "u AA N... 000000 100644 100644 100644 " + std::string(40, '0') + " " + oid + " " + oid +
             " both-added",
         "? new file", "? dir/", "! build/out.o"}));
  EXPECT_EQ(s.conflicted, 2);
  EXPECT_EQ(s.staged, 0) << "unmerged entries are counted as conflicts only";
  EXPECT_EQ(s.modified, 0);
  EXPECT_EQ(s.untracked, 2);
  EXPECT_EQ(s.ignored, 1);
  EXPECT_TRUE(s.dirty());
  EXPECT_EQ(s.paths, (std::vector<std::string>{"conflict me", "both-added", "new file", "dir/"}))
      << "ignored paths are not changes";
}

TEST(StatusV2, IgnoredOnlyIsNotDirty) {
  auto s = berth::parse_status_v2(z({"# branch.oid (initial)", "# branch.head main", "! x.log"}));
  EXPECT_EQ(s.ignored, 1);
  EXPECT_FALSE(s.dirty());
}

TEST(StatusV2, SubmoduleRecordKeepsItsPath) {
  const std::string oid = "4bcfe98e640c8284511312660fb8709b0afa888e";
  auto s = berth::parse_status_v2(
      z({"1 .M SC.. 160000 160000 160000 " + oid + " " + oid + " vendor/lib"}));
  EXPECT_EQ(s.modified, 1);
  EXPECT_EQ(s.paths, std::vector<std::string>{"vendor/lib"});
}

// ---- status, captured from git --------------------------------------------------------------

TEST(StatusV2Git, InitialRepository) {
  Scratch repo;
  repo.git("", {"init", "-q", "-b", "main", "r"});
  auto s = berth::parse_status_v2(repo.status("r"));
  EXPECT_EQ(s.head, "");
  EXPECT_EQ(s.branch, "main");
  EXPECT_FALSE(s.dirty());

  repo.write("r/new", "x\n");
  s = berth::parse_status_v2(repo.status("r"));
  EXPECT_EQ(s.untracked, 1);
  EXPECT_EQ(s.paths, std::vector<std::string>{"new"});
}

TEST(StatusV2Git, EveryKindOfChange) {
  Scratch repo;
  repo.git("", {"init", "-q", "-b", "main", "r"});
  repo.write("r/a", "a\n");
  repo.write("r/b", "b\n");
  repo.write("r/d", "d\n");
  repo.write("r/sp ace", "x\n");
  repo.write("r/del", "gone\n");
  repo.write("r/.gitignore", "*.log\n");
  repo.git("r", {"add", "-A"});
  repo.git("r", {"commit", "-q", "-m", "init"});
  std::string head = berth::chomp(repo.git("r", {"rev-parse", "HEAD"}));

  repo.write("r/a", "a\na2\n");                       // modified, unstaged
  repo.write("r/b", "b\nb2\n");                       // modified, staged
  repo.git("r", {"add", "b"});                        //
  repo.git("r", {"mv", "d", "e f"});                  // renamed, staged
  repo.write("r/c", "new\n");                         // untracked
  repo.write("r/x.log", "log\n");                     // ignored
  ASSERT_EQ(::unlink(repo.path("r/del").c_str()), 0); // deleted, unstaged
  repo.write("r/sp ace", "x\ns2\n");                  // modified, a name with a space

  auto s = berth::parse_status_v2(repo.status("r", /*ignored=*/true));
  EXPECT_EQ(s.head, head);
  EXPECT_EQ(s.branch, "main");
  EXPECT_EQ(s.staged, 2);   // b, d -> e f
  EXPECT_EQ(s.modified, 3); // a, del, sp ace
  EXPECT_EQ(s.untracked, 1);
  EXPECT_EQ(s.ignored, 1);
  EXPECT_EQ(s.conflicted, 0);
  auto paths = s.paths;
  std::sort(paths.begin(), paths.end());
  EXPECT_EQ(paths, (std::vector<std::string>{"a", "b", "c", "del", "e f", "sp ace"}))
      << "the rename's original path 'd' is not listed";

  repo.git("r", {"checkout", "-q", "--detach"});
  auto detached = berth::parse_status_v2(repo.status("r"));
  EXPECT_EQ(detached.branch, "");
  EXPECT_EQ(detached.head, head);
  EXPECT_EQ(detached.ignored, 0) << "not asked for";
}

TEST(StatusV2Git, MergeConflict) {
  Scratch repo;
  repo.git("", {"init", "-q", "-b", "main", "r"});
  repo.write("r/f", "base\n");
  repo.git("r", {"add", "-A"});
  repo.git("r", {"commit", "-q", "-m", "base"});
  repo.git("r", {"checkout", "-q", "-b", "other"});
  repo.write("r/f", "theirs\n");
  repo.git("r", {"commit", "-q", "-a", "-m", "theirs"});
  repo.git("r", {"checkout", "-q", "main"});
  repo.write("r/f", "ours\n");
  repo.git("r", {"commit", "-q", "-a", "-m", "ours"});
  berth::GitCall merge{{"merge", "-q", "other"}, repo.path("r"), {}, {}, util::Stream::pipe};
  merge.env = {{"GIT_CONFIG_NOSYSTEM", "1"}, {"GIT_CONFIG_GLOBAL", "/dev/null"},
               {"GIT_AUTHOR_NAME", "T"},     {"GIT_AUTHOR_EMAIL", "t@e"},
               {"GIT_COMMITTER_NAME", "T"},  {"GIT_COMMITTER_EMAIL", "t@e"}};
  auto merged = berth::git_status_of(merge);
  ASSERT_TRUE(merged);
  ASSERT_FALSE(merged->ok()) << "the merge should conflict";

  auto s = berth::parse_status_v2(repo.status("r"));
  EXPECT_EQ(s.conflicted, 1);
  EXPECT_EQ(s.paths, std::vector<std::string>{"f"});
  EXPECT_TRUE(s.dirty());
}

// ---- worktree list, literal -----------------------------------------------------------------

TEST(WorktreeList, EmptyOutput) {
  EXPECT_TRUE(berth::parse_worktree_list("").empty());
}

TEST(WorktreeList, EveryKindOfEntry) {
  const std::string oid = "1235a52065e62a10fb9b3319992c9cd68a199b0a";
  auto list = berth::parse_worktree_list(z({"worktree /repo",
                                            "HEAD " + oid,
                                            "branch refs/heads/main",
                                            "",
                                            "worktree /wt/detached",
                                            "HEAD " + oid,
                                            "detached",
                                            "",
                                            "worktree /wt/with space",
                                            "HEAD " + oid,
                                            "branch refs/heads/feat/x",
                                            "",
                                            "worktree /wt/gone",
                                            "HEAD " + oid,
                                            "branch refs/heads/gone",
                                            "prunable gitdir file points to non-existent location",
                                            "",
                                            "worktree /wt/locked",
                                            "HEAD " + oid,
                                            "branch refs/heads/l2",
                                            "locked",
                                            "",
                                            "worktree /wt/locked-reason",
                                            "HEAD " + oid,
                                            "branch refs/heads/l1",
                                            "locked berth: workspace x\nsecond line",
                                            ""}));
  ASSERT_EQ(list.size(), 6u);

  EXPECT_EQ(list[0].path, "/repo");
  EXPECT_EQ(list[0].head, oid);
  EXPECT_EQ(list[0].branch, "refs/heads/main");
  EXPECT_FALSE(list[0].bare || list[0].detached || list[0].locked || list[0].prunable);

  EXPECT_TRUE(list[1].detached);
  EXPECT_EQ(list[1].branch, "");

  EXPECT_EQ(list[2].path, "/wt/with space");
  EXPECT_EQ(list[2].branch, "refs/heads/feat/x");

  EXPECT_TRUE(list[3].prunable);
  EXPECT_FALSE(list[3].locked);

  EXPECT_TRUE(list[4].locked);
  EXPECT_EQ(list[4].lock_reason, "");

  EXPECT_TRUE(list[5].locked);
  EXPECT_EQ(list[5].lock_reason, "berth: workspace x\nsecond line") << "-z keeps newlines";
}

TEST(WorktreeList, BareRepository) {
  auto list = berth::parse_worktree_list(z({"worktree /srv/repo.git", "bare", ""}));
  ASSERT_EQ(list.size(), 1u);
  EXPECT_TRUE(list[0].bare);
  EXPECT_EQ(list[0].head, "");
  EXPECT_EQ(list[0].branch, "");
}

TEST(WorktreeList, MissingTerminatorStillYieldsTheLastEntry) {
  auto list = berth::parse_worktree_list("worktree /a\0HEAD abc\0detached"s);
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].path, "/a");
  EXPECT_TRUE(list[0].detached);
}

TEST(WorktreeList, PathsWithNewlinesAndKeywordsStayWhole) {
  // -z ends each field with NUL: a newline, or a line that looks like a keyword, is part of the
  // path.
  auto list = berth::parse_worktree_list(
      z({"worktree /wt/two\nlines", "HEAD abc", "detached", "", "worktree /wt/x\nlocked reason",
         "HEAD abc", "branch refs/heads/b", "locked", "prunable gone", ""}));
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].path, "/wt/two\nlines");
  EXPECT_TRUE(list[0].detached);
  EXPECT_FALSE(list[0].locked);
  EXPECT_EQ(list[1].path, "/wt/x\nlocked reason");
  EXPECT_TRUE(list[1].locked);
  EXPECT_EQ(list[1].lock_reason, "");
  EXPECT_TRUE(list[1].prunable);
}

// ---- worktree list, captured from git -------------------------------------------------------

TEST(WorktreeListGit, MainLinkedDetachedLockedPrunable) {
  Scratch repo;
  repo.git("", {"init", "-q", "-b", "main", "w"});
  repo.git("w", {"commit", "-q", "--allow-empty", "-m", "init"});
  std::string head = berth::chomp(repo.git("w", {"rev-parse", "HEAD"}));
  repo.git("w", {"worktree", "add", "-q", "-b", "feat", "../wt-feat"});
  repo.git("w", {"worktree", "add", "-q", "--detach", "../wt-det"});
  repo.git("w", {"worktree", "add", "-q", "-b", "l1", "../wt-locked-reason"});
  repo.git("w", {"worktree", "lock", "--reason", "in use by agent", "../wt-locked-reason"});
  repo.git("w", {"worktree", "add", "-q", "-b", "l2", "../wt-locked"});
  repo.git("w", {"worktree", "lock", "../wt-locked"});
  repo.git("w", {"worktree", "add", "-q", "-b", "gone", "../wt-gone"});
  ASSERT_TRUE(util::remove_tree(repo.path("wt-gone")));

  auto list = berth::parse_worktree_list(repo.git("w", {"worktree", "list", "--porcelain", "-z"}));
  ASSERT_EQ(list.size(), 6u);
  auto by_name = [&](const std::string& name) -> const berth::WorktreeEntry& {
    for (const auto& e : list)
      if (util::basename(e.path) == name) return e;
    ADD_FAILURE() << "no worktree " << name;
    return list.front();
  };
  EXPECT_EQ(util::basename(list.front().path), "w") << "the main worktree comes first";
  EXPECT_EQ(list.front().branch, "refs/heads/main");
  for (const auto& e : list)
    EXPECT_EQ(e.head, head) << e.path;

  EXPECT_EQ(by_name("wt-feat").branch, "refs/heads/feat");
  EXPECT_FALSE(by_name("wt-feat").locked);
  EXPECT_TRUE(by_name("wt-det").detached);
  EXPECT_EQ(by_name("wt-det").branch, "");
  EXPECT_TRUE(by_name("wt-locked-reason").locked);
  EXPECT_EQ(by_name("wt-locked-reason").lock_reason, "in use by agent");
  EXPECT_TRUE(by_name("wt-locked").locked);
  EXPECT_EQ(by_name("wt-locked").lock_reason, "");
  EXPECT_TRUE(by_name("wt-gone").prunable);
  EXPECT_FALSE(by_name("wt-feat").prunable);
}

TEST(WorktreeListGit, BareRepositoryWithALinkedWorktree) {
  Scratch repo;
  repo.git("", {"init", "-q", "-b", "main", "seed"});
  repo.git("seed", {"commit", "-q", "--allow-empty", "-m", "init"});
  repo.git("", {"clone", "-q", "--bare", "seed", "bare.git"});
  repo.git("bare.git", {"worktree", "add", "-q", "-b", "x", "../linked"});

  auto list =
      berth::parse_worktree_list(repo.git("bare.git", {"worktree", "list", "--porcelain", "-z"}));
  ASSERT_EQ(list.size(), 2u);
  EXPECT_TRUE(list[0].bare);
  EXPECT_EQ(util::basename(list[0].path), "bare.git");
  EXPECT_FALSE(list[1].bare);
  EXPECT_EQ(list[1].branch, "refs/heads/x");
}

// ---- trailers -------------------------------------------------------------------------------

TEST(Trailers, ValuesFromAMessage) {
  const std::string message = "berth trash: feat/x\n"
                              "\n"
                              "Berth-Name: feat/x\n"
                              "Berth-Branch: berth/feat/x\n"
                              "Berth-Base: 1234\n"
                              "Berth-Owner: \n";
  EXPECT_EQ(berth::trailer_value(message, "Berth-Name"), "feat/x");
  EXPECT_EQ(berth::trailer_value(message, "Berth-Branch"), "berth/feat/x");
  EXPECT_EQ(berth::trailer_value(message, "Berth-Base"), "1234");
  EXPECT_EQ(berth::trailer_value(message, "Berth-Owner"), "") << "present but empty";
  EXPECT_EQ(berth::trailer_value(message, "Berth-Missing"), "");
  EXPECT_EQ(berth::trailer_value("", "Berth-Name"), "");
}

TEST(Trailers, KeyMustMatchWholeAndAtLineStart) {
  const std::string message = "subject\n\n"
                              "X-Berth-Name: not this\n"
                              "  Berth-Name: nor this\n"
                              "Berth-Names: nor this\n"
                              "Berth-Branch-Tip: tip\n"
                              "Berth-Branch: branch\n";
  EXPECT_EQ(berth::trailer_value(message, "Berth-Name"), "");
  EXPECT_EQ(berth::trailer_value(message, "Berth-Branch"), "branch")
      << "Berth-Branch-Tip is another key";
  EXPECT_EQ(berth::trailer_value(message, "Berth-Branch-Tip"), "tip");
}

TEST(Trailers, ValueKeepsColonsAndSpaces) {
  EXPECT_EQ(berth::trailer_value("s\n\nBerth-Owner: agent: claude 1\n", "Berth-Owner"),
            "agent: claude 1");
  EXPECT_EQ(berth::trailer_value("s\n\nBerth-Name: x", "Berth-Name"), "x") << "no final newline";
}

TEST(Trailers, FromARealCommitMessage) {
  Scratch repo;
  repo.git("", {"init", "-q", "-b", "main", "r"});
  repo.git("r",
           {"commit", "-q", "--allow-empty", "-m", "subject\n\nBerth-Name: real\nBerth-Head: abc"});
  std::string message = repo.git("r", {"log", "-1", "--format=%B"});
  EXPECT_EQ(berth::trailer_value(message, "Berth-Name"), "real");
  EXPECT_EQ(berth::trailer_value(message, "Berth-Head"), "abc");
}

// ---- diff-tree --stdin -r -z -M --raw --numstat -p: all three outputs in one pass
// ----------------

const std::string kA(40, 'a'), kB(40, 'b'), kC(40, 'c');
const std::string kOld = "1111111111111111111111111111111111111111";
const std::string kNew = "2222222222222222222222222222222222222222";

// One pair's body as git writes it: raw records, numstat records, NUL, the patch.
std::string body_of(const std::vector<std::string>& raw, const std::vector<std::string>& numstat,
                    const std::string& patch) {
  return z(raw) + z(numstat) + std::string(1, '\0') + patch;
}

std::string describe(const berth::RawChange& c) {
  return c.old_mode + " " + c.new_mode + " " + c.old_oid + " " + c.new_oid + " " + c.status + " [" +
         c.old_path + "] [" + c.path + "]";
}
std::string describe(const berth::NumStat& n) {
  return std::to_string(n.additions) + " " + std::to_string(n.deletions) + " [" + n.old_path +
         "] [" + n.path + "]";
}
template <class T> std::vector<std::string> described(const std::vector<T>& items) {
  std::vector<std::string> out;
  out.reserve(items.size());
  for (const auto& i : items)
    out.push_back(describe(i));
  return out;
}

const std::string kRenamePatch = "diff --git a/old.txt \"b/new\\nline.txt\"\n"
                                 "similarity index 82%\n"
                                 "rename from old.txt\n"
                                 "rename to \"new\\nline.txt\"\n"
                                 "@@ -1 +1,2 @@\n"
                                 " one\n"
                                 "+two\n";

TEST(TreeDiff, EveryKindOfRecord) {
  std::string body =
      body_of({":100644 100644 " + kOld + " " + kNew + " M", "blob.bin",                    //
               ":000000 100644 " + std::string(40, '0') + " " + kNew + " A", "caf\xe9.txt", //
               ":100755 100644 " + kOld + " " + kOld + " M", "bin/run sh",                  //
               ":100644 100644 " + kOld + " " + kNew + " R082", "old.txt", "new\nline.txt"},
              {"-\t-\tblob.bin", "1\t0\tcaf\xe9.txt", "0\t0\tbin/run sh", "1\t0\t", "old.txt",
               "new\nline.txt"},
              kRenamePatch);
  auto d = berth::parse_tree_diff(body);
  ASSERT_TRUE(d);
  EXPECT_EQ(described(d->raw),
            (std::vector<std::string>{
                "100644 100644 " + kOld + " " + kNew + " M [] [blob.bin]",
                "000000 100644 " + std::string(40, '0') + " " + kNew + " A [] [caf\xe9.txt]",
                "100755 100644 " + kOld + " " + kOld + " M [] [bin/run sh]",
                "100644 100644 " + kOld + " " + kNew + " R [old.txt] [new\nline.txt]"}));
  EXPECT_EQ(described(d->numstat),
            (std::vector<std::string>{"-1 -1 [] [blob.bin]", "1 0 [] [caf\xe9.txt]",
                                      "0 0 [] [bin/run sh]", "1 0 [old.txt] [new\nline.txt]"}));
  EXPECT_EQ(d->patch, kRenamePatch);
}

TEST(TreeDiff, NothingChangedIsAnEmptyBody) {
  auto d = berth::parse_tree_diff("");
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->raw.empty());
  EXPECT_TRUE(d->numstat.empty());
  EXPECT_EQ(d->patch, "");
}

TEST(TreeDiff, DamagedBodiesAreRefused) {
  std::string good = body_of({":100644 100644 " + kOld + " " + kNew + " M", "f"}, {"1\t0\tf"},
                             "diff --git a/f b/f\n@@ -0,0 +1 @@\n+x\n");
  ASSERT_TRUE(berth::parse_tree_diff(good));
  // Cut anywhere before its patch: never read as a smaller diff. (A patch cut at a line's end
  // still reads: the cache's checksum is what finds that.)
  for (size_t n = 1; n <= good.find("diff --git"); ++n)
    EXPECT_FALSE(berth::parse_tree_diff(good.substr(0, n))) << "cut at " << n;
  EXPECT_FALSE(berth::parse_tree_diff("garbage"));
  EXPECT_FALSE(berth::parse_tree_diff(body_of({":100644 M", "f"}, {"1\t0\tf"}, "diff --git x\n")))
      << "a raw record short of fields";
  EXPECT_FALSE(berth::parse_tree_diff(
      body_of({":100644 100644 " + kOld + " " + kNew + " M", "f"}, {"x\t0\tf"}, "diff --git x\n")))
      << "a count that is no number";
  EXPECT_FALSE(berth::parse_tree_diff(
      body_of({":100644 100644 " + kOld + " " + kNew + " M", "f"}, {"1\t0\tf"}, "@@ x\n")))
      << "a patch that does not begin with a file";
}

TEST(TreeDiff, SplitsABatchByItsHeaders) {
  std::string h1 = kA + " " + kB, h2 = kA + " " + kA, h3 = kB + " " + kC;
  // The first pair names a file after the third pair's header: the records are walked, so that
  // name cannot end the first body early.
  const std::string& tricky = h3;
  std::string b1 = body_of({":100644 100644 " + kOld + " " + kNew + " M", tricky},
                           {"1\t0\t" + tricky}, "diff --git a/x b/x\n@@ -1 +1,2 @@\n x\n+y\n");
  std::string b3 = body_of({":100644 100644 " + kOld + " " + kNew + " M", "g"}, {"0\t1\tg"},
                           "diff --git a/g b/g\n@@ -1,2 +1 @@\n g\n-h\n");
  std::string out = h1 + "\n" + b1 + h2 + "\n" + h3 + "\n" + b3;
  auto bodies = berth::split_tree_diffs(out, {h1, h2, h3});
  ASSERT_TRUE(bodies);
  EXPECT_EQ(*bodies, (std::vector<std::string>{b1, "", b3}));
  // The same pair twice (two attempts with one tree) gets the same body twice.
  auto twice = berth::split_tree_diffs(h1 + "\n" + b1 + h1 + "\n" + b1, {h1, h1});
  ASSERT_TRUE(twice);
  EXPECT_EQ(*twice, (std::vector<std::string>{b1, b1}));

  EXPECT_FALSE(berth::split_tree_diffs(out, {h1, h3})) << "a pair left over";
  EXPECT_FALSE(berth::split_tree_diffs(out, {h1, h2, h3, h1})) << "a pair missing";
  EXPECT_FALSE(berth::split_tree_diffs(out, {h2, h1, h3})) << "another order";
}

// The one pass against the three outputs it replaces, from the installed git: renames, binary
// files, mode changes, paths with spaces, newlines and bytes that are no UTF-8, a pair of the
// same trees, and two pairs at once.
TEST(TreeDiffGit, OnePassIsTheThreeOutputs) {
  Scratch repo;
  repo.git("", {"init", "-q", "-b", "main", "r"});
  repo.write("r/old.txt", "one\ntwo\nthree\nfour\nfive\nsix\n");
  repo.write("r/blob.bin", std::string("\0\1bin", 5));
  repo.write("r/bin/run.sh", "echo\n");
  ASSERT_EQ(::chmod(repo.path("r/bin/run.sh").c_str(), 0755), 0);
  repo.write("r/sp ace.txt", "a\nb\n");
  repo.write("r/del.txt", "gone\n");
  repo.git("r", {"add", "-A"});
  repo.git("r", {"commit", "-q", "-m", "base"});
  std::string t1 = berth::chomp(repo.git("r", {"rev-parse", "HEAD^{tree}"}));

  repo.git("r", {"mv", "old.txt", "new\nline.txt"});
  repo.write("r/new\nline.txt", "one\ntwo\nthree\nfour\nfive\nsix\nseven\n");
  repo.write("r/blob.bin", std::string("\0\2bin", 5));
  ASSERT_EQ(::chmod(repo.path("r/bin/run.sh").c_str(), 0644), 0);
  ASSERT_EQ(::unlink(repo.path("r/del.txt").c_str()), 0);
  repo.write("r/caf\xe9.txt", "hi\n");
  repo.write("r/sp ace.txt", "a\nb\nc\n");
  repo.write("r/no-newline", "end");
  repo.git("r", {"add", "-A"});
  std::string t2 = berth::chomp(repo.git("r", {"write-tree"}));

  std::vector<std::string> headers{t1 + " " + t2, t1 + " " + t1, t2 + " " + t1};
  std::string input;
  for (const auto& h : headers)
    input += h + "\n";
  std::string out = repo.git_in("r",
                                {"diff-tree", "--stdin", "-r", "-z", "-M", "--raw", "--numstat",
                                 "-p", "--binary", "--full-index", "--no-color"},
                                input);
  auto bodies = berth::split_tree_diffs(out, headers);
  ASSERT_TRUE(bodies) << out;
  ASSERT_EQ(bodies->size(), 3u);
  EXPECT_EQ((*bodies)[1], "") << "the same trees: nothing";
  for (size_t i : {0u, 2u}) {
    auto d = berth::parse_tree_diff((*bodies)[i]);
    ASSERT_TRUE(d) << i;
    std::string from = i == 0 ? t1 : t2, to = i == 0 ? t2 : t1;
    auto raw =
        berth::parse_diff_raw(repo.git("r", {"diff-tree", "-r", "-z", "-M", "--raw", from, to}));
    auto num =
        berth::parse_numstat(repo.git("r", {"diff-tree", "-r", "-z", "-M", "--numstat", from, to}));
    EXPECT_EQ(described(d->raw), described(raw)) << i;
    EXPECT_EQ(described(d->numstat), described(num)) << i;
    EXPECT_EQ(d->patch, repo.git("r", {"diff-tree", "-p", "--binary", "--full-index", "-M",
                                       "--no-color", from, to}))
        << i;
    EXPECT_EQ(d->raw.size(), 7u) << i;
  }
  auto forward = berth::parse_tree_diff((*bodies)[0]);
  ASSERT_TRUE(forward);
  std::vector<std::string> renamed;
  for (const auto& c : forward->raw)
    if (c.status == 'R') renamed.push_back(c.old_path + " -> " + c.path);
  EXPECT_EQ(renamed, std::vector<std::string>{"old.txt -> new\nline.txt"});

  // Written back, each body is git's byte for byte (the rename's score kept); its patch cuts into
  // one section per record; the raw records alone (`--raw`, what compare asks first) are these.
  std::string raw_out =
      repo.git_in("r", {"diff-tree", "--stdin", "-r", "-z", "-M", "--raw"}, input);
  auto raws = berth::split_raw_diffs(raw_out, headers);
  ASSERT_TRUE(raws) << raw_out;
  ASSERT_EQ(raws->size(), 3u);
  EXPECT_TRUE((*raws)[1].empty());
  for (size_t i = 0; i < 3; ++i) {
    auto d = berth::parse_tree_diff((*bodies)[i]);
    ASSERT_TRUE(d) << i;
    EXPECT_EQ(berth::tree_diff_body(*d), (*bodies)[i]) << i;
    EXPECT_EQ(berth::patch_sections(d->patch).size(), d->raw.size()) << i;
    EXPECT_EQ((*raws)[i], d->raw) << i;
  }
  auto rename = std::find_if(forward->raw.begin(), forward->raw.end(),
                             [](const berth::RawChange& c) { return c.status == 'R'; });
  ASSERT_NE(rename, forward->raw.end());
  EXPECT_EQ(rename->code.size(), 4u) << "a rename's score: " << rename->code;
  EXPECT_FALSE(berth::split_raw_diffs(raw_out, {headers[0], headers[1]})) << "a pair left over";
  EXPECT_FALSE(berth::split_raw_diffs(raw_out.substr(0, raw_out.size() - 3), headers))
      << "cut short";
}

} // namespace

// ---- index files, as git writes them --------------------------------------------------------

namespace {

// What `git ls-files -s -z` says of the repository's index, as IndexEntry values.
std::vector<berth::IndexEntry> listed(const Scratch& repo) {
  std::vector<berth::IndexEntry> out;
  for (const auto& record :
       berth::split_z(repo.git("r", {"-c", "core.fsmonitor=false", "--literal-pathspecs",
                                     "--no-optional-locks", "ls-files", "-s", "-z"}))) {
    auto s1 = record.find(' '), s2 = record.find(' ', s1 + 1), tab = record.find('\t');
    out.push_back({record.substr(0, s1), record.substr(s1 + 1, s2 - s1 - 1),
                   std::stoi(record.substr(s2 + 1, tab - s2 - 1)), record.substr(tab + 1)});
  }
  return out;
}

bool same(const std::vector<berth::IndexEntry>& a, const std::vector<berth::IndexEntry>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](auto& x, auto& y) {
           return x.mode == y.mode && x.oid == y.oid && x.stage == y.stage && x.path == y.path;
         });
}

} // namespace

TEST(IndexFile, ReadAsLsFilesListsIt) {
  Scratch s;
  s.git("", {"init", "-q", "r"});
  s.write("r/a.txt", "a\n");
  s.write("r/dir/b c.txt", "b\n");
  const std::string deep = std::string(200, 'n') + "/" + std::string(200, 'm');
  s.write("r/" + deep + "/long-name.txt", "long\n"); // past the 8-byte padding of short ones
  ASSERT_EQ(::symlink("a.txt", s.path("r/link").c_str()), 0);
  s.write("r/run.sh", "#!/bin/sh\n");
  ASSERT_EQ(::chmod(s.path("r/run.sh").c_str(), 0755), 0);
  s.git("r", {"add", "-A"});
  // A gitlink and a path with a newline, by hand.
  s.git("r", {"update-index", "--add", "--cacheinfo",
              "160000,78981922613b2afb6025042ff6bd878ac1994e85,sub"});
  s.git_in("r", {"update-index", "--add", "-z", "--index-info"},
           "100644 78981922613b2afb6025042ff6bd878ac1994e85\tnew\nline"s + '\0');
  std::string index = s.path("r/.git/index");
  for (const char* version : {"2", "4", "3"}) {
    s.git("r", {"update-index", "--index-version", version});
    auto bytes = util::read_file(index);
    ASSERT_TRUE(bytes);
    auto parsed = berth::parse_index(*bytes, 20);
    ASSERT_TRUE(parsed) << "version " << version;
    auto want = listed(s);
    EXPECT_EQ(want.size(), 7u);
    EXPECT_TRUE(same(*parsed, want)) << "version " << version;
  }
  // An entry with extended flags (intent to add: version 3).
  s.write("r/later.txt", "later\n");
  s.git("r", {"add", "-N", "later.txt"});
  auto bytes = util::read_file(index);
  ASSERT_TRUE(bytes);
  ASSERT_EQ(bytes->substr(0, 8), "DIRC\0\0\0\3"s) << "git wrote version 3 for the flag";
  auto parsed = berth::parse_index(*bytes, 20);
  ASSERT_TRUE(parsed);
  EXPECT_TRUE(same(*parsed, listed(s)));

  // Version 4 (names compressed), with that flag.
  s.git("r", {"update-index", "--index-version", "4"});
  bytes = util::read_file(index);
  ASSERT_TRUE(bytes);
  parsed = berth::parse_index(*bytes, 20);
  ASSERT_TRUE(parsed);
  EXPECT_TRUE(same(*parsed, listed(s)));
  // What is not read: a split index, a cut or wrong file.
  s.git("r", {"update-index", "--index-version", "2"});
  s.git("r", {"update-index", "--split-index"});
  bytes = util::read_file(index);
  ASSERT_TRUE(bytes);
  EXPECT_FALSE(berth::parse_index(*bytes, 20)) << "a split index keeps its entries elsewhere";
  s.git("r", {"update-index", "--no-split-index"});
  bytes = util::read_file(index);
  ASSERT_TRUE(bytes);
  ASSERT_TRUE(berth::parse_index(*bytes, 20));
  EXPECT_FALSE(berth::parse_index(bytes->substr(0, bytes->size() / 2), 20));
  EXPECT_FALSE(berth::parse_index(*bytes, 32)) << "not a sha256 index";
  EXPECT_FALSE(berth::parse_index("", 20));
  EXPECT_FALSE(berth::parse_index("DIRC", 20));
}

TEST(IndexFile, GlanceTellsItsTreeAndWhichPathsItHas) {
  Scratch s;
  s.git("", {"init", "-q", "r"});
  s.write("r/a.txt", "a\n");
  s.write("r/dir/b.txt", "b\n");
  s.git("r", {"add", "-A"});
  s.git("r", {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one"});
  std::string index = s.path("r/.git/index");
  const std::set<std::string> asked{"a.txt", "dir/b.txt", "dir", "gone.txt", "a"};
  // Just committed: the cache-tree is valid, the index is HEAD's tree.
  auto glance = berth::glance_index_file(index, 20, asked);
  ASSERT_TRUE(glance);
  EXPECT_EQ(glance->tree, berth::chomp(s.git("r", {"rev-parse", "HEAD^{tree}"})));
  EXPECT_EQ(glance->present, (std::set<std::string>{"a.txt", "dir/b.txt"})) << "files, not folders";
  // Something staged: the cache-tree is invalid until a tree is written again.
  s.write("r/new.txt", "new\n");
  s.git("r", {"add", "new.txt"});
  glance = berth::glance_index_file(index, 20, {"new.txt"});
  ASSERT_TRUE(glance);
  EXPECT_EQ(glance->tree, "");
  EXPECT_EQ(glance->present, (std::set<std::string>{"new.txt"}));
  std::string written = berth::chomp(s.git("r", {"write-tree"}));
  glance = berth::glance_index_file(index, 20, {});
  ASSERT_TRUE(glance);
  EXPECT_EQ(glance->tree, written) << "write-tree fills the cache-tree in";
  // Untracked (`rm --cached`): no entry, and the tree is invalid again.
  s.git("r", {"rm", "-q", "--cached", "a.txt"});
  glance = berth::glance_index_file(index, 20, {"a.txt", "dir/b.txt"});
  ASSERT_TRUE(glance);
  EXPECT_EQ(glance->tree, "");
  EXPECT_EQ(glance->present, (std::set<std::string>{"dir/b.txt"}));
  // Version 4 (names compressed) is read as well.
  s.git("r", {"write-tree"});
  s.git("r", {"update-index", "--index-version", "4"});
  glance = berth::glance_index_file(index, 20, {"a.txt", "dir/b.txt", "new.txt"});
  ASSERT_TRUE(glance);
  EXPECT_EQ(glance->tree, berth::chomp(s.git("r", {"write-tree"})));
  EXPECT_EQ(glance->present, (std::set<std::string>{"dir/b.txt", "new.txt"}));
  // What is not read, as parse_index: a split index, a missing file, a FIFO (never waited on).
  s.git("r", {"update-index", "--split-index"});
  EXPECT_FALSE(berth::glance_index_file(index, 20, {}));
  EXPECT_FALSE(berth::glance_index_file(s.path("r/.git/no-index"), 20, {}));
  ASSERT_EQ(::mkfifo(s.path("r/.git/fifo").c_str(), 0644), 0);
  EXPECT_FALSE(berth::glance_index_file(s.path("r/.git/fifo"), 20, {}));
}

// ---- one `git update-ref --stdin` for several transactions (git.cpp) --------------------------

TEST(RefTransactions, SeveralInOneGitARefusalSaidTheNextInANewOne) {
  Scratch s;
  s.git("", {"init", "-q", "r"});
  s.git("r", {"commit", "-q", "--allow-empty", "-m", "one"});
  const std::string head = berth::chomp(s.git("r", {"rev-parse", "HEAD"}));
  // The user's hook logs each call: which refs, in which state.
  s.write("r/.git/hooks/reference-transaction",
          "#!/bin/sh\n{ echo \"$1\"; cat; } >>\"$(git rev-parse --git-dir)/hook.log\"\n");
  ASSERT_EQ(::chmod(s.path("r/.git/hooks/reference-transaction").c_str(), 0755), 0);
  auto hooked = [&] {
    auto log = util::read_file(s.path("r/.git/hook.log"));
    return log ? *log : std::string();
  };
  {
    berth::RefTransactions refs(s.call("r", {"update-ref", "-m", "test", "--stdin"}));
    auto made = refs.send("create refs/berth/a " + head + "\n");
    ASSERT_TRUE(made);
    EXPECT_TRUE(made->ok()) << made->err;
    EXPECT_EQ(berth::chomp(s.git("r", {"rev-parse", "refs/berth/a"})), head);
    // Refused (the ref exists): git's own words, nothing changed.
    auto again = refs.send("create refs/berth/a " + head + "\ncreate refs/berth/b " + head + "\n");
    ASSERT_TRUE(again);
    EXPECT_FALSE(again->ok());
    EXPECT_NE(again->err.find("refs/berth/a"), std::string::npos) << again->err;
    EXPECT_EQ(s.git("r", {"for-each-ref", "refs/berth/b"}), "");
    // The next one in a git of its own.
    auto deleted = refs.send("delete refs/berth/a " + head + "\n");
    ASSERT_TRUE(deleted);
    EXPECT_TRUE(deleted->ok()) << deleted->err;
    EXPECT_EQ(s.git("r", {"for-each-ref", "refs/berth/"}), "");
  }
  // The hook saw each transaction once (the refused one aborted), and nothing else: no empty
  // transaction when the git that committed the last one went.
  auto states = [&] {
    std::string seen;
    for (const auto& line : berth::split_lines(hooked()))
      if (line.find(' ') == std::string::npos) seen += line + " ";
    return seen;
  };
  EXPECT_EQ(states(), "prepared committed aborted prepared committed ");
  EXPECT_NE(hooked().find(std::string(40, '0') + " " + head + " refs/berth/a\n"),
            std::string::npos);
  // One started ahead and never sent a transaction runs no hook when it goes (not an empty
  // transaction).
  ASSERT_EQ(::unlink(s.path("r/.git/hook.log").c_str()), 0);
  {
    const auto call = s.call("r", {"update-ref", "-m", "test", "--stdin"});
    berth::PrestartedGits ahead({call});
    berth::RefTransactions unused(call);
  }
  EXPECT_EQ(hooked(), "");
  // With one started ahead for the same call, the transaction goes through, and nothing else
  // (no empty transaction of a git left over).
  {
    const auto call = s.call("r", {"update-ref", "-m", "test", "--stdin"});
    berth::PrestartedGits ahead({call});
    berth::RefTransactions refs(call);
    auto made = refs.send("create refs/berth/c " + head + "\n");
    ASSERT_TRUE(made);
    EXPECT_TRUE(made->ok()) << made->err;
  }
  EXPECT_EQ(states(), "prepared committed ");
}

namespace {

// Git calls in the scratch repository "r" that log their start to one trace2 file, and how many
// started so far (those of `command`, when named).
struct TracedGits {
  const Scratch& s;
  std::string trace = s.path("trace.json");

  berth::GitCall call(std::vector<std::string> args) const {
    berth::GitCall c = s.call("r", std::move(args));
    c.env["GIT_TRACE2_EVENT"] = trace;
    return c;
  }
  size_t starts(const std::string& command = {}) const {
    auto log = util::read_file(trace);
    size_t n = 0;
    for (const auto& line : berth::split_lines(log ? *log : std::string()))
      n += line.find("\"event\":\"start\"") != std::string::npos &&
           line.find(command) != std::string::npos;
    return n;
  }
  // Wait (up to 5 s) until `n` of `command` started.
  void wait_for(size_t n, const std::string& command = {}) const {
    for (int waited = 0; starts(command) < n && waited < 500; ++waited)
      ::usleep(10 * 1000);
  }
};

// `file` (in "r") hashed through `hashing`, answered as `git hash-object` answers, and the
// conversation ended cleanly.
void expect_hashed_as_git(berth::GitConversation& hashing, const Scratch& s,
                          const std::string& file) {
  auto oids = hashing.ask_in_rounds(s.path("r/" + file) + "\n");
  ASSERT_TRUE(oids);
  EXPECT_EQ(*oids, std::vector<std::string>{berth::chomp(s.git("r", {"hash-object", file}))});
  EXPECT_TRUE(hashing.finish());
}

} // namespace

TEST(PrestartedGits, AConversationTakesTheGitStartedAheadTheOthersGoQuietly) {
  Scratch s;
  s.git("", {"init", "-q", "r"});
  s.write("r/a.txt", "a\n");
  TracedGits t{s};
  auto traced = [&](std::vector<std::string> args) { return t.call(std::move(args)); };
  auto starts = [&](const std::string& command = {}) { return t.starts(command); };
  s.write("r/.git/hooks/reference-transaction",
          "#!/bin/sh\necho \"$1\" >>\"$(git rev-parse --git-dir)/hook.log\"\n");
  ASSERT_EQ(::chmod(s.path("r/.git/hooks/reference-transaction").c_str(), 0755), 0);
  const auto hasher = traced({"hash-object", "-w", "--stdin-paths"});
  {
    berth::PrestartedGits ahead({hasher, traced({"update-ref", "--stdin"})});
    t.wait_for(2);
    ASSERT_EQ(starts(), 2u) << "both started ahead";
    berth::GitConversation asked(hasher);
    expect_hashed_as_git(asked, s, "a.txt");
    EXPECT_EQ(starts("hash-object"), 1u) << "the conversation took the git started ahead";
    // Another of the same call starts its own: each git started ahead serves one.
    berth::GitConversation again(hasher);
    EXPECT_TRUE(again.ask_in_rounds(s.path("r/a.txt") + "\n"));
    EXPECT_TRUE(again.finish());
  }
  EXPECT_EQ(starts("hash-object"), 2u);
  // The `update-ref --stdin` nobody took was killed, not left to commit an empty transaction.
  EXPECT_FALSE(util::read_file(s.path("r/.git/hook.log")));
}

namespace {

// A repository "r" in the scratch folder with one commit (of a.txt), on `branch` when given.
void one_commit(const Scratch& s, const std::string& branch = {}) {
  std::vector<std::string> init{"init", "-q", "r"};
  if (!branch.empty()) init.insert(init.end() - 1, {"-b", branch});
  s.git("", init);
  s.write("r/a.txt", "a\n");
  s.git("r", {"add", "a.txt"});
  s.git("r", {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one"});
}

} // namespace

TEST(PrestartedGits, AOneShotCallTakesTheGitStartedAheadWithinItsTimeLimit) {
  Scratch s;
  one_commit(s);
  TracedGits t{s};
  berth::GitCall reader = t.call({"cat-file", "--batch"});
  auto starts = [&] { return t.starts(); };
  const std::string tree = berth::chomp(s.git("r", {"rev-parse", "HEAD^{tree}"}));
  {
    berth::PrestartedGits ahead({reader});
    t.wait_for(1);
    ASSERT_EQ(starts(), 1u);
    berth::GitCall asked = reader;
    asked.input = "HEAD^{tree}\nno-such-object\n";
    auto read = berth::git_status_of(asked);
    ASSERT_TRUE(read);
    EXPECT_TRUE(read->ok()) << read->err;
    EXPECT_EQ(read->out.substr(0, tree.size() + 9), tree + " tree 33\n");
    EXPECT_NE(read->out.find("no-such-object missing\n"), std::string::npos) << read->out;
    EXPECT_EQ(starts(), 1u) << "the call took the git started ahead";
    // A call with another input, arguments or folder starts its own.
    auto again = berth::git_status_of(asked);
    ASSERT_TRUE(again);
    EXPECT_EQ(again->out, read->out);
    EXPECT_EQ(starts(), 2u);
  }
  // Its time limit holds for a git started ahead too: one that never answers (it reads a FIFO
  // nobody writes) is stopped, and the call says it timed out.
  ASSERT_EQ(::mkfifo(s.path("r/fifo").c_str(), 0600), 0);
  berth::GitCall hasher = s.call("r", {"hash-object", "--stdin-paths"});
  hasher.timeout = std::chrono::milliseconds(300);
  {
    berth::PrestartedGits ahead({hasher});
    berth::GitCall asked = hasher;
    asked.input = s.path("r/fifo") + "\n";
    auto stuck = berth::git_status_of(asked);
    ASSERT_FALSE(stuck);
    EXPECT_EQ(stuck.error().code, berth::ErrorCode::git_timeout) << stuck.error().message;
  }
}

TEST(RefFiles, ALooseRefIsReadAsGitWouldAnythingElseIsLeftToGit) {
  Scratch s;
  one_commit(s);
  const std::string common = s.path("r/.git");
  const std::string head = berth::chomp(s.git("r", {"rev-parse", "HEAD"}));
  s.git("r", {"branch", "berth/x"});
  EXPECT_EQ(berth::read_loose_ref(common, "refs/heads/berth/x", head.size()), head);
  // Packed (as gc leaves it), missing, symbolic, a symlink, a FIFO, a bad name, the wrong
  // length: git is asked.
  s.git("r", {"branch", "berth/packed"});
  s.git("r", {"pack-refs", "--all"});
  EXPECT_FALSE(berth::read_loose_ref(common, "refs/heads/berth/packed", head.size()));
  EXPECT_FALSE(berth::read_loose_ref(common, "refs/heads/berth/none", head.size()));
  s.git("r", {"symbolic-ref", "refs/heads/berth/sym", "refs/heads/berth/packed"});
  EXPECT_FALSE(berth::read_loose_ref(common, "refs/heads/berth/sym", head.size()));
  s.git("r", {"branch", "berth/y"});
  ASSERT_TRUE(berth::read_loose_ref(common, "refs/heads/berth/y", head.size()));
  ASSERT_EQ(::symlink("y", s.path("r/.git/refs/heads/berth/link").c_str()), 0);
  EXPECT_FALSE(berth::read_loose_ref(common, "refs/heads/berth/link", head.size()));
  ASSERT_EQ(::mkfifo(s.path("r/.git/refs/heads/berth/fifo").c_str(), 0600), 0);
  EXPECT_FALSE(berth::read_loose_ref(common, "refs/heads/berth/fifo", head.size()));
  EXPECT_FALSE(berth::read_loose_ref(common, "refs/heads/../heads/berth/y", head.size()));
  EXPECT_FALSE(berth::read_loose_ref(common, "HEAD", head.size()));
  EXPECT_FALSE(berth::read_loose_ref(common, "refs/heads/berth/y", 64));
  s.write("r/.git/refs/heads/berth/bad", std::string(head.size(), 'z') + "\n");
  EXPECT_FALSE(berth::read_loose_ref(common, "refs/heads/berth/bad", head.size()));
}

TEST(RefFiles, RefsUnderAPrefixMaybeOrCertainlyNone) {
  Scratch s;
  one_commit(s);
  const std::string common = s.path("r/.git");
  const std::string head = berth::chomp(s.git("r", {"rev-parse", "HEAD"}));
  EXPECT_FALSE(berth::may_have_refs_under(common, "refs/berth/trash/a/"));
  s.git("r", {"update-ref", "refs/berth/trash/ab/1", head});
  EXPECT_TRUE(berth::may_have_refs_under(common, "refs/berth/trash/ab/")) << "loose";
  EXPECT_FALSE(berth::may_have_refs_under(common, "refs/berth/trash/a/")) << "another name";
  s.git("r", {"pack-refs", "--all"});
  ASSERT_FALSE(util::exists(s.path("r/.git/refs/berth/trash/ab"))) << "no loose folder left";
  EXPECT_TRUE(berth::may_have_refs_under(common, "refs/berth/trash/ab/")) << "packed";
  EXPECT_FALSE(berth::may_have_refs_under(common, "refs/berth/trash/a/"));
  // The answer git gives agrees.
  EXPECT_EQ(s.git("r", {"for-each-ref", "refs/berth/trash/a/"}), "");
  // A reftable repository keeps no ref files: it cannot be told.
  ASSERT_TRUE(util::make_dirs(s.path("r/.git/reftable")));
  EXPECT_TRUE(berth::may_have_refs_under(common, "refs/berth/trash/a/"));
}

TEST(RefFiles, ABranchHeldByAnotherWorktreeAsGitsListTellsIt) {
  Scratch s;
  one_commit(s, "main");
  s.git("r", {"worktree", "add", "-q", "-b", "berth/x", s.path("x")});
  s.git("r", {"worktree", "add", "-q", "-b", "berth/y", s.path("y")});
  s.git("r", {"worktree", "add", "-q", "--detach", s.path("d")});
  const std::string common = s.path("r/.git");
  const std::string own = s.path("r/.git/worktrees/x");
  // (the HEAD files read, then asked of)
  auto branch_held_elsewhere = [](const std::string& common_dir, const std::string& own_dir,
                                  const std::string& ref) -> std::optional<bool> {
    auto listed = berth::checked_out_branches(common_dir);
    if (!listed) return std::nullopt;
    return berth::held_elsewhere(*listed, own_dir, ref);
  };
  // Each answer as git's own list gives it.
  auto listed = [&](const std::string& ref) {
    std::string out = s.git("r", {"worktree", "list", "--porcelain"});
    return out.find("branch " + ref + "\n") != std::string::npos;
  };
  EXPECT_EQ(branch_held_elsewhere(common, own, "refs/heads/berth/x"), false);
  EXPECT_TRUE(listed("refs/heads/berth/x")) << "(its own tree holds it)";
  EXPECT_EQ(branch_held_elsewhere(common, own, "refs/heads/berth/y"), true);
  EXPECT_EQ(branch_held_elsewhere(common, own, "refs/heads/main"), true) << "the main checkout's";
  EXPECT_EQ(branch_held_elsewhere(common, own, "refs/heads/berth/z"), false);
  EXPECT_FALSE(listed("refs/heads/berth/z"));
  // The same admin dir named another way is still its own.
  EXPECT_EQ(branch_held_elsewhere(common, s.path("r/.git/worktrees/../worktrees/x"),
                                  "refs/heads/berth/x"),
            false);
  // A HEAD that cannot be read as git would (a FIFO planted there): git is asked.
  ASSERT_EQ(::unlink(s.path("r/.git/worktrees/d/HEAD").c_str()), 0);
  ASSERT_EQ(::mkfifo(s.path("r/.git/worktrees/d/HEAD").c_str(), 0600), 0);
  EXPECT_FALSE(branch_held_elsewhere(common, own, "refs/heads/berth/z"));
}

TEST(PrestartedGits, TheLaterOnesStartOnlyOnceOneIsTaken) {
  Scratch s;
  one_commit(s);
  s.write("r/b.txt", "b\n");
  TracedGits t{s};
  auto traced = [&](std::vector<std::string> args) { return t.call(std::move(args)); };
  auto starts = [&](const std::string& command) { return t.starts(command); };
  auto wait_for = [&](const std::string& command) { t.wait_for(1, command); };
  const auto reader = traced({"cat-file", "--batch"});
  const auto hasher = traced({"hash-object", "-w", "--stdin-paths"});
  {
    berth::PrestartedGits ahead({reader}, {hasher});
    wait_for("cat-file");
    ASSERT_EQ(starts("cat-file"), 1u);
    ::usleep(100 * 1000);
    EXPECT_EQ(starts("hash-object"), 0u) << "not before one of the first is taken";
    berth::GitCall asked = reader;
    asked.input = "HEAD\n";
    auto read = berth::git_status_of(asked);
    ASSERT_TRUE(read);
    EXPECT_TRUE(read->ok());
    wait_for("hash-object");
    EXPECT_EQ(starts("hash-object"), 1u) << "started once the reader was taken";
    berth::GitConversation hashing(hasher);
    expect_hashed_as_git(hashing, s, "b.txt");
    EXPECT_EQ(starts("hash-object"), 1u) << "the conversation took the later one";
  }
  // Nothing taken: the later ones never start.
  {
    berth::PrestartedGits ahead({traced({"check-ignore", "--stdin"})}, {hasher});
    wait_for("check-ignore");
    ::usleep(100 * 1000);
  }
  EXPECT_EQ(starts("hash-object"), 1u);
}

TEST(GitConversation, InRoundsManyLinesWithoutFillingThePipes) {
  Scratch s;
  s.git("", {"init", "-q", "r"});
  // 5,000 paths: ~200 KiB of answers, ~400 KiB asked; all at once, both pipes would fill.
  std::string paths;
  for (int i = 0; i < 5000; ++i)
    paths += s.path("r/.git/" + std::string(60, 'p') + std::to_string(i)) + "\n";
  s.write("r/one.txt", "one\n");
  berth::GitConversation hasher(s.call("r", {"hash-object", "--stdin-paths"}));
  auto none = hasher.ask_in_rounds(paths);
  ASSERT_TRUE(none); // git stops at the first path that is not there
  EXPECT_TRUE(none->empty());
  EXPECT_FALSE(hasher.finish());
  std::string same;
  for (int i = 0; i < 5000; ++i)
    same += s.path("r/one.txt") + "\n";
  auto oids = hasher.ask_in_rounds(same);
  ASSERT_TRUE(oids);
  ASSERT_EQ(oids->size(), 5000u);
  EXPECT_EQ(oids->back(), berth::chomp(s.git("r", {"hash-object", "one.txt"})));
  EXPECT_TRUE(hasher.finish());
}

// ---- a status restated from the watcher's paths (capture.cpp) ---------------------------------

namespace {

const std::string kH = std::string(40, 'a'), kI = std::string(40, 'b'), kW = std::string(40, 'c');

berth::TreeEntry entry(const std::string& mode, const std::string& oid) {
  return berth::TreeEntry{mode, {}, oid};
}

} // namespace

TEST(RestateStatus, EachChangedPathAnewTheOthersAsTheyWere) {
  std::string before =
      z({"# branch.oid " + kH, "# branch.head main",
         "1 M. N... 100644 100644 100644 " + kH + " " + kI + " staged.txt",
         "1 .M N... 100644 100644 100644 " + kH + " " + kH + " dirty.txt",
         "1 .M N... 100644 100644 100644 " + kH + " " + kH + " kept.txt", "? old-untracked.txt"});
  std::map<std::string, berth::TreeEntry> index{{"clean.txt", entry("100644", kH)},
                                                {"link", entry("120000", kH)}};
  berth::PathChanges now{{"staged.txt", entry("100644", kW)},  // staged, then modified
                         {"dirty.txt", entry("100644", kH)},   // back to the index's
                         {"clean.txt", std::nullopt},          // deleted
                         {"link", entry("100644", kW)},        // a link become a file
                         {"new.txt", entry("100755", kW)},     // new
                         {"old-untracked.txt", std::nullopt}}; // gone
  auto restated = berth::restate_status(before,
                                        {"staged.txt", "dirty.txt", "clean.txt", "link", "new.txt",
                                         "old-untracked.txt", "ignored.log"},
                                        index, now);
  ASSERT_TRUE(restated);
  EXPECT_EQ(*restated,
            z({"# branch.oid " + kH, "# branch.head main",
               "1 .D N... 100644 100644 000000 " + kH + " " + kH + " clean.txt",
               "1 .M N... 100644 100644 100644 " + kH + " " + kH + " kept.txt",
               "1 .T N... 120000 120000 100644 " + kH + " " + kH + " link",
               "1 MM N... 100644 100644 100644 " + kH + " " + kI + " staged.txt", "? new.txt"}));
  auto summary = berth::parse_status_v2(*restated);
  EXPECT_EQ(summary.staged, 1);
  EXPECT_EQ(summary.modified, 4);
  EXPECT_EQ(summary.untracked, 1);
}

TEST(RestateStatus, WhatItCannotTellIsLeftToGit) {
  std::string rename =
      z({"2 R. N... 100644 100644 100644 " + kH + " " + kH + " R100 to.txt", "from.txt"});
  std::string deleted =
      z({"1 D. N... 100644 000000 000000 " + kH + " " + std::string(40, '0') + " gone.txt"});
  std::string intent = z({"1 .A N... 000000 000000 100644 " + std::string(40, '0') + " " +
                          std::string(40, '0') + " ita.txt"});
  std::string submodule = z({"1 .M SC.. 160000 160000 160000 " + kH + " " + kH + " sub"});
  berth::PathChanges any{{"to.txt", entry("100644", kW)},
                         {"from.txt", std::nullopt},
                         {"gone.txt", entry("100644", kW)},
                         {"ita.txt", entry("100644", kW)},
                         {"sub", entry("100644", kW)}};
  EXPECT_FALSE(berth::restate_status(rename, {"to.txt"}, {}, any)) << "a rename's new path";
  EXPECT_FALSE(berth::restate_status(rename, {"from.txt"}, {}, any)) << "a rename's old path";
  EXPECT_TRUE(berth::restate_status(rename, {"other.txt"}, {}, {{"other.txt", std::nullopt}}))
      << "a rename not touched is kept";
  EXPECT_FALSE(berth::restate_status(deleted, {"gone.txt"}, {}, any)) << "a staged deletion";
  EXPECT_FALSE(berth::restate_status(intent, {"ita.txt"}, {}, any)) << "intent to add";
  EXPECT_FALSE(berth::restate_status(submodule, {"sub"}, {}, any)) << "a submodule";
  EXPECT_FALSE(berth::restate_status(z({"! ignored"}), {}, {}, {})) << "an ignored line";
  EXPECT_FALSE(berth::restate_status(z({"? named.txt"}), {"named.txt"}, {}, {}))
      << "a named path not staged";
}
