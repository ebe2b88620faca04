// Accept's record of intent and the helpers accept.cpp shares with doctor.cpp (which finishes or
// rolls back an interrupted accept) and sync.cpp (which merges the same target into a workspace).
#pragma once

#include "berth/berth.hpp"

#include <optional>
#include <string>
#include <vector>

namespace berth {

// ---- the intent record ------------------------------------------------------------------------

struct PathChange {
  std::string path, old_mode, old_oid, new_mode, new_oid; // oid "" when absent on that side
};

struct Intent {
  std::string workspace;
  std::string strategy;
  std::string target;   // branch name
  std::string worktree; // where it is checked out
  std::string old_commit, new_commit;
  std::string new_tree;
  bool moves_head = false;
  int64_t time = 0;
  int pid = 0;
  int64_t pid_start = 0;
  std::vector<PathChange> paths;
};

std::string intents_dir(const Project& project);
std::string intent_path(const Project& project, const std::string& target);
Result<void> save_intent(const Project& project, const Intent& in);
Result<Intent> load_intent(const std::string& file);
/// The intent files on disk (one per target branch with an accept under way or interrupted).
std::vector<std::string> intent_files(const Project& project);

/// accept's copy of the target checkout's index while it holds index.lock (IndexGuard), in the
/// checkout's git dir.
inline constexpr const char* kAcceptIndexLeaf = "index.berth-accept";

/// Bring exactly `in.paths` of the intent's checkout (index and files) to one side of the intent
/// (`forward`: the new side); paths the user changed since are left alone and listed.
Result<std::vector<std::string>> settle_paths(const Intent& in, bool forward,
                                              std::vector<std::string>* left_alone,
                                              const std::string& index_file = {});

// ---- the target -------------------------------------------------------------------------------

struct Target {
  std::string branch;   // "main"
  std::string worktree; // "" when checked out nowhere
  std::string commit;
};

/// The branch an accept lands on (`into`, else the workspace's own target) and where it is checked
/// out.
Result<Target> find_target(const Project& project, const Workspace& w,
                           const std::optional<std::string>& into);

Result<std::vector<PathChange>> path_changes(const Project& project, const std::string& from,
                                             const std::string& to);
Result<std::string> tree_of(const Project& project, const std::string& commit);
/// The conflicting paths as the user knows them (git's `PATH~LABEL` named PATH).
std::vector<std::string> user_conflict_paths(const Project& project,
                                             const std::vector<std::string>& conflicts,
                                             const std::vector<std::string>& commits);
bool is_ancestor(const Project& project, const std::string& a, const std::string& b);

} // namespace berth
