// `berth gc` and `berth trash` (docs/gc.md). gc removes only what it can show is safe, and every
// workspace it removes goes through discard (a snapshot in the trash first): even a decision made
// on a state that changed a moment later loses nothing.
#include "core/gc.hpp"

#include "berth/fork.hpp"
#include "berth/json.hpp"
#include "core/accept_steps.hpp"
#include "core/aside.hpp"
#include "core/git.hpp"
#include "core/name.hpp"
#include "core/plain.hpp"
#include "core/pool.hpp"
#include "core/porcelain.hpp"
#include "core/registry.hpp"
#include "core/roots.hpp"
#include "core/setup.hpp"
#include "core/shadow.hpp"
#include "core/trash.hpp"
#include "core/tree_claim.hpp"
#include "core/watch.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/child_process.hpp"
#include "util/dir.hpp"
#include "util/file_lock.hpp"
#include "util/paths.hpp"
#include "util/process_info.hpp"
#include "util/try.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fmt/format.h>
#include <ftw.h>
#include <functional>
#include <map>
#include <set>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace berth {

// ---- the pure rules -----------------------------------------------------------------------------

Result<int64_t> parse_duration(std::string_view text, std::string_view what) {
  auto bad = [&] {
    return fail(ErrorCode::bad_duration, fmt::format("{}: '{}' is not a duration", what, text),
                "write a number and a unit: 45s, 30m, 12h, 7d or 2w");
  };
  if (text.size() < 2) return text == "0" ? Result<int64_t>(0) : bad();
  int64_t unit = 0;
  switch (text.back()) {
  case 's':
    unit = 1;
    break;
  case 'm':
    unit = 60;
    break;
  case 'h':
    unit = 3600;
    break;
  case 'd':
    unit = 86400;
    break;
  case 'w':
    unit = int64_t{7} * 86400;
    break;
  default:
    return bad();
  }
  int64_t n = 0;
  for (char c : text.substr(0, text.size() - 1)) {
    if (c < '0' || c > '9') return bad();
    n = n * 10 + (c - '0');
    // A hundred years is plenty; beyond, the product could overflow.
    if (n > 100LL * 365 * 86400) return bad();
  }
  return n * unit;
}

Result<uint64_t> parse_size(std::string_view text, std::string_view what) {
  if (text.empty()) return uint64_t{0};
  uint64_t unit = 1;
  std::string_view digits = text;
  switch (text.back()) {
  case 'K':
    unit = 1ULL << 10;
    break;
  case 'M':
    unit = 1ULL << 20;
    break;
  case 'G':
    unit = 1ULL << 30;
    break;
  case 'T':
    unit = 1ULL << 40;
    break;
  default:
    break;
  }
  if (unit != 1) digits.remove_suffix(1);
  uint64_t n = 0;
  bool ok = !digits.empty();
  for (char c : digits) {
    if (c < '0' || c > '9' || n > (1ULL << 50)) ok = false;
    if (!ok) break;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  if (!ok)
    return fail(ErrorCode::config_invalid, fmt::format("{}: '{}' is not a size", what, text),
                "write a number of bytes, or with a unit: 500M, 20G, 1T");
  return n * unit;
}

std::vector<size_t> expired_snapshots(const std::vector<TrashEntry>& entries, int64_t keep,
                                      int64_t keep_days, int64_t now) {
  std::map<std::string, std::vector<size_t>> by_name;
  for (size_t i = 0; i < entries.size(); ++i)
    by_name[entries[i].name].push_back(i);
  std::vector<size_t> expired;
  for (auto& [name, list] : by_name) {
    std::stable_sort(list.begin(), list.end(),
                     [&](size_t a, size_t b) { return entries[a].time > entries[b].time; });
    for (size_t rank = 0; rank < list.size(); ++rank)
      if (static_cast<int64_t>(rank) >= keep && now - entries[list[rank]].time >= keep_days * 86400)
        expired.push_back(list[rank]);
  }
  std::sort(expired.begin(), expired.end());
  return expired;
}

std::vector<size_t> quota_victims(const std::vector<QuotaCandidate>& candidates,
                                  int64_t max_workspaces, uint64_t max_disk) {
  int64_t count = static_cast<int64_t>(candidates.size());
  uint64_t bytes = 0;
  for (const auto& c : candidates)
    bytes += c.bytes;
  std::vector<size_t> order;
  for (size_t i = 0; i < candidates.size(); ++i)
    if (candidates[i].removable) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return candidates[a].last_used < candidates[b].last_used;
  });
  std::vector<size_t> victims;
  for (size_t i : order) {
    bool over =
        (max_workspaces > 0 && count > max_workspaces) || (max_disk > 0 && bytes > max_disk);
    if (!over) break;
    victims.push_back(i);
    --count;
    bytes -= candidates[i].bytes;
  }
  return victims;
}

// ---- snapshots ----------------------------------------------------------------------------------

