// Review: what a workspace changed (diff) and which workspaces touch the same files (overlaps);
// recording it is commit.cpp's. Everything is computed from git objects built off a scratch index,
// so a review never writes to the workspace and never runs anything its content controls (no
// textconv, no external diff, no fsmonitor).
#include "core/review.hpp"

#include "berth/berth.hpp"
#include "core/admin_files.hpp"
#include "core/capture.hpp"
#include "core/crash_checks.hpp"
#include "core/diff_cache.hpp"
#include "core/lease.hpp"
#include "core/nested.hpp"
#include "core/porcelain.hpp"
#include "core/tree_claim.hpp"
#include "core/workspace_git.hpp"
#include "util/parallel.hpp"
#include "util/paths.hpp"

#include <algorithm>
#include <atomic>
#include <fmt/format.h>
#include <map>
#include <set>

namespace berth {

namespace {

// The file list from diff-tree's raw and numstat records of the same two trees.
std::vector<FileChange> file_changes(const std::vector<RawChange>& raw,
                                     const std::vector<NumStat>& numstat) {
  std::map<std::string, NumStat> counts;
  for (const auto& n : numstat)
    counts[n.path] = n;
  std::vector<FileChange> files;
  for (const auto& c : raw) {
    FileChange f;
    f.path = c.path;
    f.old_path = c.old_path;
    f.status = c.status;
    f.old_mode = c.old_mode == "000000" ? "" : c.old_mode;
    f.new_mode = c.new_mode == "000000" ? "" : c.new_mode;
    if (auto it = counts.find(c.path); it != counts.end()) {
      f.binary = it->second.additions < 0;
      f.additions = std::max<int64_t>(0, it->second.additions);
      f.deletions = std::max<int64_t>(0, it->second.deletions);
    }
    files.push_back(std::move(f));
  }
  return files;
}

// The patch `berth diff` shows: whole object ids and binary hunks, so that `git apply` takes it.
std::vector<std::string> patch_args(const std::string& from, const std::string& to) {
  return {"diff-tree", "-p", "--binary", "--full-index", "-M", "--no-color", from, to};
}

} // namespace

Result<std::vector<FileChange>> changes_between(const Project& project, const std::string& from,
                                                const std::string& to) {
  auto raw = BERTH_TRY(git(repo_call(project, {"diff-tree", "-r", "-z", "-M", "--raw", from, to})));
  auto num =
      BERTH_TRY(git(repo_call(project, {"diff-tree", "-r", "-z", "-M", "--numstat", from, to})));
  return file_changes(parse_diff_raw(raw.out), parse_numstat(num.out));
}

Result<std::string> review_base(const Project& project, const Workspace& w,
                                const std::string& head) {
  // After `sync`, the target's commits are part of the workspace's history; the workspace's own
  // change is then measured from where it last met the target.
  if (w.synced.empty()) return w.base;
  auto mb = BERTH_TRY(git_status_of(repo_call(project, {"merge-base", head, w.synced})));
  return mb.ok() ? chomp(mb.out) : w.base;
}

Result<Workspace> usable_workspace(const Project& project, std::string_view name) {
  Workspace w = BERTH_TRY(find_workspace(project, name));
  // Its directory is there but not the admin dir its record names: never "missing".
  BERTH_TRY(refuse_unlinked(w));
  if (!util::is_directory(w.path) || !util::is_directory(w.git_dir))
    return fail(
        ErrorCode::not_found,
        fmt::format("the directory of workspace '{}' is missing: {}", w.name, w.path),
        fmt::format("`berth discard {}` cleans up its record (its commits are kept in the trash)",
                    w.name));
  BERTH_TRY(refuse_hostile_admin(w));
  return w;
}

namespace {

// `path` is one of `wanted` or a file under one of them (a folder given as `src` or `src/`).
bool path_wanted(const std::string& path, const std::vector<std::string>& wanted) {
  if (path.empty()) return false;
  for (auto p : wanted) {
    while (p.size() > 1 && p.back() == '/')
      p.pop_back();
    if (p == "." || p.empty() || path == p ||
        (path.size() > p.size() && path.compare(0, p.size(), p) == 0 && path[p.size()] == '/'))
      return true;
  }
  return false;
}

} // namespace

Result<Diff> diff_ends(const Project& project, std::string_view name, const DiffOptions& options) {
  Workspace w = BERTH_TRY(usable_workspace(project, name));
  Captured now = BERTH_TRY(capture(project, w));
  return diff_ends_of(project, w, now, options);
}

Result<Diff> diff_ends_of(const Project& project, const Workspace& w, const Captured& now,
                          const DiffOptions& options) {
  BERTH_TRY(refuse_unrecordable(w, now));
  Diff d;
  d.name = w.name;
  d.to_tree = now.work_tree;
  d.head = now.head;
  d.uncommitted = !now.clean();
  // Work inside submodules and nested repositories: their files are not in the tree.
  d.nested = nested_work(now.nested);
  if (options.against) {
    const std::string& rev = *options.against;
    if (rev.empty() || rev.front() == '-')
      return fail(ErrorCode::invalid_revision, fmt::format("invalid revision '{}'", rev));
    auto resolved = BERTH_TRY(git_status_of(
        GitCall{{"rev-parse", "--verify", "-q", "--end-of-options", rev + "^{commit}"},
                project.cwd(),
                {},
                {},
                util::Stream::pipe}));
    if (!resolved.ok())
      return fail(ErrorCode::invalid_revision, fmt::format("unknown revision '{}'", rev),
                  "name an existing commit, branch or tag");
    auto mb =
        BERTH_TRY(git_status_of(repo_call(project, {"merge-base", chomp(resolved.out), now.head})));
    d.from = mb.ok() ? chomp(mb.out) : chomp(resolved.out);
  } else {
    d.from = BERTH_TRY(review_base(project, w, now.head));
  }
  d.format = options.format;
  return d;
}

Result<Diff> diff_workspace(const Project& project, std::string_view name,
                            const DiffOptions& options) {
  Diff d = BERTH_TRY(diff_ends(project, name, options));
  d.files = BERTH_TRY(changes_between(project, d.from, d.to_tree));
  std::vector<std::string> args = patch_args(d.from, d.to_tree);
  if (!options.paths.empty()) {
    std::erase_if(d.files, [&](const FileChange& f) {
      return !path_wanted(f.path, options.paths) && !path_wanted(f.old_path, options.paths);
    });
    // The patch of exactly the files kept, both sides of a rename named so that git still
    // pairs them; literal: a file called `*` is that file.
    args.emplace_back("--");
    for (const auto& f : d.files) {
      args.push_back(":(literal)" + f.path);
      if (!f.old_path.empty()) args.push_back(":(literal)" + f.old_path);
    }
  }
  if (options.format == DiffFormat::patch && !d.files.empty())
    d.patch = BERTH_TRY(git(repo_call(project, std::move(args)))).out;
  return d;
}

namespace {

// One pass of diff-tree gives all three outputs of a pair: the file list (raw), the line counts
// (numstat) and the patch `berth diff` shows (whole object ids and binary hunks).
const std::vector<std::string> kTreeDiffArgs{"diff-tree", "--stdin",      "-r",        "-z",
                                             "-M",        "--raw",        "--numstat", "-p",
                                             "--binary",  "--full-index", "--no-color"};

// What one pair's diff says, in a Diff.
void apply_tree_diff(Diff& d, const TreeDiff& t) {
  d.files = file_changes(t.raw, t.numstat);
  if (d.format == DiffFormat::patch && !d.files.empty()) d.patch = t.patch;
}

} // namespace

Result<void> fill_diffs(const Project& project, const std::vector<Diff*>& diffs) {
  if (diffs.empty()) return {};
  // Each pair (from, to) once, and those diffed before from the cache: objects never change, so
  // a kept diff is this one (docs/compare.md, "Cost").
  using Pair = std::pair<std::string, std::string>;
  DiffCache cache(project);
  std::map<Pair, TreeDiff> known;
  std::vector<Pair> missing;
  for (const Diff* d : diffs) {
    Pair pair{d->from, d->to_tree};
    if (known.count(pair) || std::find(missing.begin(), missing.end(), pair) != missing.end())
      continue;
    std::optional<TreeDiff> kept;
    if (auto body = cache.find(pair.first, pair.second)) kept = parse_tree_diff(*body);
    if (kept)
      known.emplace(std::move(pair), std::move(*kept));
    else
      missing.push_back(std::move(pair));
  }
  if (!missing.empty()) {
    // The trees the missing diffs start from (diff-tree --stdin compares two trees, not a commit
    // and a tree): one rev-parse for all; then one diff-tree for all of them.
    std::vector<std::string> froms;
    for (const auto& [from, to] : missing)
      if (std::find(froms.begin(), froms.end(), from) == froms.end()) froms.push_back(from);
    std::vector<std::string> args{"rev-parse"};
    for (const auto& from : froms)
      args.push_back(from + "^{tree}");
    auto parsed = BERTH_TRY(git(repo_call(project, args)));
    std::map<std::string, std::string> tree_of;
    size_t at = 0;
    for (const auto& from : froms) {
      size_t nl = parsed.out.find('\n', at);
      if (nl == std::string::npos) return fail(ErrorCode::git_failed, "rev-parse: short output");
      tree_of[from] = parsed.out.substr(at, nl - at);
      at = nl + 1;
    }
    GitCall batch = repo_call(project, kTreeDiffArgs);
    std::vector<std::string> headers;
    for (const auto& [from, to] : missing) {
      headers.push_back(tree_of[from] + " " + to);
      batch.input += headers.back() + "\n";
    }
    auto out = BERTH_TRY(git(batch)).out;
    auto bodies = split_tree_diffs(out, headers);
    std::vector<std::optional<TreeDiff>> made(missing.size());
    if (bodies)
      for (size_t i = 0; i < missing.size(); ++i)
        made[i] = parse_tree_diff((*bodies)[i]);
    // Kept for the next compare (each write waits for its disk: side by side).
    std::atomic<bool> kept{false};
    util::parallel_for(missing.size(), [&](size_t i) {
      if (made[i] && cache.keep(missing[i].first, missing[i].second, (*bodies)[i])) kept = true;
    });
    for (size_t i = 0; i < missing.size(); ++i) {
      if (made[i]) {
        known.emplace(missing[i], std::move(*made[i]));
        continue;
      }
      // An output that does not read as it must (never seen): this diff on its own.
      TreeDiff alone;
      const auto& [from, to] = missing[i];
      alone.raw = parse_diff_raw(
          BERTH_TRY(git(repo_call(project, {"diff-tree", "-r", "-z", "-M", "--raw", from, to})))
              .out);
      alone.numstat = parse_numstat(
          BERTH_TRY(git(repo_call(project, {"diff-tree", "-r", "-z", "-M", "--numstat", from, to})))
              .out);
      if (!alone.raw.empty())
        alone.patch = BERTH_TRY(git(repo_call(project, patch_args(from, to)))).out;
      known.emplace(missing[i], std::move(alone));
    }
    if (kept) cache.prune();
  }
  for (Diff* d : diffs)
    apply_tree_diff(*d, known.at({d->from, d->to_tree}));
  return {};
}

Result<std::vector<Overlap>> find_overlaps(const Project& project) {
  auto all = BERTH_TRY(list_workspaces(project));
  struct Live {
    Workspace w;
    std::string commit; // a commit holding its current state
    std::set<std::string> paths;
    bool ok = false;
  };
  std::vector<Live> live;
  for (const auto& s : all)
    if (s.state != "missing" && s.workspace.state != State::landed)
      live.push_back({s.workspace, {}, {}, false});

  // Each capture costs a scan of the work tree: run them side by side, bounded by the cores.
  util::parallel_for(live.size(), [&](size_t i) {
    auto now = capture(project, live[i].w);
    if (!now) return;
    auto from = review_base(project, live[i].w, now->head);
    if (!from) return;
    auto files = changes_between(project, *from, now->work_tree);
    if (!files) return;
    for (const auto& f : *files) {
      live[i].paths.insert(f.path);
      if (!f.old_path.empty()) live[i].paths.insert(f.old_path);
    }
    auto commit = now->clean()
                      ? tl::expected<std::string, Error>(now->head)
                      : make_commit(project, now->work_tree, {now->head}, "berth overlap probe");
    if (!commit) return;
    live[i].commit = *commit;
    live[i].ok = true;
  });

  // Pairs that share paths get a real merge preview; at most this many, to stay fast.
  constexpr size_t kMaxPreviews = 64;
  size_t previews = 0;
  std::vector<Overlap> result;
  for (size_t i = 0; i < live.size(); ++i)
    for (size_t j = i + 1; j < live.size(); ++j) {
      if (!live[i].ok || !live[j].ok) continue;
      Overlap o;
      o.a = live[i].w.name;
      o.b = live[j].w.name;
      std::set_intersection(live[i].paths.begin(), live[i].paths.end(), live[j].paths.begin(),
                            live[j].paths.end(), std::back_inserter(o.paths));
      if (o.paths.empty()) continue;
      if (previews++ < kMaxPreviews) {
        auto merged =
            git_status_of(repo_call(project, {"merge-tree", "--write-tree", "--name-only", "-z",
                                              "--no-messages", live[i].commit, live[j].commit}));
        if (merged && merged->exit_code == 1) {
          o.conflicts = true;
          o.conflict_paths = parse_merge_tree(merged->out).conflicts;
        }
      }
      result.push_back(std::move(o));
    }
  return result;
}

Result<std::map<std::string, std::string>> diff_colors(const Project& project) {
  std::map<std::string, std::string> colors;
  // git's own defaults; `git config --get-color` turns a setting (`bold red`, `#ff0000 ul`) into
  // its escape sequence, so every syntax git accepts works.
  for (const auto& [slot, fallback] : {std::pair<const char*, const char*>{"meta", "bold"},
                                       {"frag", "cyan"},
                                       {"old", "red"},
                                       {"new", "green"},
                                       {"context", ""}}) {
    auto r = BERTH_TRY(git(repo_call(
        project, {"config", "--get-color", fmt::format("color.diff.{}", slot), fallback})));
    colors[slot] = r.out;
  }
  return colors;
}

Result<DiffPresentation> diff_presentation(const Project& project, bool stdout_is_tty, bool color,
                                           bool pager) {
  DiffPresentation shown;
  // git's own answers, so that berth's diff looks as `git diff` does for this user and repository.
  if (color) {
    auto r = BERTH_TRY(git(repo_call(
        project, {"config", "--get-colorbool", "color.diff", stdout_is_tty ? "true" : "false"})));
    shown.color = chomp(r.out) == "true";
  }
  if (pager) {
    // pager.diff: false (or 0, no, off) pages nothing, true the usual pager, anything else is the
    // pager to use, as for `git diff`.
    auto own = BERTH_TRY(git_status_of(repo_call(project, {"config", "--get", "pager.diff"})));
    if (own.ok()) {
      auto as_bool = BERTH_TRY(
          git_status_of(repo_call(project, {"config", "--type=bool", "--get", "pager.diff"})));
      if (!as_bool.ok()) {
        shown.pager = chomp(own.out);
        return shown;
      }
      if (chomp(as_bool.out) == "false") return shown;
    }
    auto r = BERTH_TRY(git(repo_call(project, {"var", "GIT_PAGER"})));
    shown.pager = chomp(r.out);
    if (shown.pager == "cat") shown.pager.clear();
  }
  return shown;
}

} // namespace berth
