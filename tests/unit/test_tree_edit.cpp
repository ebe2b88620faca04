// Tree edits without an index (core/tree_edit): several trees edited in one pass (edit_trees, as a
// discard's siblings are) give exactly the trees git builds through an index, and an edit finds
// the folders read under a commit's name (read_trees).
#include "core/tree_edit.hpp"
#include "repo_fixture.hpp"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace {

using berth_test::sh_git;
using berth_test::write;

class TreeEditTest : public berth_test::RepoFixture {
protected:
  void SetUp() override {
    RepoFixture::SetUp();
    write(util::join(repo_, "a/b/c/deep.txt"), "deep\n");
    write(util::join(repo_, "a/b/side.txt"), "side\n");
    write(util::join(repo_, "a/only/one.txt"), "one\n");
    write(util::join(repo_, "top.txt"), "top\n");
    sh_git(repo_, {"add", "-A"});
    sh_git(repo_, {"commit", "-q", "-m", "tree"});
    git_dir_ = sh_git(repo_, {"rev-parse", "--absolute-git-dir"});
    scratch_ = util::join(tmp_->path(), "scratch");
    ASSERT_TRUE(util::make_dirs(scratch_));
  }

  std::string blob(const std::string& text) {
    std::string file = util::join(tmp_->path(), "blob.txt");
    write(file, text);
    return sh_git(repo_, {"hash-object", "-w", file});
  }

  // What git builds: `base` read into a scratch index, the changes applied, the tree written.
  std::string through_index(const std::string& base, const berth::PathChanges& changes) {
    std::string index = util::join(tmp_->path(), "scratch.index");
    ::setenv("GIT_INDEX_FILE", index.c_str(), 1);
    sh_git(repo_, {"read-tree", base});
    // ("<mode> <oid>\t<path>"; mode 0 removes the entry)
    std::string info;
    for (const auto& [path, entry] : changes)
      info += (entry ? entry->mode + " " + entry->oid : "0 " + std::string(40, '0')) + "\t" + path +
              "\n";
    if (!info.empty()) sh_git(repo_, {"update-index", "--index-info"}, info);
    std::string tree = sh_git(repo_, {"write-tree"});
    ::unsetenv("GIT_INDEX_FILE");
    return tree;
  }

  std::string git_dir_, scratch_;
};

TEST_F(TreeEditTest, SeveralEditsInOnePassMatchGit) {
  std::string head = sh_git(repo_, {"rev-parse", "HEAD"});
  std::string base = sh_git(repo_, {"rev-parse", "HEAD^{tree}"});
  std::string x = blob("x\n"), y = blob("y\n");
  std::vector<berth::TreeEdit> edits{
      // A deep change and a new file at the top.
      {base,
       {{"a/b/c/deep.txt", berth::TreeEntry{"100644", {}, x}},
        {"new.txt", berth::TreeEntry{"100755", {}, y}}},
       {}},
      // A folder emptied (it goes), a new deep folder.
      {base,
       {{"a/only/one.txt", std::nullopt}, {"n/e/w.txt", berth::TreeEntry{"100644", {}, x}}},
       head},
      // Nothing changed: the same tree.
      {base, {}, {}},
  };
  auto made = berth::edit_trees(git_dir_, edits, scratch_);
  ASSERT_TRUE(made) << made.error().message;
  ASSERT_EQ(made->size(), 3u);
  for (size_t k = 0; k < edits.size(); ++k) {
    ASSERT_TRUE((*made)[k]) << k;
    EXPECT_EQ(*(*made)[k], through_index(base, edits[k].changes)) << k;
  }
  EXPECT_EQ(*(*made)[2], base);
  // One edit alone gives the same tree as in the batch.
  auto alone = berth::edit_tree(git_dir_, base, edits[1].changes, scratch_);
  ASSERT_TRUE(alone && *alone);
  EXPECT_EQ(**alone, *(*made)[1]);
}

// Thousands of new folders at one depth (a compare of many attempts edits them all in one
// conversation): asked all at once, git's answers would fill their pipe while berth still wrote.
TEST_F(TreeEditTest, ThousandsOfFoldersAtOneDepth) {
  std::string base = sh_git(repo_, {"rev-parse", "HEAD^{tree}"});
  std::string x = blob("x\n");
  berth::PathChanges changes;
  // (3,000: ~120 KiB of answers, twice what a pipe holds, for ~250 KiB of paths asked)
  for (int i = 0; i < 3000; ++i)
    changes["f" + std::to_string(i) + "/x.txt"] = berth::TreeEntry{"100644", {}, x};
  auto made = berth::edit_trees(git_dir_, {{base, changes, {}}}, scratch_);
  ASSERT_TRUE(made) << made.error().message;
  ASSERT_EQ(made->size(), 1u);
  ASSERT_TRUE((*made)[0]);
  EXPECT_EQ(*(*made)[0], through_index(base, changes));
}

TEST_F(TreeEditTest, AnImpossibleEditLeavesTheOthers) {
  std::string base = sh_git(repo_, {"rev-parse", "HEAD^{tree}"});
  std::string x = blob("x\n");
  std::vector<berth::TreeEdit> edits{
      // A file where a folder with files stays: no work tree holds that.
      {base,
       {{"a/b", berth::TreeEntry{"100644", {}, x}},
        {"a/b/c/deep.txt", berth::TreeEntry{"100644", {}, x}}},
       {}},
      {base, {{"top.txt", berth::TreeEntry{"100644", {}, x}}}, {}},
  };
  auto made = berth::edit_trees(git_dir_, edits, scratch_);
  ASSERT_TRUE(made);
  EXPECT_FALSE((*made)[0]);
  ASSERT_TRUE((*made)[1]);
  EXPECT_EQ(*(*made)[1], through_index(base, edits[1].changes));
}

TEST_F(TreeEditTest, FoldersReadUnderACommitsName) {
  std::string head = sh_git(repo_, {"rev-parse", "HEAD"});
  std::string base = sh_git(repo_, {"rev-parse", "HEAD^{tree}"});
  berth::TreeListing listing;
  auto read =
      berth::read_trees(git_dir_, {head + "^{tree}", head + ":a/b", head + ":nope"}, listing);
  ASSERT_TRUE(read && *read);
  ASSERT_TRUE(listing.at(head + "^{tree}"));
  EXPECT_EQ(listing.at(head + "^{tree}")->oid, base);
  ASSERT_TRUE(listing.at(head + ":a/b"));
  EXPECT_EQ(listing.at(head + ":a/b")->entries.size(), 2u); // c/ and side.txt
  EXPECT_FALSE(listing.at(head + ":nope"));
  // A file's "folder" is no tree either.
  ASSERT_TRUE(berth::read_trees(git_dir_, {head + ":top.txt"}, listing).value_or(false));
  EXPECT_FALSE(listing.at(head + ":top.txt"));
  // The edit finds its folders there (read as the commit) and gives git's tree.
  berth::PathChanges changes{{"a/b/side.txt", berth::TreeEntry{"100644", {}, blob("s\n")}}};
  auto made = berth::edit_trees(git_dir_, {{base, changes, head}}, scratch_, &listing);
  ASSERT_TRUE(made && (*made)[0]);
  EXPECT_EQ(*(*made)[0], through_index(base, changes));
}

} // namespace
