// Making a workspace: `new` (create_workspace) and the creation every restore shares (create).
//
// The pattern of every flow (workspace.cpp): claim the record under the lock (creating, held by
// this process), release it, do the git work, take it again to finish.
#include "core/workspace_create.hpp"

#include "berth/berth.hpp"
#include "berth/fork.hpp"
#include "core/admin_files.hpp"
#include "core/behind.hpp"
#include "core/capture.hpp"
#include "core/crash_checks.hpp"
#include "core/name.hpp"
#include "core/nested.hpp"
#include "core/plain.hpp"
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
#include "util/scope_exit.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <ctime>
#include <fcntl.h>
#include <fmt/format.h>
#include <functional>
#include <future>
#include <map>
#include <optional>
#include <sys/stat.h>
#include <thread>
#include <tuple>
#include <unistd.h>

namespace berth {

static bool hook_exists(const Project& project, const Workspace& w, const std::string& hooks_path,
                        const std::string& name) {
  // Where git looks: core.hooksPath (relative to the work tree), else <common-dir>/hooks.
  std::string dir = hooks_path.empty() ? util::join(project.common_dir(), "hooks")
                                       : util::absolute(hooks_path, w.path);
  return ::access(util::join(dir, name).c_str(), X_OK) == 0;
}

namespace {

// What stands in the way of creating `branch`, in one `for-each-ref` (each git call costs a few
// ms, and a pooled `new` should cost about ten): whether it exists, and the branch that keeps it
// from being created (git stores refs as paths, so a branch `berth` blocks every `berth/...`
// branch and a `berth/x/y` blocks `berth/x`: a directory/file conflict git reports as "cannot
// lock ref"), "" when none does. The pattern `refs/heads/<first component>` lists exactly the
// refs that can be either (for-each-ref matches a pattern whole or up to a slash).
struct BranchObstacles {
  bool exists = false;
  std::string blocking;
};
Result<BranchObstacles> branch_obstacles(const Project& project, const std::string& branch) {
  std::string ref = "refs/heads/" + branch;
  std::string first = ref.substr(0, ref.find('/', std::string_view("refs/heads/").size()));
  auto listed = BERTH_TRY(git(repo_call(project, {"for-each-ref", "--format=%(refname)", first})));
  BranchObstacles found;
  for (const auto& name : split_lines(listed.out)) {
    if (name == ref) {
      found.exists = true;
    } else if (found.blocking.empty() &&
               ((ref.size() > name.size() && ref.compare(0, name.size(), name) == 0 &&
                 ref[name.size()] == '/') ||
                name.rfind(ref + "/", 0) == 0)) {
      found.blocking = name.substr(std::string_view("refs/heads/").size());
    }
  }
  return found;
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

} // namespace

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

namespace {

// Claim the name: under the lock, refuse a name, folder or branch already taken (nothing is
// changed then), make the root, and save the record marked creating, held by this process. A
// crash after it leaves a creating record with a dead holder: the next command rolls it back
// (recover_interrupted → roll_back), which finds nothing else to undo yet.
Result<Workspace> claim_name(const Project& project, const CreatePlan& plan,
                             const std::string& branch, const std::string& path) {
  Registry registry = registry_of(project);
  std::string slug = name_slug(plan.name);
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
  // A fork's task names its attempts in `compare`, `discard` and `list`: a workspace of that name
  // would make those mean two things.
  if (BERTH_TRY(load_fork(project, plan.name)) && BERTH_TRY(fork_has_attempts(project, plan.name)))
    return fail(ErrorCode::name_taken, fmt::format("'{}' is the task of a fork", plan.name),
                fmt::format("pick another name (its attempts are {}...), or `berth discard {}` "
                            "to throw the fork away",
                            attempt_name(plan.name, 1), plan.name));
  BranchObstacles obstacles = BERTH_TRY(branch_obstacles(project, branch));
  if (obstacles.exists) {
    for (const auto& entry : BERTH_TRY(worktrees(project)))
      if (entry.branch == "refs/heads/" + branch)
        return fail(ErrorCode::branch_exists,
                    fmt::format("branch '{}' is checked out at {}", branch, entry.path),
                    "pick another workspace name");
    return fail(ErrorCode::branch_exists, fmt::format("branch '{}' already exists", branch),
                fmt::format("pick another name, or delete the branch: git branch -D {}", branch));
  }
  if (const std::string& blocking = obstacles.blocking; !blocking.empty())
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
                             {project.common_dir(), project.default_workspace_root(),
                              project.previous_workspace_roots()});
  note_main_worktree(project);

