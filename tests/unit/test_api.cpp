// The lifecycle through the public API only (include/berth/*.hpp), as an embedder calls it, on
// real repositories in a temp dir: create, diff, commit, accept (each strategy's contract and a
// conflict), discard to the trash and restore, the pool, doctor, and the errors an embedder
// branches on. The repositories are made with git itself (the test's own set-up, not berth).
#include "berth/berth.hpp"
#include "berth/error.hpp"
#include "repo_fixture.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace {

using berth::ErrorCode;
using berth_test::sh_git;
using berth_test::write;

std::string read(const std::string& path) {
  auto text = util::read_file(path);
  return text ? *text : std::string("<missing>");
}

// The shared fixture's repository, with a second file the accept tests change.
class Api : public berth_test::RepoFixture {
protected:
  void SetUp() override {
    RepoFixture::SetUp();
    write(util::join(repo_, "src/lib.txt"), "one\ntwo\nthree\n");
    sh_git(repo_, {"add", "-A"});
    sh_git(repo_, {"commit", "-q", "--amend", "-m", "initial"});
  }

  berth::Project project(std::vector<std::string> config = {}) {
    auto opened = berth::Project::open({repo_, std::move(config)});
    if (!opened) throw std::runtime_error("open: " + opened.error().message);
    return *opened;
  }

  berth::Workspace create(const berth::Project& p, const std::string& name, bool no_pool = true) {
    berth::NewOptions options;
    options.name = name;
    options.no_pool = no_pool;
    auto made = berth::create_workspace(p, options);
    if (!made) throw std::runtime_error("create: " + made.error().message);
    return made->workspace;
  }

  std::string head() { return sh_git(repo_, {"rev-parse", "HEAD"}); }
};

TEST_F(Api, CreateDiffCommitAcceptMerge) {
  auto p = project();
  auto w = create(p, "feature");
  EXPECT_EQ(w.branch, "berth/feature");
  EXPECT_EQ(w.base, head());
  EXPECT_EQ(read(util::join(w.path, "README.md")), "hello\n");
  EXPECT_EQ(util::dirname(w.path).find(repo_ + "/"), std::string::npos) << "outside the checkout";

  write(util::join(w.path, "src/lib.txt"), "one\nTWO\nthree\n");
  write(util::join(w.path, "notes.txt"), "new file\n");

  berth::DiffOptions stat;
  stat.format = berth::DiffFormat::stat;
  auto diff = berth::diff_workspace(p, "feature", stat);
  ASSERT_TRUE(diff) << diff.error().message;
  ASSERT_EQ(diff->files.size(), 2u);
  EXPECT_EQ(diff->files[0].path, "notes.txt");
  EXPECT_EQ(diff->files[0].status, 'A');
  EXPECT_EQ(diff->files[1].path, "src/lib.txt");
  EXPECT_EQ(diff->files[1].additions, 1);
  EXPECT_EQ(diff->files[1].deletions, 1);

  auto patch = berth::diff_workspace(p, "feature", {});
  ASSERT_TRUE(patch);
  EXPECT_NE(patch->patch.find("+TWO"), std::string::npos);
  EXPECT_NE(patch->patch.find("+new file"), std::string::npos);

  auto committed = berth::commit_workspace(p, "feature", "change two");
  ASSERT_TRUE(committed) << committed.error().message;
  EXPECT_FALSE(committed->commit.empty());
  auto status = berth::workspace_status(p, "feature");
  ASSERT_TRUE(status);
  EXPECT_EQ(status->ahead, 1);
  EXPECT_FALSE(status->dirty);

  std::string before = head();
  berth::AcceptOptions merge;
  merge.strategy = berth::Strategy::merge;
  auto accepted = berth::accept_workspace(p, "feature", merge);
  ASSERT_TRUE(accepted) << accepted.error().message;
  EXPECT_EQ(accepted->old_commit, before);
  EXPECT_EQ(accepted->new_commit, head());
  EXPECT_EQ(accepted->target, "main");
  EXPECT_EQ(read(util::join(repo_, "src/lib.txt")), "one\nTWO\nthree\n");
  EXPECT_EQ(read(util::join(repo_, "notes.txt")), "new file\n");
  ASSERT_TRUE(accepted->discarded) << "accept discards the workspace unless asked to keep it";
  auto listed = berth::list_workspaces(p);
  ASSERT_TRUE(listed);
  EXPECT_TRUE(listed->empty());
}

