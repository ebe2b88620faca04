// A workspace's shadow index: berth's private copy of the workspace's index, on which git may
// record what the watcher told it (its fsmonitor token and "unchanged" bits, the untracked cache)
// without berth ever writing the index the agent works with. While the real index stays the same
// file, every status or snapshot berth takes through the shadow costs O(files changed since the
// last one), not O(files in the tree).
#pragma once

#include "berth/berth.hpp"
#include "core/git.hpp"
#include "core/porcelain.hpp"
#include "util/file_lock.hpp"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace berth {

struct Shadow {
  std::string index;   ///< the shadow index: use it as GIT_INDEX_FILE
  util::FileLock lock; ///< held while the shadow is in use
  std::string key;     ///< the version of the real index it mirrors
};

/// The shadow of the workspace's index, copied afresh when the real index changed. Nullopt when
/// the watcher is off (watch.enabled = false), the workspace has submodules (git's fsmonitor does
/// not look inside them), or it has no index yet.
std::optional<Shadow> open_shadow(const Project& project, const Workspace& workspace);

/// The files of a workspace's shadow: `<slug>` and one of these (gc tells orphans by them). All
/// but the guard go with discard_shadow.
inline constexpr std::array<const char*, 6> kShadowSuffixes{".guard",   ".index", ".key",
                                                            ".verdict", ".tree",  ".birth"};

/// Drop a shadow git could not read (a crash mid-copy): the next open copies it afresh.
void discard_shadow(const Project& project, const Workspace& workspace);

/// Watch a tree from its birth: have the watcher follow it and take the one full look through
/// its shadow now (a status through the watcher: every entry's "unchanged" bit, the watcher's
/// token and the untracked cache recorded in the shadow), so that every later status or snapshot
/// of it costs O(files changed since), whoever asks first. False when there is no shadow (the
/// watcher off, submodules) or git failed.
bool prime_shadow(const Project& project, const Workspace& workspace);

/// The shadow of a pool slot handed to the workspace made of it (`from.name` is the slot's id,
/// `to` the workspace: the same admin dir, so the same index file): renamed, not copied, and
/// still mirroring the index while that is the same file. The watcher follows the renamed tree
/// (by its inode), so the token in the shadow stays good. Nothing when the slot has none.
void hand_over_shadow(const Project& project, const Workspace& from, const Workspace& to);

/// A tree's birth as the watcher saw it (a pool slot settled), kept only when the tree then held
/// no untracked file but set-up's: the watcher's token, the commit checked out, and set-up's paths
/// then. Every untracked file the tree holds later was made or changed since (the watcher names
/// it), or left the index since (tracked in that commit), or lies under set-up's paths: a discard
/// looks for ignored files there instead of walking the whole tree. Kept beside the shadow, handed
/// over with it, dropped with it.
struct TreeBirth {
  std::string token;
  std::string commit;
  std::vector<std::string> setup_paths;
  std::string tree; ///< its index's tree then, from the cache-tree ("" when not known)
};
void note_birth(const Project& project, const Workspace& workspace, const TreeBirth& birth);
std::optional<TreeBirth> birth_of(const Project& project, const Workspace& workspace);

/// The user's global ignore file (core.excludesFile, or git's default), `~` expanded: asked of
/// git once per process and project, from any thread, and only when git's configuration files
/// changed since the last answer (remembered in the shadow folder; never when one includes
/// another, or configuration comes from the environment).
std::string global_excludes(const Project& project);
/// core.hooksPath as the repository's configuration sets it (`~` expanded; "" when not set), as
/// global_excludes asks it (in the same git call).
std::string hooks_path_setting(const Project& project);

/// Make `call`, a git call in a workspace, use `index` and consult the watcher.
void use_watcher(const Project& project, GitCall& call, const std::string& index);

/// What `list` last learnt of a workspace: still true while the watcher reports no change in the
/// work tree and the index, HEAD, the branch and the ignore files are the same files as then.
struct Verdict {
  std::string token;  ///< the watcher's token, taken before the walk
  std::string key;    ///< index, refs and ignore files as they were before the walk
  std::string status; ///< what `git status --porcelain=v2 -z --branch` said
  std::string counts; ///< what `rev-list --left-right --count BASE...HEAD` said
  /// The trees a capture built from this state ("HEAD HEAD_TREE INDEX_TREE WORK_TREE"), or "":
  /// valid exactly as long as the verdict is, so an unchanged workspace is captured without git.
  std::string capture;
};
/// The verdict cached for the workspace if it still holds. Otherwise nullopt, and `fresh` gets
/// the token and key to save with the new one (taken now, before the caller looks; left empty
/// when the index changed since the shadow was opened, so nothing is saved). The shadow's lock
/// guards the verdict too.
std::optional<Verdict> reuse_verdict(const Project& project, const Workspace& workspace,
                                     const Shadow& shadow, Verdict& fresh);
/// What a workspace's status would say, from its cached verdict and the paths the watcher saw
/// change since, without git's walk: while the verdict's HEAD, branch, index, configuration and
/// ignore files are the same files, the paths that can differ from the index are the verdict's
/// changed paths and those. Nullopt where that does not hold, or cannot be told by path (no
/// verdict, the watcher cannot name the paths, a folder made or removed, an ignore or attributes
/// file changed, a nested repository, more than a few hundred paths): then git looks.
struct WatchedLook {
  Verdict verdict;       ///< the cached one
  StatusSummary summary; ///< its status's (HEAD; staged, conflicted; its changed paths)
  /// The paths the watcher saw change since (files, links; never a folder). Those the index
  /// does not hold and the verdict did not name may be ignored: the caller asks git's rules.
  std::vector<std::string> since;
  /// The watcher's token taken now, before the caller looks: a verdict the caller makes of what
  /// it finds (restate_status) is saved with it.
  std::string token;
};
std::optional<WatchedLook> look_by_watcher(const Project& project, const Workspace& workspace,
                                           const Shadow& shadow);
void save_verdict(const Project& project, const Workspace& workspace, const Verdict& verdict);

/// Whether a look takes the commit counts too: a verdict is saved (for `list`) only with them;
/// a discard, whose workspace goes, has no use for them (one git process less).
enum class Counts { take, skip };

/// The workspace's status (`status --porcelain=v2 -z --branch -uall`) and commit counts through
/// the shadow: the cached verdict when nothing changed, else a fresh look through the watcher,
/// saved as the new verdict (with Counts::skip: no counts, nothing saved). Nullopt when git
/// could not read the shadow (the caller drops it).
std::optional<Verdict> look(const Project& project, const Workspace& workspace,
                            const Shadow& shadow, Counts counts = Counts::take);

/// The same without a shadow or watcher: a read-only status that stats every file.
std::optional<Verdict> look_plain(const Project& project, const Workspace& workspace);

/// What, besides the objects, shapes what git says of them here: the git program and the
/// configuration and attribute files it reads for the repository (the shared config, the user's
/// and the system's, info/attributes, the user's attributes file), each by its device, inode, size
/// and modification time. Any change to one of them changes the key.
std::string git_setup_key(const Project& project);

/// The tree of the index version the shadow mirrors (its staged state), cached per version.
/// Nullopt when the index has unresolved conflicts (no tree) or git fails.
std::optional<std::string> index_tree(const Project& project, const Workspace& workspace,
                                      const Shadow& shadow);

/// Copy an index file, keeping its modification time: git judges "racily clean" entries by it.
/// A cache, not a record: written without fsync, then renamed into place.
Result<void> copy_index(const std::string& from, const std::string& to);

} // namespace berth
