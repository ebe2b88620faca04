// The workspace lifecycle: new, list, status, discard, restore.
//
// Every flow reads top to bottom: the reason for each step is written above it. Registry records
// change under the project lock; git work that runs the user's hooks happens outside it, so one
// slow workspace (or hook) never stalls the others: checkouts, deletions of whole trees, and also
// berth's own ref updates (`worktree add -b`, snapshot refs, branch deletions), which run the
// user's reference-transaction hook. The pattern: claim the record under the lock (creating or
// discarding, held by this process), release it, do the git work, take it again to finish.
#include "berth/berth.hpp"
#include "core/admin_files.hpp"
#include "core/behind.hpp"
#include "core/capture.hpp"
#include "core/crash_checks.hpp"
#include "core/name.hpp"
#include "core/nested.hpp"
#include "core/pool.hpp"
#include "core/porcelain.hpp"
#include "core/ports.hpp"
#include "core/registry.hpp"
#include "core/roots.hpp"
#include "core/sandbox.hpp"
#include "core/setup.hpp"
#include "core/shadow.hpp"
#include "core/trash.hpp"
#include "core/tree_claim.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/parallel.hpp"
#include "util/paths.hpp"
#include "util/process_info.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <functional>
#include <future>
#include <sys/stat.h>
#include <thread>
#include <tuple>
#include <unistd.h>

namespace berth {

GitCall repo_call(const Project& project, std::vector<std::string> args) {
  args.insert(args.begin(), "--git-dir=" + project.common_dir());
  return GitCall{std::move(args), project.common_dir(), {}, {}, util::Stream::pipe};
}

GitCall workspace_call(const Workspace& workspace, std::vector<std::string> args) {
  auto prefix = workspace_git_args(workspace.git_dir, workspace.path);
  args.insert(args.begin(), prefix.begin(), prefix.end());
  return GitCall{std::move(args), workspace.path, {}, {}, util::Stream::pipe};
}

Error no_work_tree_error(const Project& project) {
  return Error{ErrorCode::bare_repository,
               fmt::format("git sees no work tree at {}: the repository's config says it is "
                           "bare, or names another work tree",
                           project.main_worktree()),
               "run `berth doctor` (it names the setting and `--repair` fixes it)",
               std::nullopt,
               {}};
}

Result<std::vector<WorktreeEntry>> worktrees(const Project& project) {
  // git reads every worktree's HEAD for this: one planted FIFO would hang it.
  BERTH_TRY(refuse_blocking_admin(project.common_dir()));
  GitCall list = repo_call(project, {"worktree", "list", "--porcelain", "-z"});
  auto out = BERTH_TRY(git_status_of(list));
  // A `git worktree add` half-way (outside berth's lock): asked again.
  for (int attempt = 1; attempt < 20 && !out.ok() && saw_half_made_worktree(out.err); ++attempt) {
    wait_for_half_made_worktree(attempt);
    out = BERTH_TRY(git_status_of(list));
  }
  if (!out.ok()) return tl::unexpected(git_error(list, out));
  auto entries = parse_worktree_list(out.out);
  if (!entries.empty() && !entries.front().bare && !project.main_worktree().empty())
    entries.front().path = project.main_worktree();
  return entries;
}

void test_kill_at(std::string_view step) {
  static const char* wanted = std::getenv("BERTH_TEST_FAIL_AT");
  if (wanted && fmt::format("{}:kill", step) == wanted) ::kill(::getpid(), SIGKILL);
}

bool rename_worktree(const std::string& git_dir, const std::string& from, const std::string& to,
                     std::string_view kill_step) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) != 0)
    return false;
  if (!kill_step.empty()) test_kill_at(kill_step);
  auto real = util::real_path(to);
  if (!real ||
      !util::write_file_atomic(util::join(git_dir, "gitdir"), util::join(*real, ".git") + "\n")) {
    (void)::renameat2(AT_FDCWD, to.c_str(), AT_FDCWD, from.c_str(), RENAME_NOREPLACE);
    return false;
  }
  return true;
}

std::optional<std::string> berth_executable() {
  auto self = util::real_path("/proc/self/exe");
  if (!self || (util::basename(*self) != "berth" && util::basename(*self) != "git-berth"))
    return std::nullopt;
  return *self;
}

int64_t unix_now() {
  return static_cast<int64_t>(::time(nullptr));
}

std::map<std::string, std::optional<std::string>> berth_identity() {
  return {{"GIT_AUTHOR_NAME", "berth"},
          {"GIT_AUTHOR_EMAIL", "berth@localhost"},
          {"GIT_COMMITTER_NAME", "berth"},
          {"GIT_COMMITTER_EMAIL", "berth@localhost"}};
}

Result<CheckoutTuning> checkout_tuning(const Project& project) {
  CheckoutTuning t;
  // One config read for everything a checkout depends on (each git call costs a few ms, and
  // taking a pool slot should cost about ten of them in all).
  auto read = BERTH_TRY(git_status_of(repo_call(
      project,
      {"config", "-z", "--get-regexp",
       "^(checkout\\.workers|filter\\.lfs\\.process|filter\\.lfs\\.smudge|core\\.hookspath)$"})));
  std::map<std::string, std::string> config;
  for (const auto& entry : split_z(read.out)) {
    auto nl = entry.find('\n');
    config[entry.substr(0, nl)] = nl == std::string::npos ? "" : entry.substr(nl + 1);
  }
  if (auto it = config.find("core.hookspath"); it != config.end()) t.hooks_path = it->second;
  // git's own default is one checkout worker; a fresh workspace writes every file, so use the
  // cores unless the user chose a value.
  if (!config.count("checkout.workers"))
    t.args = {"-c", fmt::format("checkout.workers={}",
                                std::max(1u, std::thread::hardware_concurrency()))};
  // LFS: with setup.lfs = "skip", files stay pointers (git-lfs's own --skip mode). Without
  // git-lfs installed but its filter configured, git would die mid-checkout: check out the
  // pointers instead, and say so.
  bool lfs_configured = config.count("filter.lfs.process") || config.count("filter.lfs.smudge");
  if (lfs_configured && util::find_in_path("git-lfs").empty()) {
    t.args.insert(t.args.end(), {"-c", "filter.lfs.process=", "-c", "filter.lfs.smudge=", "-c",
                                 "filter.lfs.required=false"});
    t.warnings.push_back("git-lfs is not installed: LFS files are left as pointers (install "
                         "git-lfs, then `git lfs pull` in the workspace)");
  } else if (lfs_configured && project.config().get_string("setup.lfs") == "skip") {
    t.args.insert(t.args.end(), {"-c", "filter.lfs.process=git-lfs filter-process --skip", "-c",
                                 "filter.lfs.smudge=git-lfs smudge --skip -- %f"});
  }
  return t;
}

static bool hook_exists(const Project& project, const Workspace& w, const std::string& hooks_path,
                        const std::string& name) {
  // Where git looks: core.hooksPath (relative to the work tree), else <common-dir>/hooks.
  std::string dir = hooks_path.empty() ? util::join(project.common_dir(), "hooks")
                                       : util::absolute(hooks_path, w.path);
  return ::access(util::join(dir, name).c_str(), X_OK) == 0;
}

namespace {
constexpr const char* kLockReasonPrefix = "berth";
// An index this large (about 10k entries) is worth settling after a checkout; below it the
// re-hash is cheaper than the wait.
constexpr off_t kSettleIndexBytes = 1 << 20;
} // namespace

std::string read_gitfile(const std::string& work_tree) {
  std::string gitfile = util::join(work_tree, ".git");
  if (util::is_symlink(gitfile)) return {};
  std::string text = chomp(util::read_file(gitfile).value_or(""));
  if (text.rfind("gitdir: ", 0) != 0) return {};
  return util::real_path(util::absolute(text.substr(8), work_tree)).value_or("");
}

void settle_index(const Workspace& w) {
  struct stat st;
  if (::stat(util::join(w.git_dir, "index").c_str(), &st) == 0)
    while (::time(nullptr) <= st.st_mtime)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  (void)git_status_of(workspace_call(w, {"update-index", "-q", "--refresh"}));
}

void settle_large_index(const Workspace& w) {
  struct stat st;
  if (::stat(util::join(w.git_dir, "index").c_str(), &st) == 0 && st.st_size >= kSettleIndexBytes)
    settle_index(w);
}

std::string idle_lock_reason(const Workspace& workspace) {
  return fmt::format("{}: workspace {} (remove with `berth discard`)", kLockReasonPrefix,
                     workspace.name);
}

void set_lock_reason(const Project& project, const Workspace& workspace,
                     const std::string& reason) {
  (void)project;
  std::string locked = util::join(workspace.git_dir, "locked");
  auto current = util::read_file(locked);
  if (!current || current->rfind(kLockReasonPrefix, 0) != 0) return;
  // git has no "change the reason", and unlock + lock would leave a moment unlocked (and cost two
  // processes): replace the lock file's content atomically instead. Its format is git's
  // documented one (gitrepository-layout: worktrees/<id>/locked holds the reason).
  (void)util::write_file_atomic(locked, reason + "\n");
}

