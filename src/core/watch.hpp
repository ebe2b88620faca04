// The watcher: one small daemon per project that follows changes to the workspaces' trees with
// inotify, and answers git's fsmonitor hook (protocol version 2) with the paths that changed
// since a token. With it, git commands berth runs in a workspace (status for `list`, the snapshot
// of `discard`, `commit`, `accept`) stat only what changed instead of every file.
//
// Soundness: a root is watched before it is first answered for, and every query drains the
// inotify queue first (the kernel queues an event before the write that caused it returns), so
// "nothing changed since T" is never said of a change that had happened when the query was made.
// Whatever cannot be answered exactly (an unknown token, a restarted daemon, a queue overflow, a
// directory that could not be watched) is answered "/": git then looks at everything, as without
// a watcher.
#pragma once

#include "berth/berth.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <sys/stat.h>
#include <sys/types.h>
#include <unordered_map>
#include <utility>
#include <vector>

namespace berth {

class Watcher {
public:
  Watcher();
  ~Watcher();
  Watcher(const Watcher&) = delete;
  Watcher& operator=(const Watcher&) = delete;

  /// The inotify descriptor (to poll), or -1 when inotify is not available.
  int fd() const { return fd_; }
  /// Apply every event queued so far; never blocks.
  void drain();
  /// git's fsmonitor v2 answer for the tree at `root` (an absolute path): the new token, NUL,
  /// then each changed path relative to `root` and NUL-terminated (directories end in '/'); the
  /// single path "/" means "anything may have changed". A root seen for the first time is
  /// watched from now on and answered "/". `asked` is the token of the previous answer.
  std::string since(const std::string& root, const std::string& asked);
  /// Stop watching a root (it was deleted).
  void forget(const std::string& root);
  /// Every root followed, one line each: its path ("" when renamed and not known by its new name
  /// yet), its folder's device and inode, tab-separated (the `roots` request; gc's orphans).
  std::string list_roots() const;
  /// Stop following the root whose folder has this identity, wherever it is filed. False when none.
  bool forget_identity(dev_t dev, ino_t ino);

  size_t root_count() const { return roots_.size() + moved_.size(); }
  size_t watch_count() const { return dirs_.size(); }
  /// Roots with a folder that could not be watched (fs.inotify.max_user_watches reached): always
  /// answered "/".
  size_t blind_count() const;
  std::string instance() const { return instance_; }

private:
  struct Root {
    std::string path;
    dev_t dev = 0; ///< the root folder's identity: a renamed root is known again by it
    ino_t ino = 0;
    /// Renamed, its new name not known yet (filed in moved_). Folders made in it meanwhile
    /// cannot be reached by name: they are watched, and everything in them reported, once it is.
    bool moved = false;
    std::vector<std::string> pending;
    int wd = -1;
    uint64_t since = 0;    ///< seq when watching began: older tokens know nothing
    uint64_t overflow = 0; ///< seq of the last lost event: older tokens know nothing
    bool broken = false;   ///< a directory could not be watched: always "/"
    std::map<std::string, uint64_t> changed; ///< path -> seq of its latest change
  };
  struct Dir {
    Root* root;
    std::string rel; ///< "" for the root, else "a/b"
  };

  void watch_tree(Root& root, const std::string& rel, bool report);
  void unwatch_tree(Root& root, const std::string& rel); ///< rel "": the whole root
  void note(Root& root, const std::string& rel);
  void note_listing(Root& root, const std::string& rel);
  void handle(int wd, uint32_t mask, const std::string& name);
  std::string token() const;
  void drop(Root& root);
  Root* moved_to(const std::string& path, const struct stat& st);

  int fd_ = -1;
  uint64_t seq_ = 1;
  std::string instance_;
  std::map<std::string, std::unique_ptr<Root>> roots_;
  /// Roots whose folder was renamed (a pool slot taken, a workspace moved aside), by the folder's
  /// identity: still watched (a watch follows its inode), and known again under the new path at
  /// its first query there, their tokens still good.
  std::map<std::pair<dev_t, ino_t>, std::unique_ptr<Root>> moved_;
  std::unordered_map<int, Dir> dirs_;
};

/// The abstract unix socket the watcher of the project at `common_dir` listens on.
std::string watch_address(const std::string& common_dir);

/// Ask the project's watcher one request line; its answer. Fails when none runs (or the one
/// listening is not the user's own). A watcher found stopped (SIGSTOP) while berth waits is
/// killed at once and the call fails with not_found, so the next query starts a new one.
Result<std::string> watch_ask(const std::string& common_dir, const std::string& request);

/// What changed in the work tree `root` since `token`, asked of the watcher that runs (none is
/// started: a new one would answer "/" for an old token anyway): the new token, NUL, then each
/// changed path NUL-terminated ("/" alone: anything may have). Fails when none runs or the answer
/// is malformed. watch_hook's request.
Result<std::string> watch_since(const std::string& common_dir, const std::string& root,
                                const std::string& token);

/// Start the project's watcher in the background (detached) if none runs.
void watch_start(const std::string& common_dir);

WatchStatus watch_status(const std::string& common_dir);

/// A tree the project's watcher follows (watch_roots).
struct WatchedRoot {
  std::string path; ///< "" when renamed and not asked about under its new name yet
  dev_t dev = 0;
  ino_t ino = 0;
};
/// The trees the project's running watcher follows; none when no watcher runs (none is started).
std::vector<WatchedRoot> watch_roots(const std::string& common_dir);
/// Have the running watcher stop following the tree with this identity (its next question is
/// answered "/", as for a tree seen for the first time). False when it did not follow it.
bool watch_forget(const std::string& common_dir, const WatchedRoot& root);
bool watch_stop(const std::string& common_dir);

} // namespace berth
