// Discarding a workspace (discard.cpp), as named steps that later features call too (gc: the
// snapshot, the move aside, the branch's deletion), and the rest of a discard that died
// (finish_discard, called by recover_interrupted in workspace.cpp).
//
// discard = claim → make saveable → snapshot → move aside (or remove in place) → drop branch →
// forget → delete the tree aside. Until the tree leaves its place a failure puts the record back
// as it was and a crash leaves the workspace whole (the next command frees it); from then on the
// next command finishes the discard (finish_discard), never undoes it.
#pragma once

#include "berth/berth.hpp"
#include "core/porcelain.hpp"
#include "core/registry.hpp"
#include "core/trash.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace berth {

/// --force on a busy workspace: stop what runs there first (the `berth run` holding it, which
/// passes the TERM on to its command's whole process group and then releases its lease, then
/// anything else still working inside the directory). Called before the claim, without the
/// lock, which the run needs to release its lease.
void stop_work_in(const Workspace& current);

/// A workspace claimed for discarding: its record says discarding, held by this process, and the
/// project lock is free again (the snapshot, the move and the branch's deletion run the user's
/// hooks; a slow one must not stop every other berth command). No other command acts on a
/// workspace a live process holds. Destroyed before keep(), it puts the record back exactly as
/// it was (nothing was removed yet). A crash while claimed leaves a discarding record with a dead
/// holder: recover_interrupted frees it while the tree is in place, finishes the discard once
/// it is not.
class DiscardClaim {
public:
  DiscardClaim(Registry registry, Workspace held, Workspace as_found, std::string record_file,
               std::string original);
  DiscardClaim(DiscardClaim&& other) noexcept;
  DiscardClaim(const DiscardClaim&) = delete;
  DiscardClaim& operator=(const DiscardClaim&) = delete;
  DiscardClaim& operator=(DiscardClaim&&) = delete;
  ~DiscardClaim();

  /// The workspace as this process holds it (discarding).
  const Workspace& workspace() const { return held_; }
  /// The workspace as it was found, before the claim.
  const Workspace& as_found() const { return as_found_; }
  /// The tree has left its place: the record must stay (discarding) for the rest of the flow.
  void keep() { armed_ = false; }

  bool present = false;   ///< its directory and admin dir are there
  bool symlinked = false; ///< a symlink stands where its directory was

private:
  Registry registry_;
  Workspace held_, as_found_;
  std::string record_file_, original_;
  bool armed_ = true;
};

/// Claim `name` under the project lock, after the refusals that leave everything as it is: busy
/// (unless --force on a run), locked by the user, unlinked, moved with the repository, a record
/// that is not the tree's, a path outside its root.
Result<DiscardClaim> claim_for_discard(const Project& project, std::string_view name, Force force);
/// claim_for_discard for several (a pick's siblings) under one hold of the lock, their records
/// written with one sync; one result each, in order.
std::vector<Result<DiscardClaim>>
claims_for_discard(const Project& project, const std::vector<std::string>& names, Force force);

/// Make the work saveable: non-files planted in the admin dir (a FIFO would hang every git call)
/// moved aside and the admin files rebuilt from the record. Changes nothing of the work itself.
Result<void> make_saveable(const Workspace& w, bool present, std::vector<std::string>& warnings);

/// Its branch deleted behind berth's back while HEAD still names it: made again where HEAD last
/// was (else on the base), so that the snapshot holds the commits and the branch then goes as
/// usual. A crash after it leaves a branch the next discard deletes with the rest.
Result<void> bring_back_lost_branch(const Project& project, const Workspace& w,
                                    std::vector<std::string>& warnings);

/// The commit the workspace's branch points to ("" when it has none).
std::string branch_tip(const Project& project, const Workspace& w);

