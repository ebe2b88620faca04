/// Errors as berth reports them: a stable machine code, a one-line message, a hint.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <utility>
#include <vector>

// Exported from libberth.so, which is built with hidden visibility: the public API only.
#pragma GCC visibility push(default)
namespace berth {

/// Stable error codes. Their names (code_name) are part of the JSON contract: never rename one.
enum class ErrorCode {
  usage,               ///< bad command line
  not_a_repository,    ///< not inside a git repository
  empty_repository,    ///< the repository has no commit yet
  bare_repository,     ///< a bare repository needs --base
  invalid_name,        ///< workspace name refused
  invalid_revision,    ///< --base (or another revision) does not name a commit
  name_taken,          ///< a workspace (or its directory) of that name exists
  branch_exists,       ///< the workspace's branch exists already
  not_found,           ///< no such workspace / snapshot
  busy,                ///< the workspace is in use (a run holds it, or it is being created)
  locked,              ///< the user locked the worktree; berth leaves it alone
  unsaved_work,        ///< the operation would lose work; --force says to go ahead
  unsafe_path,         ///< a path berth would delete lies outside its workspace root
  config_invalid,      ///< a config file or value is wrong
  git_failed,          ///< a git command failed unexpectedly
  io_error,            ///< the filesystem refused
  interrupted,         ///< a previous berth command was interrupted; see the hint
  conflict,            ///< the change does not merge cleanly; nothing was changed
  dirty_target,        ///< the target has uncommitted changes where the change would land
  not_fast_forward,    ///< --strategy ff, but the target has moved on
  sandbox_unavailable, ///< a sandbox layer that was asked for cannot be enforced here
  escape_refused,      ///< a confined path would leave its root (.., absolute, symlink, hard link)
  target_in_progress,  ///< the target checkout is mid-merge/rebase/cherry-pick/revert/bisect
  no_space,            ///< the disk is full (ENOSPC); nothing half-written is left behind
  record_mismatch,     ///< a workspace record does not prove the tree it names is that workspace's
  unreachable_gitlink, ///< accept would land a submodule commit the project cannot reach
  nested_repository,   ///< accept would land a nested repository (not a submodule) as a gitlink
  // issue 11, changed behind berth's back:
  branch_missing,   ///< the workspace's branch was deleted under its checked-out HEAD
  snapshot_damaged, ///< a trash snapshot's objects are missing, or it is not berth's
  trash_blocked,    ///< a ref such as refs/berth/trash/NAME (not a folder of refs) blocks the trash
  // Hostile or odd files (issue 11):
  git_timeout,  ///< a git call did not finish within its bound (BERTH_GIT_TIMEOUT) and was killed
  hostile_file, ///< a file git reads in a workspace's admin dir is not a regular file
  // issue 11, crashes (keep together)
  internal,   ///< berth itself failed unexpectedly (an exception: out of memory, a system error)
  index_lock, ///< a git lock file (index.lock) is in the way; the message names it
  // issue 11, hooks (keep together)
  hook_refused, ///< the user's reference-transaction hook refused a ref update; nothing changed
  // issue 13, Claude Code worktree provider (keep together)
  invalid_hook_input, ///< a Claude Code hook's JSON input is malformed or lacks a field
  settings_invalid,   ///< a Claude Code settings file is not a JSON object berth can merge into
  // issue 13 leftovers, read-only files (keep together)
  read_only_file, ///< a file its owner cannot write; berth does not rewrite it
  // issue 14, the sandbox (keep together)
  sandbox_path_refused, ///< --allow-write names git's dir, hooks or config, or overlaps a hidden
                        ///< path
  // issue 17, plain folders (keep together)
  plain_folder_changed, ///< accept would overwrite a file the user changed in the plain folder
  plain_in_use,         ///< forget: a workspace or trash of the plain folder is left
  // issue 16, gc and the trash (keep together)
  bad_duration, ///< a duration (--older-than, gc.older_than) is not a number with a unit (7d, 12h)
  bad_snapshot, ///< NAME@TIME does not name a snapshot the way `berth trash list` shows them
  // session 10, Ctrl-C during accept/pick
  stopped, ///< Ctrl-C, SIGTERM or SIGHUP stopped the command before it changed anything (exit 130)
};

/// What a failed git call said: nobody should have to guess.
struct GitFailure {
  std::vector<std::string> argv;
  int status = 0;
  std::string out;
  std::string err;
};

struct Error {
  ErrorCode code;
  std::string message; ///< one line, no trailing period
  std::string hint;    ///< what to do next; may be empty
  std::optional<GitFailure> git;
  std::vector<std::string> paths; ///< the files the error is about (conflicts, dirty files)
};

template <class T> using Result = tl::expected<T, Error>;

/// The stable name of a code, e.g. "name_taken".
std::string_view code_name(ErrorCode code);
/// The process exit status a front end uses for a code (see DESIGN: 1 error, 2 usage, 3 conflict,
/// 4 not found, 5 refused for safety).
int exit_status(ErrorCode code);

inline tl::unexpected<Error> fail(ErrorCode code, std::string message, std::string hint = {}) {
  return tl::unexpected(Error{code, std::move(message), std::move(hint), std::nullopt, {}});
}

} // namespace berth
#pragma GCC visibility pop
