// Making a workspace, shared by `new` (workspace_create.cpp) and `restore` (restore.cpp), and
// undone by the recovery of a creation that died (workspace.cpp).
#pragma once

#include "berth/berth.hpp"

#include <functional>
#include <string>
#include <vector>

namespace berth {

// How to fill a newly added (still empty) worktree.
// `from` is the commit the worktree's index and files already hold (a pool slot's), or "" when
// the worktree is empty.
using Populate = std::function<Result<void>(const Workspace&, const std::string& from)>;

struct CreatePlan {
  std::string name;
  std::string base;  // recorded base
  std::string start; // commit the branch starts at
  std::string owner;
  Populate populate;
  SetupListener on_setup;
  bool no_pool = false;
  std::string hooks_path; // core.hooksPath, if set
  // What `populate` made besides the workspace (a restore's branch of the agent's own), undone
  // after the workspace is rolled back.
  std::function<void()> undo_populate;
  // Top the pool up in the background once made (create_workspaces does it once for all).
  bool refill_pool = true;
  // Set when the workspace was made of a pool slot: create_workspaces then starts its one
  // background pass even with pool.size = 0 (that pass looks at the workspace in its new place).
  bool* took_slot = nullptr;
};

/// Make the workspace `plan` describes: claim the name, add the worktree (or take a pool slot),
/// populate it, run the post-checkout hook and setup, mark it ready. Any failure undoes it all.
Result<Created> create(const Project& project, const CreatePlan& plan);

/// Fill an empty worktree with `work` as its files (tracked and untracked, byte for byte) and
/// `staged` as its index, leaving HEAD where the branch starts.
Populate fill_from_trees(const std::vector<std::string>& tuning, const std::string& work,
                         const std::string& staged);

/// Undo the git side of a half-made workspace (its worktree; its branch if still at `start`).
/// False when nothing was undone.
bool undo_creation(const Project& project, const Workspace& made, const std::string& start);
/// undo_creation, then the record (under the lock). False when nothing was undone.
bool roll_back(const Project& project, const Workspace& made, const std::string& start);

} // namespace berth