Result<std::string> snapshot_ref_of(std::string_view spec) {
  if (spec.rfind("refs/berth/trash/", 0) == 0 || spec.rfind(kSalvagedRefs, 0) == 0)
    return std::string(spec);
  size_t at = spec.rfind('@');
  auto bad = [&] {
    return fail(ErrorCode::bad_snapshot, fmt::format("'{}' does not name a snapshot", spec),
                "write NAME@TIME as `berth trash list` shows it (TIME in unix seconds, e.g. "
                "feat@1700000000, or as --json gives it, feat@2023-11-14T22:13:20Z), or the "
                "snapshot's full ref");
  };
  if (at == std::string_view::npos || at == 0) return bad();
  std::string_view name = spec.substr(0, at), time = spec.substr(at + 1);
  if (!validate_name(name)) return bad();
  // The time as the JSON documents give it (`time`, ISO 8601 UTC): the ref of that second (its
  // first snapshot when two discards fell in the same second).
  if (time.size() == 20 && time[10] == 'T' && time.back() == 'Z') {
    std::tm tm{};
    std::string text(time);
    const char* end = ::strptime(text.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (!end || *end) return bad();
    return trash_prefix(name) + std::to_string(static_cast<int64_t>(::timegm(&tm)));
  }
  // The ref's last part: unix seconds, "-N" when two discards fell in the same second.
  size_t dash = time.find('-');
  auto digits = [](std::string_view s) {
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (!digits(time.substr(0, dash)) ||
      (dash != std::string_view::npos && !digits(time.substr(dash + 1))))
    return bad();
  return trash_prefix(name) + std::string(time);
}

Result<std::vector<Snapshot>> snapshots_for(const Project& project, std::string_view spec) {
  if (spec.empty()) return list_snapshots(project, std::nullopt);
  if (spec.find('@') == std::string_view::npos && spec.rfind("refs/", 0) != 0) {
    BERTH_TRY(validate_name(spec));
    return list_snapshots(project, spec);
  }
  std::string ref = BERTH_TRY(snapshot_ref_of(spec));
  std::optional<std::string_view> name;
  if (spec.rfind("refs/", 0) != 0) name = spec.substr(0, spec.rfind('@'));
  auto listed = BERTH_TRY(list_snapshots(project, name));
  std::erase_if(listed, [&](const Snapshot& s) { return s.ref != ref; });
  if (listed.empty())
    return fail(ErrorCode::not_found, fmt::format("no snapshot {} in the trash", spec),
                "run `berth trash list` to see the snapshots");
  return listed;
}

SnapshotContents snapshot_contents(const Project& project, const Snapshot& s) {
  SnapshotContents c;
  if (s.state != "ok" || s.base.empty()) return c;
  std::string tip = s.branch_tip.empty() ? s.head : s.branch_tip;
  auto commits =
      git_status_of(repo_call(project, {"rev-list", "--count", s.head, tip, "^" + s.base}));
  if (commits && commits->ok()) c.commits = std::strtoll(commits->out.c_str(), nullptr, 10);
  // The files that differ from the base, with their size in the snapshot (what restoring brings
  // back that the base does not have).
  auto changed = git_status_of(tree_diff_call(
      project, {"diff-tree", "-r", "-z", "--no-renames", "--name-only", s.base, s.commit}));
  if (!changed || !changed->ok()) return c;
  GitCall sizes = repo_call(project, {"cat-file", "--batch-check=%(objectsize)", "--buffer"});
  for (const auto& path : split_z(changed->out)) {
    if (path.empty()) continue;
    ++c.files;
    sizes.input += s.commit + ":" + path + "\n";
  }
  if (c.files == 0) return c;
  if (auto out = git_status_of(sizes); out && out->ok())
    for (const auto& line : split_lines(out->out))
      if (!line.empty() && line.back() != 'g') // "... missing": a deleted file
        c.bytes += std::strtoull(line.c_str(), nullptr, 10);
  return c;
}

Result<void> drop_snapshot(const Project& project, const Snapshot& s) {
  GitCall del =
      repo_call(project, {"update-ref", "-m", "berth: drop " + s.ref, "-d", s.ref, s.commit});
  auto done = BERTH_TRY(git_status_of(del));
  if (!done.ok())
    return tl::unexpected(
        git_error(del, done, fmt::format("cannot drop {}: {}", s.ref, last_line(done.err))));
  // Its note (ignored files counted by the deleter): refs/berth/trash/<slug>/<leaf>.
  if (s.ref.rfind("refs/berth/trash/", 0) == 0) {
    std::string rest = s.ref.substr(std::string_view("refs/berth/trash/").size());
    std::replace(rest.begin(), rest.end(), '/', '.');
    ::unlink(util::join(util::join(project.berth_dir(), "trash-notes"), rest).c_str());
  }
  return {};
}

namespace {

Result<TrashOutcome> drop_each(const Project& project, TrashOutcome out) {
  if (!out.dry_run)
    for (const auto& s : out.snapshots)
      BERTH_TRY(drop_snapshot(project, s));
  return out;
}

} // namespace

Result<TrashOutcome> trash_drop(const Project& project, std::string_view spec, bool dry_run) {
  TrashOutcome out{"drop", dry_run, {}, {}};
  std::string name(spec), ref;
  if (spec.find('@') != std::string_view::npos || spec.rfind("refs/", 0) == 0) {
    ref = BERTH_TRY(snapshot_ref_of(spec));
    name =
        spec.rfind("refs/", 0) == 0 ? std::string() : std::string(spec.substr(0, spec.rfind('@')));
  } else {
    BERTH_TRY(validate_name(name));
  }
  std::optional<std::string_view> filter;
  if (!name.empty()) filter = name;
  for (auto& s : BERTH_TRY(list_snapshots(project, filter)))
    if (ref.empty() ? s.name == name : s.ref == ref) out.snapshots.push_back(std::move(s));
  if (out.snapshots.empty())
    return fail(ErrorCode::not_found, fmt::format("no snapshot '{}' in the trash", spec),
                "run `berth trash list` to see the snapshots");
  return drop_each(project, std::move(out));
}

Result<TrashOutcome> trash_purge(const Project& project, int64_t older_than, bool dry_run) {
  TrashOutcome out{"purge", dry_run, {}, {}};
  int64_t now = unix_now();
  // At least DUR old, as gc's expiry counts it: `--older-than 0s` is every snapshot, even one
  // made this second.
  for (auto& s : BERTH_TRY(list_snapshots(project, std::nullopt)))
    if (now - s.time >= older_than) out.snapshots.push_back(std::move(s));
  return drop_each(project, std::move(out));
}

nlohmann::json trash_document(const TrashOutcome& outcome) {
  nlohmann::json list = nlohmann::json::array();
  for (size_t i = 0; i < outcome.snapshots.size(); ++i) {
    nlohmann::json j = outcome.snapshots[i];
    if (i < outcome.contents.size()) {
      const auto& c = outcome.contents[i];
      j["holds"] = {{"commits", c.commits}, {"files", c.files}, {"bytes", c.bytes}};
    }
    list.push_back(std::move(j));
  }
  return {{"action", outcome.action}, {"dry_run", outcome.dry_run}, {"snapshots", list}};
}

// ---- gc -----------------------------------------------------------------------------------------

namespace {

bool ok_call(const Project& project, std::vector<std::string> args) {
  auto r = git_status_of(repo_call(project, std::move(args)));
  return r && r->ok();
}

std::string out_of(const Project& project, std::vector<std::string> args) {
  auto r = git_status_of(repo_call(project, std::move(args)));
  return r && r->ok() ? chomp(r->out) : std::string();
}

// The patch-ids of `input` (a diff or `git log -p`), by `git patch-id --stable`.
std::vector<std::string> patch_ids(const Project& project, const std::string& input) {
  GitCall call = repo_call(project, {"patch-id", "--stable"});
  call.input = input;
  std::vector<std::string> ids;
  if (auto r = git_status_of(call); r && r->ok())
    for (const auto& line : split_lines(r->out))
      if (!line.empty()) ids.push_back(line.substr(0, line.find(' ')));
  return ids;
}

// Why `head` (a workspace's work, started at `base`) is already in `target`; "" when it is not.
std::string landed_reason(const Project& project, const std::string& head,
                          const std::string& target, const std::string& target_name) {
  if (head == target) return fmt::format("its HEAD is {}'s tip", target_name);
  if (ok_call(project, {"merge-base", "--is-ancestor", head, target}))
    return fmt::format("its commits are in {}", target_name);
  std::string head_tree = out_of(project, {"rev-parse", head + "^{tree}"});
  if (!head_tree.empty() && head_tree == out_of(project, {"rev-parse", target + "^{tree}"}))
    return fmt::format("{} has the same files", target_name);
  std::string mb = out_of(project, {"merge-base", head, target});
  if (mb.empty()) return {};
  // Every commit's change is in the target (cherry-picked, rebased): `git cherry` marks it '-'.
  auto cherry = git_status_of(repo_call(project, {"cherry", target, head, mb}));
  if (cherry && cherry->ok()) {
    auto lines = split_lines(cherry->out);
    std::erase(lines, std::string());
    if (!lines.empty() && std::all_of(lines.begin(), lines.end(),
                                      [](const std::string& l) { return l.rfind("- ", 0) == 0; }))
      return fmt::format("each of its {} commit(s) has its change in {} (same patch-id)",
                         lines.size(), target_name);
  }
  // Squashed: the whole change, as one diff, is the change of one commit of the target since the
  // merge base (a squash merge on a forge, fetched; or one made by hand).
  const std::vector<std::string> diff_opts{"--no-color", "--no-ext-diff", "--no-renames",
                                           "--full-index", "--binary"};
  std::vector<std::string> diff_args{"diff"};
  diff_args.insert(diff_args.end(), diff_opts.begin(), diff_opts.end());
  diff_args.insert(diff_args.end(), {mb, head});
  auto whole = git_status_of(repo_call(project, diff_args));
  if (!whole || !whole->ok() || whole->out.empty()) return {};
  auto mine = patch_ids(project, whole->out);
  if (mine.size() != 1) return {};
  std::vector<std::string> log_args{"log", "-p", "--no-merges", "-n", "2000", "--format=commit %H"};
  log_args.insert(log_args.end(), diff_opts.begin(), diff_opts.end());
  log_args.push_back(mb + ".." + target);
  auto log = git_status_of(repo_call(project, log_args));
  if (!log || !log->ok()) return {};
  for (const auto& id : patch_ids(project, log->out))
    if (id == mine.front())
      return fmt::format("its whole change is one commit of {} (squashed; same patch-id)",
                         target_name);
  return {};
}

// The branches "landed" is checked against: the target and its upstream, or with none set the
// branch of that name on each remote (a squash merge on a forge that was fetched but not pulled
// yet).
std::vector<std::pair<std::string, std::string>> landing_places(const Project& project,
                                                                const std::string& branch) {
  std::vector<std::pair<std::string, std::string>> places;
  std::string tip = out_of(project, {"rev-parse", "--verify", "-q", "refs/heads/" + branch});
  if (!tip.empty()) places.emplace_back(tip, branch);
  // (`refs/heads/B@{upstream}` is refused by git: "no such branch"; for-each-ref names it, and a
  // tag of the same name cannot get in the way.)
  std::string up =
      out_of(project, {"for-each-ref", "--format=%(upstream)", "refs/heads/" + branch});
  if (up.find('\n') != std::string::npos) up.clear();
  std::vector<std::string> remote_refs;
  if (!up.empty()) {
    remote_refs.push_back(up);
  } else {
    // No upstream set (pushed without -u, say): the branch of that name on each remote.
    auto listed = git_status_of(
        repo_call(project, {"for-each-ref", "--format=%(refname)", "refs/remotes/*/" + branch}));
    if (listed && listed->ok())
      for (const auto& ref : split_lines(listed->out))
        if (!ref.empty()) remote_refs.push_back(ref);
  }
  for (const auto& ref : remote_refs) {
    std::string ref_tip = out_of(project, {"rev-parse", "--verify", "-q", ref});
    if (!ref_tip.empty() && ref_tip != tip)
      places.emplace_back(ref_tip, ref.rfind("refs/remotes/", 0) == 0 ? ref.substr(13) : ref);
  }
  return places;
}

// Why a workspace is in use and must be left alone; "" when it is not.
std::string in_use(const WorkspaceStatus& s) {
  if (s.state == "busy" || s.state == "creating" || s.state == "discarding")
    return s.workspace.holder_pid > 0
               ? fmt::format("in use: {} (by process {})", s.state, s.workspace.holder_pid)
               : fmt::format("in use: {}", s.state);
  // berth locks its own worktrees (a reason starting "berth"); only the user's lock keeps it.
  if (!s.lock_reason.empty() && s.lock_reason.rfind(kLockReasonPrefix, 0) != 0)
    return fmt::format("locked: {}", s.lock_reason);
  // A git command at work in it (the user's, an agent's `git add` from elsewhere with -C or
  // GIT_DIR), or one that died holding the lock: the user's to look at.
  if (!s.workspace.git_dir.empty() && util::exists(util::join(s.workspace.git_dir, "index.lock")))
    return "in use: git holds its index.lock (a git command at work in it; if none is, remove "
           "the file)";
  auto pids = util::processes_working_in(s.workspace.path);
  if (!pids.empty())
    return fmt::format("process {} works inside it (its current directory)", pids.front());
  return {};
}

uint64_t tree_bytes(const std::string& path) {
  static thread_local uint64_t total;
  total = 0;
  (void)::nftw(
      path.c_str(),
      [](const char*, const struct stat* st, int type, struct FTW*) {
        if (type == FTW_F) total += static_cast<uint64_t>(st->st_blocks) * 512;
        return 0;
      },
      32, FTW_PHYS);
  return total;
}

// gc.max_disk's measure of each workspace's tree, kept between runs (<berth>/gc-sizes.json) with
// the watcher's token from just before the walk: while the watcher says nothing changed in the
// tree since, the size stands and the tree (50k files, say) is not walked again. Without the
// watcher, or when it cannot say, every run walks.
class TreeSizes {
public:
  explicit TreeSizes(const Project& project)
      : project_(project), file_(util::join(project.berth_dir(), "gc-sizes.json")),
        watch_(project.config().get_bool("watch.enabled")) {
    if (!watch_) return;
    auto text = util::read_file(file_);
    if (!text) return;
    auto j = nlohmann::json::parse(*text, nullptr, false);
    if (j.is_object()) cache_ = std::move(j);
  }
  TreeSizes(const TreeSizes&) = delete;
  TreeSizes& operator=(const TreeSizes&) = delete;
  ~TreeSizes() { save(); }

  uint64_t bytes(const std::string& path) {
    asked_ = true;
    if (!watch_) return tree_bytes(path);
    auto root = util::real_path(path);
    if (!root) return tree_bytes(path);
    std::string token;
    if (auto it = cache_.find(*root); it != cache_.end() && it->is_object())
      token = it->value("token", std::string());
    // Asked before the walk: a change made during it is in the next answer.
    auto answer = watch_hook(project_.common_dir(), *root, token);
    if (!answer) return tree_bytes(path);
    size_t nul = answer->find('\0');
    kept_.insert(*root);
    if (!token.empty() && nul + 1 == answer->size())
      return cache_[*root].value("bytes", uint64_t{0});
    uint64_t measured = tree_bytes(path);
    cache_[*root] = {{"token", answer->substr(0, nul)}, {"bytes", measured}};
    changed_ = true;
    return measured;
  }

private:
  // Only the trees measured this run are kept (the others' workspaces are gone).
  void save() {
    if (!watch_ || !asked_) return;
    for (auto it = cache_.begin(); it != cache_.end();)
      if (kept_.count(it.key())) {
        ++it;
      } else {
        it = cache_.erase(it);
        changed_ = true;
      }
    if (!changed_) return;
    auto lock = Registry(project_.berth_dir()).lock();
    if (lock) (void)util::write_file_atomic(file_, cache_.dump() + "\n");
  }

  const Project& project_;
  std::string file_;
  bool watch_;
  bool asked_ = false;
  bool changed_ = false;
  nlohmann::json cache_ = nlohmann::json::object();
  std::set<std::string> kept_;
};

std::string ago(int64_t seconds) {
  if (seconds >= 86400) return fmt::format("{}d", seconds / 86400);
  if (seconds >= 3600) return fmt::format("{}h", seconds / 3600);
  if (seconds >= 60) return fmt::format("{}m", seconds / 60);
  // (Not in seconds: the dry run's reasons are the real run's a moment later.)
  return "under a minute";
}

// A shadow index file's workspace slug: its name without the suffix shadow.cpp gives it.
std::string shadow_stem(const std::string& file) {
  for (std::string_view s : kShadowSuffixes) {
    if (file.size() > s.size() && file.compare(file.size() - s.size(), s.size(), s) == 0)
      return file.substr(0, file.size() - s.size());
  }
  return {};
}

// The watcher's state of trees that are no longer a workspace or a pool slot (moved away by hand,
// or their record gone): it stops following them. Not those in `handled` (trees this run deletes,
// or discards: their deletion ends the watcher's state of them). Each tree is known by its folder's
// identity, so a slot renamed into a workspace a moment ago is still live. Forgetting a tree that
// was live after all costs only speed: the watcher answers its next question "/" and git looks at
// every file.
void collect_watch_orphans(const Project& project, bool dry_run,
                           const std::set<std::pair<dev_t, ino_t>>& handled, GcReport& report,
                           const std::function<bool()>& out_of_time) {
  auto followed = watch_roots(project.common_dir());
  if (followed.empty()) return;
  std::set<std::pair<dev_t, ino_t>> live;
  {
    // Under the lock: a workspace being made, or a slot being taken, has its record meanwhile.
    Registry registry(project.berth_dir());
    auto lock = registry.lock();
    if (!lock) return;
    auto records = registry.load_all();
    if (!records) return;
    auto pool = pool_status(project);
    if (!pool) return;
    auto note = [&](const std::string& path) {
      struct stat st {};
      if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        live.insert({st.st_dev, st.st_ino});
    };
    for (const auto& w : *records)
      note(w.path);
    for (const auto& slot : pool->slots)
      note(slot.path);
  }
  for (const auto& root : followed) {
    if (live.count({root.dev, root.ino}) || handled.count({root.dev, root.ino})) continue;
    if (out_of_time()) break;
    GcItem item{"orphan",
                "watch",
                "",
                "",
                root.path,
                root.path.empty() ? "the watcher follows a tree moved away that is no workspace "
                                    "or pool slot"
                                  : "the watcher follows a tree that is no workspace or pool slot",
                ""};
    // Gone meanwhile (deleted, the watcher saw it): nothing left to do.
    if (!dry_run && !watch_forget(project.common_dir(), root)) continue;
    report.removed.push_back(item);
  }
}

} // namespace

// ---- orphans: private repositories of plain folders (docs/plain.md) ----
// Of every plain folder, not only the project gc runs in: a folder deleted with nothing of
// berth's left in it is reached from nowhere else. Never one with a workspace, a trash snapshot
// or an interrupted accept (a gone folder's is reported as skipped); a folder still there goes
// once unused for gc.older_than (only the snapshot cache is lost: its next `new` reads it whole).
// The automatic pass leaves them (it must stay light).
static Result<void> collect_plain_repositories(const Project& project, const GcOptions& options,
                                               int64_t older_than, int64_t now, GcReport& report) {
  if (options.automatic) return {};
  for (const auto& o :
       BERTH_TRY(plain_orphans(project.plain() ? project.common_dir() : "", older_than, now))) {
    GcItem item{"orphan", "plain_repository", "", "", o.repository, o.reason, ""};
    if (o.skipped) {
      report.skipped.push_back(item);
      continue;
    }
    if (!options.dry_run && !BERTH_TRY(remove_plain_orphan(o, older_than, now))) continue;
    report.removed.push_back(item);
  }
  return {};
}

Result<GcReport> collect_garbage(const Project& project, const GcOptions& options) {
  GcReport report;
  report.dry_run = options.dry_run;
  const auto& config = project.config();
  const int64_t now = unix_now();
  // The automatic pass stops after this long (it runs in the background, but must not keep
  // working for minutes on a huge trash).
  // (BERTH_TEST_GC_AUTO_MS, berth's own tests only: another bound, to see the pass stop.)
  int64_t budget_ms = 5000;
  if (const char* test = std::getenv("BERTH_TEST_GC_AUTO_MS"); test && *test)
    budget_ms = std::strtoll(test, nullptr, 10);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(budget_ms);
  auto out_of_time = [&] {
    return options.automatic && std::chrono::steady_clock::now() > deadline;
  };
  int64_t older_than = options.older_than.value_or(
      BERTH_TRY(parse_duration(config.get_string("gc.older_than"), "gc.older_than")));
  int64_t keep = options.keep.value_or(config.get_int("trash.keep"));
  int64_t keep_days = config.get_int("trash.keep_days");
  uint64_t max_disk = BERTH_TRY(parse_size(config.get_string("gc.max_disk"), "gc.max_disk"));
  int64_t max_workspaces = config.get_int("gc.max_workspaces");

  // --into names a branch that must be there (else nothing would ever be found landed, silently).
  if (options.into) {
    std::string branch = *options.into;
    if (branch.rfind("refs/heads/", 0) == 0) branch = branch.substr(11);
    if (branch.empty() || branch.front() == '-' ||
        out_of(project, {"rev-parse", "--verify", "-q", "refs/heads/" + branch}).empty())
      return fail(ErrorCode::invalid_revision, fmt::format("--into: no branch named '{}'", branch),
                  "name a local branch, e.g. --into main (its upstream counts too)");
  }
  // A workspace gc removes is saved to the trash, but its ignored files (build output, a
  // local .env) are not, as with `discard`: said in the reason, in the dry run too. What set-up
  // recreates (its clones, links, copies) is no loss and not counted.
  std::optional<std::vector<std::string>> setup_paths;
  auto unsaved_note = [&](const Workspace& w) -> std::string {
    bool any = has_ignored(
        w.git_dir, w.path,
        [&] {
          if (!setup_paths) setup_paths = setup_made_paths(project);
          return with_setup_made(*setup_paths, w.setup_made);
        },
        project.setup_source());
    return any ? "; its ignored files (build output and the like) are not saved" : "";
  };
  bool no_target_said = false;
  // The branches "landed" is judged against, read once per target branch (not per workspace).
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> places_of;
  auto places = [&](const std::string& branch) -> const auto& {
    auto it = places_of.find(branch);
    if (it == places_of.end())
      it = places_of.emplace(branch, landing_places(project, branch)).first;
    return it->second;
  };

  // ---- workspaces: landed, idle, orphans (directory gone), quota ----
  std::vector<GcItem> doomed; // workspaces, in the order they go
  std::vector<WorkspaceStatus> all;
  if (!options.automatic) all = BERTH_TRY(list_workspaces(project));
  std::vector<QuotaCandidate> quota;
  std::vector<size_t> quota_index;
  std::map<size_t, std::string> quota_busy; // clean ones the quota could take but for this
  TreeSizes sizes(project);
  std::set<std::string> records; // slugs with a record: their shadow files are not orphans
  for (const auto& s : all)
    records.insert(name_slug(s.workspace.name));
  for (size_t i = 0; i < all.size(); ++i) {
    const auto& s = all[i];
    const Workspace& w = s.workspace;
    if (!w.invalid.empty() || s.state == "hostile" || s.state == "unreadable") continue;
    GcItem item{"", "workspace", w.name, "", w.path, "", ""};
    if (s.state == "unlinked") {
      // Its directory is there, git's admin dir of it is not: no snapshot can be taken through
      // git, and the files may be work. The user's to look at (doctor says the same).
      item.category = "orphan";
      item.reason =
          "git no longer knows this worktree (its admin dir is gone): " + unlinked_advice(w);
      report.skipped.push_back(item);
      continue;
    }
    if (s.state == "missing" || s.state == "removed") {
      item.category = "orphan";
      item.reason = s.state == "missing"
                        ? "its directory is gone (its commits are kept in the trash)"
                        : "its directory and git's worktree are gone (its commits are kept in the "
                          "trash)";
    } else if (!s.counted) {
      continue; // git could not say what it holds: never a candidate
    } else {
      std::string tip = out_of(project, {"rev-parse", "--verify", "-q", "refs/heads/" + w.branch});
      bool has_commits = s.ahead > 0 || (!tip.empty() && tip != w.base) || s.head != w.base;
      if (has_commits) {
        std::string why;
        if (w.state == State::landed) why = "it was accepted (kept with --keep)";
        // A plain folder's workspaces land on its private repository's one branch, which
        // accept moves to the folder's new state (docs/plain.md): no checkout to ask.
        std::optional<std::string> into = options.into;
        if (!into && project.plain()) into = "folder";
        auto target = find_target(project, w, into);
        // No target to judge by (the main checkout on no branch): said once, nothing is landed.
        if (!target && !into && !no_target_said) {
          report.warnings.push_back(fmt::format(
              "landed workspaces not looked for: {}; name the branch with --into BRANCH",
              target.error().message));
          no_target_said = true;
        }
        if (why.empty() && target)
          for (const auto& [commit, label] : places(target->branch)) {
            why = landed_reason(project, s.head, commit, label);
            // Its branch, when HEAD is elsewhere, must be in too.
            if (!why.empty() && !tip.empty() && tip != s.head &&
                !ok_call(project, {"merge-base", "--is-ancestor", tip, s.head}) &&
                landed_reason(project, tip, commit, label).empty())
              why.clear();
            if (!why.empty()) break;
          }
        if (why.empty()) continue; // unlanded work stays
        item.category = "landed";
        item.reason = why;
        if (s.dirty) {
          item.reason = fmt::format("{}, but it has uncommitted work", why);
          report.skipped.push_back(item);
          continue;
        }
      } else if (!s.dirty) {
        int64_t idle = now - s.last_used;
        QuotaCandidate q{s.last_used, 0, true};
        if (idle >= older_than) {
          item.category = "idle";
          item.reason = fmt::format("no change, unused for {}", ago(idle));
        } else {
          // Not old enough for "idle": still the quota's to take, oldest first.
          std::string busy = in_use(s);
          q.removable = busy.empty();
          if (!busy.empty()) quota_busy[quota.size()] = busy;
          if (max_disk > 0) q.bytes = sizes.bytes(w.path);
          quota.push_back(q);
          quota_index.push_back(i);
          continue;
        }
      } else {
        // Dirty, no commits: never gc's. Counted against the quota, never removed by it.
        if (max_disk > 0 || max_workspaces > 0) {
          quota.push_back({s.last_used, max_disk > 0 ? sizes.bytes(w.path) : 0, false});
          quota_index.push_back(i);
        }
        continue;
      }
    }
    if (std::string busy = in_use(s);
        !busy.empty() && s.state != "missing" && s.state != "removed") {
      item.reason = busy;
      report.skipped.push_back(item);
      continue;
    }
    if (s.state != "missing" && s.state != "removed") item.reason += unsaved_note(w);
    doomed.push_back(item);
  }
  // Workspaces with commits that stay count against the quota too.
  if (max_disk > 0 || max_workspaces > 0) {
    std::set<std::string> going;
    for (const auto& d : doomed)
      going.insert(d.name);
    std::set<size_t> counted(quota_index.begin(), quota_index.end());
    for (size_t i = 0; i < all.size(); ++i)
      if (!counted.count(i) && !going.count(all[i].workspace.name) &&
          all[i].workspace.invalid.empty()) {
        quota.push_back(
            {all[i].last_used, max_disk > 0 ? sizes.bytes(all[i].workspace.path) : 0, false});
        quota_index.push_back(i);
      }
    int64_t count = static_cast<int64_t>(quota.size());
    uint64_t bytes = 0;
    for (const auto& q : quota)
      bytes += q.bytes;
    const bool over_count = max_workspaces > 0 && count > max_workspaces;
    const std::string limit =
        over_count || max_disk == 0
            ? fmt::format("gc.max_workspaces = {}", max_workspaces)
            : fmt::format("gc.max_disk = {}", config.get_string("gc.max_disk"));
    for (size_t victim : quota_victims(quota, max_workspaces, max_disk)) {
      const auto& s = all[quota_index[victim]];
      --count;
      bytes -= quota[victim].bytes;
      doomed.push_back({"quota", "workspace", s.workspace.name, "", s.workspace.path,
                        fmt::format("over {}: the oldest clean one (unused for {}){}", limit,
                                    ago(now - s.last_used), unsaved_note(s.workspace)),
                        ""});
    }
    // Still over: the clean ones it would take next but for a process using them, said.
    if ((max_workspaces > 0 && count > max_workspaces) || (max_disk > 0 && bytes > max_disk))
      for (const auto& [index, busy] : quota_busy) {
        const auto& s = all[quota_index[index]];
        report.skipped.push_back({"quota", "workspace", s.workspace.name, "", s.workspace.path,
                                  fmt::format("over {}, but {}", limit, busy), ""});
      }
  }
  // The trees already aside before this run, and the folders this run takes care of: a workspace
  // this run discards leaves its tree aside (for the background deleter) and the watcher follows
  // it until it is deleted. Neither is this run's orphan: the real run then reports exactly what
  // the dry run said.
  std::vector<std::string> asides;
  for (const auto& root : workspace_roots(project))
    for (const auto& e : util::DirEntries(util::join(root, ".trash")))
      asides.push_back(util::join(util::join(root, ".trash"), std::string(e.name)));
  std::set<std::pair<dev_t, ino_t>> handled;
  auto note_handled = [&](const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      handled.insert({st.st_dev, st.st_ino});
  };
  for (const auto& item : doomed)
    note_handled(item.path);
  for (auto& item : doomed) {
    if (options.dry_run) {
      report.removed.push_back(item);
      continue;
    }
    // Through discard: its refusals (busy, locked, a record that is not the tree's) hold, and a
    // snapshot of everything it holds goes to the trash first.
    auto gone = discard_workspace(project, item.name, Force::no, Trash::yes);
    if (!gone) {
      item.reason = fmt::format("not removed: {}", gone.error().message);
      report.skipped.push_back(item);
      continue;
    }
    if (gone->snapshot) item.snapshot = gone->snapshot->ref;
    report.warnings.insert(report.warnings.end(), gone->warnings.begin(), gone->warnings.end());
    report.removed.push_back(item);
  }

  // ---- orphans: git's admin dirs of our worktrees whose directory is gone ----
  if (options.automatic) {
    Registry registry(project.berth_dir());
    for (const auto& w : BERTH_TRY(registry.load_all()))
      records.insert(name_slug(w.name));
  }
  std::set<std::string> recorded_paths;
  {
    Registry registry(project.berth_dir());
    for (const auto& w : BERTH_TRY(registry.load_all()))
      recorded_paths.insert(w.path);
  }
  if (auto entries = worktrees(project)) {
    auto roots = workspace_roots(project);
    for (const auto& e : *entries) {
      if (!e.prunable || e.locked || recorded_paths.count(e.path) || out_of_time()) continue;
      // Only a worktree under one of berth's roots is ours; the user's own are left to them.
      // A workspace's folder is right under its root (pool slots and trees aside are the pool's
      // and the deleter's, below `.pool` and `.trash`).
      bool ours = std::any_of(roots.begin(), roots.end(), [&](const std::string& r) {
        return util::lexically_normal(util::dirname(e.path)) == util::lexically_normal(r);
      });
      std::string admin = ours ? admin_dir_naming(project, e.path) : std::string();
      if (admin.empty()) continue;
      GcItem item{"orphan", "worktree",
                  "",       "",
                  e.path,   "git still lists this berth worktree, whose directory is gone",
                  ""};
      if (!options.dry_run && !util::remove_tree(admin)) {
        item.reason = "its admin dir could not be removed";
        report.skipped.push_back(item);
        continue;
      }
      report.removed.push_back(item);
    }
  }

  // ---- orphans: discarded trees left in a .trash folder (a crash, or no deleter ran) ----
  std::optional<util::FileLock> trash_lock =
      options.dry_run ? std::nullopt : try_lock_trash(project);
  for (const auto& path : asides) {
    if (out_of_time()) break;
    std::string root = util::dirname(util::dirname(path));
    if (!is_standard_root(project, root) && admin_dir_naming(project, path).empty()) continue;
    GcItem item{"orphan", "aside",
                "",       aside_snapshot_ref(path),
                path,     "a discarded tree left to be deleted",
                ""};
    if (std::string why = aside_may_go(project, path); !why.empty()) {
      item.reason = why;
      report.skipped.push_back(item);
      continue;
    }
    // Its deletion is the end of the watcher's state of it too (not another item).
    note_handled(path);
    if (!options.dry_run) {
      if (!trash_lock) {
        item.reason = "the background deleter is at work on it";
        report.skipped.push_back(item);
        continue;
      }
      // Its snapshot checked against a full look at the tree first, as the deleter does.
      settle_aside(project, path, true);
      if (std::string why = aside_may_go(project, path);
          !why.empty() || !remove_aside(project, path)) {
        item.reason = why.empty() ? "it could not be deleted" : why;
        report.skipped.push_back(item);
        continue;
      }
    }
    report.removed.push_back(item);
  }

  // ---- orphans: shadow indexes of workspaces that are gone ----
  std::string shadows = util::join(project.berth_dir(), "shadow");
  std::map<std::string, std::vector<std::string>> orphan_shadows;
  // (A warm pool slot's shadow is kept for the workspace that will take it: not an orphan.)
  std::set<std::string> slots;
  if (auto pool = pool_status(project))
    for (const auto& slot : pool->slots)
      slots.insert(name_slug(slot.id));
  for (const auto& e : util::DirEntries(shadows)) {
    std::string file(e.name), stem = shadow_stem(file);
    if (!stem.empty() && !records.count(stem) && !slots.count(stem))
      orphan_shadows[stem].push_back(file);
  }
  for (auto& [stem, files] : orphan_shadows) {
    if (out_of_time()) break;
    std::string base = util::join(shadows, stem);
    GcItem item{"orphan", "shadow",    "",
                "",       base + ".*", "the shadow index of a workspace that is gone",
                ""};
    if (!options.dry_run) {
      // Held: a workspace of that name is being made right now.
      auto guard = util::FileLock::try_acquire(base + ".guard");
      if (!guard || !*guard) {
        item.reason = "in use: a workspace of that name is being made";
        report.skipped.push_back(item);
        continue;
      }
      // Checked again under its lock: a record made meanwhile keeps it.
      Registry registry(project.berth_dir());
      auto again = registry.load(stem);
      if (!again || *again) continue;
      for (const auto& f : files)
        if (f != stem + ".guard") ::unlink(util::join(shadows, f).c_str());
      ::unlink((base + ".guard").c_str());
    }
    report.removed.push_back(item);
  }

  // The automatic pass out of time: the kinds left are for the next pass (not even listed).
  if (out_of_time()) return report;
  // ---- orphans: pool slots of a base or a repository that is gone, or no record claims ----
  BERTH_TRY(collect_pool_orphans(project, options.dry_run, report, out_of_time));

  if (out_of_time()) return report;
  // ---- orphans: the watcher's state of trees that are gone ----
  collect_watch_orphans(project, options.dry_run, handled, report, out_of_time);

  if (out_of_time()) return report;
  // ---- orphans: fork records whose attempts were all discarded one by one (not picked) ----
  for (const auto& fork : BERTH_TRY(load_forks(project))) {
    if (out_of_time()) break;
    if (BERTH_TRY(fork_has_attempts(project, fork.task))) continue;
    GcItem item{"orphan",
                "fork",
                fork.task,
                "",
                fork_dir(project, fork.task),
                "a fork's record and logs whose attempts are all gone",
                ""};
    if (!options.dry_run) {
      // Checked again under the lock: a fork of that name made meanwhile keeps it.
      auto lock = BERTH_TRY(Registry(project.berth_dir()).lock());
      if (BERTH_TRY(fork_has_attempts(project, fork.task))) continue;
      BERTH_TRY(remove_fork(project, fork.task));
    }
    report.removed.push_back(item);
  }

  if (out_of_time()) return report;
  // ---- expired trash ----
  auto snapshots = BERTH_TRY(list_snapshots(project, std::nullopt));
  std::erase_if(snapshots,
                [](const Snapshot& s) { return s.ref.rfind("refs/berth/trash/", 0) != 0; });
  std::vector<TrashEntry> entries;
  entries.reserve(snapshots.size());
  for (const auto& s : snapshots)
    entries.push_back({s.name, s.time});
  for (size_t i : expired_snapshots(entries, keep, keep_days, now)) {
    if (out_of_time()) break;
    const auto& s = snapshots[i];
    GcItem item{"expired",
                "snapshot",
                s.name,
                s.ref,
                "",
                fmt::format("discarded {} ago (trash.keep_days = {}), beyond the newest {} of "
                            "its name",
                            ago(now - s.time), keep_days, keep),
                ""};
    if (!options.dry_run)
      if (auto dropped = drop_snapshot(project, s); !dropped) {
        item.reason = dropped.error().message;
        report.skipped.push_back(item);
        continue;
      }
    report.removed.push_back(item);
  }
  BERTH_TRY(collect_plain_repositories(project, options, older_than, now, report));
  return report;
}

void start_light_gc_after_discard(const Project& project, const std::vector<std::string>& names) {
  const auto& config = project.config();
  if (names.empty() || project.helper().empty() || !config.get_bool("gc.auto")) return;
  std::vector<std::string> args{"for-each-ref", "--format=%(refname)"};
  for (const auto& name : names)
    args.push_back(trash_prefix(name));
  auto listed = git_status_of(repo_call(project, args));
  if (!listed || !listed->ok()) return;
  // Each ref: refs/berth/trash/<slug>/<unix time>[-N]; grouped by its folder.
  std::vector<TrashEntry> entries;
  for (const auto& ref : split_lines(listed->out)) {
    size_t slash = ref.rfind('/');
    if (ref.empty() || slash == std::string::npos) continue;
    entries.push_back({ref.substr(0, slash), std::strtoll(ref.c_str() + slash + 1, nullptr, 10)});
  }
  if (expired_snapshots(entries, config.get_int("trash.keep"), config.get_int("trash.keep_days"),
                        unix_now())
          .empty())
    return;
  (void)util::spawn_detached(
      {project.helper(), "-C", project.common_dir(), "--quiet", "gc", "--auto"});
}

void to_json(nlohmann::json& j, const GcReport& report) {
  auto items = [](const std::vector<GcItem>& list) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& i : list) {
      nlohmann::json item = {{"category", i.category}, {"kind", i.kind}, {"reason", i.reason}};
      auto or_null = [](const std::string& v) {
        return v.empty() ? nlohmann::json(nullptr) : nlohmann::json(v);
      };
      item["name"] = or_null(i.name);
      item["ref"] = or_null(i.ref);
      item["path"] = or_null(i.path);
      item["snapshot"] = or_null(i.snapshot);
      out.push_back(std::move(item));
    }
    return out;
  };
  j = {{"dry_run", report.dry_run},
       {"removed", items(report.removed)},
       {"skipped", items(report.skipped)}};
}

} // namespace berth
