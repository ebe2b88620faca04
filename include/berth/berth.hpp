/// berth's C++ API: projects and the workspace lifecycle.
///
/// Every operation returns a Result: a value, or an Error with a stable code, a one-line message
/// and a hint. Nothing here prints or exits; front ends (the CLI, the MCP server, your program)
/// decide how to show results.
#pragma once

#include "berth/config.hpp"
#include "berth/error.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// Exported from libberth.so, which is built with hidden visibility: the public API only.
#pragma GCC visibility push(default)
namespace berth {

std::string_view version();

/// The persisted lifecycle state of a workspace.
enum class State {
  creating,   ///< being made; a crash here is rolled back by the next berth command
  ready,      ///< usable
  busy,       ///< a `run` holds it
  discarding, ///< being torn down
  landed,     ///< its change was accepted (kept with --keep)
};
std::string_view state_name(State state);

struct Workspace;
/// How a workspace's set-up went: "failed" (a set-up command failed: `setup_error` says which),
/// "untrusted" (its repository's commands await `berth trust`), else "done".
std::string_view setup_state_name(const Workspace& w);

/// One workspace as the registry records it.
struct Workspace {
  std::string name;      ///< as the user gave it ("feat/search")
  std::string branch;    ///< "berth/feat/search"
  std::string base;      ///< full SHA of the commit it started from
  std::string path;      ///< absolute path of its worktree
  std::string git_dir;   ///< its worktree admin dir (<common>/worktrees/<id>), from the registry
  std::string owner;     ///< free label (agent, user, ticket)
  int64_t created = 0;   ///< unix seconds
  int64_t last_used = 0; ///< unix seconds, updated by berth commands that use it
  State state = State::creating;
  int holder_pid = 0;        ///< process creating/holding it (creating, busy, discarding)
  int64_t holder_start = 0;  ///< that process's start time, to tell pid reuse apart
  std::string landed_commit; ///< the target commit its accept produced (state landed)
  std::string synced;        ///< the target commit last merged in by `sync` ("" if never)
  int port = 0;              ///< first of its block of 10 TCP ports (0: none reserved)
  std::string setup_error;   ///< why its set-up failed ("" when it did not)
  /// Its repository's set-up commands were skipped, not trusted yet (`berth trust`, then
  /// `berth setup NAME`).
  bool setup_untrusted = false;
  /// What its set-up cloned or linked into it (`node_modules`: setup.clone, setup.link, also in
  /// the pool slot it came from) and the single files it copied (`.env`), so that a discard
  /// counts those files as set-up's, not as lost work, even when the option that named them was
  /// given once (`berth -c setup.clone=... new`).
  std::vector<std::string> setup_made;
  /// The workspace root it was made under (its path's parent). "" in a record written before
  /// berth kept it: see workspace_root_of().
  std::string root;
  /// While it is being created: the commit its branch starts at (a restore's is not the base), so
  /// that a creation cut short by a crash is rolled back with its branch.
  std::string start;
  /// The fork it is an attempt of (`berth fork TASK`: "TASK"; "" when it is not one), and which
  /// attempt (1..N; 0 when not one). See berth/fork.hpp.
  std::string fork;
  int attempt = 0;
  /// Not stored: why berth does not trust this record (a path outside every workspace root, a
  /// name that disagrees with its file...), set when it is read; "" when it is trusted. berth
  /// never acts on an untrusted record: it is listed as `invalid` and reported by doctor.
  std::string invalid;
};

/// A workspace with what git says of it now.
struct WorkspaceStatus {
  Workspace workspace;
  std::string state;       ///< ready, busy, creating, discarding, missing (directory gone),
                           ///< unreadable, hostile (a planted non-file in its admin dir)
  std::string head;        ///< commit checked out (empty when missing)
  std::string head_branch; ///< branch checked out ("" when detached)
  int ahead = 0;           ///< commits on HEAD not in base
  int behind = 0;          ///< commits of base not in HEAD (the agent reset or rebased past it)
  bool dirty = false;      ///< any staged, unstaged or untracked change
  int staged = 0, modified = 0, untracked = 0, conflicted = 0;
  /// false when git could not count them (hostile, unreadable, branch_missing with HEAD naming
  /// the deleted branch): the counts are then unknown — 0 here, null in JSON — never "clean".
  bool counted = true;
  int64_t last_used = 0;   ///< the later of berth's record and git activity in the worktree
  std::string lock_reason; ///< why git sees the worktree locked ("" when not)
  /// Why berth would not let git look inside (state "hostile"): a planted FIFO, say. "" if none.
  std::string problem;
};

/// Where a command was invoked and what the flags override.
struct ProjectOptions {
  std::string dir;                       ///< like `git -C`; empty: the current directory
  std::vector<std::string> config_flags; ///< "key=value" from `-c`
  /// The berth executable berth starts for its background work: the pool filler (`berth pool
  /// fill --background`) and the watcher (git's fsmonitor hook, `berth watch`). Empty: this
  /// program when it is berth, else the berth installed with the library
  /// (<libexecdir>/berth/berth). When there is none, the pool is not refilled in the background
  /// and the watcher is off, and create_workspace and discard_workspace say so in their warnings.
  std::string helper_path = {};
  /// A folder that is not inside a git repository (docs/plain.md): `plain_create` makes berth's
  /// private repository for it (outside it) when there is none yet (`new` does); `plain_force`
  /// treats the directory as a plain folder even inside a git repository (`new --plain`).
  /// Otherwise such a folder is a plain project only once `new` has made its repository.
  bool plain_create = false;
  bool plain_force = false;
  /// With `plain_create`: the name of the workspace `new` makes. A name `new` would refuse
  /// (invalid_name) is refused before any private repository is made.
  std::string plain_workspace_name = {};
};

/// A git repository as berth sees it.
class Project {
public:
  static Result<Project> open(const ProjectOptions& options);

