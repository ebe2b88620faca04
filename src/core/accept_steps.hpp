// Accept's record of intent and the helpers accept.cpp shares with doctor.cpp (which finishes or
// rolls back an interrupted accept) and sync.cpp (which merges the same target into a workspace).
#pragma once

#include "berth/berth.hpp"
#include "core/nested.hpp"
#include "core/registry.hpp"

#include <map>
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

/// Wait (up to 30 s, never under the registry lock) while another live accept lands in `branch`.
void wait_for_running_accept(const Project& project, const std::string& branch);

/// Refused (busy, or interrupted) when an earlier accept into `branch` has not finished.
Result<void> check_no_accept_pending(const Project& project, const std::string& branch);

/// The content of `path` in `worktree` as a blob id ("" when absent), with the user's filters, the
/// way `git add` would store it.
std::string current_oid(const std::string& worktree, const std::string& path);
/// `git ls-files -s -z` output as path -> blob id (stage 0 and conflict stages alike).
std::map<std::string, std::string> staged_oids(const std::string& listed);

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

// ---- accept as named steps ---------------------------------------------------------------------
//
// accept = strategy → hold the workspace → check the target → plan the landing (as objects) →
// refuse what would overwrite the user's work → land → record → discard or keep.
// (accept_workspace in accept.cpp.) fork/pick land a planned commit with the same `land`.

/// The strategy asked for, else the configured one (refused when the configuration names none).
Result<Strategy> accept_strategy(const Project& project, const AcceptOptions& options);

/// The target branch (`into`, else the workspace's own) and where it is checked out, refused
/// when an earlier accept into it is under way or interrupted, or when the user is in the middle
/// of a merge, rebase, cherry-pick, revert or bisect there. Nothing is changed by it.
Result<Target> check_target(const Project& project, const Workspace& w,
                            const std::optional<std::string>& into);

/// What an accept lands, computed as git objects only (nothing in the workspace or the target is
/// touched): the target as it was when planned, the new commit ("" for apply, which only stages)
/// and the tree the target's checkout gets.
struct Landing {
  std::string workspace; ///< the workspace's name (reflog, intent, messages)
  Strategy strategy = Strategy::apply;
  Target target;
  std::string new_commit;
  std::string result_tree;
  std::string head = {}; ///< the workspace's HEAD the change came from
};

/// Plan the landing of the workspace's whole state (its commits plus anything uncommitted, as a
/// commit that never touches the workspace) onto `target` per `strategy`: a conflict is found
/// here and reported with nothing changed (`conflict`, with the paths). None when there is
/// nothing to accept (the target has it all). `gitlinks` receives the submodule commits to keep.
/// Leaves only unreachable objects behind: a crash after it changes nothing.
Result<std::optional<Landing>> plan_landing(const Project& project, const Workspace& w,
                                            Strategy strategy, const AcceptOptions& options,
                                            const Target& target, GitlinkCheck& gitlinks,
                                            std::vector<std::string>& warnings);

/// Land it, all or nothing. Checked out nowhere: the branch moves by compare-and-swap. In a
/// checkout: the intent is recorded first (under the registry lock, so that two accepts into one
/// branch never both go ahead), then, with the branch's refs and the index locked, exactly the
/// changed paths are written and the branch moves; the post-merge hook runs. A crash mid-way
/// leaves the intent with a dead pid: `berth doctor --repair` finishes it (or rolls it back if
/// the branch moved), and until then the index.lock it left keeps the user's git from committing
/// the half-written checkout. `*lost_race`: the target moved before its refs were locked (nothing
/// changed; plan again). `on_hook_output`: AcceptOptions::on_hook_output.
Result<void> land(const Project& project, const Registry& registry, const Landing& landing,
                  bool* lost_race, const SetupListener& on_hook_output);

/// After the landing was recorded: discard the workspace (with its trash snapshot), a failure
/// being a warning of `a` (the change has landed all the same).
void discard_after_landing(const Project& project, const std::string& name, Accepted& a);

} // namespace berth