Result<void> exclude_in_checkouts(const Project& project, const std::string& line,
                                  std::string_view comment, const std::string& also) {
  std::string info = util::join(project.common_dir(), "info");
  std::string file = util::join(info, "exclude");
  std::string content = util::read_file(file).value_or("");
  for (const auto& existing : split_lines(content))
    if (existing == line || (!also.empty() && existing == also)) return {};
  if (!content.empty() && content.back() != '\n') content += '\n';
  content += fmt::format("# {}\n{}\n", comment, line);
  if (auto made = util::make_dirs(info); !made) return fail(ErrorCode::io_error, made.error());
  if (auto written = util::write_file_atomic(file, content); !written)
    return fail(ErrorCode::io_error, written.error());
  return {};
}

namespace {

Registry registry_of(const Project& project) {
  return Registry(project.berth_dir());
}

Result<bool> ref_exists(const Project& project, const std::string& ref) {
  auto r = BERTH_TRY(git_status_of(repo_call(project, {"rev-parse", "--verify", "-q", ref})));
  return r.ok();
}

// A branch that keeps `branch` from being created: git stores refs as paths, so a branch `berth`
// blocks every `berth/...` branch and a `berth/x/y` blocks `berth/x` (a directory/file conflict
// git reports as "cannot lock ref"). "" when none does.
Result<std::string> blocking_branch(const Project& project, const std::string& branch) {
  for (auto slash = branch.find('/'); slash != std::string::npos;
       slash = branch.find('/', slash + 1))
    if (BERTH_TRY(ref_exists(project, "refs/heads/" + branch.substr(0, slash))))
      return branch.substr(0, slash);
  auto below = BERTH_TRY(git(repo_call(project, {"for-each-ref", "--count=1", "--format=%(refname)",
                                                 "refs/heads/" + branch + "/"})));
  std::string ref = chomp(below.out);
  return ref.empty() ? ref : ref.substr(std::string_view("refs/heads/").size());
}

// Whether git lists a worktree at `path` (true when git cannot tell: then it is asked to remove
// it, and says why not).
bool git_has_worktree(const Project& project, const std::string& path) {
  auto list = worktrees(project);
  if (!list) return true;
  return std::any_of(list->begin(), list->end(),
                     [&](const WorktreeEntry& e) { return e.path == path; });
}

std::string read_lock_reason(const Workspace& w, bool* locked) {
  auto text = util::read_file(util::join(w.git_dir, "locked"));
  *locked = text.has_value();
  return text ? chomp(*text) : std::string();
}

// Point the workspace's .git file back at its admin dir, as berth's record has it. An agent may
// have rewritten it (to another repository, say), and git refuses to move or remove a worktree
// whose .git file does not point back. The atomic rename replaces a symlink itself, never what
// it points to.
void repoint_gitfile(const Workspace& w) {
  if (read_gitfile(w.path) == w.git_dir) return;
  (void)util::write_file_atomic(util::join(w.path, ".git"), "gitdir: " + w.git_dir + "\n");
}

// BERTH_TEST_FAIL_AT=<step>: for berth's own tests only, in the spirit of git's GIT_TEST_*
// variables. `create` fails at that step as if something real had gone wrong there, so the suite
// can check that a failure at every step leaves nothing behind, also at steps no real failure
// can be arranged for. `<step>:kill` dies there by SIGKILL instead, as a kill -9 would: what the
// next command's recovery must undo. Read here and nowhere else; documented in docs/errors.md.
Result<void> test_failure_at(std::string_view step) {
  static const char* wanted = std::getenv("BERTH_TEST_FAIL_AT");
  test_kill_at(step);
  if (wanted && step == wanted)
    return fail(ErrorCode::io_error,
                fmt::format("failure injected at step '{}' (BERTH_TEST_FAIL_AT)", step),
                "unset BERTH_TEST_FAIL_AT: it is for berth's own tests");
  return {};
}

// A relative workspace root inside the main checkout must not show up in `git status` there.
Result<void> exclude_root_from_checkout(const Project& project) {
  if (project.main_worktree().empty()) return {};
  const std::string& root = project.workspace_root();
  if (!util::is_within(root, project.main_worktree()) || root == project.main_worktree()) return {};
  std::string rel = root.substr(project.main_worktree().size()); // "/.worktrees"
  return exclude_in_checkouts(project, rel + "/", "berth workspaces", rel);
}

// Resolve a revision as the user meant it: relative to the worktree they stand in.
Result<std::string> resolve_commit(const Project& project, const std::string& rev) {
  if (rev.empty() || rev.front() == '-')
    return fail(ErrorCode::invalid_revision, fmt::format("invalid revision '{}'", rev),
                "name a commit, branch or tag, e.g. --base main");
  auto r = BERTH_TRY(
      git_status_of(GitCall{{"rev-parse", "--verify", "-q", "--end-of-options", rev + "^{commit}"},
                            project.cwd(),
                            {},
                            {},
                            util::Stream::pipe}));
  if (!r.ok())
    return fail(ErrorCode::invalid_revision, fmt::format("unknown revision '{}'", rev),
                "name an existing commit, branch or tag (see `git log --oneline`)");
  return chomp(r.out);
}

bool repository_has_commits(const Project& project) {
  auto r = git_status_of(repo_call(project, {"for-each-ref", "--count=1", "--format=x"}));
  return r && r->ok() && !r->out.empty();
}

// Undo the git side of a half-made workspace: its worktree and its branch (only if it still
// points where we created it). Its record stays, held by the caller: no other command acts on a
// record a live process holds, so this needs no lock (and the user's reference-transaction hook,
// which the branch's deletion runs, never runs under it). False when nothing was undone.
bool undo_creation(const Project& project, const Workspace& made, const std::string& start) {
  auto records = registry_of(project).load_all();
  if (!records) return false;
  // A creation killed right after `git worktree add` left its record without the admin dir git
  // made for it: that one (the only one naming the tree, no other record's) is the record's.
  Workspace w = made;
  if (w.git_dir.empty()) w.git_dir = creation_admin_dir(project, *records, w);
  // A record (a dead creator's, read back from disk) never authorises deleting a tree git or
  // another record says is someone else's: then nothing is undone (its branch may be that tree's
  // HEAD), and `berth doctor` names the record.
  if (!tree_claim_problem(project, *records, w).empty()) return false;
  bool registered = false;
  if (auto list = worktrees(project))
    for (const auto& entry : *list)
      if (entry.path == w.path) registered = true;
  if (registered) {
    auto removed =
        git_status_of(repo_call(project, {"worktree", "remove", "--force", "--force", w.path}));
    if ((!removed || !removed->ok()) && util::is_directory(w.path) &&
        deletable_workspace_path(project, w)) {
      (void)util::remove_tree(w.path);
      (void)git_status_of(repo_call(project, {"worktree", "remove", "--force", "--force", w.path}));
    }
  } else if (util::is_directory(w.path) && deletable_workspace_path(project, w)) {
    (void)util::remove_tree(w.path);
  }
  if (!start.empty())
    (void)git_status_of(repo_call(project, {"update-ref", "-d", "refs/heads/" + w.branch, start}));
  return true;
}

// Undo a half-made workspace whose record this process holds: the git side without the lock,
// then the record under it. False when nothing was undone (the record stays; the next command or
// `berth doctor` deals with it once this process is gone).
bool roll_back(const Project& project, const Workspace& made, const std::string& start) {
  if (!undo_creation(project, made, start)) return false;
  Registry registry = registry_of(project);
  auto lock = registry.lock();
  if (!lock) return false;
  (void)registry.remove(name_slug(made.name));
  return true;
}

// The rest of a discard killed after its tree left its place (moved aside, or removed): the tree
// aside lets go of the branch (its HEAD detached, as discard does), and the branch goes when
// nothing else has it checked out and its commits are in the trash (or it never moved from the
// base). Without this a dead discard left `berth/NAME` behind: `new` and `restore` of the name
// failed with branch_exists, and doctor saw nothing.
void finish_discard(const Project& project, const Workspace& w) {
  std::string gitfile = util::read_file(util::join(w.git_dir, "gitdir")).value_or("");
  std::string aside = util::dirname(chomp(gitfile));
  // Killed between the two halves of the move aside (rename_worktree): the tree is in .trash,
  // but the admin dir still names its old place. The tree whose .git file names this admin dir
  // is it; the second half is done now (else `worktree remove` below would drop the admin dir
  // and leave the tree in .trash for ever, unseen by doctor and the deleter).
  if (!util::is_directory(aside) && util::is_directory(w.git_dir)) {
    std::string trash = util::join(util::dirname(w.path), ".trash");
    if (DIR* d = ::opendir(trash.c_str())) {
      while (dirent* e = ::readdir(d)) {
        std::string path = util::join(trash, e->d_name);
        if (e->d_name[0] == '.' || read_gitfile(path) != w.git_dir) continue;
        auto real = util::real_path(path);
        if (real && util::write_file_atomic(util::join(w.git_dir, "gitdir"),
                                            util::join(*real, ".git") + "\n")) {
          gitfile = util::join(*real, ".git");
          aside = *real;
        }
        break;
      }
      ::closedir(d);
    }
  }
  if (!gitfile.empty() && aside != w.path && util::is_directory(aside)) {
    Workspace moved = w;
    moved.path = aside;
    // As discard does for a tree it moves aside: submodule links made absolute for the deleter.
    (void)repair_submodule_links(moved);
    (void)git_status_of(workspace_call(
        moved, {"update-ref", "--no-deref", "-m", "berth: discarded", "HEAD", "HEAD"}));
  } else {
    (void)git_status_of(repo_call(project, {"worktree", "remove", "--force", "--force", w.path}));
  }
  std::string ref = "refs/heads/" + w.branch;
  auto tip = git_status_of(repo_call(project, {"rev-parse", "--verify", "-q", ref}));
  if (!tip || !tip->ok()) return;
  std::string commit = chomp(tip->out);
  if (auto list = worktrees(project))
    for (const auto& entry : *list)
      if (entry.branch == ref) return;
  if (commit == w.base || kept_in_trash(project, w.name, commit))
    (void)git_status_of(repo_call(project, {"update-ref", "-d", ref, commit}));
}

} // namespace

