// The warm pool.
//
// A slot is a detached worktree at <workspace-root>/.pool/<id>, checked out at the main
// checkout's HEAD and then *settled*: berth waits until the clock has moved past the second the
// files were written and refreshes the index, so no entry is "racily clean" and the first
// `git status` in the workspace costs what it costs in a long-lived checkout. Slots are recorded
// in <common>/berth/pool/<id>.json and locked (`git worktree lock`) like workspaces.
//
// Taking a slot (under the project lock) is `git worktree move` (a rename), `git update-ref`
// for the new branch and `git symbolic-ref HEAD`: about 30 ms whatever the repository's size.
// Bringing it to the requested base is a two-way `git read-tree -m -u`, writing only the files
// that differ. Refilling happens in a detached, low-priority `berth pool fill --background`.
#include "core/pool.hpp"

#include "core/admin_files.hpp"
#include "core/aside.hpp"
#include "core/gc.hpp"
#include "core/git.hpp"
#include "core/porcelain.hpp"
#include "core/registry.hpp"
#include "core/roots.hpp"
#include "core/setup.hpp"
#include "core/shadow.hpp"
#include "core/trash.hpp"
#include "core/tree_claim.hpp"
#include "core/watch.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/child_process.hpp"
#include "util/dir.hpp"
#include "util/file_lock.hpp"
#include "util/paths.hpp"
#include "util/process_info.hpp"

#include <algorithm>
#include <fcntl.h>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