/// The snapshot (refs/berth/trash/...) of everything the workspace holds, checked whole: this is
/// what `berth restore` brings back, taken before anything is removed. A crash after it leaves
/// the workspace whole and its snapshot in the trash (a second discard takes another).
/// `hints`: what the caller read already; `trees`, when given, gets the snapshot's trees and its
/// base's if the check read them.
Result<Snapshot> snapshot_for_discard(const Project& project, const Workspace& w, bool present,
                                      const SnapshotHints& hints = {},
                                      std::optional<SnapshotTrees>* trees = nullptr);

/// Move the tree aside into its root's `.trash` (a rename, named after the snapshot so that the
/// deleter knows which snapshot it belongs to), its HEAD detached so that it lets go of the
/// branch. Returns where the tree is now: its own path when it could not be moved (no tree, or
/// the rename failed; then it is removed in place). A crash after the rename leaves a discarding
/// record whose tree is gone: recover_interrupted finishes it (finish_discard).
/// With Detach::later the caller detaches it (detach_asides, several in one transaction).
enum class Detach { now, later };
std::string move_aside(const Project& project, const Workspace& w, bool present, bool symlinked,
                       const std::optional<Snapshot>& snapshot, bool note_root,
                       Detach detach = Detach::now);

/// move_aside's detaching of HEAD for several trees moved aside (each `Workspace::path` where it
/// is now), in one ref transaction; when it fails, each on its own as move_aside does it. A
/// crash before it leaves trees aside still on their branches: finish_discard detaches them.
void detach_asides(const Project& project, const std::vector<Workspace>& asides);

/// The trees moved aside let go of their branches, and the branches go, in one ref transaction:
/// each tree's HEAD detached where its snapshot saw it, each branch deleted from its tip (each a
/// compare-and-swap). Whether another worktree has one checked out is read from the worktrees'
/// HEAD files (checked_out_branches; git's list when those cannot tell) while the trees still
/// hold the branches (no other worktree can check one out then). When that cannot be (a branch
/// checked out elsewhere, a ref moved, a hook's refusal), each step on its own (detach_asides,
/// then drop_branch's of all), and what was kept is said in each one's warnings.
struct LettingGo {
  const Workspace* workspace;
  std::string aside;        ///< where its tree is now; "" when it was removed in place
  const Snapshot* snapshot; ///< its snapshot (HEAD's commit), for a tree aside
  std::string tip;          ///< its branch's tip as read at the start; "" when it had none
  std::vector<std::string>* warnings;
};
/// `through`: the discard's own `update-ref --stdin` for the transaction (null: a git of its own).
void let_go_of_branches(const Project& project, const std::vector<LettingGo>& going,
                        RefTransactions* through = nullptr);

/// `git worktree remove` of a tree that was not moved aside (or a worktree git still lists whose
/// directory is gone). A failure changes nothing: the claim puts the record back.
Result<void> remove_in_place(const Project& project, const Workspace& w);

/// Delete the branch (compare-and-swap from `tip`) unless another worktree than `tree_now` has it
/// checked out or it moved meanwhile (then kept, with a warning). Its commits are in the
/// snapshot. A crash before it: finish_discard deletes it once its commits are in the trash.
void drop_branch(const Project& project, const Workspace& w, const std::string& tip,
                 const std::string& tree_now, std::vector<std::string>& warnings);

/// Remove the record (under the lock) and the workspace's shadow index: the name is free.
Result<void> forget_workspace(const Project& project, const Workspace& w);

/// Delete the tree moved aside: left to the background filler (which also refills the pool), or
/// now, once its snapshot is checked against a full look at the tree. A tree that cannot go stays
/// in `.trash` (the deleter or `berth doctor --repair` deals with it).
void delete_aside(const Project& project, const std::string& aside, bool background,
                  std::vector<std::string>& warnings);

/// The rest of a discard killed after its tree left its place: the tree aside lets go of the
/// branch, and the branch goes when nothing else has it and its commits are kept.
void finish_discard(const Project& project, const Workspace& w);

} // namespace berth
