// Landing an accept, all or nothing (land, declared in accept_steps.hpp): the intent recorded,
// the target's refs and index locked the way git locks them, exactly the changed paths written,
// the branch moved; a failed write undone path by path.
#include "berth/berth.hpp"
#include "core/accept_steps.hpp"
#include "core/git.hpp"
#include "core/name.hpp"
#include "core/porcelain.hpp"
#include "core/registry.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/child_process.hpp"
#include "util/paths.hpp"
#include "util/process_info.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace berth {
namespace {

// ---- landing: all or nothing -------------------------------------------------------------------

// The first line of git's stderr that says what went wrong (git's advice follows it).
std::string first_complaint(const std::string& err) {
  for (const auto& line : split_lines(err))
    if (line.rfind("fatal: ", 0) == 0 || line.rfind("error: ", 0) == 0) return line.substr(7);
  return last_line(err);
}

// Git's own locks on the target's refs (HEAD and the branch it points to), taken by a
// `git update-ref --stdin` transaction that a child process keeps prepared while accept writes
// into the checkout. While they are held, a `git commit` of the user's fails to lock HEAD (a plain
// git error, nothing lost) instead of sweeping the half-landed files into their commit, and the
// branch move is certain before the first file is written. If berth dies, the child reads EOF
// and git aborts the transaction: the locks go with it.
class RefLock {
public:
  RefLock() = default;
  RefLock(RefLock&& other) noexcept
      : call_(std::move(other.call_)), child_(std::move(other.child_)) {
    other.child_.reset();
  }
  RefLock& operator=(RefLock&&) = delete;
  ~RefLock() { release(); }

  // `command` is the transaction's one line: "update HEAD <new> <old>" or "verify HEAD <old>".
  static Result<RefLock> take(const std::string& worktree, const std::string& command,
                              const std::string& reflog, const std::string& branch) {
    RefLock lock;
    lock.call_ =
        GitCall{{"update-ref", "-m", reflog, "--stdin"}, worktree, {}, {}, util::Stream::pipe};
    lock.child_.emplace(BERTH_TRY(git_start(lock.call_)));
    // One write: git never sees the transaction started without its prepare.
    bool sent = lock.child_->send("start\n" + command + "\nprepare\n");
    auto started = sent ? lock.child_->read_line() : std::nullopt;
    auto prepared = started ? lock.child_->read_line() : std::nullopt;
    if (started == "start: ok" && prepared == "prepare: ok") return lock;
    auto ended = lock.child_->communicate();
    lock.child_.reset();
    std::string said = ended ? chomp(ended->err) : std::string();
    if (said.find("cannot lock ref") != std::string::npos)
      return fail(ErrorCode::conflict,
                  fmt::format("{} moved, or another git command holds it; nothing was changed "
                              "({})",
                              branch, first_complaint(said)),
                  "run the accept again (if no git command is running, a git that crashed left "
                  "the lock file named here: remove it)");
    return tl::unexpected(git_error(lock.call_, ended ? *ended : util::ProcessResult{}));
  }

  Result<void> commit() {
    bool sent = child_->send("commit\n");
    auto line = sent ? child_->read_line() : std::nullopt;
    auto ended = child_->communicate();
    child_.reset();
    if (line == "commit: ok") return {};
    return tl::unexpected(git_error(call_, ended ? *ended : util::ProcessResult{}));
  }

private:
  void release() {
    if (!child_) return;
    (void)child_->send("abort\n");
    (void)child_->communicate();
    child_.reset();
  }
  GitCall call_;
  std::optional<util::Child> child_;
};

// Git's own lock on the checkout's index, taken by berth itself (O_EXCL, as git takes it) before
// the first file is written and held until the new index is in place. git writes into a copy of
// the index (GIT_INDEX_FILE), which replaces the index at the end as git's own commit of a lock
// would. The ref transaction's locks (RefLock) die with berth; this one stays on disk when berth
// dies half-way, so that the user's next `git commit -a` (any git command that writes the index)
// refuses with git's usual "Unable to create '.../index.lock': File exists" instead of
// committing a half-landed change. `berth doctor --repair` removes it once it has finished or
// rolled back the accept (it is no older than the intent). It says so inside, for whoever looks.
class IndexGuard {
public:
  IndexGuard(IndexGuard&& other) noexcept
      : lock_(std::move(other.lock_)), work_(std::move(other.work_)), fd_(other.fd_),
        keep_(other.keep_) {
    other.fd_ = -1;
    other.lock_.clear();
  }
  IndexGuard& operator=(IndexGuard&&) = delete;
  ~IndexGuard() {
    (void)::unlink(work_.c_str());
    if (fd_ >= 0) ::close(fd_);
    if (!lock_.empty() && !keep_) (void)::unlink(lock_.c_str());
  }

