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

// What one changed file adds to a pair's diff: its line counts and its patch section. They depend
// only on what changed (its raw record: both modes, both objects, the status with its score, both
// paths) and on git's setup, so a diff between other trees in which the file changed the same way
// has the same ones: an attempt changed since the last compare is diffed again only where it
// changed since (docs/compare.md, "Cost").
struct Section {
  NumStat numstat;
  std::string patch;
};
using Sections = std::map<std::string, Section>;

std::string section_key(const RawChange& c) {
  return fmt::format("{} {} {} {} {}", c.old_mode, c.new_mode, c.old_oid, c.new_oid, c.code) +
         '\0' + c.old_path + '\0' + c.path;
}

// A path as a patch's "diff --git" line names it: in double quotes, C-style, when it holds a
// control character, a double quote, a backslash or (core.quotePath, on by default) a byte above
// 0x7f; as it is otherwise. (Under core.quotePath=false the headers differ: no section matches its
// record, so none is taken.)
std::string patch_name(std::string_view prefix, std::string_view path) {
  std::string name = std::string(prefix) + std::string(path);
  if (std::none_of(name.begin(), name.end(), [](char ch) {
        auto c = static_cast<unsigned char>(ch);
        return c < 0x20 || c == '"' || c == '\\' || c >= 0x7f;
      }))
    return name;
  std::string quoted = "\"";
  for (char ch : name) {
    auto c = static_cast<unsigned char>(ch);
    switch (c) {
    case '\a':
      quoted += "\\a";
      break;
    case '\b':
      quoted += "\\b";
      break;
    case '\t':
      quoted += "\\t";
      break;
    case '\n':
      quoted += "\\n";
      break;
    case '\v':
      quoted += "\\v";
      break;
    case '\f':
      quoted += "\\f";
      break;
    case '\r':
      quoted += "\\r";
      break;
    case '"':
      quoted += "\\\"";
      break;
    case '\\':
      quoted += "\\\\";
      break;
    default:
      if (c < 0x20 || c >= 0x7f)
        quoted += fmt::format("\\{:03o}", c);
      else
        quoted += ch;
    }
  }
  return quoted + '"';
}

// The sections of `diff` into `into`, each checked against its record first: one section per
// record, two for a type change (the old file's removal, the new one's creation; any other count
// and none is taken), each headed by the record's paths as git writes them and its index line
// naming the record's objects.
void take_sections(const TreeDiff& diff, Sections& into) {
  auto sections = patch_sections(diff.patch);
  size_t wanted = diff.raw.size();
  for (const auto& c : diff.raw)
    wanted += c.status == 'T' ? 1 : 0;
  if (sections.size() != wanted || diff.numstat.size() != diff.raw.size()) return;
  std::string none(diff.raw.empty() ? 0 : diff.raw.front().old_oid.size(), '0');
  auto is = [](std::string_view text, const std::string& header, const std::string& from,
               const std::string& to) {
    return text.substr(0, header.size()) == header &&
           (from == to ||
            text.find(fmt::format("\nindex {}..{}", from, to)) != std::string_view::npos);
  };
  size_t next = 0;
  for (size_t i = 0; i < diff.raw.size(); ++i) {
    const RawChange& c = diff.raw[i];
    const NumStat& n = diff.numstat[i];
    std::string header = fmt::format("diff --git {} {}\n",
                                     patch_name("a/", c.old_path.empty() ? c.path : c.old_path),
                                     patch_name("b/", c.path));
    std::string_view first = sections[next++];
    bool ok = n.path == c.path && n.old_path == c.old_path;
    std::string text;
    if (c.status == 'T') {
      std::string_view second = sections[next++];
      ok = ok && is(first, header, c.old_oid, none) && is(second, header, none, c.new_oid);
      text = std::string(first) + std::string(second);
    } else {
      ok = ok && is(first, header, c.old_oid, c.new_oid);
      text = std::string(first);
    }
    if (ok) into.emplace(section_key(c), Section{n, std::move(text)});
  }
}