// Records whose holder died (a crash, kill -9, a lost machine) are finished or undone here, so that
// a half-made or half-removed workspace is never shown as if it were whole.
Result<void> recover_interrupted(const Project& project) {
  Registry registry = registry_of(project);
  auto all = BERTH_TRY(registry.load_all());
  // The repository was moved (and `git worktree repair` run): records still name the old admin
  // dirs. Re-linked where git's links prove which tree is which, so that no existing workspace
  // is taken for a missing one; the others show as "unlinked" until `berth doctor --repair`.
  if (needs_relink(project, all)) {
    auto lock = BERTH_TRY(registry.lock());
    auto current = BERTH_TRY(registry.load_all());
    (void)relink_moved(project, current, Repair::no);
  }
  bool any = std::any_of(all.begin(), all.end(), [](const Workspace& w) {
    return held(w) && !util::process_alive(w.holder_pid, w.holder_start);
  });
  // A commit or sync that died half-way is finished or undone (its marker says which).
  settle_dead_ops(project, nullptr);
  // Temp files of writers that died (kill -9 mid-capture) go too: nobody else removes them.
  std::vector<std::string> cleaned;
  (void)stale_temp_files(project, Repair::yes, cleaned);
  if (!any) return {};
  // A dead creation or discard is taken over under the lock (the record held by this process,
  // so that no other command undoes it at the same time), and undone or finished after it: the
  // branch's deletion runs the user's reference-transaction hook, never under the lock. If this
  // process dies too, the next command takes it over again (each step can be done twice).
  std::vector<Workspace> undo, finish, revive;
  {
    auto lock = BERTH_TRY(registry.lock());
    for (auto& w : BERTH_TRY(registry.load_all())) {
      if (!held(w) || util::process_alive(w.holder_pid, w.holder_start)) continue;
      if (!record_problem(project, w).empty()) continue; // never acted on (doctor reports it)
      bool dead_run =
          !(w.state == State::creating || (w.state == State::discarding && !util::exists(w.path)));
      hold(w, w.state); // taken over: no other command acts on it meanwhile
      BERTH_TRY(registry.save(w));
      (dead_run ? revive : w.state == State::creating ? undo : finish).push_back(w);
    }
  }
  for (const auto& w : undo)
    roll_back(project, w, w.start.empty() ? w.base : w.start);
  // A run that died: what its end would have done. Non-files its command planted in the admin
  // dir moved aside first (the session's end reads HEAD), then its sandboxed session finished if
  // it left one (HEAD detached, objects in quarantine); the workspace is free. (Also a discard
  // that died before its tree left its place: the workspace is as it was, its snapshot in the
  // trash.) Outside the lock: rebuilding the index and moving the session's commits onto the
  // branch run the user's hooks (post-index-change, reference-transaction).
  for (auto w : revive) {
    if (util::is_directory(w.git_dir)) (void)repair_admin_files(w);
    (void)recover_confined_session(project, w);
    auto lock = BERTH_TRY(registry.lock());
    auto now = BERTH_TRY(registry.load(name_slug(w.name)));
    if (!now || now->holder_pid != static_cast<int>(::getpid())) continue; // not ours now
    w = *now;
    w.state = State::ready;
    w.holder_pid = 0;
    w.holder_start = 0;
    BERTH_TRY(registry.save(w));
    set_lock_reason(project, w, idle_lock_reason(w));
  }
  // The snapshot was taken before anything was removed; finish the removal.
  for (const auto& w : finish) {
    finish_discard(project, w);
    auto lock = BERTH_TRY(registry.lock());
    (void)registry.remove(name_slug(w.name));
  }
  return {};
}

namespace {

// A `git gc --prune=now` running meanwhile deletes objects the snapshot wrote before its ref
// existed (or between two of its git calls, which then fail). Checked now, while the workspace
// (tree, index, branch) is all there to take it again; a snapshot that cannot be made whole is
// dropped (a ref to missing objects also breaks the user's next gc) and the discard stops before
// anything is deleted.
Result<Snapshot> take_whole_snapshot(const Project& project, const Workspace& w, Content content) {
  constexpr int kAttempts = 4;
  Result<Snapshot> snap = fail(ErrorCode::git_failed, "no snapshot taken");
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    // Again without the shadow index, whose remembered trees may be the very objects pruned,
    // and right after the gc running now (the next one prunes only after its repack).
    if (attempt > 0) {
      discard_shadow(project, w);
      wait_for_running_gc(project);
    }
    snap = take_snapshot(project, w, content);
    // The user's hook said no: asking again gets the same answer.
    if (!snap && snap.error().code == ErrorCode::hook_refused) return snap;
    std::optional<Error> why;
    if (snap && snapshot_complete(project, snap->commit, &why)) return snap;
    if (snap) {
      (void)git_status_of(repo_call(project, {"update-ref", "-d", snap->ref, snap->commit}));
      // The error carries the check that found objects missing.
      Error lost = why ? std::move(*why) : Error{ErrorCode::git_failed, {}, {}, std::nullopt, {}};
      lost.code = ErrorCode::git_failed;
      lost.message = fmt::format("the snapshot of '{}' keeps losing objects (a `git gc "
                                 "--prune=now` running meanwhile?): nothing was deleted",
                                 w.name);
      lost.hint = "wait for the gc to finish, then discard again";
      snap = tl::unexpected(std::move(lost));
    }
  }
  return snap;
}

// How to fill a newly added (still empty) worktree.
// `from` is the commit the worktree's index and files already hold (a pool slot's), or "" when
// the worktree is empty.
using Populate = std::function<Result<void>(const Workspace&, const std::string& from)>;

struct CreatePlan {
  std::string name;
  std::string base;  // recorded base
  std::string start; // commit the branch starts at
  std::string owner;
  Populate populate;
  SetupListener on_setup;
  bool no_pool = false;
  std::string hooks_path; // core.hooksPath, if set
  // What `populate` made besides the workspace (a restore's branch of the agent's own), undone
  // after the workspace is rolled back.
  std::function<void()> undo_populate;
};

Result<std::string> branch_for(const Project& project, const std::string& name) {
  std::string prefix = project.config().get_string("branch_prefix");
  BERTH_TRY(validate_branch_prefix(prefix));
  std::string branch = prefix + name;
  auto check =
      BERTH_TRY(git_status_of(repo_call(project, {"check-ref-format", "refs/heads/" + branch})));
  if (!check.ok())
    return fail(ErrorCode::invalid_name, fmt::format("'{}' is not a valid branch name", branch),
                "choose a simpler workspace name");
  return branch;
}

