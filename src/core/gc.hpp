// Housekeeping that never loses work (docs/gc.md): `berth gc`, the trash's own commands (`berth
// trash`), and the pure rules they follow (durations, expiry, quota order), kept apart so that the
// unit tests check them without a repository.
#pragma once

#include "berth/berth.hpp"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace berth {

/// "45s", "30m", "12h", "7d", "2w" as seconds. bad_duration otherwise; `what` names where the
/// text came from (`--older-than`, `gc.older_than`).
Result<int64_t> parse_duration(std::string_view text, std::string_view what);
/// "500M", "20G", "1T", "4096" (bytes; K, M, G, T are powers of 1024) as bytes; "" or "0" is 0
/// (no limit). config_invalid otherwise.
Result<uint64_t> parse_size(std::string_view text, std::string_view what);

/// One snapshot as the expiry rule sees it.
struct TrashEntry {
  std::string name;
  int64_t time = 0;
};
/// The snapshots that have expired: at least `keep_days` days old AND beyond the newest `keep` of
/// their name. Indexes into `entries`, in their order.
std::vector<size_t> expired_snapshots(const std::vector<TrashEntry>& entries, int64_t keep,
                                      int64_t keep_days, int64_t now);

/// One workspace as the quota sees it.
struct QuotaCandidate {
  int64_t last_used = 0;
  uint64_t bytes = 0;
  bool removable = false; ///< clean and idle, not in use: nothing to lose
};
/// Which workspaces the quota removes, in order: the oldest removable ones first, until at most
/// `max_workspaces` remain (0: no limit) and their size is at most `max_disk` (0: no limit).
/// Never one that is not removable, even when the limits stay exceeded.
std::vector<size_t> quota_victims(const std::vector<QuotaCandidate>& candidates,
                                  int64_t max_workspaces, uint64_t max_disk);

struct GcOptions {
  bool dry_run = false;
  std::optional<int64_t> older_than; ///< seconds; default gc.older_than
  std::optional<int64_t> keep;       ///< snapshots kept per name; default trash.keep
  std::optional<std::string> into;   ///< the branch "landed" means; default the main checkout's
  /// The light pass after new/discard: orphans and expired trash only, bounded in time.
  bool automatic = false;
};

/// One thing gc removed (or, with dry_run, would remove), or skipped.
struct GcItem {
  std::string category; ///< landed, idle, orphan, expired, quota
  std::string kind;     ///< workspace, snapshot, aside, shadow, worktree, fork, pool-slot, watch
  std::string name;     ///< the workspace or snapshot name ("" for a bare file)
  std::string ref;      ///< a snapshot's ref
  std::string path;     ///< a tree or file
  std::string reason;   ///< why it goes, or why it is skipped
  std::string snapshot; ///< a removed workspace: its snapshot in the trash (real run only)
};

struct GcReport {
  bool dry_run = false;
  std::vector<GcItem> removed; ///< with dry_run: what a real run would remove
  std::vector<GcItem> skipped; ///< candidates left alone, each with the reason
  std::vector<std::string> warnings;
};

Result<GcReport> collect_garbage(const Project& project, const GcOptions& options);

/// After `discard` with no pool (pool.size = 0: no background filler, which runs the light pass
/// otherwise): when a discarded name now has expired snapshots, start the light pass
/// (`berth gc --auto`) detached, off the caller's path. Nothing with gc.auto = false. Costs the
/// caller one `git for-each-ref` of those names' snapshots.
void start_light_gc_after_discard(const Project& project, const std::vector<std::string>& names);

/// NAME@TIME (TIME as in the ref's last part: unix seconds, maybe "-N"; or ISO 8601 UTC as the
/// JSON documents give it, YYYY-MM-DDTHH:MM:SSZ) or a full snapshot ref,
/// as a ref; bad_snapshot when it is neither.
Result<std::string> snapshot_ref_of(std::string_view spec);

/// What `restore --list SPEC` and `trash list SPEC` show: every snapshot (SPEC empty), a name's
/// (invalid_name when SPEC is no workspace name), or one: NAME@TIME or a ref (bad_snapshot when
/// malformed, not_found when the trash has no such snapshot).
Result<std::vector<Snapshot>> snapshots_for(const Project& project, std::string_view spec);

/// What a snapshot holds beyond its base, for `restore --list` and `berth trash list`.
struct SnapshotContents {
  int64_t commits = 0; ///< commits on its branch/HEAD beyond its base
  int64_t files = 0;   ///< files that differ from its base (committed or not)
  uint64_t bytes = 0;  ///< their size in the snapshot
};
SnapshotContents snapshot_contents(const Project& project, const Snapshot& snapshot);

struct TrashOutcome {
  std::string action;
  bool dry_run = false;
  std::vector<Snapshot> snapshots; ///< list: all; drop/purge: the ones dropped (or that would be)
  std::vector<SnapshotContents> contents;
};
/// `berth trash drop NAME[@TIME]`: every snapshot of NAME, or that one.
Result<TrashOutcome> trash_drop(const Project& project, std::string_view spec, bool dry_run);
/// `berth trash purge --older-than DUR`: every snapshot older than that.
Result<TrashOutcome> trash_purge(const Project& project, int64_t older_than, bool dry_run);
/// Delete one snapshot's ref (only if it still names `commit`) and its note.
Result<void> drop_snapshot(const Project& project, const Snapshot& snapshot);

void to_json(nlohmann::json& j, const GcReport& report);
nlohmann::json trash_document(const TrashOutcome& outcome);

} // namespace berth