namespace berth {
namespace {

constexpr const char* kSlotLockReason = "berth: pool slot (remove with `berth pool drain`)";

std::string slots_dir(const Project& project) {
  return util::join(project.workspace_root(), ".pool");
}
std::string records_dir(const Project& project) {
  return util::join(project.berth_dir(), "pool");
}
std::string record_path(const Project& project, const std::string& id) {
  return util::join(records_dir(project), id + ".json");
}

struct SlotRecord {
  PoolSlot slot;
  int pid = 0;
  int64_t pid_start = 0;
  /// How the slot was when settled, to tell at take whether anything touched it since: its index
  /// file's identity (git replaces it on every write), and the watcher's token for its tree.
  std::string index_key;
  std::string watch_token;
  /// The set-up the slot carries (prepare_pool_slot): the clones and links made in it, and the
  /// inputs they were made from (setup_inputs_key); a slot whose key is not today's is stale.
  std::string setup_key;
  std::vector<std::string> prepared;
};

Result<void> save_slot(const Project& project, const SlotRecord& r) {
  nlohmann::json j = {{"id", r.slot.id},
                      {"path", r.slot.path},
                      {"git_dir", r.slot.git_dir},
                      {"commit", r.slot.commit},
                      {"state", r.slot.state},
                      {"created", r.slot.created},
                      {"pid", r.pid},
                      {"pid_start", r.pid_start},
                      {"index_key", r.index_key},
                      {"watch_token", r.watch_token},
                      {"setup_key", r.setup_key},
                      {"prepared", r.prepared}};
  if (auto made = util::make_dirs(records_dir(project)); !made)
    return fail(ErrorCode::io_error, made.error());
  if (auto written = util::write_file_atomic(record_path(project, r.slot.id), j.dump(1) + "\n");
      !written)
    return fail(ErrorCode::io_error, written.error());
  return {};
}

std::vector<SlotRecord> load_slots(const Project& project) {
  std::vector<SlotRecord> slots;
  for (const auto& e : util::DirEntries(records_dir(project))) {
    std::string file(e.name);
    if (file.size() <= 5 || file.substr(file.size() - 5) != ".json") continue;
    auto text = util::read_file(util::join(records_dir(project), file));
    if (!text) continue;
    auto j = nlohmann::json::parse(*text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) continue;
    SlotRecord r;
    r.slot.id = j.value("id", std::string());
    r.slot.path = j.value("path", std::string());
    r.slot.git_dir = j.value("git_dir", std::string());
    r.slot.commit = j.value("commit", std::string());
    r.slot.state = j.value("state", std::string());
    r.slot.created = j.value("created", int64_t{0});
    r.pid = j.value("pid", 0);
    r.pid_start = j.value("pid_start", int64_t{0});
    r.index_key = j.value("index_key", std::string());
    r.watch_token = j.value("watch_token", std::string());
    r.setup_key = j.value("setup_key", std::string());
    if (auto made = j.find("prepared"); made != j.end() && made->is_array())
      for (const auto& path : *made)
        if (path.is_string()) r.prepared.push_back(path.get<std::string>());
    if (r.slot.id.empty() || r.slot.path.empty()) continue;
    slots.push_back(std::move(r));
  }
  std::sort(slots.begin(), slots.end(),
            [](const auto& a, const auto& b) { return a.slot.created < b.slot.created; });
  return slots;
}

void forget_slot(const Project& project, const SlotRecord& r) {
  // A slot record copied with the repository (`cp -a`, the original kept): the tree is the
  // original's slot. Only this copy's record and git's copied admin dir for it go.
  if (owned_by_another_repository(project, r.slot.git_dir, r.slot.path)) {
    drop_copied_admin_dirs(project, r.slot.path);
    ::unlink(record_path(project, r.slot.id).c_str());
    return;
  }
  // Nothing planted in its admin dir may hang the removal.
  if (util::is_directory(r.slot.git_dir)) (void)move_hostile_aside(r.slot.git_dir);
  (void)git_status_of(
      repo_call(project, {"worktree", "remove", "--force", "--force", r.slot.path}));
  // A slot made under an earlier root (another workspace_root, or an older berth's default) is
  // removed there too: never orphaned.
  std::string slots = util::dirname(util::lexically_normal(r.slot.path));
  if (util::is_directory(r.slot.path) &&
      (slots == util::lexically_normal(slots_dir(project)) ||
       (util::basename(slots) == ".pool" && is_standard_root(project, util::dirname(slots)))))
    (void)util::remove_tree(r.slot.path);
  ::unlink(record_path(project, r.slot.id).c_str());
  Workspace shadowed;
  shadowed.name = r.slot.id;
  discard_shadow(project, shadowed);
}

// The identity of the slot's index file: any write to it (a `git add` in the slot) is a new one.
std::string index_key(const std::string& git_dir) {
  struct stat st;
  if (::lstat(util::join(git_dir, "index").c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  return fmt::format("{} {} {} {} {}.{} {}.{}", st.st_dev, st.st_ino, st.st_size, st.st_mode,
                     st.st_mtim.tv_sec, st.st_mtim.tv_nsec, st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
}

// Record how a settled slot is, for the check at take: its index, and a watcher token for its
// tree (which also has the watcher follow it from now on). No token without a watcher.
void note_settled(const Project& project, SlotRecord& r) {
  r.index_key = index_key(r.slot.git_dir);
  r.watch_token.clear();
  if (!project.config().get_bool("watch.enabled")) return;
  auto root = util::real_path(r.slot.path);
  if (!root) return;
  auto answer = watch_hook(project.common_dir(), *root, "");
  if (!answer) return;
  r.watch_token = answer->substr(0, answer->find('\0'));
  // The one full look at the tree, here in the background: the workspace made of the slot gets
  // this shadow (hand_over_shadow), so its first status or snapshot, even by a `discard` nobody
  // ran a `list` before, is O(files changed) already. After the token: the look writes nothing
  // into the tree.
  Workspace w;
  w.name = r.slot.id;
  w.path = *root;
  w.git_dir = r.slot.git_dir;
  (void)prime_shadow(project, w);
  // Its birth, for the discard of the workspace made of it: with no untracked file but set-up's
  // now, its ignored files then are among the paths changed since (a walk of the tree here saves
  // one there).
  std::vector<std::string> setup = with_setup_made(setup_made_paths(project), r.prepared);
  auto untracked = any_untracked(r.slot.git_dir, *root, [&] { return setup; },
                                 project.setup_source(), {.ignored_only = false, .paths = {}});
  if (untracked && !*untracked) {
    auto index =
        glance_index_file(util::join(r.slot.git_dir, "index"), project.null_oid().size() / 2, {});
    note_birth(project, w, {r.watch_token, r.slot.commit, setup, index ? index->tree : ""});
  }
}

// Whether the slot is still exactly as it was settled: a command (or anyone) that wrote into it
// since would hand its changes to the next "fresh" workspace. Cheap when the watcher followed
// the slot: the index is the same file and the watcher saw no change in the tree. Otherwise a
// status that stats every file (and lists untracked and ignored ones: a fresh slot has none).
bool slot_untouched(const Project& project, const SlotRecord& r) {
  if (!hostile_admin_files(r.slot.git_dir).empty()) return false;
  // Nothing in its admin dir but what the checkout made: no `config.worktree`, no sparse
  // patterns, no merge or rebase state for the next workspace to inherit.
  static const std::set<std::string> made{"HEAD",  "ORIG_HEAD", "commondir", "gitdir",
                                          "index", "locked",    "logs"};
  for (const auto& e : util::DirEntries(r.slot.git_dir))
    if (!made.count(std::string(e.name))) return false;
  // Detached at its commit, as the filler left it.
  auto head = util::read_file(util::join(r.slot.git_dir, "HEAD"));
  if (!head || chomp(*head) != r.slot.commit) return false;
  std::string key = index_key(r.slot.git_dir);
  if (key.empty()) return false;
  if (key == r.index_key && !r.watch_token.empty()) {
    if (auto root = util::real_path(r.slot.path)) {
      auto answer = watch_since(project.common_dir(), *root, r.watch_token);
      if (answer && answer->find('\0') + 1 == answer->size()) return true;
    }
  }
  Workspace w;
  w.path = r.slot.path;
  w.git_dir = r.slot.git_dir;
  std::vector<std::string> args{"status",
                                "--porcelain=v2",
                                "-z",
                                "--untracked-files=all",
                                "--ignored=matching",
                                "--ignore-submodules=none"};
  // The set-up the slot was prepared with is ignored files on purpose.
  if (!r.prepared.empty()) {
    args.insert(args.end(), {"--", "."});
    for (const auto& path : r.prepared)
      args.push_back(":(exclude,literal)" + path);
  }
  auto call = workspace_call(w, args);
  call.env["GIT_OPTIONAL_LOCKS"] = "0";
  auto status = git_status_of(call);
  return status && status->ok() && status->out.empty();
}

Result<std::string> main_head(const Project& project) {
  std::string where =
      project.main_worktree().empty() ? project.common_dir() : project.main_worktree();
  auto r = BERTH_TRY(git_status_of(GitCall{
      {"rev-parse", "--verify", "-q", "HEAD^{commit}"}, where, {}, {}, util::Stream::pipe}));
  if (!r.ok()) return std::string();
  return chomp(r.out);
}

// The slot carries the project's set-up copies (clones, links; never a command), so that the
// `new` taking it does not copy a big node_modules: made after the checkout settled, before the
// watcher's token is taken (the copies are part of the slot as settled).
Result<void> prepare(const Project& project, SlotRecord& r, const Workspace& w) {
  r.setup_key = setup_inputs_key(project);
  r.prepared.clear();
  if (r.setup_key.empty()) return {};
  r.prepared = BERTH_TRY(prepare_pool_slot(project, w));
  return {};
}

// Make one ready slot. Its record is made under the lock ("filling", held by this process: a
// filler that dies leaves a slot the next fill removes); the worktree is registered outside it
// (`worktree add` runs the user's reference-transaction hook for the slot's HEAD), and so are
// the checkout and settling, the slow parts.
Result<void> make_slot(const Project& project, const std::string& commit) {
  Registry registry(project.berth_dir());
  SlotRecord r;
  {
    auto lock = BERTH_TRY(registry.lock());
    static int counter = 0;
    r.slot.id = fmt::format("slot-{}-{}-{}", unix_now(), ::getpid(), ++counter);
    r.slot.path = util::join(slots_dir(project), r.slot.id);
    r.slot.commit = commit;
    r.slot.state = "filling";
    r.slot.created = unix_now();
    r.pid = static_cast<int>(::getpid());
    r.pid_start = util::process_start_time(::getpid());
    if (auto made = util::make_dirs(slots_dir(project)); !made)
      return fail(ErrorCode::io_error, made.error());
    // `worktree add` reads every worktree's HEAD: never while one of them is a planted FIFO.
    BERTH_TRY(refuse_blocking_admin(project.common_dir()));
    BERTH_TRY(save_slot(project, r));
  }
  GitCall add = repo_call(project, {"worktree", "add", "--no-checkout", "--detach", "--lock",
                                    "--reason", kSlotLockReason, r.slot.path, commit});
  auto added = git_status_of(add);
  // Another `git worktree add` half-way: git died reading its admin dir. A detached add makes
  // nothing before that check; tried again.
  for (int attempt = 1; attempt < 20 && added && !added->ok() && saw_half_made_worktree(added->err);
       ++attempt) {
    wait_for_half_made_worktree(attempt);
    added = git_status_of(add);
  }
  if (!added || !added->ok()) {
    auto lock = registry.lock();
    forget_slot(project, r);
    if (!added) return tl::unexpected(added.error());
    return tl::unexpected(
        git_error(add, *added, fmt::format("cannot make a pool slot: {}", last_line(added->err))));
  }
  {
    auto lock = BERTH_TRY(registry.lock());
    r.slot.git_dir = read_gitfile(r.slot.path);
    BERTH_TRY(save_slot(project, r));
  }
  Workspace w;
  w.name = r.slot.id;
  w.path = r.slot.path;
  w.git_dir = r.slot.git_dir;
  auto tuning = checkout_tuning(project);
  std::vector<std::string> args = tuning ? tuning->args : std::vector<std::string>{};
  args.insert(args.end(), {"reset", "--hard", "-q"});
  GitCall checkout = workspace_call(w, args);
  auto checked = git_status_of(checkout);
  if (!checked || !checked->ok()) {
    auto lock = registry.lock();
    forget_slot(project, r);
    if (!checked) return tl::unexpected(checked.error());
    return tl::unexpected(
        git_error(checkout, *checked,
                  fmt::format("the checkout of a pool slot failed: {}", last_line(checked->err))));
  }
  settle_index(w);
  if (auto prepared = prepare(project, r, w); !prepared) {
    auto lock = registry.lock();
    forget_slot(project, r);
    return tl::unexpected(prepared.error());
  }
  note_settled(project, r);
  auto lock = BERTH_TRY(registry.lock());
  r.slot.state = "ready";
  r.pid = 0;
  r.pid_start = 0;
  return save_slot(project, r);
}

// Slots whose filler died are half made: remove them.
void drop_dead_slots(const Project& project) {
  for (const auto& r : load_slots(project))
    if (r.slot.state != "ready" && !util::process_alive(r.pid, r.pid_start))
      forget_slot(project, r);
}

// ---- recycling ------------------------------------------------------------------------------
//
// A discarded tree is a full checkout already: resetting it to the main HEAD writes only the
// files that differ, far cheaper than a fresh checkout. But it held someone's work, so it becomes
// a slot only if it then ends *exactly* like a fresh one; anything berth cannot vouch for (an
// unknown file in the worktree's admin dir, a submodule, a hard link, odd permissions or owner)
// sends it to deletion instead.

// The admin dir of the discarded tree at `path`, if it is a worktree of this project holding
// nothing but what a plain worktree has (no sparse patterns, worktree config, submodules,
// in-progress merge or rebase, sandbox leftovers). Empty otherwise.
std::string recyclable_git_dir(const Project& project, const std::string& path) {
  auto git_dir = read_gitfile(path);
  auto worktrees = util::real_path(util::join(project.common_dir(), "worktrees"));
  if (git_dir.empty() || !worktrees || util::dirname(git_dir) != *worktrees) return {};
  // git's record of where this worktree lives must be this very tree.
  std::string back = chomp(util::read_file(util::join(git_dir, "gitdir")).value_or(""));
  auto here = util::real_path(util::join(path, ".git"));
  if (back.empty() || !here || util::real_path(back).value_or("") != *here) return {};
  // What any worktree that has seen commits and fetches holds; the leftovers among these are
  // removed when the tree is recycled.
  static const std::vector<std::string> plain = {"HEAD",       "ORIG_HEAD", "COMMIT_EDITMSG",
                                                 "FETCH_HEAD", "commondir", "gitdir",
                                                 "index",      "locked",    "logs"};
  util::DirEntries admin(git_dir);
  if (!admin.is_open()) return {};
  for (const auto& e : admin)
    if (std::find(plain.begin(), plain.end(), e.name) == plain.end()) return {};
  for (const auto& e : util::DirEntries(util::join(git_dir, "logs")))
    if (e.name != "HEAD") return {};
  return git_dir;
}

// After reset and clean: is every tracked path what a fresh checkout would have made? Regular
// files with one link, our owner and the umask's permissions; symlinks; real directories. (git
// does not rewrite a file whose content matches, so a hard link to a file elsewhere or a chmod
// would otherwise survive into the next workspace.)
bool looks_fresh(const Workspace& w) {
  auto listed = git_status_of(workspace_call(w, {"ls-files", "-s", "-z"}));
  if (!listed || !listed->ok()) return false;
  mode_t mask = ::umask(0);
  ::umask(mask);
  uid_t me = ::geteuid();
  auto dir_ok = [&](const std::string& dir) {
    struct stat st;
    return ::lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == me &&
           (st.st_mode & 07777) == (0777 & ~mask);
  };
  if (!dir_ok(w.path)) return false;
  std::vector<std::string> dirs;
  for (const auto& entry : split_z(listed->out)) {
    // "<mode> <oid> <stage>\t<path>"
    auto tab = entry.find('\t');
    if (tab == std::string::npos || entry.size() < 7) return false;
    std::string mode = entry.substr(0, 6);
    std::string file = entry.substr(tab + 1);
    if (entry[tab - 1] != '0') return false; // a conflict stage: not a clean tree
    struct stat st;
    if (::lstat(util::join(w.path, file).c_str(), &st) != 0) return false;
    if (mode == "100644" || mode == "100755") {
      mode_t want = (mode == "100755" ? 0777 : 0666) & ~mask;
      if (!S_ISREG(st.st_mode) || st.st_nlink != 1 || st.st_uid != me ||
          (st.st_mode & 07777) != want)
        return false;
    } else if (mode == "120000") {
      if (!S_ISLNK(st.st_mode) || st.st_uid != me) return false;
    } else {
      return false; // a submodule (160000): its checkout is not ours to vouch for
    }
    for (auto slash = file.find('/'); slash != std::string::npos; slash = file.find('/', slash + 1))
      dirs.push_back(file.substr(0, slash));
  }
  std::sort(dirs.begin(), dirs.end());
  dirs.erase(std::unique(dirs.begin(), dirs.end()), dirs.end());
  for (const auto& dir : dirs)
    if (!dir_ok(util::join(w.path, dir))) return false;
  return true;
}

// Turn the discarded tree at `path` into a ready slot at `commit`. False when it cannot be
// recycled (the caller deletes it); true when it is dealt with, as a slot or deleted here.
bool recycle_tree(const Project& project, const std::string& path, const std::string& commit) {
  Registry registry(project.berth_dir());
  SlotRecord r;
  {
    auto lock = registry.lock();
    if (!lock || !util::is_directory(path)) return false;
    std::string git_dir = recyclable_git_dir(project, path);
    if (git_dir.empty()) return false;
    static int counter = 0;
    r.slot.id = fmt::format("slot-{}-{}-r{}", unix_now(), ::getpid(), ++counter);
    r.slot.path = util::join(slots_dir(project), r.slot.id);
    r.slot.git_dir = git_dir;
    r.slot.commit = commit;
    r.slot.state = "filling";
    r.slot.created = unix_now();
    r.pid = static_cast<int>(::getpid());
    r.pid_start = util::process_start_time(::getpid());
    // The record first: if we die from here on, the next fill sees a dead filler's slot and
    // removes it (before the move, it removes nothing and the tree stays in the trash).
    if (!util::make_dirs(slots_dir(project)) || !save_slot(project, r)) return false;
    auto moved = git_status_of(
        repo_call(project, {"worktree", "move", "--force", "--force", path, r.slot.path}));
    if (!moved || !moved->ok()) {
      ::unlink(record_path(project, r.slot.id).c_str());
      return false;
    }
    Workspace recycled;
    recycled.git_dir = r.slot.git_dir;
    set_lock_reason(project, recycled, kSlotLockReason);
  }
  Workspace w;
  w.name = r.slot.id;
  w.path = r.slot.path;
  w.git_dir = r.slot.git_dir;
  // The previous workspace's HEAD history goes; HEAD is detached at the commit (its branch is
  // gone already), then the files follow: only those that differ are written, and every
  // untracked or ignored leftover is removed.
  for (const char* leftover : {"ORIG_HEAD", "COMMIT_EDITMSG", "FETCH_HEAD", "logs/HEAD"})
    ::unlink(util::join(w.git_dir, leftover).c_str());
  auto tuning = checkout_tuning(project);
  std::vector<std::string> reset = tuning ? tuning->args : std::vector<std::string>{};
  reset.insert(reset.end(), {"reset", "--hard", "-q"});
  auto ok = [](const Result<util::ProcessResult>& x) { return x && x->ok(); };
  bool fresh =
      ok(git_status_of(workspace_call(w, {"update-ref", "--no-deref", "-m",
                                          "berth: recycled into the pool", "HEAD", commit}))) &&
      ok(git_status_of(workspace_call(w, reset))) &&
      ok(git_status_of(workspace_call(w, {"clean", "-ffdxq"}))) && looks_fresh(w);
  if (fresh) {
    settle_index(w);
    auto status = git_status_of(workspace_call(
        w, {"status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignored=matching"}));
    fresh = ok(status) && status->out.empty() && prepare(project, r, w).has_value();
    if (fresh) note_settled(project, r);
  }
  auto lock = registry.lock();
  if (!fresh) {
    forget_slot(project, r);
    return true;
  }
  r.slot.state = "ready";
  r.pid = 0;
  r.pid_start = 0;
  if (!save_slot(project, r)) forget_slot(project, r);
  return true;
}

std::vector<std::string> entries_of(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : util::DirEntries(dir))
    names.emplace_back(e.name);
  return names;
}

// Discarded trees moved aside by `discard`, in the .trash folder of every root in use (a
// workspace made under another `workspace_root` is discarded into its own root's): reset into
// the pool while it has fewer than `room` slots (and `commit` is known), deleted otherwise. Runs
// in the background filler.
int reap_trash(const Project& project, int64_t room = 0, const std::string& commit = {}) {
  int reaped = 0;
  // One reaper at a time: two full looks racing a deletion of the same tree would let one
  // "complete" the snapshot from a half-deleted tree.
  auto reaping = lock_trash(project);
  if (!reaping) return 0;
  for (const auto& root : workspace_roots(project)) {
    std::string dir = util::join(root, ".trash");
    // Only today's root recycles: a slot lives there, and a rename cannot cross file systems.
    bool todays = dir == util::lexically_normal(trash_dir(project));
    bool standard = todays || is_standard_root(project, root);
    for (const auto& name : entries_of(dir)) {
      std::string path = util::join(dir, name);
      // A root named by a record or by `discard` is not one berth chose itself: there, only what
      // git knows as a worktree of this project is deleted, never another folder in a `.trash`.
      if (!standard && admin_dir_naming(project, path).empty()) continue;
      ++reaped;
      // Its snapshot checked against a full look, and what goes unsaved counted, before it goes
      // (discard waited for neither).
      settle_aside(project, path, true);
      if (!aside_may_go(project, path).empty()) continue; // kept; `berth doctor` names it
      if (todays && !commit.empty() && room > 0) {
        auto slots = load_slots(project);
        int64_t present = std::count_if(slots.begin(), slots.end(), [](const SlotRecord& r) {
          return r.slot.state == "ready" || util::process_alive(r.pid, r.pid_start);
        });
        if (present < room && recycle_tree(project, path, commit)) continue;
      }
      (void)remove_aside(project, path);
    }
  }
  Registry registry(project.berth_dir());
  if (auto lock = registry.lock()) forget_empty_trash_roots(project);
  return reaped;
}

int count_trash(const Project& project) {
  int n = 0;
  for (const auto& root : workspace_roots(project))
    n += static_cast<int>(entries_of(util::join(root, ".trash")).size());
  return n;
}

} // namespace

std::string pool_records_dir(const Project& project) {
  return records_dir(project);
}

namespace {

// Under the lock: the first sound ready slot, moved to `path` (a rename) and gone from the pool,
// so that no other `new` takes it too.
Result<std::optional<TakenSlot>> claim_pool_slot(const Project& project, const std::string& path) {
  // A slot prepared with other set-up inputs (the user ran `npm install`, changed setup.clone)
  // would hand over a stale node_modules: left for the background filler to refresh.
  std::string setup_key = setup_inputs_key(project);
  Registry registry(project.berth_dir());
  auto lock = BERTH_TRY(registry.lock());
  // Slots are used whenever there are some (even made by hand with pool.size = 0).
  for (auto& r : load_slots(project)) {
    if (r.slot.state != "ready" || !util::is_directory(r.slot.path)) continue;
    if (owned_by_another_repository(project, r.slot.git_dir, r.slot.path)) {
      forget_slot(project, r);
      continue;
    }
    if (r.setup_key != setup_key) continue;
    // The repository was moved: the slot's admin dir is git's one now, where git's links prove it
    // (after `git worktree repair`); a slot they do not is dropped (it holds no one's work).
    if (!util::is_directory(r.slot.git_dir)) {
      r.slot.git_dir = moved_admin_dir(project, r.slot.path);
      if (r.slot.git_dir.empty()) {
        forget_slot(project, r);
        continue;
      }
    }
    // Anything written into the slot since it was settled (an edit, a new or deleted file, a
    // `git add`, a planted FIFO) would end up in the "fresh" workspace: such a slot is dropped
    // (the caller's refill replaces it).
    if (!slot_untouched(project, r)) {
      forget_slot(project, r);
      continue;
    }
    // A rename: O(1) whatever the size of the tree. Without submodules by hand (git would read the
    // whole index to look for them); with them through git, which refuses to move those.
    bool renamed = !util::exists(util::join(r.slot.path, ".gitmodules")) &&
                   rename_worktree(r.slot.git_dir, r.slot.path, path);
    auto moved = renamed
                     ? util::ProcessResult{0, 0, {}, {}}
                     : BERTH_TRY(git_status_of(repo_call(project, {"worktree", "move", "--force",
                                                                   "--force", r.slot.path, path})));
    if (!moved.ok()) {
      forget_slot(project, r);
      continue;
    }
    ::unlink(record_path(project, r.slot.id).c_str());
    return std::optional<TakenSlot>(
        TakenSlot{r.slot.id, r.slot.git_dir, r.slot.commit, r.prepared});
  }
  return std::optional<TakenSlot>();
}

// Point the worktree's HEAD at `ref` as `git symbolic-ref HEAD REF` does (without -m: no reflog
// entry, and git 2.39 runs no hook for it), under git's own lock rules: HEAD.lock made
// exclusively, written, renamed over HEAD. One process fewer per take. False when the lock is
// taken or a write fails (the caller asks git, which says why).
bool attach_head(const std::string& git_dir, const std::string& ref) {
  std::string head = util::join(git_dir, "HEAD");
  std::string lock = head + ".lock";
  int fd = ::open(lock.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return false;
  std::string text = "ref: " + ref + "\n";
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ok = ::close(fd) == 0 && ok;
  if (ok && ::rename(lock.c_str(), head.c_str()) == 0) return true;
  ::unlink(lock.c_str());
  return false;
}

} // namespace

Result<std::optional<TakenSlot>> take_pool_slot(const Project& project, const std::string& path,
                                                const std::string& branch, const std::string& start,
                                                const std::string& lock_reason) {
  auto taken = BERTH_TRY(claim_pool_slot(project, path));
  if (!taken) return taken;
  // Outside the lock: the branch is created at the base, and HEAD attached to it without
  // touching index or files (they still hold the slot's commit until the caller's read-tree
  // brings them over). Both run the user's reference-transaction hook. The tree at `path` is the
  // caller's now (its record, held by it, names the path): a failure here is undone with it.
  Workspace w;
  w.path = path;
  w.git_dir = taken->git_dir;
  GitCall make = repo_call(project, {"update-ref", "-m", "berth: new workspace",
                                     "refs/heads/" + branch, start, project.null_oid()});
  auto made = BERTH_TRY(git_status_of(make));
  if (!made.ok()) {
    if (ref_hook_refused(made.err))
      return tl::unexpected(git_error(
          make, made,
          fmt::format("cannot create branch '{}': your reference-transaction hook refused it",
                      branch)));
    return fail(ErrorCode::branch_exists,
                fmt::format("cannot create branch '{}': {}", branch, chomp(made.err)));
  }
  if (!attach_head(w.git_dir, "refs/heads/" + branch))
    BERTH_TRY(git(workspace_call(w, {"symbolic-ref", "HEAD", "refs/heads/" + branch})));
  set_lock_reason(project, w, lock_reason);
  return taken;
}

Result<PoolStatus> pool_status(const Project& project) {
  PoolStatus s;
  s.dir = slots_dir(project);
  s.size = project.config().get_int("pool.size");
  for (auto& r : load_slots(project))
    s.slots.push_back(r.slot);
  s.trash = count_trash(project);
  return s;
}

Result<PoolStatus> pool_fill(const Project& project, int64_t count) {
  {
    Registry registry(project.berth_dir());
    std::string setup_key = setup_inputs_key(project);
    auto lock = BERTH_TRY(registry.lock());
    drop_dead_slots(project);
    // Refreshed: a ready slot prepared with other set-up inputs goes, and is made again below.
    for (const auto& r : load_slots(project))
      if (r.slot.state == "ready" && r.setup_key != setup_key) forget_slot(project, r);
  }
  std::string commit = BERTH_TRY(main_head(project));
  // Discarded trees first: recycled into the pool while it has room, deleted beyond that.
  reap_trash(project, count, commit);
  if (commit.empty())
    return fail(ErrorCode::empty_repository, "the repository has no commit to fill the pool with");
  for (;;) {
    auto slots = load_slots(project);
    int64_t ready = std::count_if(slots.begin(), slots.end(), [&](const SlotRecord& r) {
      return r.slot.state == "ready" || util::process_alive(r.pid, r.pid_start);
    });
    if (ready >= count) break;
    BERTH_TRY(make_slot(project, commit));
  }
  // Slots left at an old commit still work (only differing files are written when taken), but
  // the further behind, the more they write: replace those that are stale.
  return pool_status(project);
}

Result<PoolStatus> pool_drain(const Project& project) {
  Registry registry(project.berth_dir());
  {
    auto lock = BERTH_TRY(registry.lock());
    for (const auto& r : load_slots(project))
      if (r.slot.state == "ready" || !util::process_alive(r.pid, r.pid_start))
        forget_slot(project, r);
  }
  reap_trash(project);
  return pool_status(project);
}

bool pool_refill_in_background(const Project& project) {
  return pool_refill_in_background(project, 0);
}

std::optional<std::string> missing_helper_warning(const Project& project) {
  if (!project.helper().empty()) return std::nullopt;
  bool pool = project.config().get_int("pool.size") > 0;
  bool watch = project.config().get_bool("watch.enabled");
  if (!pool && !watch) return std::nullopt;
  return fmt::format("no berth executable for background work (this program is not berth, and "
                     "none is installed beside the library): {}; set "
                     "berth::ProjectOptions::helper_path",
                     pool && watch ? "the pool is not refilled and the watcher is off"
                     : pool        ? "the pool is not refilled"
                                   : "the watcher is off");
}

namespace {

// The repository a pool slot's `.git` file names is gone: its admin dir's repository
// (".../<common>/worktrees/<id>", two levels up) no longer exists. Read by hand: the target is
// gone, so read_gitfile (which resolves it) cannot say.
bool slot_of_vanished_repository(const std::string& path) {
  std::string gitfile = util::join(path, ".git");
  if (util::is_symlink(gitfile)) return false;
  std::string text = chomp(util::read_file(gitfile).value_or(""));
  if (text.rfind("gitdir: ", 0) != 0) return false;
  std::string worktrees =
      util::dirname(util::lexically_normal(util::absolute(text.substr(8), path)));
  return util::basename(worktrees) == "worktrees" && !util::exists(util::dirname(worktrees));
}

// Is a slot's base commit gone: no object any more, or on no branch, tag or remote branch (the
// branch it was made from was deleted or rewritten)? A git call that fails keeps the slot.
bool base_gone(const Project& project, const std::string& commit, const std::string& head,
               std::map<std::string, bool>& known) {
  if (commit.empty() || commit == head) return false;
  if (auto it = known.find(commit); it != known.end()) return it->second;
  bool gone = false;
  auto exists = git_status_of(repo_call(project, {"cat-file", "-e", commit + "^{commit}"}));
  if (exists && !exists->ok()) {
    gone = true;
  } else if (exists) {
    auto on =
        git_status_of(repo_call(project, {"for-each-ref", "--count=1", "--format=x", "--contains",
                                          commit, "refs/heads", "refs/tags", "refs/remotes"}));
    gone = on && on->ok() && on->out.empty();
  }
  return known[commit] = gone;
}

struct PoolOrphan {
  std::string path;
  std::string reason;
  std::optional<SlotRecord> record; ///< a slot of ours with a record
  bool vanished_repository = false; ///< a slot of a repository that no longer exists
};

// Why a slot record is an orphan ("" when it is not; a slot a live filler is making never is).
std::string record_orphan_reason(const Project& project, const SlotRecord& r,
                                 const std::string& head, std::map<std::string, bool>& known) {
  if (r.slot.state != "ready")
    return util::process_alive(r.pid, r.pid_start) ? std::string()
                                                   : "half made: the process filling it died";
  if (!util::is_directory(r.slot.path)) return "its directory is gone";
  if (base_gone(project, r.slot.commit, head, known))
    return fmt::format("its base commit {} is on no branch or tag any more",
                       r.slot.commit.substr(0, 12));
  return {};
}

// The pool folders to look in: each of the project's roots' `.pool`, then those of the sibling
// folders of its default root (other projects' roots), looked at only for slots of a repository
// that no longer exists.
std::vector<std::pair<std::string, bool>> pool_folders(const Project& project) {
  std::vector<std::pair<std::string, bool>> folders;
  std::set<std::string> ours;
  for (const auto& root : workspace_roots(project)) {
    ours.insert(util::lexically_normal(root));
    folders.emplace_back(util::join(root, ".pool"), true);
  }
  std::string parent = util::dirname(util::lexically_normal(project.default_workspace_root()));
  for (const auto& e : util::DirEntries(parent)) {
    std::string sibling = util::join(parent, std::string(e.name));
    if (!ours.count(sibling) && util::is_directory(util::join(sibling, ".pool")))
      folders.emplace_back(util::join(sibling, ".pool"), false);
  }
  return folders;
}

std::vector<PoolOrphan> find_pool_orphans(const Project& project, std::vector<GcItem>& skipped,
                                          const std::function<bool()>& out_of_time) {
  std::vector<PoolOrphan> found;
  std::string head = main_head(project).value_or("");
  std::map<std::string, bool> known;
  std::set<std::string> claimed;
  for (auto& r : load_slots(project)) {
    claimed.insert(util::lexically_normal(r.slot.path));
    if (out_of_time()) break;
    std::string why = record_orphan_reason(project, r, head, known);
    if (why.empty()) {
      // Only a slot that would be an orphan but for its filler is worth saying so.
      if (r.slot.state != "ready" && base_gone(project, r.slot.commit, head, known))
        skipped.push_back({"orphan", "pool-slot", r.slot.id, "", r.slot.path,
                           fmt::format("in use: process {} is filling it", r.pid), ""});
      continue;
    }
    found.push_back({r.slot.path, why, r, false});
  }
  for (const auto& [folder, ours] : pool_folders(project)) {
    for (const auto& e : util::DirEntries(folder)) {
      if (out_of_time()) return found;
      std::string name(e.name), path = util::join(folder, name);
      if (name.rfind("slot-", 0) != 0 || claimed.count(util::lexically_normal(path))) continue;
      if (slot_of_vanished_repository(path)) {
        found.push_back({path, "a pool slot of a repository that no longer exists", {}, true});
      } else if (ours && !read_gitfile(path).empty() && !admin_dir_naming(project, path).empty()) {
        found.push_back({path, "a pool slot no record claims (left by a crash)", {}, false});
      }
    }
  }
  return found;
}

} // namespace

Result<void> collect_pool_orphans(const Project& project, bool dry_run, GcReport& report,
                                  const std::function<bool()>& out_of_time) {
  auto found = find_pool_orphans(project, report.skipped, out_of_time);
  if (found.empty()) return {};
  Registry registry(project.berth_dir());
  std::string head = dry_run ? std::string() : main_head(project).value_or("");
  std::map<std::string, bool> known;
  for (auto& o : found) {
    GcItem item{"orphan", "pool-slot", o.record ? o.record->slot.id : util::basename(o.path),
                "",       o.path,      o.reason,
                ""};
    if (!dry_run) {
      // Decided again under the lock: a slot taken, refilled or claimed meanwhile stays.
      auto lock = BERTH_TRY(registry.lock());
      auto slots = load_slots(project);
      auto now = std::find_if(slots.begin(), slots.end(), [&](const SlotRecord& r) {
        return util::lexically_normal(r.slot.path) == util::lexically_normal(o.path);
      });
      if (o.record) {
        if (now == slots.end() || now->slot.state != o.record->slot.state ||
            record_orphan_reason(project, *now, head, known).empty())
          continue;
        std::string git_dir = now->slot.git_dir;
        forget_slot(project, *now);
        // Its directory gone, git may not remove its admin dir by path: ours, removed here.
        auto worktrees = util::real_path(util::join(project.common_dir(), "worktrees"));
        if (!git_dir.empty() && !util::exists(now->slot.path) && worktrees &&
            util::dirname(util::lexically_normal(git_dir)) == *worktrees)
          (void)util::remove_tree(git_dir);
      } else if (now != slots.end()) {
        continue;
      } else if (o.vanished_repository) {
        if (!util::remove_tree(o.path)) {
          item.reason = "it could not be deleted";
          report.skipped.push_back(item);
          continue;
        }
        // The folders it leaves empty go too (rmdir removes only an empty one).
        ::rmdir(util::dirname(o.path).c_str());
        ::rmdir(util::dirname(util::dirname(o.path)).c_str());
      } else {
        SlotRecord r;
        r.slot.id = util::basename(o.path);
        r.slot.path = o.path;
        r.slot.git_dir = read_gitfile(o.path);
        forget_slot(project, r);
      }
    }
    report.removed.push_back(item);
  }
  return {};
}

namespace {

// ---- one background filler per project ------------------------------------------------------
//
// Every `new`, `discard` and `fork` wants a filler to run after it, and a filler deleting big
// trees may take minutes: fillers that queued on a lock piled up (dozens of processes). So there
// is at most one at a time, and a request is a file, not a process:
//
//  - Whoever wants a pass (the command starting a filler, and the filler itself) first *posts a
//    request*: a file of its own in <pool>/requests, made atomically, named by pid, process start
//    time and a counter (no two requests share a file: none overwrites another), holding the pool
//    size it wants. Then it *tries* the fill lock (flock, never waited for).
//  - Lock taken: it leaves at once (the command starts no process; a filler exits).
//  - Lock got: it *serves*: take every request (read, unlink), make one pass (trash, slots, the
//    look at the workspaces, gc's automatic pass) for the largest size asked, again while new
//    requests came in meanwhile. None left: release the lock, then look once more; a request
//    there means trying the lock again (and leaving if someone holds it by now).
//
// Why none is lost: a request is unlinked only by the lock's holder, before the pass that serves
// it, so that pass sees every tree moved aside before it was posted. A poster that found the
// lock taken posted before its try; whoever held the lock then looks at the requests after its
// release (the look after release), so it sees that request unless a holder took it to serve it.
// Without that look, "the holder found nothing and is about to leave" and "a new poster sees the
// lock still held and leaves" would lose the request. The command that got the lock (nobody was
// serving) does not serve: it releases it and starts a filler, whose own look comes after.
// The lock is held across passes that check out slots (not the user's tree) and run no hook of
// the user's while a berth command waits for it: no command ever waits for it.

std::string requests_dir(const Project& project) {
  return util::join(records_dir(project), "requests");
}
std::string fill_lock_path(const Project& project) {
  return util::join(records_dir(project), "fill.lock");
}

Result<void> post_fill_request(const Project& project, int64_t size) {
  static int counter = 0;
  std::string dir = requests_dir(project);
  if (auto made = util::make_dirs(dir); !made) return fail(ErrorCode::io_error, made.error());
  std::string name =
      fmt::format("{}-{}-{}.req", ::getpid(), util::process_start_time(::getpid()), ++counter);
  // Atomic (a reader never sees half a request) but not synced: a request lost with the machine
  // is harmless (the next command posts another), and `new` waits for no fsync. (The temp file's
  // name holds ".tmp.": never counted as a request; one a killed writer left is dropped.)
  if (auto written = util::write_file_atomic(util::join(dir, name), fmt::format("{}\n", size),
                                             util::Fsync::no);
      !written)
    return fail(ErrorCode::io_error, written.error());
  return {};
}

// The requests waiting ("*.req"; a ".tmp." file is one half written, never counted).
std::vector<std::string> fill_requests(const Project& project) {
  std::vector<std::string> found;
  for (const auto& e : util::DirEntries(requests_dir(project))) {
    std::string name(e.name);
    if (name.size() > 4 && name.substr(name.size() - 4) == ".req" &&
        name.find(".tmp.") == std::string::npos)
      found.push_back(util::join(requests_dir(project), name));
  }
  return found;
}

// A request's temp file left by a writer killed mid-write (never counted as a request): removed
// by the filler once it is an hour old (a write takes milliseconds).
void drop_stale_request_temps(const Project& project) {
  constexpr int64_t kHour = 3600;
  for (const auto& e : util::DirEntries(requests_dir(project))) {
    std::string path = util::join(requests_dir(project), std::string(e.name));
    struct stat st;
    if (std::string(e.name).find(".tmp.") != std::string::npos && ::lstat(path.c_str(), &st) == 0 &&
        S_ISREG(st.st_mode) && unix_now() - st.st_mtim.tv_sec > kHour)
      ::unlink(path.c_str());
  }
}

// Take every waiting request (under the fill lock): the largest pool size asked, or none.
std::optional<int64_t> take_fill_requests(const Project& project) {
  std::optional<int64_t> size;
  for (const auto& path : fill_requests(project)) {
    int64_t asked = 0;
    if (auto text = util::read_file(path)) {
      try {
        asked = std::stoll(*text);
      } catch (const std::exception&) {
        asked = 0;
      }
    }
    ::unlink(path.c_str());
    size = std::max(size.value_or(0), std::clamp<int64_t>(asked, 0, kMaxPoolSize));
  }
  return size;
}

// BERTH_TEST_FILL_PAUSE=PATH (berth's own tests only): the filler, holding the lock with no
// request left, about to release it, makes PATH.reached and waits while PATH exists (at most
// 2 minutes): the race with a request posted at that moment, made deterministic.
void test_pause_before_release() {
  static const char* wanted = std::getenv("BERTH_TEST_FILL_PAUSE");
  if (!wanted || !*wanted) return;
  std::string path = wanted;
  if (!util::exists(path)) return;
  (void)util::write_file(path + ".reached", "");
  for (int i = 0; i < 6000 && util::exists(path); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

// One pass of the filler: trash, slots, the look at the workspaces, gc's light pass.
Result<PoolStatus> fill_pass(const Project& project, int64_t size) {
  // First, look once at every workspace: one berth has not looked at yet (just made) gets its
  // shadow index and the watcher's attention now, in the background, so the orchestrator's first
  // `list`, `diff` or `discard` costs O(changed files) already. The others cost nothing. One just
  // made of a slot has the slot's shadow, whose untracked cache git keeps for the slot's path
  // only: its first status in the new place lists every folder again, done here (before the
  // slots' checkouts, which take seconds) rather than in the agent's first snapshot. (A workspace
  // made while this pass fills posted a request: the next pass looks at it.)
  if (project.config().get_bool("watch.enabled")) (void)list_workspaces(project);
  auto filled = pool_fill(project, size);
  // The light gc pass after new/discard (docs/gc.md): orphans and expired trash, never a
  // workspace, bounded in time; here, off the caller's path.
  if (project.config().get_bool("gc.auto")) {
    GcOptions light;
    light.automatic = true;
    auto collected = collect_garbage(project, light);
    // Slots it dropped (their base is gone) are made again, at today's commit.
    if (collected && std::any_of(collected->removed.begin(), collected->removed.end(),
                                 [](const GcItem& i) { return i.kind == "pool-slot"; }))
      filled = pool_fill(project, size);
  }
  return filled;
}

} // namespace

tl::expected<util::FileLock, std::string> hold_pool_fillers(const Project& project) {
  return util::FileLock::acquire(fill_lock_path(project));
}

bool pool_refill_in_background(const Project& project, int64_t at_least) {
  if (project.helper().empty()) return false;
  int64_t size = std::max(project.config().get_int("pool.size"), at_least);
  // The request first, then the try (see above): a filler at work serves it, and none starts.
  if (post_fill_request(project, size)) {
    auto serving = util::FileLock::try_acquire(fill_lock_path(project));
    if (serving && !serving->has_value()) return true;
  }
  std::vector<std::string> argv{project.helper(), "-C", project.common_dir(), "--quiet"};
  // This once, a larger pool: the filler reads pool.size from the configuration it is given.
  if (at_least > project.config().get_int("pool.size"))
    argv.insert(argv.end(), {"-c", fmt::format("pool.size={}", at_least)});
  argv.insert(argv.end(), {"pool", "fill", "--background"});
  (void)util::spawn_detached(std::move(argv));
  return true;
}

Result<PoolStatus> pool_fill_background(const Project& project) {
  // A request that cannot be posted (the records dir read-only, say) is served by this filler if
  // it gets the lock, as one taken from the folder.
  // (-1: none. Not an optional: GCC's -O2 takes its value for one maybe used uninitialised.)
  int64_t unposted = -1;
  if (!post_fill_request(project, project.config().get_int("pool.size")))
    unposted = project.config().get_int("pool.size");
  bool lowered = false;
  std::optional<Result<PoolStatus>> last;
  for (;;) {
    {
      auto lock = util::FileLock::try_acquire(fill_lock_path(project));
      if (!lock) return fail(ErrorCode::io_error, lock.error());
      if (!lock->has_value()) break; // another filler serves: it sees our requests
      if (!lowered) {
        // Be a good neighbour: lowest CPU and I/O priority.
        (void)::setpriority(PRIO_PROCESS, 0, 19);
        constexpr int kIoprioClassIdle = 3, kIoprioClassShift = 13, kIoprioWhoProcess = 1;
        (void)::syscall(SYS_ioprio_set, kIoprioWhoProcess, 0,
                        kIoprioClassIdle << kIoprioClassShift);
        lowered = true;
      }
      drop_stale_request_temps(project);
      // A pass that fails does not end the loop: the requests that came in meanwhile are served.
      for (auto size = take_fill_requests(project); size || unposted >= 0;
           size = take_fill_requests(project)) {
        int64_t asked = std::max(size.value_or(0), unposted);
        unposted = -1;
        last = fill_pass(project, asked);
      }
      test_pause_before_release();
    }
    // The look after release: a request posted while we held the lock by one that then saw it
    // held and left is ours to serve.
    if (fill_requests(project).empty()) break;
  }
  if (last) return *last;
  return pool_status(project);
}

} // namespace berth