Result<Created> create(const Project& project, const CreatePlan& plan) {
  Registry registry = registry_of(project);
  std::string branch = BERTH_TRY(branch_for(project, plan.name));
  std::string slug = name_slug(plan.name);
  std::string path = util::join(project.workspace_root(), slug);
  Created created;

  BERTH_TRY(recover_interrupted(project));

  Workspace w;
  std::string from; // what the worktree already holds (a pool slot's commit)
  // Under the lock: the workspace, then what populate made besides (only once the tree is gone).
  auto roll_back_all = [&] {
    if (roll_back(project, w, plan.start) && plan.undo_populate) plan.undo_populate();
  };
  {
    // Under the lock: claim the name (the record, marked creating and held by this process).
    auto lock = BERTH_TRY(registry.lock());
    if (auto existing = BERTH_TRY(registry.load(slug))) {
      if (existing->name == plan.name)
        return fail(ErrorCode::name_taken, fmt::format("workspace '{}' already exists", plan.name),
                    fmt::format("pick another name, or `berth discard {}` first", plan.name));
      return fail(
          ErrorCode::name_taken,
          fmt::format("'{}' would share a folder with workspace '{}'", plan.name, existing->name),
          "pick another name");
    }
    if (util::exists(path))
      return fail(ErrorCode::name_taken, fmt::format("'{}' already exists", path),
                  "pick another name, or remove that directory");
    if (BERTH_TRY(ref_exists(project, "refs/heads/" + branch))) {
      for (const auto& entry : BERTH_TRY(worktrees(project)))
        if (entry.branch == "refs/heads/" + branch)
          return fail(ErrorCode::branch_exists,
                      fmt::format("branch '{}' is checked out at {}", branch, entry.path),
                      "pick another workspace name");
      return fail(ErrorCode::branch_exists, fmt::format("branch '{}' already exists", branch),
                  fmt::format("pick another name, or delete the branch: git branch -D {}", branch));
    }
    if (auto blocking = BERTH_TRY(blocking_branch(project, branch)); !blocking.empty())
      return fail(ErrorCode::branch_exists,
                  fmt::format("branch '{}' cannot be made: your branch '{}' is in the way (git "
                              "cannot have both)",
                              branch, blocking),
                  fmt::format("rename that branch (git branch -m {} NEW-NAME), or set another "
                              "branch_prefix (e.g. berth -c branch_prefix=ws/ ...)",
                              blocking));

    // Only now that nothing refuses does anything appear on disk: a refused `new` changes nothing.
    if (auto made = util::make_dirs(project.workspace_root()); !made)
      return fail(ErrorCode::io_error, made.error(), "set workspace_root to a writable directory");
    BERTH_TRY(exclude_root_from_checkout(project));
    // The first workspace of a project: record its root, so that it is found again if the user
    // moves the repository.
    if (!read_project_home(project.berth_dir()))
      (void)write_project_home(project.berth_dir(),
                               {project.common_dir(), project.default_workspace_root()});
    note_main_worktree(project);

    w.name = plan.name;
    w.branch = branch;
    w.base = plan.base;
    w.path = path;
    w.root = project.workspace_root();
    w.start = plan.start;
    w.owner = plan.owner;
    w.created = w.last_used = unix_now();
    hold(w, State::creating);
    // Its port block, distinct from every other workspace's (records are only changed under
    // this lock, so two creations cannot pick the same block).
    auto others = BERTH_TRY(registry.load_all());
    w.port = BERTH_TRY(allocate_port_block(project, others));
    // The record goes first, marked "creating": if we die from here on, the next berth command
    // sees a dead holder and rolls everything back.
    BERTH_TRY(test_failure_at("record"));
    BERTH_TRY(registry.save(w));
  }
  // The name is claimed: the lock is released before git registers the worktree and creates the
  // branch, which runs the user's reference-transaction hook (and a slow one must not stop every
  // other berth command). Concurrent `git worktree add`s of distinct paths and branches are safe:
  // git makes each admin dir with mkdir (a counter on a clash) and guards it with a `locked` file
  // from the start, and each branch is its own ref. If we die from here on, the record (creating,
  // held by a dead process) makes the next berth command roll everything back.
  // From here on every failure undoes everything, the branch included: it did not exist when we
  // looked under the lock, and no other berth command makes it while our record holds the name,
  // so one at `start` now is ours (git may have made it before failing, as `worktree add -b` does
  // when the branch is checked out elsewhere).
  auto undo = [&](Error e) -> Result<Created> {
    roll_back_all();
    return tl::unexpected(std::move(e));
  };
  if (auto injected = test_failure_at("after-record"); !injected) return undo(injected.error());

  // A warm slot from the pool, if there is one: a rename and a ref update, no checkout.
  std::optional<TakenSlot> slot;
  if (!plan.no_pool) {
    auto taken = take_pool_slot(project, path, branch, plan.start, idle_lock_reason(w));
    if (!taken) return undo(taken.error());
    slot = *taken;
  }
  if (slot) {
    from = slot->commit;
    w.git_dir = slot->git_dir;
  } else {
    // `worktree add` reads every worktree's HEAD (is the branch checked out elsewhere?): a
    // FIFO planted in another one would hold it forever.
    if (auto blocked = refuse_blocking_admin(project.common_dir()); !blocked)
      return undo(blocked.error());
    GitCall add =
        repo_call(project, {"worktree", "add", "--no-checkout", "--no-track", "--lock", "--reason",
                            idle_lock_reason(w), "-b", branch, path, plan.start});
    constexpr int kAddAttempts = 20;
    auto added = git_status_of(add);
    // Another `git worktree add` (a parallel `new`, a pool filler) half-way: git died reading
    // its admin dir. What this one left (its branch, which git makes first) is undone, and it is
    // tried again.
    for (int attempt = 1;
         attempt < kAddAttempts && added && !added->ok() && saw_half_made_worktree(added->err);
         ++attempt) {
      undo_creation(project, w, plan.start);
      wait_for_half_made_worktree(attempt);
      added = git_status_of(add);
    }
    if (!added || !added->ok()) {
      if (!added) return undo(added.error());
      // git's last line says why (an earlier one is its progress note).
      Error e = git_error(
          add, *added,
          ref_hook_refused(added->err)
              ? fmt::format("cannot create workspace '{}': your reference-transaction hook "
                            "refused its branch {}",
                            plan.name, branch)
              : fmt::format("cannot create workspace '{}': {}", plan.name, last_line(added->err)));
      if (e.code != ErrorCode::hook_refused)
        e.hint = added->err.find("already") != std::string::npos
                     ? fmt::format("`git worktree list` shows what holds branch {}; free it or "
                                   "pick another name",
                                   branch)
                     : std::string("check that the workspace root is writable and has space, "
                                   "then try again");
      return undo(std::move(e));
    }
    // The admin dir comes from the .git file git just wrote; from now on berth uses its own
    // record of it and never reads the workspace's .git again.
    w.git_dir = read_gitfile(path);
    if (w.git_dir.empty()) {
      Error e = git_error(add, *added, fmt::format("git left no usable .git file in {}", path));
      e.hint = "check that the workspace root is writable and run `berth new` again";
      return undo(std::move(e));
    }
  }
  {
    auto saved = test_failure_at("worktree");
    if (saved) {
      auto lock = registry.lock();
      saved = lock ? registry.save(w) : Result<void>(tl::unexpected(lock.error()));
    }
    if (!saved) return undo(saved.error());
  }

  // Outside the lock: write the files. This is the slow part, and other workspaces proceed
  // meanwhile. Any failure (a filter erroring, a full disk) undoes everything.
  auto filled = test_failure_at("populate");
  if (filled) filled = plan.populate(w, from);
  if (!filled) return undo(filled.error());
  // A full checkout writes most files in the same second as the index: git then treats them as
  // "racily clean" and the agent's first `git status` re-hashes them all. On a large checkout,
  // wait for the clock to leave that second and refresh once, so the workspace is handed over
  // settled. (Pool slots are settled long before they are taken.)
  if (from.empty()) settle_large_index(w);

  // The user's post-checkout hook runs as `git worktree add` would run it (old = null, flag = 1);
  // its output goes to stderr, like git's, so stdout stays the workspace path alone.
  // (Only when there is one: `git hook run` costs a process even with nothing to run.)
  if (hook_exists(project, w, plan.hooks_path, "post-checkout")) {
    GitCall hook{{"hook", "run", "--ignore-missing", "post-checkout", "--", project.null_oid(),
                  plan.start, "1"},
                 w.path,
                 {},
                 {},
                 util::Stream::inherit};
    auto hooked = git_status_of(hook);
    if (hooked && !hooked->ok())
      created.warnings.push_back(
          fmt::format("post-checkout hook failed (exit {})", hooked->status()));
  }
  if (auto injected = test_failure_at("hook"); !injected) return undo(injected.error());

  // Make it ready to work in: included files, caches, submodules, trusted setup commands. A
  // failing setup command keeps the workspace, marked, with the failure reported.
  auto setup = test_failure_at("setup").and_then(
      [&] { return set_up_workspace(project, w, plan.on_setup); });
  if (!setup) return undo(setup.error());
  created.setup = *setup;
  if (setup->failed) {
    for (const auto& c : setup->commands)
      if (c.ran && c.exit_status != 0) {
        w.setup_error = fmt::format("setup command failed (exit {}): {}", c.exit_status, c.command);
        break;
      }
  }

  {
    w.state = State::ready;
    w.holder_pid = 0;
    w.holder_start = 0;
    w.start.clear(); // only needed to undo a creation
    auto ready = test_failure_at("ready");
    if (ready) {
      auto lock = registry.lock();
      ready = lock ? registry.save(w) : Result<void>(tl::unexpected(lock.error()));
    }
    if (!ready) return undo(ready.error());
  }
  created.workspace = w;
  // A slot was used (or none was there): top the pool up in the background for the next `new`.
  if (project.config().get_int("pool.size") > 0) pool_refill_in_background(project);
  if (auto warning = missing_helper_warning(project)) created.warnings.push_back(*warning);
  return created;
}

