// The trash: a discarded workspace's complete state as one commit, kept under
// refs/berth/trash/<slug>/<unix-time> until gc expires it.
//
// The snapshot commit's tree is the work tree (tracked and untracked files, not ignored ones). Its
// parents are HEAD, a commit holding the staged state (so restore brings the index back too) and,
// when it differs from HEAD, the branch tip: every commit the workspace made stays reachable.
#pragma once

#include "berth/berth.hpp"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <vector>

namespace berth {

struct GitCall;

class RefTransactions;

enum class Content { work_tree, commits_only };

/// What a caller snapshotting several workspaces has read for all at once.
struct SnapshotHints {
  /// The branch's commit ("" for none); read by make_snapshot when not given.
  std::optional<std::string> branch_tip;
  /// The workspace's newest snapshot in the trash, as newest_in_trash lists it ("" for none),
  /// asked only once the work tree is captured (a discard lists it beside the capture).
  std::function<std::string()> newest;
  /// Where the snapshot's ref is created: the discard's own `update-ref --stdin` (null: a git
  /// of its own).
  RefTransactions* refs = nullptr;
};

/// Save `workspace` to the trash. With Content::commits_only (its directory is gone or cannot be
/// trusted) only its commits are kept. make_snapshot, then keep_snapshot.
Result<Snapshot> take_snapshot(const Project& project, const Workspace& workspace, Content content,
                               const SnapshotHints& hints = {});

/// The newest snapshot in the trash of each of `names` (its record as make_snapshot compares it;
/// "" for a name with none), in one for-each-ref; empty when git could not say.
std::map<std::string, std::string> newest_in_trash(const Project& project,
                                                   const std::vector<std::string>& names);
/// take_snapshot's first half: the snapshot's objects and commit, no ref yet (`ref` empty), or
/// the newest snapshot already in the trash when it holds exactly the same (`ref` set; a
/// discard killed after its snapshot left it).
Result<Snapshot> make_snapshot(const Project& project, const Workspace& workspace, Content content,
                               const SnapshotHints& hints);
/// make_snapshot of several workspaces (a discard's batch) with what they share done once: their
/// captures (capture_many), their untracked files hashed as they are in one call, their commits
/// written in two (the staged states', then the snapshots'). One result per workspace.
struct SnapshotAsked {
  const Workspace* workspace;
  Content content;
  SnapshotHints hints;
};
std::vector<Result<Snapshot>> make_snapshots(const Project& project,
                                             const std::vector<SnapshotAsked>& asked);
/// The git make_snapshots writes its commits with (a conversation: a caller may start it ahead,
/// PrestartedGits).
GitCall commit_writer(const Project& project);
/// Its second half: the trash ref, create-only (a name taken in the same second gets `-1`,
/// `-2`...). Nothing to do when `snapshot.ref` is set.
Result<void> keep_snapshot(const Project& project, const Workspace& workspace, Snapshot& snapshot,
                           RefTransactions* through = nullptr);
/// keep_snapshot of several snapshots (of different workspaces) in one ref transaction; when it
/// fails (a name taken, a hook's refusal), each on its own. One result per snapshot.
std::vector<Result<void>> keep_snapshots(const Project& project,
                                         const std::vector<const Workspace*>& workspaces,
                                         const std::vector<Snapshot*>& snapshots);

/// After a restore filled workspace `w` from `snapshot` (files, and `staged` as its index): its
/// untracked files written back as stored, and HEAD put back on the branch the workspace had
/// checked out (created again at the snapshot's HEAD if it is gone), or detached where it was.
/// What could not be done as it was is said in `warnings`; a branch created again is named in
/// `made_branch` (a failed restore deletes it).
Result<void> finish_restore(const Project& project, const Workspace& w, const Snapshot& snapshot,
                            const std::string& staged, std::vector<std::string>& warnings,
                            std::string& made_branch);

/// Where `doctor --repair` keeps what is left of a damaged snapshot: refs/berth/damaged/ and the
/// rest of its trash ref (`<slug>/<time>`). Listed and restored with the trash.
inline constexpr const char* kSalvagedRefs = "refs/berth/damaged/";

/// A ref (not a folder of refs) where the trash of `name` needs a folder — refs/berth,
/// refs/berth/trash or refs/berth/trash/<slug> —, which makes every snapshot of the name
/// impossible to write; "" when there is none. With an empty `name`, the first two only.
std::string trash_blocker(const Project& project, std::string_view name);

/// The snapshot ref prefix for a workspace name.
std::string trash_prefix(std::string_view name);

/// The ignored files of a work tree (git's own rules) and their total size.
std::pair<uint64_t, uint64_t> count_ignored(const std::string& git_dir,
                                            const std::string& work_tree);

/// The same, with the files under `setup_paths` (what set-up makes in every workspace: clones,
/// links, the hooks folder; see setup_made_paths) counted apart: they are not lost work, set-up
/// recreates them. A path ending in '/' is a folder set-up copied file by file (`node_modules/`
/// by .worktreeinclude): a file beneath it is set-up's only while it is still the copy — its
/// twin in `source` (the main checkout) is the same kind of file with the same size and mtime
/// (copies keep the mtime) — so what the agent added or changed there still counts as lost.
struct IgnoredCount {
  uint64_t files = 0, bytes = 0;             ///< not saved, not recreated
  uint64_t setup_files = 0, setup_bytes = 0; ///< not saved, recreated by set-up
};
IgnoredCount count_ignored_apart(const std::string& git_dir, const std::string& work_tree,
                                 const std::vector<std::string>& setup_paths,
                                 const std::string& source);
/// Keep `found` beside the trash entry `ref`, for `restore --list` (its IGNORED column).
void note_ignored(const Project& project, const std::string& ref, const IgnoredCount& found);

/// Whether the work tree holds any ignored file outside the paths set-up recreates
/// (`setup_paths_of`, asked only when there is an ignored file): an ignored folder is one entry,
/// not walked (`--directory`), so this is cheaper than count_ignored; only where one lies in a
/// folder set-up copied file by file are its files compared with `source`'s (count_ignored_apart).
/// True when git cannot say.
bool has_ignored(const std::string& git_dir, const std::string& work_tree,
                 const std::function<std::vector<std::string>()>& setup_paths_of,
                 const std::string& source);
/// Whether `path` lies at or beneath a path set-up makes whole (a clone, a link, the hooks
/// folder; not a folder it copies file by file, whose files may be the agent's).
bool made_whole_by_setup(std::string_view path, const std::vector<std::string>& setup_paths);
/// Whether the file `path` (`st`: its lstat, null when it is gone) is set-up's: beneath a path
/// it makes whole, or in a folder it copied file by file and still the copy of `source`'s twin
/// (same kind, size and mtime), as count_ignored_apart counts it.
bool made_by_setup(const std::string& path, const struct stat* st,
                   const std::vector<std::string>& setup_paths, const std::string& source);
/// What any_untracked looks for: ignored files only (has_ignored), or every untracked file; in
/// the whole tree, or only at these paths (literal: files, or folders with all they hold).
struct UntrackedQuery {
  bool ignored_only = true;
  std::optional<std::vector<std::string>> paths;
};
/// has_ignored's look, asked as `query` says; nullopt when git cannot say (or, looking for every
/// untracked file, one lies in a folder set-up copied file by file).
std::optional<bool> any_untracked(const std::string& git_dir, const std::string& work_tree,
                                  const std::function<std::vector<std::string>()>& setup_paths_of,
                                  const std::string& source, const UntrackedQuery& query);

/// Where `discard` moves a tree it leaves to the background deleter: `<slug>.<leaf>.<pid>` in
/// `dir`, `leaf` being the snapshot ref's last component (its time), so the deleter knows which
/// snapshot the tree belonged to.
std::string aside_name(std::string_view name, const std::string& snapshot_ref);
/// Before a tree moved aside is deleted: check its snapshot against a full look at the tree (the
/// snapshot was taken from what the watcher reported: a change it could not see, such as a
/// write through a hard link from outside, would otherwise be lost) and complete the snapshot
/// if anything differs; with `count_ignored_files`, count its ignored files and record them with
/// the snapshot (shown by `restore --list`). Nothing when no snapshot matches the tree's name.
/// True only when the snapshot is now known to hold the whole tree (it matched the full look, or
/// was completed from it): only then may a caller that must be sure (`doctor --repair`) delete it.
/// `known`: the snapshot as the discard that moved the tree aside just made and checked it (its
/// ref, commit, work tree and staged trees), so that they are not read again. `unchanged`, when
/// given, says whether the full look found exactly the snapshot (nothing completed).
struct KnownSnapshot {
  std::string ref, commit, work_tree, index_tree;
};
bool settle_aside(const Project& project, const std::string& aside_path, bool count_ignored_files,
                  const KnownSnapshot* known = nullptr, bool* unchanged = nullptr);

/// What is left of a damaged snapshot whose commit is still there: a new commit of its tree with
/// the entries whose blobs are missing left out (named in `Berth-Missing:` trailers), on those of
/// its parents that reach no missing object, with its message. "" when its trees cannot be read.
/// (A ref to a commit that reaches a missing object makes `git gc` fail; this one does not.)
std::string salvage_snapshot(const Project& project, const std::string& commit,
                             size_t* missing_files);

/// The trash ref a tree moved aside belongs to (from its name); "" when the name is not one.
std::string aside_snapshot_ref(const std::string& aside_path);
/// Whether every object the snapshot `commit` added is in the object store: the commit, its
/// parents, and the trees and blobs of its work tree and staged state that HEAD does not have.
/// Objects are unreachable from their creation until the trash ref exists, and a `git gc
/// --prune=now` in between deletes them: a tree is deleted only once this holds. Asked once any
/// `git gc` running now (gc.pid) has finished (at most 30 s), since one that started before the
/// ref existed may still delete them.
/// `why`, when given, receives the git call that showed it incomplete.
bool snapshot_complete(const Project& project, const std::string& commit,
                       std::optional<Error>* why = nullptr);
/// The trees snapshots_complete read: HEAD's, the work tree's (the snapshot commit's), the
/// staged state's, the base's.
struct SnapshotTrees {
  std::string head, work, index, base;
};
/// snapshot_complete of several snapshots just made or found (their parents as the Snapshot
/// records them): one `diff-tree --stdin` and one `cat-file` for all. Each one's
/// trees when every object of every snapshot is there; nullopt when any is missing or git could
/// not say (then ask snapshot_complete of each).
std::optional<std::vector<SnapshotTrees>>
snapshots_complete(const Project& project, const std::vector<const Snapshot*>& snapshots);
/// Wait (at most 30 s) until the `git gc` running now, if any, has finished. One that started
/// before a snapshot's ref existed did not see it: its repack may drop a pack holding the
/// snapshot's objects, its prune delete them, after any check made meanwhile; one that starts
/// later sees the ref. git gc announces itself in gc.pid ("<pid> <host>") for its whole run.
void wait_for_running_gc(const Project& project);

} // namespace berth