TEST_F(Api, ConflictChangesNothing) {
  auto p = project();
  auto w = create(p, "clash");
  write(util::join(w.path, "src/lib.txt"), "one\nagent\nthree\n");
  ASSERT_TRUE(berth::commit_workspace(p, "clash", "agent's change"));
  // Meanwhile the user changes the same line on their branch.
  write(util::join(repo_, "src/lib.txt"), "one\nuser\nthree\n");
  sh_git(repo_, {"commit", "-q", "-am", "user's change"});
  std::string before = head();

  berth::AcceptOptions merge;
  merge.strategy = berth::Strategy::merge;
  auto accepted = berth::accept_workspace(p, "clash", merge);
  // A result naming the paths and both sides, not an error (the CLI exits 3 with it).
  ASSERT_TRUE(accepted) << accepted.error().message;
  EXPECT_EQ(accepted->conflicts, std::vector<std::string>{"src/lib.txt"});
  EXPECT_EQ(accepted->onto, before);
  EXPECT_EQ(accepted->head, sh_git(w.path, {"rev-parse", "HEAD"}).substr(0, 40));
  EXPECT_EQ(accepted->new_commit, "");
  EXPECT_EQ(berth::exit_status(ErrorCode::conflict), 3);
  EXPECT_EQ(head(), before);
  EXPECT_EQ(read(util::join(repo_, "src/lib.txt")), "one\nuser\nthree\n");
  EXPECT_EQ(sh_git(repo_, {"status", "--porcelain"}), "");
  EXPECT_TRUE(berth::find_workspace(p, "clash")) << "the workspace stays for the agent to sync";
}

TEST_F(Api, ApplyStagesInTheCheckoutAndKeepsTheUsersWork) {
  auto p = project();
  auto w = create(p, "apply");
  write(util::join(w.path, "src/lib.txt"), "one\ntwo\nthree\nfour\n");
  // The user has uncommitted work in another file: it must survive untouched.
  write(util::join(repo_, "README.md"), "hello, mine\n");
  std::string before = head();

  berth::AcceptOptions apply;
  apply.strategy = berth::Strategy::apply;
  auto accepted = berth::accept_workspace(p, "apply", apply);
  ASSERT_TRUE(accepted) << accepted.error().message;
  EXPECT_TRUE(accepted->new_commit.empty()) << "apply stages; it does not commit";
  EXPECT_EQ(head(), before);
  EXPECT_EQ(read(util::join(repo_, "src/lib.txt")), "one\ntwo\nthree\nfour\n");
  EXPECT_EQ(read(util::join(repo_, "README.md")), "hello, mine\n");
  EXPECT_EQ(sh_git(repo_, {"diff", "--cached", "--name-only"}), "src/lib.txt");
}

TEST_F(Api, DiscardToTheTrashAndRestore) {
  auto p = project();
  auto w = create(p, "try");
  write(util::join(w.path, "draft.txt"), "unsaved idea\n");
  write(util::join(w.path, "README.md"), "changed\n");

  auto refused = berth::discard_workspace(p, "try", berth::Force::no, berth::Trash::no);
  ASSERT_FALSE(refused) << "dropping unsaved work without the trash needs force";
  EXPECT_EQ(refused.error().code, ErrorCode::unsaved_work);
  EXPECT_EQ(read(util::join(w.path, "draft.txt")), "unsaved idea\n");

  auto discarded = berth::discard_workspace(p, "try", berth::Force::no, berth::Trash::yes);
  ASSERT_TRUE(discarded) << discarded.error().message;
  EXPECT_TRUE(discarded->unsaved_work);
  ASSERT_TRUE(discarded->snapshot);
  EXPECT_EQ(discarded->snapshot->ref.rfind("refs/berth/trash/try/", 0), 0u);
  EXPECT_FALSE(berth::find_workspace(p, "try"));

  auto snapshots = berth::list_snapshots(p, std::string_view("try"));
  ASSERT_TRUE(snapshots);
  ASSERT_EQ(snapshots->size(), 1u);
  EXPECT_EQ((*snapshots)[0].state, "ok");

  // The name is free again at once; the snapshot comes back under another name.
  create(p, "try");
  auto restored = berth::restore_workspace(p, "try", std::string("try-again"));
  ASSERT_TRUE(restored) << restored.error().message;
  EXPECT_EQ(read(util::join(restored->workspace.path, "draft.txt")), "unsaved idea\n");
  EXPECT_EQ(read(util::join(restored->workspace.path, "README.md")), "changed\n");
  EXPECT_EQ(read(util::join(repo_, "README.md")), "hello\n") << "the checkout is never touched";
}

