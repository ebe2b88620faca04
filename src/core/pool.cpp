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

#include "core/git.hpp"
#include "core/porcelain.hpp"
#include "core/registry.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/child_process.hpp"
#include "util/file_lock.hpp"
#include "util/paths.hpp"
#include "util/process_info.hpp"

#include <algorithm>
#include <dirent.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
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
};

Result<void> save_slot(const Project& project, const SlotRecord& r) {
  nlohmann::json j = {{"id", r.slot.id},
                      {"path", r.slot.path},
                      {"git_dir", r.slot.git_dir},
                      {"commit", r.slot.commit},
                      {"state", r.slot.state},
                      {"created", r.slot.created},
                      {"pid", r.pid},
                      {"pid_start", r.pid_start}};
  if (auto made = util::make_dirs(records_dir(project)); !made)
    return fail(ErrorCode::io_error, made.error());
  if (auto written = util::write_file_atomic(record_path(project, r.slot.id), j.dump(1) + "\n");
      !written)
    return fail(ErrorCode::io_error, written.error());
  return {};
}

std::vector<SlotRecord> load_slots(const Project& project) {
  std::vector<SlotRecord> slots;
  DIR* d = ::opendir(records_dir(project).c_str());
  if (!d) return slots;
  while (dirent* e = ::readdir(d)) {
    std::string file = e->d_name;
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
    if (r.slot.id.empty() || r.slot.path.empty()) continue;
    slots.push_back(std::move(r));
  }
  ::closedir(d);
  std::sort(slots.begin(), slots.end(),
            [](const auto& a, const auto& b) { return a.slot.created < b.slot.created; });
  return slots;
}

void forget_slot(const Project& project, const SlotRecord& r) {
  (void)git_status_of(
      repo_call(project, {"worktree", "remove", "--force", "--force", r.slot.path}));
  if (util::is_directory(r.slot.path) && util::is_within(r.slot.path, slots_dir(project)))
    (void)util::remove_tree(r.slot.path);
  ::unlink(record_path(project, r.slot.id).c_str());
}

// Wait until the wall clock has left the second in which the index was written, then refresh it:
// afterwards no entry's mtime equals the index's own, so none is "racily clean".
void settle(const Workspace& w) {
  struct stat st;
  std::string index = util::join(w.git_dir, "index");
  if (::stat(index.c_str(), &st) == 0) {
    while (::time(nullptr) <= st.st_mtime)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  (void)git_status_of(workspace_call(w, {"update-index", "-q", "--refresh"}));
}

Result<std::string> main_head(const Project& project) {
  std::string where =
      project.main_worktree().empty() ? project.common_dir() : project.main_worktree();
  auto r = BERTH_TRY(git_status_of(GitCall{
      {"rev-parse", "--verify", "-q", "HEAD^{commit}"}, where, {}, {}, util::Stream::pipe}));
  if (!r.ok()) return std::string();
  return chomp(r.out);
}

// Make one ready slot. The worktree is registered under the lock; the checkout and settling,
// the slow parts, happen outside it.
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
    BERTH_TRY(save_slot(project, r));
    auto added = BERTH_TRY(
        git_status_of(repo_call(project, {"worktree", "add", "--no-checkout", "--detach", "--lock",
                                          "--reason", kSlotLockReason, r.slot.path, commit})));
    if (!added.ok()) {
      ::unlink(record_path(project, r.slot.id).c_str());
      return fail(ErrorCode::git_failed,
                  fmt::format("cannot make a pool slot: {}", chomp(added.err)));
    }
    auto gitfile = util::read_file(util::join(r.slot.path, ".git"));
    std::string gitdir = gitfile ? chomp(*gitfile) : std::string();
    if (gitdir.rfind("gitdir: ", 0) == 0) gitdir = gitdir.substr(8);
    r.slot.git_dir = util::real_path(util::absolute(gitdir, r.slot.path)).value_or("");
    BERTH_TRY(save_slot(project, r));
  }
  Workspace w;
  w.name = r.slot.id;
  w.path = r.slot.path;
  w.git_dir = r.slot.git_dir;
  auto configured = git_status_of(repo_call(project, {"config", "--get", "checkout.workers"}));
  std::vector<std::string> args;
  if (!configured || !configured->ok())
    args = {"-c",
            fmt::format("checkout.workers={}", std::max(1u, std::thread::hardware_concurrency()))};
  args.insert(args.end(), {"reset", "--hard", "-q"});
  auto checked = git_status_of(workspace_call(w, args));
  if (!checked || !checked->ok()) {
    auto lock = registry.lock();
    forget_slot(project, r);
    return fail(ErrorCode::git_failed, "the checkout of a pool slot failed",
                checked ? chomp(checked->err) : checked.error().message);
  }
  settle(w);
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

