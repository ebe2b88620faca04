// The one way berth runs git: argv only, a scrubbed environment, and failures that carry the
// argv, exit status and both output streams.
#pragma once

#include "berth/error.hpp"
#include "util/child_process.hpp"
#include "util/try.hpp" // for every file that runs git: they propagate errors with BERTH_TRY

#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace berth {

/// Where and how one git command runs.
struct GitCall {
  std::vector<std::string> args;                         ///< after "git"
  std::string cwd;                                       ///< directory to run in
  std::map<std::string, std::optional<std::string>> env; ///< extra variables (nullopt unsets)
  std::string input;                                     ///< fed to stdin
  util::Stream err = util::Stream::pipe; ///< inherit to let git's messages reach the user
  /// A bound on the call's duration; unset: `git_read_timeout()` for the reads of
  /// `bounded_by_default` (which a workspace's files can block), none for the others.
  std::optional<std::chrono::milliseconds> timeout = {};
  /// Runs the user's own code that may talk to the terminal (a hook that asks a question): the
  /// call stays in berth's process group even while GitCallsOwnGroup lives, so it can read the
  /// terminal (in a group of its own it would be stopped, SIGTTIN, and berth would wait forever)
  /// and Ctrl-C reaches it. Only for calls after which nothing of berth's is half-done.
  bool terminal = false;
};

/// How long a git read may take before berth kills it (its whole process group) and fails with
/// `git_timeout`: BERTH_GIT_TIMEOUT seconds (default 60). A git that reads a FIFO or a device a
/// workspace planted where git expects a file would otherwise wait forever.
std::chrono::milliseconds git_read_timeout();
/// Whether a call of this git subcommand (argv after "git") reads only, and so gets the read
/// timeout by default: status, diff, rev-parse, worktree list... Checkouts, merges and commits
/// (which may run the user's hooks for as long as they like) are not bounded.
bool bounded_by_default(const std::vector<std::string>& args);

/// While one lives, every git call (of any thread) runs in a process group of its own, so that a
/// signal sent to berth's group (the terminal's Ctrl-C, a `kill -INT -PGID`) reaches berth alone:
/// an operation that takes such a signal as a request to stop (accept, pick: through
/// `OperationContext::stop_requested`) then stops at a safe point instead of finding its git
/// killed half-way through a write into the user's checkout (index.lock left, half the files
/// written). git keeps its parent-death signal: a berth that is really killed still takes it down.
class GitCallsOwnGroup {
public:
  GitCallsOwnGroup();
  ~GitCallsOwnGroup();
  GitCallsOwnGroup(const GitCallsOwnGroup&) = delete;
  GitCallsOwnGroup& operator=(const GitCallsOwnGroup&) = delete;
};

/// Run git; a non-zero exit is an Error{git_failed} carrying what git said.
Result<util::ProcessResult> git(const GitCall& call);
/// Run git; a non-zero exit is returned as a result, only a failure to start is an Error.
Result<util::ProcessResult> git_status_of(const GitCall& call);
/// Start git for a conversation over its stdin and stdout (both piped; `call.input` is ignored),
/// in its own process group.
Result<util::Child> git_start(const GitCall& call);
/// A git that answers each line it reads with a line of its own (`hash-object --stdin-paths`),
/// started at the first ask and kept for the next: one process for several rounds.
class GitConversation {
public:
  explicit GitConversation(GitCall call) : call_(std::move(call)) {}
  /// Send `lines` and read `count` answers; fewer when git stopped (finish() then says why).
  /// (Every line is written before the first answer is read: a few lines, or git's answers would
  /// fill the pipe while berth still writes.)
  Result<std::vector<std::string>> ask(const std::string& lines, size_t count);
  /// ask() of any number of lines (each answered by one), in rounds small enough for that.
  Result<std::vector<std::string>> ask_in_rounds(const std::string& lines);
  /// Close git's input and wait for it: an Error with what it said when it failed.
  Result<void> finish();

private:
  GitCall call_;
  std::optional<util::Child> child_;
};