TEST_F(Api, PoolSlotBecomesAWorkspace) {
  auto p = project({"pool.size=1"});
  auto filled = berth::pool_fill(p, 1);
  ASSERT_TRUE(filled) << filled.error().message;
  ASSERT_EQ(filled->slots.size(), 1u);
  auto w = create(p, "pooled", /*no_pool=*/false);
  EXPECT_EQ(read(util::join(w.path, "src/lib.txt")), "one\ntwo\nthree\n");
  EXPECT_EQ(sh_git(w.path, {"symbolic-ref", "HEAD"}), "refs/heads/berth/pooled");
  EXPECT_EQ(sh_git(w.path, {"status", "--porcelain"}), "");
  auto after = berth::pool_status(p);
  ASSERT_TRUE(after);
  for (const auto& slot : after->slots)
    EXPECT_NE(slot.path, w.path) << "a slot taken is no longer in the pool";
  auto drained = berth::pool_drain(p);
  ASSERT_TRUE(drained) << drained.error().message;
  EXPECT_TRUE(drained->slots.empty());
}

TEST_F(Api, ManyWorkspacesAtOnceAndDiscardedTogether) {
  // create_workspaces (fork's) and discard_workspaces (pick's): one result per name, in order; a
  // refused one does not stop the others; each discarded one is in the trash, restorable.
  auto p = project({"pool.size=0"});
  ASSERT_TRUE(berth::pool_fill(p, 2)); // two warm slots, the third is made cold
  std::vector<berth::NewOptions> asked(4);
  for (size_t i = 0; i < asked.size(); ++i)
    asked[i].name = "try-" + std::to_string(i + 1);
  asked[2].name = "bad name!";
  auto made = berth::create_workspaces(p, asked);
  ASSERT_EQ(made.size(), 4u);
  ASSERT_FALSE(made[2]);
  EXPECT_EQ(made[2].error().code, ErrorCode::invalid_name);
  for (size_t i : {0, 1, 3}) {
    ASSERT_TRUE(made[i]) << made[i].error().message;
    EXPECT_EQ(made[i]->workspace.name, asked[i].name);
    EXPECT_EQ(read(util::join(made[i]->workspace.path, "src/lib.txt")), "one\ntwo\nthree\n");
    write(util::join(made[i]->workspace.path, "attempt.txt"), asked[i].name + "\n");
  }
  auto discarded = berth::discard_workspaces(p, {"try-1", "missing", "try-2", "try-4"},
                                             berth::Force::no, berth::Trash::yes);
  ASSERT_EQ(discarded.size(), 4u);
  ASSERT_FALSE(discarded[1]);
  EXPECT_EQ(discarded[1].error().code, ErrorCode::not_found);
  for (size_t i : {0, 2, 3}) {
    ASSERT_TRUE(discarded[i]) << discarded[i].error().message;
    EXPECT_TRUE(discarded[i]->snapshot);
  }
  auto listed = berth::list_workspaces(p);
  ASSERT_TRUE(listed);
  EXPECT_TRUE(listed->empty());
  auto back = berth::restore_workspace(p, "try-4", std::nullopt);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(read(util::join(back->workspace.path, "attempt.txt")), "try-4\n");
}

TEST_F(Api, ErrorsAnEmbedderBranchesOn) {
  auto p = project();
  create(p, "taken");
  berth::NewOptions again;
  again.name = "taken";
  auto dup = berth::create_workspace(p, again);
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().code, ErrorCode::name_taken);
  EXPECT_FALSE(dup.error().hint.empty());

  berth::NewOptions bad;
  bad.name = "../escape";
  auto invalid = berth::create_workspace(p, bad);
  ASSERT_FALSE(invalid);
  EXPECT_EQ(invalid.error().code, ErrorCode::invalid_name);

  auto missing = berth::diff_workspace(p, "nope", {});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::not_found);
  EXPECT_EQ(berth::exit_status(ErrorCode::not_found), 4);

  auto outside = berth::Project::open({tmp_->path(), {}});
  ASSERT_FALSE(outside);
  EXPECT_EQ(outside.error().code, ErrorCode::not_a_repository);

  auto report = berth::doctor(p, berth::Repair::no);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_TRUE(report->problems.empty()) << report->problems.front().message;
}

} // namespace