  // nullopt when someone else (the user's git) holds index.lock: nothing was written.
  static Result<std::optional<IndexGuard>> take(const std::string& gitdir, const Intent& in) {
    std::string lock = util::join(gitdir, "index.lock");
    int fd = ::open(lock.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST) return std::optional<IndexGuard>();
    if (fd < 0)
      return fail(ErrorCode::io_error,
                  fmt::format("cannot create {}: {}", lock, std::strerror(errno)));
    IndexGuard guard(lock, util::join(gitdir, berth_index_leaf()), fd);
    std::string note = fmt::format(
        "berth accept of '{}' into {} (pid {}) holds this lock while it writes.\nIf that "
        "accept is gone, run `berth doctor --repair`: it finishes or rolls back the change and "
        "removes this file.\n",
        in.workspace, in.target, in.pid);
    (void)!::write(fd, note.data(), note.size());
    // The copy: a hard link is enough, git never writes an index in place (it renames a new one
    // over it). No index yet: git reads a missing one as empty, as it would the real one.
    std::string index = util::join(gitdir, "index");
    (void)::unlink(guard.work_.c_str());
    if (util::exists(index) && ::link(index.c_str(), guard.work_.c_str()) != 0) {
      auto content = util::read_file(index);
      if (!content || !util::write_file_atomic(guard.work_, *content))
        return fail(ErrorCode::io_error, fmt::format("cannot copy {}", index));
    }
    return std::optional<IndexGuard>(std::move(guard));
  }

  // The copy git writes into, and which becomes the index.
  const std::string& work_index() const { return work_; }
  static const char* berth_index_leaf() { return kAcceptIndexLeaf; }

  // The new index in place, the lock gone.
  Result<void> commit() {
    std::string index = util::join(util::dirname(lock_), "index");
    if (util::exists(work_) && ::rename(work_.c_str(), index.c_str()) != 0)
      return fail(ErrorCode::io_error,
                  fmt::format("cannot move {} to {}: {}", work_, index, std::strerror(errno)));
    return {};
  }
  // Something could not be put back: the lock stays, so that git refuses to commit the
  // half-written checkout until `berth doctor --repair` has settled it.
  void keep() { keep_ = true; }

private:
  IndexGuard(std::string lock, std::string work, int fd)
      : lock_(std::move(lock)), work_(std::move(work)), fd_(fd) {}
  std::string lock_, work_;
  int fd_ = -1;
  bool keep_ = false;
};

// After a failed write into the checkout: put the written paths back at once (the index copy
// along with them). True when the checkout is as it was (the intent can go); false when
// something could not be put back (the intent stays for `berth doctor --repair`).
bool undo_partial_write(const Intent& in, const std::string& index_file) {
  std::vector<std::string> left_alone;
  auto undone = settle_paths(in, false, &left_alone, index_file);
  return undone && left_alone.empty();
}

// Write the change into the checkout that has the target branch, and move the branch: all or
// nothing. The intent is on disk already.
Result<void> land_in_checkout(const Project& project, const Intent& in, const std::string& reflog,
                              bool* lost_race) {
  std::string intent_file = intent_path(project, in.target);
  std::string command = in.moves_head
                            ? fmt::format("update HEAD {} {}", in.new_commit, in.old_commit)
                            : fmt::format("verify HEAD {}", in.old_commit);
  auto lock = RefLock::take(in.worktree, command, reflog, in.target);
  if (!lock) {
    (void)::unlink(intent_file.c_str()); // nothing was written
    *lost_race = lock.error().code == ErrorCode::conflict;
    return tl::unexpected(lock.error());
  }
  auto gitdir = git_out(in.worktree, {"rev-parse", "--absolute-git-dir"});
  if (!gitdir) {
    (void)::unlink(intent_file.c_str());
    return tl::unexpected(gitdir.error());
  }
  auto guard = IndexGuard::take(*gitdir, in);
  if (!guard || !*guard) {
    (void)::unlink(intent_file.c_str()); // nothing was written
    if (!guard) return tl::unexpected(guard.error());
    // Another git command (the user's `git add`, `git commit`) holds the index. Lost like a race
    // on the branch.
    *lost_race = true;
    return fail(ErrorCode::conflict,
                fmt::format("another git command was using the index of {}; nothing was changed",
                            in.worktree),
                "run the accept again");
  }
  std::map<std::string, std::optional<std::string>> copy{
      {"GIT_INDEX_FILE", (*guard)->work_index()}};
  (void)git_status_of(
      GitCall{{"update-index", "-q", "--refresh"}, in.worktree, copy, {}, util::Stream::pipe});
  GitCall write{{"read-tree", "-m", "-u", in.old_commit, in.new_tree},
                in.worktree,
                copy,
                {},
                util::Stream::pipe};
  auto started = git_status_of(write);
  if (!started) {
    (void)::unlink(intent_file.c_str()); // git did not even start: nothing was written
    return tl::unexpected(started.error());
  }
  util::ProcessResult written = std::move(*started);
  std::optional<Error> failed;
  if (!written.ok())
    failed = git_error(write, written,
                       fmt::format("cannot write the change into {}: {}", in.worktree,
                                   first_complaint(written.err)));
  else if (auto moved = lock->commit(); !moved)
    failed = moved.error();
  // The refs moved: the new index goes in place (a kill before this leaves the lock, and the
  // intent, for doctor).
  else if (auto placed = (*guard)->commit(); !placed) {
    (*guard)->keep();
    Error e = placed.error();
    e.code = ErrorCode::interrupted;
    e.hint = "run `berth doctor --repair` to finish it";
    return tl::unexpected(std::move(e));
  }
  if (!failed) {
    (void)::unlink(intent_file.c_str());
    return {};
  }
  // read-tree checks before it writes, but a full disk (or any write error) stops it half-way.
  bool full = says_no_space(written.err) || (failed->git && says_no_space(failed->git->err)) ||
              (!written.ok() && disk_full(in.worktree));
  bool undone = undo_partial_write(in, (*guard)->work_index());
  if (undone)
    (void)::unlink(intent_file.c_str());
  else
    (*guard)->keep();
  Error e = *failed;
  if (full) {
    e.code = ErrorCode::no_space;
    e.message = fmt::format("the disk of {} is full; {}", in.worktree,
                            undone ? "nothing was changed" : "the accept is half-way");
    e.hint = undone ? "free some space, then accept again"
                    : "free some space, then run `berth doctor --repair` to finish or roll it back";
  } else if (!undone) {
    e.code = ErrorCode::interrupted;
    e.hint = "run `berth doctor --repair` to finish or roll it back";
  } else {
    e.message += "; nothing was changed";
  }
  return tl::unexpected(std::move(e));
}

// Record the intent, before the first file is written; under the registry lock, so that two
// accepts into one branch never both go ahead.
Result<void> claim_intent(const Project& project, const Registry& registry, const Intent& in) {
  auto lock = BERTH_TRY(registry.lock());
  BERTH_TRY(check_no_accept_pending(project, in.target));
  auto saved = save_intent(project, in);
  if (!saved && says_no_space(saved.error().message))
    return fail(ErrorCode::no_space,
                fmt::format("the disk of {} is full; nothing was changed", project.common_dir()),
                "free some space, then accept again");
  return saved;
}

} // namespace