// The commits on a workspace's branch not in its base, read from the repository's refs alone.
static int branch_commits(const Project& project, const Workspace& w) {
  auto count = git_status_of(
      repo_call(project, {"rev-list", "--count", w.base + "..refs/heads/" + w.branch, "--"}));
  return count && count->ok() ? std::atoi(count->out.c_str()) : 0;
}

WorkspaceStatus status_of(const Project& project, const Workspace& w) {
  WorkspaceStatus s;
  s.workspace = w;
  s.last_used = w.last_used;
  // A record berth does not trust is never looked into (its path may be "/").
  if (!w.invalid.empty()) {
    s.state = "invalid";
    return s;
  }
  bool holder_alive = held(w) && util::process_alive(w.holder_pid, w.holder_start);
  s.state = holder_alive || w.state == State::landed ? std::string(state_name(w.state)) : "ready";
  bool locked = false;
  s.lock_reason = read_lock_reason(w, &locked);
  if (!util::is_directory(w.path) || !util::is_directory(w.git_dir)) {
    // A directory that is there is never "missing": its record lost track of its admin dir (or
    // of the directory itself, moved with the repository).
    // Without its directory: "missing" while git still has the worktree (`rm -rf` of the
    // directory), "removed" once git has none (`git worktree remove -ff`, or a prune): both are
    // cleaned up by `berth discard`, which keeps the branch's commits.
    if (!holder_alive)
      s.state = unlinked(w) || !moved_with_checkout(project, w).empty() ? "unlinked"
                : util::is_directory(w.git_dir)                         ? "missing"
                                                                        : "removed";
    // What discard would keep of it: its branch's commits.
    if (s.state == "missing" || s.state == "removed") s.ahead = branch_commits(project, w);
    return s;
  }
  // A FIFO (or a device, a directory...) planted where git expects a file would make the git
  // calls below wait forever: such a workspace is shown for what it is, and not looked into
  // (its branch lives in the repository's refs, out of the workspace's reach: its commits count).
  if (auto hostile = hostile_admin_files(w.git_dir); !hostile.empty()) {
    if (!holder_alive) s.state = "hostile";
    s.problem = describe_hostile(hostile);
    s.dirty = true;
    s.counted = false;
    s.ahead = branch_commits(project, w);
    return s;
  }
  for (const char* file : {"index", "HEAD", "logs/HEAD"}) {
    struct stat st;
    if (::stat(util::join(w.git_dir, file).c_str(), &st) == 0)
      s.last_used = std::max<int64_t>(s.last_used, st.st_mtime);
  }
  // Through the shadow index when the watcher can help: nothing is looked at when nothing
  // changed since the last look, only what changed otherwise (git records what it learnt in the
  // shadow, never in the agent's index). Else a read-only query: GIT_OPTIONAL_LOCKS=0 keeps
  // status from taking index.lock under an agent.
  auto shadow = open_shadow(project, w);
  std::optional<Verdict> seen;
  if (shadow) {
    seen = look(project, w, *shadow);
    // A shadow git cannot read (a crash mid-copy): drop it and ask the plain way.
    if (!seen) discard_shadow(project, w);
  }
  if (!seen) seen = look_plain(project, w);
  bool have_status = seen.has_value();
  std::string status_out = seen ? seen->status : std::string();
  std::string counts_out = seen ? seen->counts : std::string();
  shadow.reset();
  if (have_status) {
    auto summary = parse_status_v2(status_out);
    s.head = summary.head;
    s.head_branch = summary.branch;
    s.staged = summary.staged;
    s.modified = summary.modified;
    s.untracked = summary.untracked;
    s.conflicted = summary.conflicted;
    s.dirty = summary.dirty();
    // Conflict markers left by `berth sync` are for the agent to resolve: say so.
    if (summary.conflicted > 0 && s.state == "ready") s.state = "conflicted";
    // Its branch deleted behind berth's back. With HEAD still naming it, git compares the work
    // tree with nothing: the counts say nothing then (its work is unknown, never clean). A HEAD
    // elsewhere costs one look at the ref.
    bool unborn = summary.head.empty() && summary.branch == w.branch;
    if ((s.state == "ready" || s.state == "conflicted") &&
        (unborn || (summary.branch != w.branch &&
                    !ref_exists(project, "refs/heads/" + w.branch).value_or(true)))) {
      s.state = "branch_missing";
      if (unborn) {
        s.staged = s.modified = s.untracked = s.conflicted = 0;
        s.dirty = true;
        s.counted = false;
        counts_out.clear();
      }
    }
  } else {
    // git could not look inside (a submodule whose links lead nowhere, a broken index): the
    // workspace may hold work, so it is never shown as clean.
    if (s.state == "ready") s.state = "unreadable";
    s.dirty = true;
    s.counted = false;
  }
  auto text = chomp(counts_out);
  if (auto tab = text.find('\t'); tab != std::string::npos) {
    s.behind = std::atoi(text.substr(0, tab).c_str());
    s.ahead = std::atoi(text.substr(tab + 1).c_str());
  }
  return s;
}

// The record of `name`, as it is (an untrusted one with `invalid` set): for status.
Result<Workspace> load_record(const Project& project, std::string_view name) {
  BERTH_TRY(validate_name(name));
  auto record = BERTH_TRY(registry_of(project).load(name_slug(name)));
  if (!record || record->name != name)
    return fail(ErrorCode::not_found, fmt::format("no workspace named '{}'", name),
                "run `berth list` to see the workspaces");
  record->invalid = record_problem(project, *record);
  return *record;
}

Result<Workspace> load_workspace(const Project& project, std::string_view name) {
  auto record = BERTH_TRY(load_record(project, name));
  // Never acted on: whatever the command, nothing it names is touched.
  if (!record.invalid.empty())
    return fail(ErrorCode::record_mismatch,
                fmt::format("the record of workspace '{}' cannot be trusted: {}; berth will not "
                            "act on it",
                            name, record.invalid),
                fmt::format("nothing was changed; `berth doctor` lists the records berth does "
                            "not trust: fix or move aside {} (the files it names are left as they "
                            "are)",
                            registry_of(project).record_path(name_slug(name))));
  // A record from before berth kept roots: its root as far as it can be told.
  if (record.root.empty()) record.root = workspace_root_of(project, record);
  // A moved repository: where git's links prove the workspace is now, so that
  // diff, accept or run work before any listing has re-linked the record on disk (this may run
  // under the lock, which re-linking takes; a command that saves the record keeps it).
  if (needs_relink(project, {record}))
    if (auto moved = moved_workspace(project, BERTH_TRY(registry_of(project).load_all()), record)) {
      (void)repair_submodule_links(*moved); // their relative links still lead to the old place
      return *moved;
    }
  return record;
}

} // namespace

namespace {

// Fill an empty worktree with `work` as its files (tracked and untracked, byte for byte) and
// `staged` as its index, leaving HEAD where the branch starts.
Populate fill_from_trees(const std::vector<std::string>& tuning, const std::string& work,
                         const std::string& staged) {
  return [tuning, work, staged](const Workspace& w, const std::string&) -> Result<void> {
    std::vector<std::string> fill = tuning;
    fill.insert(fill.end(), {"read-tree", "--reset", "-u", work});
    BERTH_TRY(git(workspace_call(w, fill)));
    BERTH_TRY(git(workspace_call(w, {"read-tree", staged})));
    (void)git_status_of(workspace_call(w, {"update-index", "-q", "--refresh"}));
    return {};
  };
}

} // namespace