// The diff of each pair ("TREE TREE" in `headers`, the first trees those of the commits `froms`)
// with its changed files' sections taken from the kept diffs from the same commits where the file
// changed the same way, so that only the files changed since are diffed: one raw diff-tree for all
// pairs (which files changed, no content read), one diff-tree of the new files' paths for the pairs
// that have any, and a whole diff for a pair whose files that one did not pair up as the raw diff
// did (a rename found anew). `bodies` gets each pair's body, for the cache. Nullopt for a pair
// whose output did not read as it must.
Result<std::vector<std::optional<TreeDiff>>>
diff_reusing_sections(const Project& project, const DiffCache& cache,
                      const std::vector<std::string>& froms,
                      const std::vector<std::string>& headers, std::vector<std::string>& bodies) {
  const size_t n = headers.size();
  std::vector<std::optional<TreeDiff>> made(n);
  auto input_of = [&](const std::vector<size_t>& pairs) {
    std::string input;
    for (size_t i : pairs)
      input += headers[i] + "\n";
    return input;
  };
  // Whole diffs of `pairs`, limited to `pathspec` when it is not empty.
  auto diff_pairs = [&](const std::vector<size_t>& pairs, const std::vector<std::string>& pathspec)
      -> Result<std::vector<std::optional<TreeDiff>>> {
    GitCall batch = repo_call(project, kTreeDiffArgs);
    if (!pathspec.empty()) {
      batch.args.emplace_back("--");
      batch.args.insert(batch.args.end(), pathspec.begin(), pathspec.end());
    }
    batch.input = input_of(pairs);
    auto out = BERTH_TRY(git(batch)).out;
    std::vector<std::string> wanted;
    wanted.reserve(pairs.size());
    for (size_t i : pairs)
      wanted.push_back(headers[i]);
    std::vector<std::optional<TreeDiff>> got(pairs.size());
    if (auto cut = split_tree_diffs(out, wanted))
      for (size_t k = 0; k < pairs.size(); ++k)
        got[k] = parse_tree_diff((*cut)[k]);
    return got;
  };
  std::vector<size_t> all(n);
  for (size_t i = 0; i < n; ++i)
    all[i] = i;
  auto whole = [&](const std::vector<size_t>& pairs) -> Result<void> {
    if (pairs.empty()) return {};
    auto got = BERTH_TRY(diff_pairs(pairs, {}));
    for (size_t k = 0; k < pairs.size(); ++k)
      if (got[k]) {
        bodies[pairs[k]] = tree_diff_body(*got[k]);
        made[pairs[k]] = std::move(got[k]);
      }
    return {};
  };

  // Which files changed in each pair.
  GitCall raw_call = repo_call(project, {"diff-tree", "--stdin", "-r", "-z", "-M", "--raw"});
  raw_call.input = input_of(all);
  auto raws = split_raw_diffs(BERTH_TRY(git(raw_call)).out, headers);
  if (!raws) {
    BERTH_TRY(whole(all));
    return made;
  }
  // The sections the kept diffs from the same commits have (a fork's attempts share theirs).
  Sections known;
  for (const auto& from : froms)
    for (const auto& body : cache.recent_from(from, std::max<size_t>(16, 2 * n)))
      if (auto kept = parse_tree_diff(body)) take_sections(*kept, known);
  // The files no kept diff has, diffed for the pairs that changed them (their paths: a few).
  constexpr size_t kMaxNewPaths = 256;
  // (A pair none of whose files is known is diffed whole.)
  std::set<std::string> fresh;
  std::vector<size_t> partial, redo;
  for (size_t i = 0; i < n; ++i) {
    std::vector<const RawChange*> unknown;
    for (const auto& c : (*raws)[i])
      if (!known.contains(section_key(c))) unknown.push_back(&c);
    if (unknown.empty()) continue;
    if (unknown.size() == (*raws)[i].size()) {
      redo.push_back(i);
      continue;
    }
    partial.push_back(i);
    for (const RawChange* c : unknown) {
      fresh.insert(c->path);
      if (!c->old_path.empty()) fresh.insert(c->old_path);
    }
  }
  if (fresh.size() > kMaxNewPaths) {
    redo.insert(redo.end(), partial.begin(), partial.end());
  } else if (!partial.empty()) {
    std::vector<std::string> pathspec;
    pathspec.reserve(fresh.size());
    for (const auto& p : fresh)
      pathspec.push_back(":(literal)" + p);
    auto got = BERTH_TRY(diff_pairs(partial, pathspec));
    for (size_t k = 0; k < partial.size(); ++k) {
      // Its records must be the raw diff's of those paths (limited to them, git may pair a
      // rename another way); else the pair is diffed whole.
      std::vector<RawChange> expected;
      for (const auto& c : (*raws)[partial[k]])
        if (fresh.contains(c.path) || (!c.old_path.empty() && fresh.contains(c.old_path)))
          expected.push_back(c);
      if (got[k] && got[k]->raw == expected)
        take_sections(*got[k], known);
      else
        redo.push_back(partial[k]);
    }
  }
  // Each pair put together from its files' sections, in the raw diff's order.
  for (size_t i = 0; i < n; ++i) {
    if (std::find(redo.begin(), redo.end(), i) != redo.end()) continue;
    TreeDiff d;
    bool whole_known = true;
    for (const auto& c : (*raws)[i]) {
      auto it = known.find(section_key(c));
      if (it == known.end()) {
        whole_known = false;
        break;
      }
      d.raw.push_back(c);
      d.numstat.push_back(it->second.numstat);
      d.patch += it->second.patch;
    }
    if (!whole_known) {
      redo.push_back(i);
      continue;
    }
    bodies[i] = tree_diff_body(d);
    made[i] = std::move(d);
  }
  std::sort(redo.begin(), redo.end());
  BERTH_TRY(whole(redo));
  return made;
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
    // and a tree): one rev-parse for all.
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
    std::vector<std::string> headers;
    headers.reserve(missing.size());
    for (const auto& [from, to] : missing)
      headers.push_back(tree_of[from] + " " + to);
    std::vector<std::string> bodies(missing.size());
    auto made = BERTH_TRY(diff_reusing_sections(project, cache, froms, headers, bodies));
    // Kept for the next compare (each write waits for its disk: side by side).
    std::atomic<bool> kept{false};
    util::parallel_for(missing.size(), [&](size_t i) {
      if (made[i] && cache.keep(missing[i].first, missing[i].second, bodies[i])) kept = true;
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