Result<void> land(const Project& project, const Registry& registry, const Landing& landing,
                  bool* lost_race, const SetupListener& on_hook_output) {
  const Target& target = landing.target;
  std::string reflog =
      fmt::format("berth accept {} ({})", landing.workspace, strategy_name(landing.strategy));
  if (target.worktree.empty()) {
    GitCall move = repo_call(project, {"update-ref", "-m", reflog, "refs/heads/" + target.branch,
                                       landing.new_commit, target.commit});
    auto moved = BERTH_TRY(git_status_of(move));
    if (!moved.ok()) {
      *lost_race = true;
      return fail(ErrorCode::conflict,
                  fmt::format("{} moved while accepting '{}'; nothing was changed", target.branch,
                              landing.workspace),
                  "run the accept again");
    }
    return {};
  }
  Intent in;
  in.workspace = landing.workspace;
  in.strategy = std::string(strategy_name(landing.strategy));
  in.target = target.branch;
  in.worktree = target.worktree;
  in.old_commit = target.commit;
  in.new_commit = landing.new_commit;
  in.new_tree = landing.result_tree;
  in.moves_head = landing.strategy != Strategy::apply;
  in.time = unix_now();
  in.pid = static_cast<int>(::getpid());
  in.pid_start = util::process_start_time(::getpid());
  in.paths = BERTH_TRY(path_changes(project, target.commit, landing.result_tree));
  if (auto claimed = claim_intent(project, registry, in); !claimed) {
    // Another accept claimed the branch since we waited: plan again once it has landed.
    *lost_race = claimed.error().code == ErrorCode::busy;
    return tl::unexpected(claimed.error());
  }
  BERTH_TRY(land_in_checkout(project, in, reflog, lost_race));
  if (in.moves_head) {
    // Its output is the caller's to show when it listens (under --json berth's stderr is an
    // event stream, and an orchestrator has no terminal to answer on), else on berth's stderr.
    GitCall hook{{"hook", "run", "--ignore-missing", "post-merge", "--",
                  landing.strategy == Strategy::squash ? "1" : "0"},
                 target.worktree,
                 {},
                 {},
                 on_hook_output ? util::Stream::pipe : util::Stream::inherit};
    // The landing is whole: the hook may ask the user something (on /dev/tty: stdin is
    // /dev/null), and Ctrl-C may stop it. Captured or not, it stays in berth's process group: in
    // one of its own a hook that opens the terminal would be stopped and berth wait forever.
    hook.terminal = true;
    auto hooked = git_status_of(hook);
    if (hooked && on_hook_output && !(hooked->out + hooked->err).empty())
      on_hook_output(
          {SetupEvent::Kind::output, "post-merge hook", hooked->out + hooked->err, 0, 0});
  }
  return {};
}

} // namespace berth