// new's steps; create_workspace names a full disk.
static Result<Created> create_steps(const Project& project, const NewOptions& options) {
  BERTH_TRY(validate_name(options.name));
  BERTH_TRY(validate_owner(options.owner));
  // The base is fixed now, as a full SHA: diffs and accepts are always against it.
  std::string base;
  if (options.base) {
    auto resolved = resolve_commit(project, *options.base);
    if (!resolved && !repository_has_commits(project))
      return fail(ErrorCode::empty_repository, "the repository has no commit yet",
                  "make a first commit, then create workspaces from it");
    base = BERTH_TRY(std::move(resolved));
  } else {
    if (project.current_worktree().empty() && !project.bare() &&
        util::is_within(project.cwd(), project.main_worktree()) &&
        !util::is_within(project.cwd(), project.common_dir())) {
      Error e = no_work_tree_error(project);
      e.hint += ", or pass --base REV";
      return tl::unexpected(std::move(e));
    }
    if (project.current_worktree().empty())
      return fail(ErrorCode::bare_repository,
                  "this is a bare repository (or a git dir): there is no HEAD to start from",
                  "pass --base REV, e.g. --base main");
    auto head = BERTH_TRY(git_status_of(GitCall{{"rev-parse", "--verify", "-q", "HEAD^{commit}"},
                                                project.cwd(),
                                                {},
                                                {},
                                                util::Stream::pipe}));
    if (!head.ok())
      return fail(ErrorCode::empty_repository, "the repository has no commit yet (HEAD is unborn)",
                  "make a first commit, or pass --base REV");
    base = chomp(head.out);
  }
  auto checkout = BERTH_TRY(checkout_tuning(project));
  auto tuning = checkout.args;
  CreatePlan plan{
      options.name,        base, base, options.owner, {}, options.on_setup, options.no_pool,
      checkout.hooks_path, {}};
  if (options.carry) {
    // --carry: the user's uncommitted work, read as git objects from a scratch copy of their
    // index, so their checkout is not touched in any way; the new workspace gets it as its work
    // tree and staged state.
    if (project.current_worktree().empty())
      return fail(ErrorCode::usage, "--carry needs a checkout to carry work from",
                  "run it inside your checkout");
    Workspace here;
    here.name = options.name;
    here.path = project.current_worktree();
    here.git_dir = BERTH_TRY(git_out(here.path, {"rev-parse", "--absolute-git-dir"}));
    Captured work = BERTH_TRY(capture(project, here));
    if (work.head != base)
      return fail(ErrorCode::usage, "--carry starts from the HEAD of the checkout you stand in",
                  "drop --base, or drop --carry");
    plan.populate = fill_from_trees(tuning, work.work_tree, work.index_tree);
  } else {
    plan.populate = [tuning, base](const Workspace& w, const std::string& from) -> Result<void> {
      // From a pool slot, a two-way read-tree writes only the files that differ; an empty
      // worktree gets a full checkout.
      // A slot already at the base holds exactly its index and files (settled): nothing to
      // write, and not even the index to rewrite (a read-tree would read and write all of it).
      if (from == base) return {};
      std::vector<std::string> args = tuning;
      if (from.empty())
        args.insert(args.end(), {"reset", "--hard", "-q"});
      else
        args.insert(args.end(), {"read-tree", "-m", "-u", from, base});
      auto call = workspace_call(w, args);
      auto r = BERTH_TRY(git_status_of(call));
      if (!r.ok())
        return tl::unexpected(git_error(
            call, r,
            fmt::format("checkout of workspace '{}' failed: {}", w.name, last_line(r.err))));
      return {};
    };
  }
  Created created = BERTH_TRY(create(project, plan));
  created.warnings.insert(created.warnings.end(), checkout.warnings.begin(),
                          checkout.warnings.end());
  return created;
}

Result<std::vector<WorkspaceStatus>> list_workspaces(const Project& project) {
  BERTH_TRY(recover_interrupted(project));
  auto all = BERTH_TRY(registry_of(project).load_all());
  for (auto& w : all) {
    w.invalid = record_problem(project, w);
    if (w.root.empty()) w.root = workspace_root_of(project, w);
  }
  std::vector<WorkspaceStatus> result(all.size());
  // Each workspace costs a `git status`: run them side by side, as many as there are cores.
  util::parallel_for(all.size(), [&](size_t i) { result[i] = status_of(project, all[i]); });
  return result;
}

Result<Workspace> find_workspace(const Project& project, std::string_view name) {
  Workspace w = BERTH_TRY(load_workspace(project, name));
  // A workspace half made (or half removed) is not one to hand out: its files may not be all
  // there, and the creation may yet be undone.
  if (w.state == State::creating || w.state == State::discarding) {
    const char* what = w.state == State::creating ? "being created" : "being discarded";
    if (util::process_alive(w.holder_pid, w.holder_start))
      return fail(ErrorCode::busy,
                  fmt::format("workspace '{}' is {} (pid {})", w.name, what, w.holder_pid),
                  "wait for it to finish");
    return fail(ErrorCode::interrupted,
                fmt::format("workspace '{}' was {} by a berth command that died (pid {})", w.name,
                            what, w.holder_pid),
                "run `berth list` or `berth doctor --repair`: it finishes or undoes that command");
  }
  return w;
}

Result<Workspace> open_workspace(const Project& project, std::string_view name) {
  BERTH_TRY(recover_interrupted(project));
  return find_workspace(project, name);
}

Result<WorkspaceStatus> workspace_status(const Project& project, std::string_view name) {
  BERTH_TRY(recover_interrupted(project));
  auto record = BERTH_TRY(load_record(project, name));
  return status_of(project,
                   record.invalid.empty() ? BERTH_TRY(load_workspace(project, name)) : record);
}