  const std::string& common_dir() const { return common_dir_; }
  /// The main checkout ("" for a bare repository).
  const std::string& main_worktree() const { return main_worktree_; }
  /// The worktree the command was run in ("" when run in a bare repository or a git dir).
  const std::string& current_worktree() const { return current_worktree_; }
  /// The directory the command was run in (absolute).
  const std::string& cwd() const { return cwd_; }
  bool bare() const { return bare_; }
  /// <common>/berth: the registry.
  const std::string& berth_dir() const { return berth_dir_; }
  /// Where this project's workspaces live.
  const std::string& workspace_root() const { return workspace_root_; }
  /// The default workspace root (used when none is configured).
  const std::string& default_workspace_root() const { return default_root_; }
  /// Default roots of earlier berth versions that may still hold this project's workspaces, pool
  /// slots or trash (never used for new workspaces).
  const std::vector<std::string>& previous_workspace_roots() const { return previous_roots_; }
  const Config& config() const { return config_; }
  /// Short name of the project (folder of the main checkout).
  const std::string& project_name() const { return name_; }
  /// The repository's object format: "sha1" or "sha256".
  const std::string& object_format() const { return object_format_; }
  /// git's all-zero object name for "no object", as wide as this repository's object names.
  const std::string& null_oid() const { return null_oid_; }
  /// The name of the empty tree in this repository's object format.
  const std::string& empty_tree() const { return empty_tree_; }
  /// The berth executable for background work (see ProjectOptions::helper_path); "" if none.
  const std::string& helper() const { return helper_; }
  /// A plain folder (not a git repository) berth keeps a private repository for: its real path;
  /// "" for a git repository. A plain project is bare (common_dir() is the private repository)
  /// and never has a main worktree: the folder is written only by accept (docs/plain.md).
  const std::string& plain_folder() const { return plain_folder_; }
  bool plain() const { return !plain_folder_.empty(); }
  /// Where a plain folder was recorded before it moved (found again by its device and inode),
  /// "" when it did not move: `doctor --repair` records the new place.
  const std::string& plain_moved_from() const { return plain_moved_from_; }
  /// Where a workspace's set-up comes from (.berth.toml, .worktreeinclude, setup.copy, clone and
  /// link, other tools' set-up files): the main checkout, or a plain folder itself; "" for a bare
  /// repository.
  const std::string& setup_source() const { return plain() ? plain_folder_ : main_worktree_; }

private:
  std::string plain_folder_, plain_moved_from_;
  std::string common_dir_, main_worktree_, current_worktree_, cwd_, berth_dir_, workspace_root_,
      default_root_, name_, object_format_, null_oid_, empty_tree_, helper_;
  std::vector<std::string> previous_roots_;
  bool bare_ = false;
  Config config_;
};

/// Something that happened while a new workspace was set up, for progress display.
struct SetupEvent {
  enum class Kind {
    copied,           ///< an included file or a cache was copied (detail: method)
    linked,           ///< a setup.link symlink was made
    progress,         ///< a large copy is under way (bytes so far)
    command_started,  ///< a setup command starts (subject: the command)
    output,           ///< a chunk of a setup command's output (detail)
    command_finished, ///< a setup command ended (exit_status)
    skipped,          ///< an untrusted setup command was not run (detail: how to trust it)
    warning,
  } kind = Kind::warning;
  std::string subject;
  std::string detail;
  uint64_t bytes = 0;
  int exit_status = 0;
  uint64_t files = 0; ///< copied: how many files (a folder's entry sums its files)
  /// The workspace it is about when an operation makes several (fork: the attempt's name); ""
  /// for the operation's own workspace.
  std::string workspace = {};
};
using SetupListener = std::function<void(const SetupEvent&)>;

/// What setting a new workspace up did.
struct SetupReport {
  struct Copy {
    std::string path;   ///< relative to the project
    std::string kind;   ///< "include", "clone" or "link"
    std::string method; ///< "reflink", "copy_file_range", "copy" or "symlink"
    uint64_t files = 0, bytes = 0;
  };
  struct Command {
    std::string command;
    bool trusted = false;
    bool ran = false;
    int exit_status = 0;
    std::string output; ///< stdout and stderr, interleaved
  };
  std::vector<Copy> copies;
  std::vector<Command> commands;
  std::vector<std::string> submodules; ///< submodule paths initialised
  std::vector<std::string> warnings;
  bool failed = false; ///< a setup command failed: the workspace is kept, marked, reported
  /// Ignored files and folders its commands created (`.venv/` of `uv sync`), relative, no
  /// trailing slash; not in the JSON (Workspace::setup_made keeps them).
  std::vector<std::string> made;
};

struct NewOptions {
  std::string name;
  std::optional<std::string> base; ///< revision; default: HEAD of the worktree you stand in
  std::string owner;
  bool carry = false;     ///< bring your uncommitted work (staged, unstaged, untracked)
  bool no_pool = false;   ///< skip the warm pool: a fresh `git worktree add` and full checkout
  SetupListener on_setup; ///< progress of the set-up (may be empty)
};

/// Result of `new`, with anything the user should know that did not stop it.
struct Created {
  Workspace workspace;
  SetupReport setup;
  std::vector<std::string> warnings;
};

/// The set-up commands of this project's .berth.toml and whether the user trusts them.
struct TrustStatus {
  std::vector<std::string> commands; ///< the repository's setup commands (see source)
  std::string hash;                  ///< what trust is keyed on (with the project)
  bool trusted = false;
  std::string store;    ///< the file trust is kept in
  bool revoked = false; ///< revoke_trust: there was a trust to forget
  /// where the commands come from: ".berth.toml", ".cursor/worktrees.json" or "conductor.json"
  std::string source;
};
Result<TrustStatus> trust_status(const Project& project);
/// Trust exactly the current list of setup commands of this project.
Result<TrustStatus> trust_project(const Project& project);
/// Forget this project's trust.
Result<TrustStatus> revoke_trust(const Project& project);
/// Every trusted project: common dir -> hash.
Result<std::vector<std::pair<std::string, std::string>>> list_trust();

Result<Created> create_workspace(const Project& project, const NewOptions& options);

/// Several workspaces at once (`fork`): each made as create_workspace makes it, one result per
/// request, in order (a failed one does not stop the others). Warm pool slots are taken first (a
/// rename and a few git processes each), the rest checked out cold. The pool is refilled once, in
/// the background, to hold at least options.size() slots (when pool.size > 0): the next fork of
/// that size finds them ready. To have them ready for the first fork, fill ahead with
/// pool_fill(project, n) (docs/decisions/0011).
std::vector<Result<Created>> create_workspaces(const Project& project,
                                               const std::vector<NewOptions>& options);

/// `berth setup NAME`: run the workspace's set-up again (after a failed command, a `berth
/// trust`, or a change to the set-up config). What it has already (copies, clones, links) is
/// left alone; the commands run again. The record's `setup_error`/`setup_untrusted` follow the
/// outcome. Busy while it runs.
Result<Created> set_up_again(const Project& project, std::string_view name,
                             const SetupListener& listener);
Result<std::vector<WorkspaceStatus>> list_workspaces(const Project& project);
/// The workspace of that name; a half-made one (being created or discarded, or left so by a
/// berth that died) is refused (busy, interrupted). Reads only: safe under the registry lock.
Result<Workspace> find_workspace(const Project& project, std::string_view name);
/// As find_workspace, after finishing or undoing what dead berth commands left (takes the lock).
Result<Workspace> open_workspace(const Project& project, std::string_view name);
Result<WorkspaceStatus> workspace_status(const Project& project, std::string_view name);

enum class Force { no, yes };
enum class Trash { no, yes };

/// A discarded workspace's saved state: refs/berth/trash/<slug>/<unix-time>.
struct Snapshot {
  std::string name;         ///< the workspace it came from
  std::string ref;          ///< refs/berth/trash/...
  std::string commit;       ///< the snapshot commit (tree: tracked + untracked files)
  std::string head;         ///< HEAD of the workspace when discarded
  std::string branch;       ///< its branch
  std::string branch_tip;   ///< the branch's commit ("" if the branch was gone)
  std::string index_commit; ///< a commit whose tree is the staged state
  std::string base;         ///< the workspace's base
  std::string owner;
  int64_t time = 0;
  /// Ignored files deleted with its tree (not saved), counted by the background deleter; -1
  /// until then (or when the tree was deleted another way).
  int64_t ignored_files = -1;
  int64_t ignored_bytes = -1;
  /// Of the ignored files deleted with it, those set-up makes in every workspace (setup.clone,
  /// setup.link, the hooks folder): not lost work, not in ignored_files. -1 with ignored_files.
  int64_t setup_files = -1;
  int64_t setup_bytes = -1;
  /// What HEAD was in the workspace: "refs/heads/..." (a branch the agent checked out, or
  /// berth's own), "(detached)", or "" in a snapshot older than this record.
  std::string head_ref;
  /// A commit whose parents hold the workspace's submodules and nested repositories ("" when
  /// it had none with work in them); see docs/decisions/0003.
  std::string nested;
  /// Untracked files are stored as they were on disk (no filter, no end-of-line conversion).
  bool untracked_as_is = false;
  std::vector<std::string> warnings; ///< what could not be kept (take_snapshot only)
  /// "ok"; "damaged" when its commit, tree or parents are missing from the object store;
  /// "invalid" when the ref does not hold a berth snapshot; "salvaged" for what `doctor
  /// --repair` kept of a damaged one (refs/berth/damaged/...). "ok" and "salvaged" ones can be
  /// restored (a salvaged one without what it lost).
  std::string state = "ok";
  std::string problem; ///< why it is damaged or invalid, or what a salvaged one lost
  /// A salvaged snapshot's files and folders whose content is lost (a folder ends in "/").
  std::vector<std::string> missing;
};

struct Discarded {
  Workspace workspace;
  std::optional<Snapshot> snapshot; ///< none with Trash::no
  bool unsaved_work = false;        ///< it had commits or changes beyond its base
  uint64_t ignored_files = 0;       ///< ignored files deleted with it (not snapshotted)
  uint64_t ignored_bytes = 0;
  /// Ignored files set-up recreates (clones, links, hooks), not in ignored_files.
  uint64_t setup_files = 0;
  uint64_t setup_bytes = 0;
  /// False when the tree went to the background deleter, which counts its ignored files (see
  /// Snapshot::ignored_files); the two counts above are then unknown.
  bool ignored_counted = true;
  /// With ignored_counted false: whether the tree holds any ignored file at all (a quick look,
  /// not a count); the note that they are not saved is printed only then. discard_workspaces
  /// (several at once: a pick's siblings, a fork's attempts) does not look: true.
  bool ignored_present = true;
  std::vector<std::string> warnings;
};

Result<Discarded> discard_workspace(const Project& project, std::string_view name, Force force,
                                    Trash trash);

/// Several workspaces discarded in one go (`pick`'s siblings): each as discard_workspace does it
/// (snapshot to the trash, O(files changed) through the watcher), one result per name, in order
/// (a refused one does not stop the others). Trees left to the background deleter are handed to
/// one filler started once at the end: no discard waits for another's deletion.
std::vector<Result<Discarded>> discard_workspaces(const Project& project,
                                                  const std::vector<std::string>& names,
                                                  Force force, Trash trash);

/// Snapshots of one workspace name (or all), newest first, with what `doctor --repair` kept of
/// damaged ones (refs/berth/damaged/..., state "salvaged").
Result<std::vector<Snapshot>> list_snapshots(const Project& project,
                                             std::optional<std::string_view> name);

struct Restored {
  Workspace workspace;
  Snapshot from;
  std::vector<std::string> warnings;
};

/// Recreate a workspace from its newest good snapshot (or, when it has none, the newest copy
/// `doctor --repair` salvaged of a damaged one), as NAME or as `as`; with `from`, from that one
/// of its snapshots (a ref `restore --list` shows: refs/berth/trash/... or refs/berth/damaged/...).
/// `on_setup`: the post-checkout hook's output and the set-up's progress, as for `new`.
Result<Restored> restore_workspace(const Project& project, std::string_view name,
                                   std::optional<std::string> as,
                                   std::optional<std::string> from = std::nullopt,
                                   const SetupListener& on_setup = {});

// ---- review ----------------------------------------------------------------------------------

/// One changed file, as `git diff --raw --numstat` describe it.
struct FileChange {
  std::string path;
  std::string old_path; ///< for renames and copies; "" otherwise
  char status = 'M';    ///< A added, M modified, D deleted, R renamed, C copied, T type changed
  std::string old_mode, new_mode; ///< "100644", "100755", "120000" (symlink), "" when absent
  int64_t additions = 0, deletions = 0;
  bool binary = false;
};

enum class DiffFormat { patch, stat, name_only };

struct DiffOptions {
  DiffFormat format = DiffFormat::patch;
  std::optional<std::string> against; ///< diff from merge-base(REV, workspace) instead of base
  /// Only these files or folders (relative to the workspace's top; empty: all). A rename is kept
  /// whole when either of its sides is wanted.
  std::vector<std::string> paths;
};

/// Everything a workspace changed: its commits, staged, unstaged and untracked (not ignored) files.
/// Work inside a submodule or a nested repository of a workspace, as git's status reports it.
/// Its files are not in the diff: the gitlink change is, when its HEAD moved.
struct NestedWork {
  std::string path;
  bool submodule = false;  ///< a gitlink in the workspace's index (else an untracked repository)
  bool new_commit = false; ///< its HEAD is not the commit the workspace's index records
  bool modified = false;   ///< uncommitted changes to its tracked files
  bool untracked = false;  ///< untracked files in it
};

struct Diff {
  std::string name;
  std::vector<NestedWork> nested; ///< submodules and nested repositories with work in them
  std::string from;               ///< commit the diff starts from (base, or the last synced target)
  std::string to_tree;            ///< tree of the workspace's current state
  std::vector<FileChange> files;
  std::string patch; ///< with DiffFormat::patch: a binary patch `git apply` accepts
  DiffFormat format = DiffFormat::patch; ///< what was asked for (a stat has no patch, not "")
  std::string head;         ///< the commit checked out (not in the JSON: compare uses it)
  bool uncommitted = false; ///< to_tree holds work not committed yet (not in the JSON)
};

Result<Diff> diff_workspace(const Project& project, std::string_view name,
                            const DiffOptions& options);

/// How `git diff` would present its output in this repository: in colour or not (git's
/// color.diff, then color.ui; their "auto" means `stdout_is_tty`), and through which pager
/// (pager.diff, GIT_PAGER, core.pager, PAGER, else less; "" for none). Only what is asked for
/// (`color`, `pager`) is asked of git.
struct DiffPresentation {
  bool color = false;
  std::string pager;
};
Result<DiffPresentation> diff_presentation(const Project& project, bool stdout_is_tty, bool color,
                                           bool pager);
/// The escape sequences `git diff` colours its parts with, as git reads them (its
/// color.diff.<slot> settings, else git's defaults): slots "meta" (file headers), "frag" (hunk
/// headers), "old", "new" and "context".
Result<std::map<std::string, std::string>> diff_colors(const Project& project);

struct Committed {
  std::string name;
  std::string commit; ///< the new commit ("" when there was nothing to commit)
  std::vector<FileChange> files;
};

/// Record the workspace's uncommitted work (tracked and untracked) as one commit on its branch.
Result<Committed> commit_workspace(const Project& project, std::string_view name,
                                   const std::string& message);

// ---- accept --------------------------------------------------------------------------------

enum class Strategy { apply, merge, squash, ff, rebase };
std::string_view strategy_name(Strategy strategy);
std::optional<Strategy> parse_strategy(std::string_view text);

struct AcceptOptions {
  std::optional<Strategy> strategy;   ///< default: config accept.strategy
  std::optional<std::string> into;    ///< target branch; default: the main checkout's branch
  std::optional<std::string> message; ///< commit message (merge, squash)
  bool dry_run = false;
  bool keep = false; ///< keep the workspace after landing
  /// Land nested repositories that are not submodules as gitlinks (their files stay out), and
  /// submodule commits the project cannot reach (see `unreachable_gitlink`).
  bool allow_gitlink = false;
  /// A plain folder only: files the user changed in the folder since the base that the workspace
  /// changed too are merged (three-way, text) rather than refused (docs/plain.md).
  bool merge = false;
  /// True once the user asked to stop (Ctrl-C; `OperationContext::stop_requested`). Asked at
  /// safe points only: before the landing begins (then the accept fails `stopped`, nothing
  /// changed) and after it (then the workspace is kept rather than discarded). The landing itself
  /// always runs to its end. Optional.
  std::function<bool()> stop_requested;
  /// When set, the post-merge hook after a landing does not share the host's stderr: what it
  /// prints (either stream) comes here as one `output` event (subject "post-merge hook") once it
  /// ended. Unset: it writes to berth's stderr, as it would under `git merge`.
  SetupListener on_hook_output;
};

struct Accepted {
  std::string name;
  Strategy strategy = Strategy::apply;
  std::string target;          ///< branch, e.g. "main"
  std::string target_worktree; ///< where it is checked out ("" when nowhere: ref-only update)
  std::string old_commit;      ///< target before
  std::string new_commit;      ///< target after ("" for apply: the change is staged, not committed)
  std::vector<FileChange> files; ///< what lands
  bool dry_run = false;
  bool empty = false; ///< the workspace changed nothing: nothing was done
  std::optional<Discarded> discarded;
  std::vector<std::string> warnings;
  /// It does not merge: the conflicting paths (a result, not an error; the CLI exits 3), and
  /// nothing changed anywhere. Empty otherwise.
  std::vector<std::string> conflicts;
  std::string onto; ///< the target commit the change was merged onto (its preview)
  std::string head; ///< the workspace's HEAD it came from
  std::string hint; ///< with conflicts: what to do next
};

/// Land a workspace's change on its target. When it does not merge: `conflicts` lists the
/// paths, and nothing changed anywhere.
Result<Accepted> accept_workspace(const Project& project, std::string_view name,
                                  const AcceptOptions& options);

enum class SyncMode { merge, rebase };

struct Synced {
  std::string name;
  std::string onto; ///< the commit merged in (or rebased onto)
  std::string old_head, new_head;
  bool up_to_date = false;
  std::vector<std::string> conflicts; ///< left in the workspace, with markers, for the agent
  bool aborted = false;               ///< abort_sync: the unfinished sync was undone
  std::string hint;                   ///< with conflicts: what to do next
};

/// Bring the target's new commits into the workspace. Conflicts stay in the workspace, listed in
/// `conflicts` (a result, not an error; the CLI exits 3): the agent resolves them and commits,
/// or abort_sync undoes the sync.
Result<Synced> sync_workspace(const Project& project, std::string_view name,
                              std::optional<std::string> onto, SyncMode mode);
/// Undo a sync that stopped on conflicts, exactly: the worktree, the index, HEAD and the branch
/// as they were before it (`new_head` is that HEAD). not_found when there is none to undo.
Result<Synced> abort_sync(const Project& project, std::string_view name);

/// Two live workspaces that change the same paths.
struct Overlap {
  std::string a, b;
  std::vector<std::string> paths; ///< changed by both
  bool conflicts = false;         ///< their changes would conflict when both land
  std::vector<std::string> conflict_paths;
};

Result<std::vector<Overlap>> find_overlaps(const Project& project);

// ---- run -----------------------------------------------------------------------------------

struct RunOptions {
  std::string name;
  std::vector<std::string> command; ///< argv; empty means the user's $SHELL (berth shell)
  std::vector<std::string> env;     ///< extra "KEY=VALUE"
  std::optional<double> timeout;    ///< seconds; the whole process group is killed after it
  std::optional<std::string>
      sandbox;         ///< "landlock", "bwrap", "best-effort"; none: config run.sandbox
  bool network = true; ///< false: no TCP, UDP or host sockets (sandbox only)
  /// Sandbox only: further writable paths (with config sandbox.writable; never git's dir, hooks
  /// or config), and hidden paths to make readable (docs/sandbox.md). Relative to the directory
  /// berth runs in; a leading ~ is $HOME.
  std::vector<std::string> allow_write;
  std::vector<std::string> allow_read;
  bool ephemeral = false; ///< create NAME first; remove it afterwards if unchanged
  /// With `ephemeral`: the creation's set-up events (its hook's and setup commands' output), as
  /// NewOptions::on_setup.
  SetupListener on_setup;
  /// The command runs in a process group of its own. The library touches no process-wide state
  /// (signal handlers, the terminal's foreground group): a front end that owns them (the CLI)
  /// forwards signals to the group and hands it the terminal. `on_start` is called with the
  /// group as soon as the command runs (`own_session`: it has a session of its own, as in the
  /// sandbox, and must not be given the terminal); `on_end` once it has ended.
  std::function<void(int process_group, bool own_session)> on_start;
  std::function<void()> on_end;
  /// Capture instead of pass-through (a front end whose stdout is not the user's terminal: the
  /// MCP server, where stdout is the protocol). When set, the command's stdout and stderr go to
  /// pipes and each chunk is handed here as it arrives (stream 1 or 2), read without deadlock and
  /// kept nowhere else (the sink caps what it keeps); stdin is /dev/null.
  std::function<void(std::string_view chunk, int stream)> on_output;
  /// Capture mode only: asked at least every 100 ms while the command runs (from the running
  /// thread); once true, the whole process group gets SIGTERM, then SIGKILL after 2 s, and the
  /// result says `cancelled`.
  std::function<bool()> cancelled;
};

struct RunResult {
  std::string name;
  std::string path; ///< the workspace
  std::string cwd;  ///< where the command ran
  int exit_status =
      0; ///< the command's code, 128+N for a signal, 124 on timeout, 127 when it could not start
  /// The signal that ended the command (exit_status 128+N), 0 when it exited. (A sandboxed
  /// command's launcher may turn a signal into exit status 128+N: then 0.)
  int signal = 0;
  bool timed_out = false;
  bool cancelled = false;                  ///< stopped by RunOptions::cancelled (exit_status 130)
  std::vector<std::string> sandbox_layers; ///< what confined it (empty: not sandboxed)
  int commits = 0;  ///< commits made inside a sandboxed run, moved onto the branch
  bool kept = true; ///< --ephemeral: false when the unchanged workspace was removed
  std::vector<std::string> warnings;
};

/// Run a command in a workspace, its stdin/stdout/stderr passed through. While it runs the
/// workspace is `busy` (a lease naming this process). The exit status is the command's.
Result<RunResult> run_in_workspace(const Project& project, const RunOptions& options);

/// The environment a workspace's commands get: BERTH_WORKSPACE, BERTH_NAME, BERTH_BASE,
/// BERTH_PROJECT, BERTH_PORT and BERTH_PORT_0..9.
std::map<std::string, std::string> workspace_environment(const Project& project,
                                                         const Workspace& workspace);

// ---- pool ----------------------------------------------------------------------------------

/// A pre-made, settled, detached worktree waiting to become a workspace.
struct PoolSlot {
  std::string id;
  std::string path;
  std::string git_dir;
  std::string commit; ///< what it has checked out
  std::string state;  ///< "filling" or "ready"
  int64_t created = 0;
};

struct PoolStatus {
  std::string dir;  ///< where slots live
  int64_t size = 0; ///< pool.size: how many ready slots berth keeps
  std::vector<PoolSlot> slots;
  int trash = 0; ///< discarded trees waiting to be deleted or recycled
};

Result<PoolStatus> pool_status(const Project& project);
/// Make slots (foreground) until `count` are ready; also deletes or recycles discarded trees.
Result<PoolStatus> pool_fill(const Project& project, int64_t count);
/// Remove every slot.
Result<PoolStatus> pool_drain(const Project& project);
/// Ask for a background pass (refill, delete discarded trees, gc's automatic pass): a request is
/// posted and, unless a filler of this project is at work already (it serves the request before
/// it exits), a detached, low-priority `berth pool fill --background` is started with
/// Project::helper(). False when there is no helper to start.
bool pool_refill_in_background(const Project& project);
/// The same, filling to at least `at_least` slots this once (more than pool.size: fill ahead).
bool pool_refill_in_background(const Project& project, int64_t at_least);
/// What `pool fill --background` runs: at most one per project (another posts its request and
/// leaves at once; the one at work serves every request, looking again after it releases its
/// lock, before it exits), at idle CPU and I/O priority, filling up to pool.size (or the largest
/// size a request asked for) and deleting discarded trees.
Result<PoolStatus> pool_fill_background(const Project& project);

/// `berth forget`: what a plain folder's forgetting removed.
struct Forgotten {
  std::string folder;     ///< the plain folder (untouched)
  std::string repository; ///< berth's private repository of it, now removed
};
/// Remove a plain folder's private repository (docs/plain.md). Refused (plain_in_use, exit 5)
/// while a workspace, a trash snapshot (unless `force`: they go with it) or an interrupted accept
/// of it is left.
Result<Forgotten> forget_plain(const Project& project, Force force);

// ---- doctor --------------------------------------------------------------------------------

enum class Repair { no, yes };

/// One thing doctor found wrong (docs/json.md, `doctor`).
struct Problem {
  std::string code;    ///< stable kind, e.g. "interrupted_accept", "worktree_missing"
  std::string name;    ///< the workspace it concerns, "" if none
  std::string path;    ///< the file or directory it concerns, "" if none
  std::string message; ///< one line for people
  std::string repair;  ///< what fixes it: a command or a manual step ("" if nothing is known)
};

struct DoctorReport {
  std::vector<Problem> problems;     ///< what is wrong (after repair: what is still wrong)
  std::vector<std::string> repaired; ///< what --repair fixed
  /// Discarded trees that only wait for the background deleter (not problems).
  std::vector<std::string> pending;
};

/// Notes about accepts that were interrupted (each names the fix), for front ends to show.
std::vector<std::string> pending_accepts(const Project& project);

/// Check the registry against git and the disk; finish or roll back interrupted accepts.
Result<DoctorReport> doctor(const Project& project, Repair repair);

// ---- the watcher (docs/performance.md) --------------------------------------------------------

struct WatchStatus {
  bool running = false;
  int64_t pid = 0;
  int64_t roots = 0;   ///< work trees it follows
  int64_t watches = 0; ///< folders it watches in them
  int64_t blind = 0; ///< work trees it could not watch whole (inotify watch limit): looked at fully
  std::string address; ///< its abstract unix socket
};
/// Whether the project's watcher runs, and what it follows.
WatchStatus watch_status(const Project& project);
/// Stop the project's watcher; whether one was running. The next git call berth makes in a
/// workspace starts a new one.
bool watch_stop(const Project& project);

/// `berth watch serve DIR`: run the watcher of the project whose common git dir is DIR until it
/// is stopped, idle for `idle_seconds`, or the project is gone. Returns at once when another
/// watcher of the project runs.
Result<void> watch_serve(const std::string& common_dir, int idle_seconds);
/// `berth watch hook 2 TOKEN`, run by git as its fsmonitor hook in a workspace: what changed in
/// the work tree `root` since `token`, in git's fsmonitor v2 format. Starts the watcher when none
/// runs.
Result<std::string> watch_hook(const std::string& common_dir, const std::string& root,
                               const std::string& token);

} // namespace berth
#pragma GCC visibility pop