/// Conversations started ahead (`calls`, each a git that answers line by line, e.g. `hash-object
/// --stdin-paths` or `update-ref --stdin`), on threads of their own while the caller does other
/// work: a GitConversation or RefTransactions of the same call (arguments, folder, environment)
/// used while this lives takes its git instead of starting one then. Each process start is then off
/// the caller's way (a discard writes its trees, its untracked files as they are and its commits
/// one after the other: ~1.5 ms each here). Those not taken are killed when this goes: they were
/// sent nothing.
///
/// `later`: started only once one of `calls` is taken (the caller is then at the step that
/// needs them soon): on 2 cores, gits that all start at once delay the first the caller needs.
class PrestartedGits {
public:
  explicit PrestartedGits(const std::vector<GitCall>& calls,
                          const std::vector<GitCall>& later = {});
  PrestartedGits(const PrestartedGits&) = delete;
  PrestartedGits& operator=(const PrestartedGits&) = delete;
  ~PrestartedGits();

  struct Started;

  struct Set;

private:
  std::unique_ptr<Set> set_; // null: another set was live
};

/// Ref transactions sent one after another to a single `git update-ref --stdin` (`call`; one
/// started ahead for it by a PrestartedGits is taken): a discard creates its snapshot's ref, then
/// lets go of its branch, with one git process for both. Each send() writes "start", its lines,
/// "prepare" and "commit" at once and reads git's three answers. git dies at the first
/// transaction it refuses: send() returns what it said, and the next send() starts another git.
/// If berth dies, git reads the end of its input: a transaction sent whole is committed, as a
/// one-shot `update-ref` would have; a git started ahead and sent nothing commits an empty
/// transaction (the user's reference-transaction hook then sees no refs).
class RefTransactions {
public:
  explicit RefTransactions(GitCall call) : call_(std::move(call)) {}
  RefTransactions(const RefTransactions&) = delete;
  RefTransactions& operator=(const RefTransactions&) = delete;
  ~RefTransactions();
  /// One transaction of `lines` ("create <ref> <new>\n" ...), as one `git update-ref --stdin`
  /// of them would end: exit 0, or git's status and stderr.
  Result<util::ProcessResult> send(const std::string& lines);
  const GitCall& call() const { return call_; }

private:
  GitCall call_;
  std::optional<util::Child> child_; // the git sent the last transaction, while it lives
};

/// Shorthand: run and return stdout with the trailing newline removed.
Result<std::string> git_out(const std::string& cwd, std::vector<std::string> args);

/// index_lock: git's lock file `lock` is in the way of `what` ("git merge failed", ...).
Error lock_error(const std::string& lock, const std::string& what);
/// An Error describing a failed git call, with `message` as its one line.
Error git_error(const GitCall& call, const util::ProcessResult& result, std::string message = {});
/// Whether git died reading a worktree admin dir another `git worktree add` was still writing
/// ("failed to read .../worktrees/X/commondir"): git reads every worktree's admin dir for
/// `worktree list` and for the checked-out check of `worktree add`, and a concurrent add's
/// `commondir` is empty for a moment. Such a call can be tried again (after undoing what it
/// left), after wait_for_half_made_worktree.
bool saw_half_made_worktree(const std::string& err);
void wait_for_half_made_worktree(int attempt);
/// Whether git's stderr says the user's reference-transaction hook refused the ref update.
bool ref_hook_refused(const std::string& err);

/// Whether an error text (git's stderr, an errno message) says the disk is full.
bool says_no_space(const std::string& text);
/// Whether the file system holding `path` is (nearly) full: git's "unable to write file" does not
/// say why, so a failed write is blamed on the disk when it has less than a little room left.
bool disk_full(const std::string& path);
/// `e` as no_space ("the disk is full: ...", hint: free some space, then `again`) when it is a
/// failed write (git_failed, io_error) that says the disk is full. Any other error as it is.
/// (git_error already judges git's own failures, while the disk is still full.)
Error blame_full_disk(Error e, const std::string& again);

/// The arguments that make git operate on one workspace exactly as berth's registry describes it,
/// and execute nothing the workspace's content controls: an explicit git dir and work tree (a
/// forged `.git` file cannot redirect berth) and no fsmonitor hook.
std::vector<std::string> workspace_git_args(const std::string& git_dir,
                                            const std::string& work_tree);

/// Remove a trailing newline (git's outputs end with one).
std::string chomp(std::string s);
/// The last non-empty line of git's stderr (its actual complaint), for one-line messages.
std::string last_line(const std::string& s);
/// Split NUL-terminated records (git's -z output).
std::vector<std::string> split_z(const std::string& s);
/// Split lines (without the newlines).
std::vector<std::string> split_lines(const std::string& s);

} // namespace berth