Result<Discarded> discard_workspace(const Project& project, std::string_view name, Force force,
                                    Trash trash) {
  BERTH_TRY(recover_interrupted(project));
  Registry registry = registry_of(project);
  Discarded d;
  // --force on a busy workspace stops what runs there first: the `berth run` holding it (which
  // passes the TERM on to its command's whole process group and then releases its lease), then
  // anything else still working inside the directory. Done before taking the lock, which the run
  // needs to release its lease.
  if (force == Force::yes) {
    Workspace current = BERTH_TRY(load_workspace(project, name));
    if (current.state == State::busy &&
        util::process_alive(current.holder_pid, current.holder_start)) {
      util::stop_processes({static_cast<pid_t>(current.holder_pid)}, 10000);
      if (util::is_directory(current.path))
        util::stop_processes(util::processes_working_in(current.path), 2000);
    }
  }
  auto lock = BERTH_TRY(registry.lock());
  Workspace w = BERTH_TRY(load_workspace(project, name));
  d.workspace = w;

  // A workspace in use stays, unless the user says otherwise.
  if (held_alive(w) && (w.state != State::busy || force == Force::no))
    return tl::unexpected(busy_error(w, w.state == State::busy
                                            ? "wait for it to finish, or pass --force"
                                            : "wait for it to finish"));
  // A lock the user put on the worktree is theirs to lift.
  bool locked = false;
  std::string reason = read_lock_reason(w, &locked);
  if (locked && reason.rfind(kLockReasonPrefix, 0) != 0)
    return fail(ErrorCode::locked,
                fmt::format("the worktree of '{}' is locked by someone else: {}", w.name,
                            reason.empty() ? "(no reason given)" : reason),
                fmt::format("unlock it first: git worktree unlock {}", w.path));

  // What is on disk decides what can be saved, and what may be deleted.
  bool symlinked = util::is_symlink(w.path);
  bool present = util::is_directory(w.path) && util::is_directory(w.git_dir);
  // A directory whose admin dir the record lost (a moved repository) holds work git cannot show:
  // it is never deleted, nor taken for a missing one.
  BERTH_TRY(refuse_unlinked(w));
  // Nor is a workspace that moved with the repository (a root inside the checkout) taken for a
  // missing one before its record is re-linked: its work would be split from its snapshot.
  if (!present && !symlinked && !moved_with_checkout(project, w).empty())
    return fail(ErrorCode::record_mismatch,
                fmt::format("workspace '{}' moved with the repository to {}; its record still "
                            "names {}",
                            w.name, moved_with_checkout(project, w), w.path),
                "run `berth doctor --repair` to re-link it, then discard again");
  // The record must be the tree's: never another workspace's tree, admin dir or the project.
  if (present) {
    auto records = BERTH_TRY(registry.load_all());
    BERTH_TRY(may_delete_tree(project, records, w));
  }
  // Its own root decides, not today's configuration: a workspace made under another
  // `workspace_root` is still berth's to delete.
  if ((present || symlinked) && !deletable_workspace_path(project, w)) {
    std::string root = workspace_root_of(project, w);
    return fail(ErrorCode::unsafe_path,
                fmt::format("workspace '{}' lies outside its workspace root ({}): berth will not "
                            "delete {}",
                            w.name, root.empty() ? project.workspace_root() : root, w.path),
                "move or delete that directory yourself, then run `berth discard` again");
  }

  // Claimed (discarding, held by this process), then the lock is released: the snapshot, the
  // tree's move and the branch's deletion run the user's hooks (reference-transaction,
  // post-index-change), and a slow one must not stop every other berth command. No other
  // command acts on a workspace a live process holds; if we die, the next command finishes the
  // discard once the tree has left its place, and frees the workspace before that.
  // A failure before anything is removed puts the record back exactly as it was.
  std::string record_file = registry.record_path(name_slug(w.name));
  std::string original = util::read_file(record_file).value_or("");
  hold(w, State::discarding);
  BERTH_TRY(registry.save(w));
  { auto released = std::move(lock); }
  auto restore_ready = [&] {
    auto relock = registry.lock();
    if (!relock) return;
    auto now = registry.load(name_slug(w.name));
    if (now && *now && (*now)->holder_pid == static_cast<int>(::getpid()) && !original.empty())
      (void)util::write_file_atomic(record_file, original);
  };
  auto give_up = [&](Error e) -> Result<Discarded> {
    restore_ready();
    return tl::unexpected(std::move(e));
  };

  // A FIFO or the like planted in its admin dir would hang every git call below: moved aside
  // (HEAD, the index and the links rebuilt from the record), so the work is saved as usual.
  if (present) {
    auto repaired = repair_admin_files(w);
    if (!repaired) return give_up(repaired.error());
    for (const auto& moved : *repaired)
      d.warnings.push_back(fmt::format("workspace '{}': {}", w.name, moved));
  }

  // Whether anything would be lost. With a snapshot, the snapshot itself answers (below), so the
  // tree is walked once, not twice; only --no-trash needs a status first.
  WorkspaceStatus before =
      present && trash == Trash::no ? status_of(project, w) : WorkspaceStatus{};
  // Its branch deleted behind berth's back while HEAD still names it: made again where HEAD last
  // was, so that the snapshot holds the commits and the staged and work-tree state as they are
  // (and the branch then goes as usual). With no commit to be found, the work is saved on top of
  // the base.
  if (auto lost = lost_branch(project, w); lost && lost->head_on_it) {
    std::string at = lost->commit.empty() ? w.base : lost->commit;
    if (auto made =
            make_branch_again(project, w, at, "berth discard: branch made again to save it");
        !made)
      return give_up(made.error());
    if (lost->commit.empty())
      d.warnings.push_back(fmt::format(
          "branch {} had been deleted and its last commit is unknown: the work is saved on top of "
          "the base",
          w.branch));
  }
  std::string tip_out;
  if (auto tip = git_status_of(
          repo_call(project, {"rev-parse", "--verify", "-q", "refs/heads/" + w.branch}));
      tip && tip->ok())
    tip_out = chomp(tip->out);
  d.unsaved_work = before.dirty || before.ahead > 0 || (!tip_out.empty() && tip_out != w.base);
  // A directory gone: its submodules' commits may still be in its admin dir, going with it.
  if (!present && trash == Trash::no && !d.unsaved_work)
    d.unsaved_work = modules_hold_own_commits(project, w, tip_out.empty() ? w.base : tip_out);
  if (trash == Trash::no && d.unsaved_work && force == Force::no)
    return give_up(Error{
        ErrorCode::unsaved_work,
        fmt::format(
            "workspace '{}' has work that --no-trash would lose ({} commit(s), {} changed file(s))",
            w.name, before.ahead,
            before.staged + before.modified + before.untracked + before.conflicted),
        "drop --no-trash to keep a snapshot, or add --force to lose it",
        std::nullopt,
        {}});

  // Ignored files (build output) are not saved; say how much goes, so nothing vanishes silently.
  // A tree left to the background deleter is counted there (a walk of the whole tree, which
  // discard does not wait for; `restore --list` shows the count); one deleted here is counted
  // while the snapshot is taken, each walk on its own core.
  // (Only with a helper to start: else nothing would ever delete the tree.)
  bool background = present && trash == Trash::yes && project.config().get_int("pool.size") > 0 &&
                    !project.helper().empty();
  if (auto warning = missing_helper_warning(project)) d.warnings.push_back(*warning);
  d.ignored_counted = !background;
  std::future<std::pair<uint64_t, uint64_t>> ignored;
  if (present && !background)
    ignored = std::async(std::launch::async, [&w] { return count_ignored(w.git_dir, w.path); });
  // Left to the deleter, they are still named when there are any (a quick look beside the
  // snapshot, not a count).
  std::future<bool> any_ignored;
  if (background)
    any_ignored = std::async(std::launch::async, [&w] { return has_ignored(w.git_dir, w.path); });

  // Snapshot before anything is removed: this is what `berth restore` brings back.
  if (trash == Trash::yes) {
    Content content = present ? Content::work_tree : Content::commits_only;
    auto snap = take_whole_snapshot(project, w, content);
    if (!snap) return give_up(snap.error());
    d.snapshot = *snap;
    test_kill_at("discard-snapshot");
    d.warnings.insert(d.warnings.end(), snap->warnings.begin(), snap->warnings.end());
    // Unsaved work: a tree or a history that differs from the base, or a nested repository's.
    d.unsaved_work = d.unsaved_work || !snap->nested.empty();
    auto trees = git_status_of(
        repo_call(project, {"rev-parse", snap->commit + "^{tree}", w.base + "^{tree}"}));
    if (trees && trees->ok()) {
      auto lines = split_lines(trees->out);
      d.unsaved_work =
          d.unsaved_work || snap->head != w.base || (lines.size() == 2 && lines[0] != lines[1]);
    }
    if (!present)
      d.warnings.push_back(
          snap->head == w.base && snap->nested.empty()
              ? std::string(symlinked ? "the workspace directory had been replaced by a symlink"
                                      : "the workspace directory was missing") +
                    " and no commit of its own was found (its branch gone, or never moved): "
                    "nothing was saved"
          : symlinked ? "the workspace directory had been replaced by a symlink: only its commits "
                        "were saved"
                      : "the workspace directory was missing: only its commits were saved");
  }
  if (ignored.valid()) std::tie(d.ignored_files, d.ignored_bytes) = ignored.get();
  if (any_ignored.valid()) d.ignored_present = any_ignored.get();

  // A symlink in place of the directory is removed itself; what it points to is never touched.
  if (symlinked) ::unlink(w.path.c_str());
  if (present) repoint_gitfile(w);
  // Move the tree aside (a rename), so the lock is released before the slow deletion.
  std::string doomed = w.path;
  if (present) {
    // Into the .trash folder of its own root (deletable_workspace_path made sure the path is a
    // direct child of it): a rename, never a copy across file systems.
    std::string aside =
        util::join(util::join(util::dirname(w.path), ".trash"),
                   d.snapshot ? aside_name(w.name, d.snapshot->ref)
                              : fmt::format("{}.{}.{}", name_slug(w.name), unix_now(), ::getpid()));
    if (util::make_dirs(util::dirname(aside)) &&
        (rename_worktree(w.git_dir, w.path, aside, "discard-moved") ||
         git_status_of(
             repo_call(project, {"worktree", "move", "--force", "--force", w.path, aside}))
             .map([](const util::ProcessResult& r) { return r.ok(); })
             .value_or(false)))
      doomed = aside;
  }
  if (doomed != w.path) {
    // The tree aside keeps its admin dir (the deleter's full look reads its index) but lets go
    // of the branch: a HEAD still on it would make git refuse the name to the next `new` or
    // `restore` ("already checked out") until the tree is deleted. HEAD is detached in place.
    Workspace aside = w;
    aside.path = doomed;
    // Its submodules' relative links (`git submodule` writes them so) no longer lead to their
    // modules from one level deeper: made absolute, so that the deleter's full look can read them.
    (void)repair_submodule_links(aside);
    (void)git_status_of(workspace_call(
        aside, {"update-ref", "--no-deref", "-m", "berth: discarded", "HEAD", "HEAD"}));
    // A root other than today's: the background deleter learns of it here.
    if (background) note_trash_root(project, util::dirname(w.path));
  }
  // Nothing to remove when git no longer has the worktree (removed or pruned behind berth's
  // back, the directory gone too): `git worktree remove` would refuse it for ever.
  bool registered = present || symlinked || git_has_worktree(project, w.path);
  if (doomed == w.path && registered) {
    auto removed =
        git_status_of(repo_call(project, {"worktree", "remove", "--force", "--force", w.path}));
    if (!removed) return give_up(removed.error());
    if (!removed->ok())
      return give_up(
          git_error(repo_call(project, {"worktree", "remove"}), *removed,
                    fmt::format("cannot remove workspace '{}': {}", w.name, chomp(removed->err))));
  }
  // The branch goes too, unless someone checked it out elsewhere; its commits are in the snapshot.
  if (!tip_out.empty()) {
    bool checked_out = false;
    if (auto list = worktrees(project))
      for (const auto& entry : *list)
        if (entry.branch == "refs/heads/" + w.branch && entry.path != doomed) checked_out = true;
    if (checked_out)
      d.warnings.push_back(
          fmt::format("branch {} is checked out in another worktree: kept", w.branch));
    else if (auto del = git_status_of(
                 repo_call(project, {"update-ref", "-d", "refs/heads/" + w.branch, tip_out}));
             !del || !del->ok())
      d.warnings.push_back(fmt::format("branch {} moved meanwhile: kept", w.branch));
  }
  {
    auto relock = BERTH_TRY(registry.lock());
    BERTH_TRY(registry.remove(name_slug(w.name)));
    discard_shadow(project, w);
  }

  if (doomed != w.path) {
    if (background) {
      // The tree is deleted by the background pool filler, which also refills the pool: discard
      // returns now, whatever the size of the tree.
      pool_refill_in_background(project);
    } else {
      // Not while a deleter (started when a pool was in use) works on the same folder.
      auto reaping = lock_trash(project);
      settle_aside(project, doomed, false);
      if (!remove_aside(project, doomed))
        d.warnings.push_back(fmt::format("could not delete {}; remove it by hand", doomed));
    }
  }
  return d;
}