  Workspace w;
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
  return w;
}

// Add the worktree on its new branch at `plan.start`: a warm pool slot renamed into place, else
// `git worktree add --no-checkout` (locked from the start). Sets `w.git_dir`; returns the commit
// the tree already holds (a slot's) or "" for an empty one. A crash after it leaves a tree and a
// branch the record does not name yet: the next command's roll_back finds them (the admin dir
// whose tree is the record's path) and removes them.
Result<std::string> add_worktree(const Project& project, const CreatePlan& plan, Workspace& w,
                                 std::vector<std::string>& prepared) {
  const std::string& branch = w.branch;
  const std::string& path = w.path;
  // A warm slot from the pool, if there is one: a rename and a ref update, no checkout.
  if (!plan.no_pool) {
    auto slot = BERTH_TRY(take_pool_slot(project, path, branch, plan.start, idle_lock_reason(w)));
    if (slot) {
      w.git_dir = slot->git_dir;
      prepared = slot->prepared;
      // The slot's shadow (the filler's one full look, through the watcher, which follows the
      // renamed tree): watched from its birth, the workspace's first snapshot is O(changed).
      Workspace was = w;
      was.name = slot->id;
      hand_over_shadow(project, was, w);
      return slot->commit;
    }
  }
  // `worktree add` reads every worktree's HEAD (is the branch checked out elsewhere?): a
  // FIFO planted in another one would hold it forever.
  BERTH_TRY(refuse_blocking_admin(project.common_dir()));
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
  if (!added) return tl::unexpected(added.error());
  if (!added->ok()) {
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
    return tl::unexpected(std::move(e));
  }
  // The admin dir comes from the .git file git just wrote; from now on berth uses its own
  // record of it and never reads the workspace's .git again.
  w.git_dir = read_gitfile(path);
  if (w.git_dir.empty()) {
    Error e = git_error(add, *added, fmt::format("git left no usable .git file in {}", path));
    e.hint = "check that the workspace root is writable and run `berth new` again";
    return tl::unexpected(std::move(e));
  }
  return std::string();
}

// Save the record as it is now (under the lock), after the injected failure `step` of berth's
// tests: from the worktree step on, the record names the admin dir, so that a roll back after a
// crash removes exactly this tree.
Result<void> save_record(const Project& project, const Workspace& w, std::string_view step) {
  BERTH_TRY(test_failure_at(step));
  Registry registry = registry_of(project);
  auto lock = BERTH_TRY(registry.lock());
  return registry.save(w);
}

// Write the files (the slow part, outside the lock; other workspaces proceed meanwhile). A crash
// or a failure (a filter erroring, a full disk) leaves a half-written tree that the roll back
// removes with the rest.
Result<void> populate(const Project& project, const CreatePlan& plan, const Workspace& w,
                      const std::string& from) {
  BERTH_TRY(test_failure_at("populate"));
  BERTH_TRY(plan.populate(w, from));
  // A full checkout writes most files in the same second as the index: git then treats them as
  // "racily clean" and the agent's first `git status` re-hashes them all. On a large checkout,
  // wait for the clock to leave that second and refresh once, so the workspace is handed over
  // settled. (Pool slots are settled long before they are taken.)
  if (from.empty()) settle_large_index(w);
  // Watched from its birth: a large tree gets its one full look through the watcher now (cheap
  // beside the checkout), so that its first snapshot (a `discard` with no `list` before it) is
  // O(files changed). A small one costs little to look at later.
  if (from.empty() && large_index(w)) (void)prime_shadow(project, w);
  return {};
}

// The user's post-checkout hook, as `git worktree add` would run it; its failure is a warning,
// not a reason to undo the workspace. What it prints (git sends a hook's stdout to stderr too)
// is set-up output: an `output` event for whoever listens (a line of JSON under --json, where
// every line on stderr is an event), else straight to berth's stderr.
void run_post_checkout(const Project& project, const CreatePlan& plan, const Workspace& w,
                       std::vector<std::string>& warnings) {
  // (Only when there is one: `git hook run` costs a process even with nothing to run.)
  if (!hook_exists(project, w, plan.hooks_path, "post-checkout")) return;
  GitCall hook{{"hook", "run", "--ignore-missing", "post-checkout", "--", project.null_oid(),
                plan.start, "1"},
               w.path,
               {},
               {},
               plan.on_setup ? util::Stream::pipe : util::Stream::inherit};
  auto hooked = git_status_of(hook);
  if (hooked && plan.on_setup && !hooked->err.empty())
    plan.on_setup({SetupEvent::Kind::output, "post-checkout hook", hooked->err, 0, 0});
  if (hooked && !hooked->ok())
    warnings.push_back(fmt::format("post-checkout hook failed (exit {})", hooked->status()));
}

// Included files, caches, submodules, trusted setup commands. A failing setup command keeps the
// workspace, marked with the failure (`setup_error`); an error of berth's undoes it.
Result<SetupReport> set_up(const Project& project, const CreatePlan& plan, Workspace& w,
                           const std::vector<std::string>& prepared) {
  BERTH_TRY(test_failure_at("setup"));
  SetupReport setup = BERTH_TRY(set_up_workspace(project, w, plan.on_setup, false, prepared));
  note_setup_outcome(setup, w);
  return setup;
}

// The workspace is handed over: its record says ready and is held by nobody. A crash before it
// rolls everything back; after it, the workspace is whole.
Result<void> mark_ready(const Project& project, Workspace& w) {
  w.state = State::ready;
  w.holder_pid = 0;
  w.holder_start = 0;
  w.start.clear(); // only needed to undo a creation
  return save_record(project, w, "ready");
}

// A root with a dot component (configured so, or a HOME that has one): files in the workspaces
// look hidden to tools, and some refuse them. Said once per root, the first time a workspace is
// made there (remembered in <berth>/warned-roots), not on every command.
std::optional<std::string> dotted_root_warning(const Project& project) {
  const std::string& root = project.workspace_root();
  std::string dot = util::dot_component(root);
  if (dot.empty()) return std::nullopt;
  Registry registry = registry_of(project);
  auto lock = registry.lock();
  if (!lock) return std::nullopt;
  std::string file = util::join(project.berth_dir(), "warned-roots");
  std::string text = util::read_file(file).value_or("");
  for (const auto& line : split_lines(text))
    if (line == root) return std::nullopt;
  if (!text.empty() && text.back() != '\n') text += '\n';
  if (!util::write_file_atomic(file, text + root + "\n")) return std::nullopt;
  return fmt::format("the workspace root {} has a dot component ('{}'): tools treat every file "
                     "under it as hidden (express's `send` refuses to serve them, so its tests "
                     "fail there and pass in your checkout); set workspace_root to a folder "
                     "without one (said once for this root)",
                     root, dot);
}

} // namespace

// new and restore: claim the name → add the worktree → record its admin dir → populate → the
// post-checkout hook → setup → ready. Every failure after the claim undoes all of it (the scope
// exit below), and a crash is undone by the next command.
Result<Created> create(const Project& project, const CreatePlan& plan) {
  std::string branch = BERTH_TRY(branch_for(project, plan.name));
  std::string path = util::join(project.workspace_root(), name_slug(plan.name));
  Created created;

  BERTH_TRY(recover_interrupted(project));
  Workspace w = BERTH_TRY(claim_name(project, plan, branch, path));
  // The name is claimed: the lock is released before git registers the worktree and creates the
  // branch, which runs the user's reference-transaction hook (and a slow one must not stop every
  // other berth command). Concurrent `git worktree add`s of distinct paths and branches are safe:
  // git makes each admin dir with mkdir (a counter on a clash) and guards it with a `locked` file
  // from the start, and each branch is its own ref. If we die from here on, the record (creating,
  // held by a dead process) makes the next berth command roll everything back.
  // From here on every failure undoes everything, the branch included: it did not exist when we
  // looked under the lock, and no other berth command makes it while our record holds the name,
  // so one at `start` now is ours (git may have made it before failing, as `worktree add -b` does
  // when the branch is checked out elsewhere). What populate made besides goes after it.
  auto undo = util::on_scope_exit([&] {
    if (roll_back(project, w, plan.start) && plan.undo_populate) plan.undo_populate();
  });
  BERTH_TRY(test_failure_at("after-record"));

  std::vector<std::string> prepared; // the set-up its pool slot carries
  std::string from = BERTH_TRY(add_worktree(project, plan, w, prepared));
  BERTH_TRY(save_record(project, w, "worktree"));
  // Outside the lock: write the files. This is the slow part, and other workspaces proceed
  // meanwhile. Any failure (a filter erroring, a full disk) undoes everything.
  BERTH_TRY(populate(project, plan, w, from));
  // The user's post-checkout hook runs as `git worktree add` would run it (old = null, flag = 1);
  // its output goes to stderr, like git's, so stdout stays the workspace path alone.
  run_post_checkout(project, plan, w, created.warnings);
  BERTH_TRY(test_failure_at("hook"));
  // Make it ready to work in: included files, caches, submodules, trusted setup commands. A
  // failing setup command keeps the workspace, marked, with the failure reported.
  created.setup = BERTH_TRY(set_up(project, plan, w, prepared));
  BERTH_TRY(mark_ready(project, w));
  undo.release();

  created.workspace = w;
  // A slot was used (or none was there): top the pool up in the background for the next `new`.
  // A slot taken from a pool no longer kept (pool.size = 0) still gets that pass: it looks at the
  // workspace in its new place (git's untracked cache is of the slot's old path), so that the
  // first snapshot or status of the agent's work is not a walk of every folder.
  const bool took_slot = !from.empty();
  if (took_slot && plan.took_slot) *plan.took_slot = true;
  if (plan.refill_pool && (project.config().get_int("pool.size") > 0 || took_slot))
    pool_refill_in_background(project);
  if (auto warning = missing_helper_warning(project)) created.warnings.push_back(*warning);
  if (auto warning = dotted_root_warning(project)) created.warnings.push_back(*warning);
  return created;
}

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

namespace {

// What the workspaces of one batch (create_workspaces: a fork's attempts) share, read once for
// all: the checkout settings, and each full commit id asked for as a base, once verified.
struct BatchReads {
  std::optional<CheckoutTuning> tuning;
  std::map<std::string, std::string> bases;
  bool took_slot = false; // (written back: one of them was made of a pool slot)
};

} // namespace

// new's steps; create_workspace names a full disk. `batch`: what a batch reads once.
static Result<Created> create_steps(const Project& project, const NewOptions& options,
                                    bool refill_pool = true, BatchReads* batch = nullptr) {
  BERTH_TRY(validate_name(options.name));
  BERTH_TRY(validate_owner(options.owner));
  // The base is fixed now, as a full SHA: diffs and accepts are always against it.
  std::string base;
  const std::string* known = nullptr;
  if (batch && options.base)
    if (auto it = batch->bases.find(*options.base); it != batch->bases.end()) known = &it->second;
  if (known) {
    base = *known;
  } else if (options.base) {
    auto resolved = resolve_commit(project, *options.base);
    if (!resolved && !repository_has_commits(project))
      return fail(ErrorCode::empty_repository, "the repository has no commit yet",
                  "make a first commit, then create workspaces from it");
    base = BERTH_TRY(std::move(resolved));
    // A commit id names the same commit for the whole batch (a branch name may move meanwhile:
    // read again for each).
    if (batch && base == *options.base) batch->bases[base] = base;
  } else if (project.plain()) {
    // A plain folder: its state now is the base (a commit on the private repository's branch,
    // made only when something changed since the last look).
    base = BERTH_TRY(plain_snapshot(project));
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
  if (batch && !batch->tuning) batch->tuning = BERTH_TRY(checkout_tuning(project));
  auto checkout = batch ? *batch->tuning : BERTH_TRY(checkout_tuning(project));
  auto tuning = checkout.args;
  CreatePlan plan{
      options.name,        base, base, options.owner, {}, options.on_setup, options.no_pool,
      checkout.hooks_path, {}};
  plan.refill_pool = refill_pool;
  if (batch) plan.took_slot = &batch->took_slot;
  if (options.carry) {
    // --carry: the user's uncommitted work, read as git objects from a scratch copy of their
    // index, so their checkout is not touched in any way; the new workspace gets it as its work
    // tree and staged state.
    if (project.current_worktree().empty() || project.plain())
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
  // Run from a folder the repository ignores (a downloaded project under `data/`), berth takes
  // the repository, as git does; its workspace does not have that folder, which the user may not
  // expect: said, with the way to keep the folder as a plain folder instead (docs/plain.md).
  if (!project.plain() && !project.current_worktree().empty() &&
      project.cwd() != project.current_worktree()) {
    auto ignored = git_status_of(GitCall{
        {"check-ignore", "-q", "--", project.cwd()}, project.cwd(), {}, {}, util::Stream::pipe});
    if (ignored && ignored->ok())
      created.warnings.push_back(fmt::format(
          "{} is ignored by the repository: workspace '{}' does not have its files (`berth new "
          "--plain NAME` there keeps it as a plain folder)",
          project.cwd(), options.name));
  }
  return created;
}

// A creation a full disk stopped half-way is rolled back (the tree it checked out, its branch and
// record): the user hears why, as no_space, also when berth's own write was the one refused.
Result<Created> create_workspace(const Project& project, const NewOptions& options) {
  auto created = create_steps(project, options);
  if (!created) return tl::unexpected(blame_full_disk(created.error(), "run it again"));
  return created;
}

// One after the other: each take is a rename and a few git processes (~10 ms), and a cold one
// (the pool ran dry) is a checkout that already uses every core (checkout.workers). The refill
// each `new` starts is started once, at the end: a filler checking out slots meanwhile would
// compete with the takes for the disk and the cores. It fills the pool to at least as many slots
// as were asked for (fill ahead: the next fork of that size finds them ready), when the pool is
// in use at all (pool.size > 0).
std::vector<Result<Created>> create_workspaces(const Project& project,
                                               const std::vector<NewOptions>& options) {
  std::vector<Result<Created>> made;
  made.reserve(options.size());
  BatchReads batch;
  for (const auto& one : options) {
    auto created = create_steps(project, one, false, &batch);
    if (!created) created = tl::unexpected(blame_full_disk(created.error(), "run it again"));
    made.push_back(std::move(created));
  }
  int64_t size = project.config().get_int("pool.size");
  if (size > 0 && !options.empty())
    pool_refill_in_background(project, std::max(size, static_cast<int64_t>(options.size())));
  else if (batch.took_slot)
    pool_refill_in_background(project); // (fills nothing: looks at them in their new place)
  return made;
}

} // namespace berth