// Discarded trees moved aside by `discard` are deleted here, in the background.
int reap_trash(const Project& project) {
  int reaped = 0;
  std::string dir = trash_dir(project);
  DIR* d = ::opendir(dir.c_str());
  if (!d) return 0;
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(d);
  for (const auto& name : names) {
    std::string path = util::join(dir, name);
    auto removed =
        git_status_of(repo_call(project, {"worktree", "remove", "--force", "--force", path}));
    if ((!removed || !removed->ok()) && util::is_within(path, dir)) (void)util::remove_tree(path);
    ++reaped;
  }
  return reaped;
}

int count_trash(const Project& project) {
  int n = 0;
  DIR* d = ::opendir(trash_dir(project).c_str());
  if (!d) return 0;
  while (dirent* e = ::readdir(d))
    if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") ++n;
  ::closedir(d);
  return n;
}

} // namespace

std::string trash_dir(const Project& project) {
  return util::join(project.workspace_root(), ".trash");
}

Result<std::optional<TakenSlot>> take_pool_slot(const Project& project, const std::string& path,
                                                const std::string& branch, const std::string& start,
                                                const std::string& lock_reason) {
  if (project.config().get_int("pool.size") <= 0) return std::optional<TakenSlot>();
  for (const auto& r : load_slots(project)) {
    if (r.slot.state != "ready" || !util::is_directory(r.slot.path) ||
        !util::is_directory(r.slot.git_dir))
      continue;
    // A rename: O(1) whatever the size of the tree.
    auto moved = BERTH_TRY(git_status_of(
        repo_call(project, {"worktree", "move", "--force", "--force", r.slot.path, path})));
    if (!moved.ok()) {
      forget_slot(project, r);
      continue;
    }
    ::unlink(record_path(project, r.slot.id).c_str());
    Workspace w;
    w.path = path;
    w.git_dir = r.slot.git_dir;
    // The branch is created at the base; HEAD is attached to it without touching index or files
    // (they still hold the slot's commit until the caller's read-tree brings them over).
    auto made =
        BERTH_TRY(git_status_of(repo_call(project, {"update-ref", "-m", "berth: new workspace",
                                                    "refs/heads/" + branch, start, kNullOid})));
    if (!made.ok()) {
      (void)git_status_of(repo_call(project, {"worktree", "remove", "--force", "--force", path}));
      return fail(ErrorCode::branch_exists,
                  fmt::format("cannot create branch '{}': {}", branch, chomp(made.err)));
    }
    BERTH_TRY(git(workspace_call(w, {"symbolic-ref", "HEAD", "refs/heads/" + branch})));
    (void)git_status_of(repo_call(project, {"worktree", "unlock", path}));
    (void)git_status_of(repo_call(project, {"worktree", "lock", "--reason", lock_reason, path}));
    return std::optional<TakenSlot>(TakenSlot{r.slot.git_dir, r.slot.commit});
  }
  return std::optional<TakenSlot>();
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
    auto lock = BERTH_TRY(registry.lock());
    drop_dead_slots(project);
  }
  reap_trash(project);
  std::string commit = BERTH_TRY(main_head(project));
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

void pool_refill_in_background(const Project& project) {
  auto self = util::real_path("/proc/self/exe");
  if (!self) return;
  util::SpawnOptions spawn;
  spawn.argv = {*self, "-C", project.common_dir(), "--quiet", "pool", "fill", "--background"};
  spawn.in = spawn.out = spawn.err = util::Stream::null;
  spawn.group = util::ProcessGroup::session;
  spawn.close_other_fds = true;
  auto child = util::spawn(spawn);
  if (child) child->detach();
}

Result<PoolStatus> pool_fill_background(const Project& project) {
  // One filler at a time per project. A second one waits its turn rather than leaving: the
  // running one may already have looked at the trash this second one was started for.
  if (auto made = util::make_dirs(records_dir(project)); !made)
    return fail(ErrorCode::io_error, made.error());
  auto lock = util::FileLock::acquire(util::join(records_dir(project), "fill.lock"));
  if (!lock) return fail(ErrorCode::io_error, lock.error());
  // Be a good neighbour: lowest CPU and I/O priority.
  (void)::setpriority(PRIO_PROCESS, 0, 19);
  constexpr int kIoprioClassIdle = 3, kIoprioClassShift = 13, kIoprioWhoProcess = 1;
  (void)::syscall(SYS_ioprio_set, kIoprioWhoProcess, 0, kIoprioClassIdle << kIoprioClassShift);
  return pool_fill(project, project.config().get_int("pool.size"));
}

} // namespace berth