namespace {

// Whether `oid` names a commit that is in the object store.
bool have_commit(const Project& project, const std::string& oid) {
  if (oid.empty()) return false;
  auto r = git_status_of(repo_call(project, {"rev-parse", "--verify", "-q", oid + "^{commit}"}));
  return r && r->ok();
}

// A snapshot `doctor --repair` salvaged (refs/berth/damaged/...): its files but the lost ones,
// on those of its parents that were whole. Returns the staged state to restore (the salvaged
// index commit, found by its message; HEAD when it was lost: every change then shows unstaged),
// and drops from `snap` what is gone (the branch tip, the nested repositories), saying so in
// `warnings`. Fails when its HEAD is gone: there is no commit to make a workspace on.
Result<std::string> prepare_salvaged(const Project& project, Snapshot& snap,
                                     std::vector<std::string>& warnings) {
  if (!have_commit(project, snap.head) || !have_commit(project, snap.commit))
    return fail(ErrorCode::snapshot_damaged,
                fmt::format("what is left of the snapshot {} of '{}' cannot be a workspace: the "
                            "commit it was made on ({}) is missing too",
                            snap.ref, snap.name, snap.head.empty() ? "unknown" : snap.head),
                fmt::format("its files: `git archive {} | tar -x -C DIR`; `git log {}` shows "
                            "what else is left",
                            snap.ref, snap.ref));
  std::string staged;
  auto parents = git_status_of(
      repo_call(project, {"log", "--no-walk=unsorted", "--format=%H %s", snap.commit + "^@"}));
  if (parents && parents->ok())
    for (const auto& line : split_lines(parents->out))
      if (line.find(" berth index of ") != std::string::npos)
        staged = line.substr(0, line.find(' '));
  if (staged.empty()) {
    staged = snap.head;
    warnings.push_back("its staged state is lost: every change shows as not staged");
  }
  if (!snap.branch_tip.empty() && !have_commit(project, snap.branch_tip)) {
    warnings.push_back(fmt::format("its branch's commits up to {} are lost: the branch starts at "
                                   "its HEAD {}",
                                   snap.branch_tip.substr(0, 12), snap.head.substr(0, 12)));
    snap.branch_tip.clear();
  }
  if (!snap.nested.empty() && !have_commit(project, snap.nested)) {
    warnings.push_back("its submodules' and nested repositories' own work is lost");
    snap.nested.clear();
  }
  std::string shown;
  for (const auto& m : snap.missing)
    shown += (shown.empty() ? "" : ", ") + m;
  warnings.push_back(fmt::format(
      "restored from {}, what `berth doctor --repair` kept of a damaged snapshot: {}", snap.ref,
      shown.empty() ? std::string("nothing of its files is missing")
                    : "lost (missing from the object store): " + shown));
  return staged;
}

} // namespace

// restore's steps; restore_workspace names a full disk.
static Result<Restored> restore_steps(const Project& project, std::string_view name,
                                      std::optional<std::string> as,
                                      std::optional<std::string> from_ref) {
  BERTH_TRY(validate_name(name));
  if (as) BERTH_TRY(validate_name(*as));
  auto snapshots = BERTH_TRY(list_snapshots(project, name));
  // A ref under the name's prefix that holds no berth snapshot is not one of its snapshots.
  std::erase_if(snapshots, [](const Snapshot& s) { return s.state == "invalid"; });
  if (snapshots.empty())
    return fail(ErrorCode::not_found,
                fmt::format("no snapshot of workspace '{}' in the trash", name),
                "run `berth restore --list` to see what can be restored");
  // The newest good one; a copy `doctor --repair` salvaged of a damaged one (which lacks what was
  // lost) only when asked for, or when there is no good one. A newer damaged one is refused.
  auto chosen = snapshots.begin();
  if (from_ref) {
    chosen = std::find_if(snapshots.begin(), snapshots.end(),
                          [&](const Snapshot& s) { return s.ref == *from_ref; });
    if (chosen == snapshots.end())
      return fail(ErrorCode::not_found,
                  fmt::format("'{}' is not a snapshot of workspace '{}'", *from_ref, name),
                  fmt::format("run `berth restore --list {}` to see its snapshots", name));
  } else if (chosen->state == "salvaged") {
    auto good = std::find_if(snapshots.begin(), snapshots.end(),
                             [](const Snapshot& s) { return s.state != "salvaged"; });
    if (good != snapshots.end()) chosen = good;
  }
  Snapshot snap = *chosen;
  auto warnings = std::make_shared<std::vector<std::string>>();
  // Skipped for an older good one: said, so that nothing newer is forgotten.
  if (!from_ref && snap.state == "ok" && snapshots.front().state == "salvaged")
    warnings->push_back(fmt::format(
        "a newer copy, salvaged from a damaged snapshot (without {}), is {}: `berth restore {} "
        "--from {}` brings it back instead",
        snapshots.front().missing.empty()
            ? std::string("some files")
            : fmt::format("{} lost file(s)", snapshots.front().missing.size()),
        snapshots.front().ref, name, snapshots.front().ref));
  std::string staged;
  if (snap.state == "salvaged") staged = BERTH_TRY(prepare_salvaged(project, snap, *warnings));
  // Objects of the newest snapshot pruned or lost: nothing is made from half of it (what doctor
  // salvaged of one is whole in what it holds).
  else if (snap.state != "ok" || !snapshot_complete(project, snap.commit))
    return fail(ErrorCode::snapshot_damaged,
                fmt::format("the snapshot {} of '{}' cannot be restored: {}", snap.ref, name,
                            snap.problem.empty() ? "objects it needs are missing" : snap.problem),
                "run `berth doctor --repair`: it keeps what is left of it (`berth restore --list` "
                "names what is lost; `berth restore NAME --from REF` brings it back)");
  std::string start = snap.branch_tip.empty() ? snap.head : snap.branch_tip;
  auto checkout = BERTH_TRY(checkout_tuning(project));
  const auto& tuning = checkout.args;
  // The snapshot's tree becomes the work tree (tracked and untracked files, byte for byte), then
  // the index gets the staged state back, leaving HEAD on the branch's own commits.
  if (staged.empty()) staged = snap.index_commit.empty() ? snap.head : snap.index_commit;
  auto fill = fill_from_trees(tuning, snap.commit, staged);
  auto made_branch = std::make_shared<std::string>();
  Populate populate = [&project, fill, snap, staged, warnings,
                       made_branch](const Workspace& w, const std::string& from) -> Result<void> {
    BERTH_TRY(fill(w, from));
    return finish_restore(project, w, snap, staged, *warnings, *made_branch);
  };
  CreatePlan plan{as.value_or(std::string(name)),
                  snap.base,
                  start,
                  snap.owner,
                  populate,
                  {},
                  false,
                  checkout.hooks_path,
                  {}};
  // A failed restore leaves nothing: the agent's branch it made again goes too, unless it moved
  // since (then it is someone's).
  plan.undo_populate = [&project, made_branch, head = snap.head] {
    if (!made_branch->empty())
      (void)git_status_of(repo_call(project, {"update-ref", "-d", *made_branch, head}));
  };
  Created created = BERTH_TRY(create(project, plan));
  created.warnings.insert(created.warnings.end(), checkout.warnings.begin(),
                          checkout.warnings.end());
  created.warnings.insert(created.warnings.end(), warnings->begin(), warnings->end());
  // After the workspace's setup (which checks its submodules out): their work, and the nested
  // repositories, on top.
  auto nested = restore_nested(project, created.workspace, snap.nested);
  created.warnings.insert(created.warnings.end(), nested.begin(), nested.end());
  return Restored{created.workspace, snap, created.warnings};
}

// A creation a full disk stopped half-way is rolled back (the tree it checked out, its branch and
// record): the user hears why, as no_space, also when berth's own write was the one refused.
Result<Created> create_workspace(const Project& project, const NewOptions& options) {
  auto created = create_steps(project, options);
  if (!created) return tl::unexpected(blame_full_disk(created.error(), "run it again"));
  return created;
}

Result<Restored> restore_workspace(const Project& project, std::string_view name,
                                   std::optional<std::string> as, std::optional<std::string> from) {
  auto restored = restore_steps(project, name, std::move(as), std::move(from));
  if (!restored) return tl::unexpected(blame_full_disk(restored.error(), "restore it again"));
  return restored;
}

} // namespace berth
