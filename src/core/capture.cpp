#include "core/capture.hpp"

#include "core/behind.hpp"
#include "core/nested.hpp"
#include "core/porcelain.hpp"
#include "core/shadow.hpp"
#include "core/tree_edit.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/parallel.hpp"
#include "util/paths.hpp"

#include <algorithm>
#include <atomic>
#include <fcntl.h>
#include <fmt/format.h>
#include <future>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace berth {
namespace {

struct ScratchFile {
  std::string path;
  ~ScratchFile() {
    if (!path.empty()) ::unlink(path.c_str());
  }
};

} // namespace

namespace {

constexpr size_t kMaxEditedPaths = 2000;

// Takes out of `paths` those that are a FIFO, a socket or a device in the work tree (git refuses
// to stage them, and reading one could block), into `dropped`. An lstat each: only changed paths.
void drop_unrecordable(const Workspace& w, std::vector<std::string>& paths,
                       std::vector<std::string>& dropped) {
  std::erase_if(paths, [&](const std::string& p) {
    struct stat st;
    if (::lstat(util::join(w.path, p).c_str(), &st) != 0) return false; // deleted: staged so
    if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode) || S_ISDIR(st.st_mode)) return false;
    dropped.push_back(p);
    return true;
  });
}

GitCall with_index(const Workspace& w, std::vector<std::string> args, const std::string& index) {
  GitCall call = workspace_call(w, std::move(args));
  call.env["GIT_INDEX_FILE"] = index;
  return call;
}

// Stage `paths` from the work tree in `index` (--replace: a file that became a folder, or the
// reverse, swaps places). Whether git did.
bool update_paths(const Workspace& w, const std::vector<std::string>& paths,
                  const std::string& index) {
  GitCall update =
      with_index(w, {"update-index", "--add", "--remove", "--replace", "-z", "--stdin"}, index);
  for (const auto& p : paths)
    update.input += p + '\0';
  auto updated = git_status_of(update);
  return updated && updated->ok();
}

std::string parent_folder(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

// How read_trees names the folder `dir` of the tree of `tree_ish`.
std::string folder_of(const std::string& tree_ish, const std::string& dir) {
  return dir.empty() ? tree_ish + "^{tree}" : tree_ish + ":" + dir;
}

// The entries `paths` have in the tree `tree_ish` (files, links, gitlinks; not folders), from
// the folders `listing` holds. Nullopt when a folder on their way was not read.
std::optional<std::map<std::string, TreeEntry>> entries_of(const TreeListing& listing,
                                                           const std::string& tree_ish,
                                                           const std::vector<std::string>& paths) {
  std::map<std::string, TreeEntry> found;
  for (const auto& p : paths) {
    std::string dir = parent_folder(p);
    auto it = listing.find(folder_of(tree_ish, dir));
    if (it == listing.end()) return std::nullopt;
    if (!it->second) continue;
    std::string name = dir.empty() ? p : p.substr(dir.size() + 1);
    for (const auto& e : it->second->entries)
      if (e.name == name && !e.is_tree()) found[p] = e;
  }
  return found;
}

// The new entries of `paths` as git would stage them (filters, modes, symlinks, gitlinks), made
// in a tiny index that holds only those paths: seeded with `seeds`, their entries in the tree
// they are staged onto (so that core.fileMode=false keeps a mode, as with the full index), then
// updated from the work tree; one update-index for both when the seeds fit on its command line.
// `added` gets the regular files that had no entry there (what the trash keeps as they are).
// Nullopt when git refuses.
std::optional<PathChanges> stage_paths(const Workspace& w, const std::vector<std::string>& paths,
                                       const std::map<std::string, TreeEntry>& seeds,
                                       const std::string& tiny, size_t oid_bytes,
                                       std::vector<TreeEntry>& added) {
  GitCall update = with_index(w, {"update-index", "--add", "--remove", "--replace"}, tiny);
  constexpr size_t kMaxSeedArgs = size_t{64} * 1024;
  size_t seed_bytes = 0;
  for (const auto& [path, e] : seeds)
    seed_bytes += path.size() + e.oid.size() + 32;
  if (seed_bytes <= kMaxSeedArgs) {
    for (const auto& [path, e] : seeds)
      update.args.insert(update.args.end(),
                         {"--cacheinfo", fmt::format("{},{},{}", e.mode, e.oid, path)});
  } else {
    GitCall seed = with_index(w, {"update-index", "-z", "--index-info"}, tiny);
    for (const auto& [path, e] : seeds)
      seed.input += fmt::format("{} {}\t{}", e.mode, e.oid, path) + '\0';
    auto seeded = git_status_of(seed);
    if (!seeded || !seeded->ok()) return std::nullopt;
  }
  update.args.insert(update.args.end(), {"-z", "--stdin"});
  for (const auto& p : paths)
    update.input += p + '\0';
  auto updated = git_status_of(update);
  if (!updated || !updated->ok()) return std::nullopt;
  // What it staged: read from the tiny index itself (a few entries), or, for an index git wrote
  // in a form not read here (a split index, by the user's configuration), asked.
  std::optional<std::vector<IndexEntry>> entries;
  if (auto bytes = util::read_file(tiny)) entries = parse_index(*bytes, oid_bytes);
  if (!entries) {
    auto staged = git_status_of(with_index(w, {"ls-files", "-s", "-z"}, tiny));
    if (!staged || !staged->ok()) return std::nullopt;
    entries.emplace();
    for (const auto& record : split_z(staged->out)) {
      // "<mode> <oid> <stage>\t<path>"
      auto tab = record.find('\t');
      auto s1 = record.find(' ');
      auto s2 = record.find(' ', s1 + 1);
      if (tab == std::string::npos || s1 == std::string::npos || s2 == std::string::npos ||
          s2 > tab)
        return std::nullopt;
      entries->push_back(IndexEntry{record.substr(0, s1), record.substr(s1 + 1, s2 - s1 - 1),
                                    record.compare(s2 + 1, tab - s2 - 1, "0") == 0 ? 0 : -1,
                                    record.substr(tab + 1)});
    }
  }
  PathChanges changes;
  for (const auto& p : paths)
    changes[p] = std::nullopt;
  for (auto& e : *entries) {
    if (e.stage != 0) return std::nullopt;
    auto it = changes.find(e.path);
    if (it == changes.end()) continue; // a seed the update left alone cannot be: be safe
    it->second = TreeEntry{std::move(e.mode), {}, std::move(e.oid)};
  }
  added.clear();
  for (const auto& [path, entry] : changes)
    if (entry && !seeds.contains(path) && (entry->mode == "100644" || entry->mode == "100755"))
      added.push_back(TreeEntry{entry->mode, path, entry->oid});
  return changes;
}

// Many paths (or an edit a tree cannot take): the changed paths staged on a copy of the whole
// shadow, and its tree written. Nullopt when git refuses.
std::optional<std::string> stage_on_shadow(const Workspace& w, const Shadow& shadow,
                                           const std::vector<std::string>& paths,
                                           const std::string& tiny) {
  if (!copy_index(shadow.index, tiny) || !update_paths(w, paths, tiny)) return std::nullopt;
  auto tree = git_status_of(with_index(w, {"write-tree"}, tiny));
  if (!tree || !tree->ok()) return std::nullopt;
  return chomp(tree->out);
}

// Both trees the slow, sure way: a scratch copy of the real index, then a status on it (every
// file is looked at) names what `git add -A` would stage, which is staged. Status, not `add -A`:
// it also names the submodules and nested repositories with work in them, in the same walk, and
// a nested repository without a commit (which `add -A` refuses) is left out. Captures run side by
// side (overlaps): each needs its own scratch index. The copy keeps the real index's mtime: git
// decides whether an entry whose stat data matches may still hide a change ("racily clean") by
// comparing it with the index file's own mtime, so a same-size edit made in the same second as the
// last index write is not missed.
Result<Captured> capture_all(const Project&, const Workspace& w, Captured c,
                             const std::string& tmp_dir) {
  static std::atomic<int> counter{0};
  ScratchFile scratch{util::join(tmp_dir, fmt::format("index.{}.{}", ::getpid(), ++counter))};
  std::string real_index = util::join(w.git_dir, "index");
  if (util::exists(real_index)) BERTH_TRY(copy_index(real_index, scratch.path));
  // The staged state; an index with unresolved conflicts has none, so HEAD's tree stands in.
  auto staged = BERTH_TRY(git_status_of(with_index(w, {"write-tree"}, scratch.path)));
  c.index_tree = staged.ok() ? chomp(staged.out) : c.head_tree;
  auto seen = parse_status_v2(
      BERTH_TRY(git(with_index(w,
                               {"status", "--porcelain=v2", "-z", "--untracked-files=all",
                                "--ignore-submodules=none"},
                               scratch.path)))
          .out);
  c.nested = seen.nested;
  auto paths = stageable_paths(w, seen);
  drop_unrecordable(w, paths, c.unrecordable);
  if (!paths.empty() && !update_paths(w, paths, scratch.path))
    BERTH_TRY(git(with_index(w, {"add", "-A", "--", "."}, scratch.path))); // says why it fails
  c.work_tree = chomp(BERTH_TRY(git(with_index(w, {"write-tree"}, scratch.path))).out);
  return c;
}

} // namespace

Result<void> refuse_unrecordable(const Workspace& w, const Captured& c) {
  if (c.unrecordable.empty()) return {};
  Error e{ErrorCode::hostile_file,
          fmt::format("workspace '{}': {} is a FIFO, a socket or a device, which git cannot record",
                      w.name, c.unrecordable.front()),
          fmt::format("remove it (it holds no content: rm '{}'), then try again; `berth discard "
                      "{}` saves everything else",
                      util::join(w.path, c.unrecordable.front()), w.name),
          std::nullopt, c.unrecordable};
  return tl::unexpected(std::move(e));
}

namespace {

// The trees a capture built, kept with the verdict they were built under.
std::string capture_record(const Captured& c) {
  return c.head + ' ' + c.head_tree + ' ' + c.index_tree + ' ' + c.work_tree;
}

// The capture kept with a verdict that still holds: the same HEAD, index and work tree as when
// it was built, so the same trees. Only what costs no git call is redone (the changed paths'
// kinds, the nested work: both from the verdict's status and the files' types).
std::optional<Captured> kept_capture(const Workspace& w, const Verdict& seen) {
  std::vector<std::string> ids;
  for (size_t at = 0; at <= seen.capture.size();) {
    size_t end = std::min(seen.capture.find(' ', at), seen.capture.size());
    ids.push_back(seen.capture.substr(at, end - at));
    at = end + 1;
  }
  if (ids.size() != 4 || std::any_of(ids.begin(), ids.end(), [](auto& id) { return id.empty(); }))
    return std::nullopt;
  auto summary = parse_status_v2(seen.status);
  if (summary.head != ids[0]) return std::nullopt;
  Captured c{ids[0], ids[1], ids[2], ids[3], summary.nested, {}, {}};
  auto paths = stageable_paths(w, summary);
  drop_unrecordable(w, paths, c.unrecordable);
  return c;
}

} // namespace

namespace {

// HEAD and its tree in one call (after "--", which git echoes, nothing is a path).
Result<Captured> head_ends(const Project& project, const Workspace& w) {
  Captured c;
  auto head = git(workspace_call(w, {"rev-parse", "HEAD^{commit}", "HEAD^{tree}", "--"}));
  if (!head) {
    // Its branch deleted under it: say so rather than git's "bad revision".
    BERTH_TRY(refuse_lost_branch(project, w));
    return tl::unexpected(head.error());
  }
  auto ids = split_lines(head->out);
  if (ids.size() < 2 || ids[0].empty() || ids[1].empty())
    return fail(ErrorCode::git_failed,
                fmt::format("git rev-parse did not name HEAD of workspace '{}'", w.name));
  c.head = ids[0];
  c.head_tree = ids[1];
  return c;
}

// One workspace's capture on its way through capture_many.
struct Capturing {
  const Workspace* w = nullptr;
  std::optional<Shadow> shadow;
  std::optional<Verdict> seen;
  Captured c;
  bool index_is_head = false; // nothing staged: the index's tree is HEAD's
  std::vector<std::string> paths;
  std::optional<PathChanges> changes;
  std::vector<TreeEntry> added;
  std::string tiny; // its scratch index
  bool fast = false;
  // Its status told by the watcher's paths (look_by_watcher), not git's walk: `since` are the
  // paths changed after the verdict, `named` the verdict's own; those of `since` in neither the
  // tree staged onto nor `named` are filtered by the ignore rules before staging.
  bool by_watcher = false;
  std::vector<std::string> since;
  std::set<std::string> named;
  Verdict watched; // the verdict it was told from, with the watcher's new token
  // The capture kept with that verdict, when this look edits its work tree for the paths changed
  // since (a look that keeps a verdict): `paths` are then those alone.
  std::optional<Captured> prev;
  bool on_shadow =
      false; // staged on a copy of the whole shadow (many paths, a name with a newline)
  // Which of `since` git ignores (ask_ignored), asked beside the read of the trees; nullopt
  // when git could not tell.
  std::future<std::optional<std::set<std::string>>> ignored;
};

// Which of the paths changed since the verdict (`since`) that the verdict does not name and that
// are there git's ignore rules ignore, in one `check-ignore` for them all. Asked before the tree
// they are staged onto is read: those it holds are asked too, and are never dropped (drop_ignored).
// Nullopt when git could not tell.
std::optional<std::set<std::string>> ask_ignored(const Capturing& one) {
  std::vector<std::string> asked;
  for (const auto& p : one.since) {
    struct stat st;
    if (one.named.contains(p) || ::lstat(util::join(one.w->path, p).c_str(), &st) != 0) continue;
    asked.push_back(p);
  }
  return ignored_by_rules(*one.w, asked);
}

// A look by the watcher's paths (Capturing::by_watcher): the paths changed since the verdict that
// neither the tree they are staged onto (`seeds`) nor the verdict holds, and that git ignores
// (ask_ignored), are not staged, as git's status would not have named them. False when git could
// not tell.
bool drop_ignored(Capturing& one, const std::map<std::string, TreeEntry>& seeds) {
  auto ignored = one.ignored.valid() ? one.ignored.get() : ask_ignored(one);
  if (!ignored) return false;
  std::erase_if(one.paths,
                [&](const std::string& p) { return !seeds.contains(p) && ignored->contains(p); });
  return true;
}

// The way that looks at everything: without the shadow (dropped: something went wrong with it,
// a shadow git cannot read, say), HEAD asked again (it may have moved since the shadow's status).
Result<Captured> capture_slowly(const Project& project, Capturing& one,
                                const std::string& tmp_dir) {
  if (one.shadow) discard_shadow(project, *one.w);
  Captured c = BERTH_TRY(head_ends(project, *one.w));
  return capture_all(project, *one.w, std::move(c), tmp_dir);
}

// Kept only with a verdict that was saved whole (its commit counts taken): a later `list` must
// not reuse one without them.
void keep_capture(const Project& project, const Capturing& one) {
  if (one.seen && !one.seen->token.empty() && !one.seen->counts.empty()) {
    Verdict with = *one.seen;
    with.capture = capture_record(one.c);
    save_verdict(project, *one.w, with);
  }
}

} // namespace

Result<Captured> capture(const Project& project, const Workspace& w, Counts counts) {
  return capture_many(project, {&w}, counts).front();
}

std::vector<Result<Captured>> capture_many(const Project& project,
                                           const std::vector<const Workspace*>& workspaces,
                                           Counts counts) {
  const size_t n = workspaces.size();
  std::vector<Result<Captured>> results(n);
  // The same workspace twice: its shadow is held while it is captured, so one after the other.
  std::set<std::string> names;
  for (const Workspace* w : workspaces)
    names.insert(w->name);
  if (names.size() != n) {
    for (size_t i = 0; i < n; ++i)
      results[i] = capture_many(project, {workspaces[i]}, counts).front();
    return results;
  }
  std::string tmp_dir = util::join(project.berth_dir(), "tmp");
  if (auto made = util::make_dirs(tmp_dir); !made) {
    for (auto& r : results)
      r = fail(ErrorCode::io_error, made.error());
    return results;
  }
  std::vector<Capturing> all(n);
  std::vector<char> done(n, 0); // (not vector<bool>: written side by side)

  // Each one's status through its shadow, side by side. When the watcher says nothing changed
  // since the last capture, its trees stand (compare, diff and accept of an idle workspace cost
  // no git call); without a shadow, or a status, the capture is taken the slow way now.
  util::parallel_for(n, [&](size_t i) {
    Capturing& one = all[i];
    const Workspace& w = *workspaces[i];
    one.w = &w;
    if (auto opened = open_shadow(project, w)) one.shadow.emplace(std::move(*opened));
    // A look is told by the watcher's paths where it can be (no git process; the verdict a
    // compare or a diff keeps is restated from the staging: restate_status); else git's status
    // through the shadow.
    std::optional<StatusSummary> summary;
    if (one.shadow)
      if (auto quick = look_by_watcher(project, w, *one.shadow)) {
        if (quick->since.empty() && !quick->verdict.capture.empty())
          if (auto kept = kept_capture(w, quick->verdict)) {
            results[i] = std::move(*kept);
            done[i] = 1;
            return;
          }
        // A look that keeps a verdict, after one that kept its capture: the trees of then, the
        // work tree's edited for the paths changed since alone (the others are as they were).
        std::optional<Captured> prev;
        if (counts == Counts::take && !quick->verdict.capture.empty())
          prev = kept_capture(w, quick->verdict);
        if (prev && (!prev->unrecordable.empty() || !prev->nested.empty())) prev.reset();
        std::set<std::string> paths(quick->since.begin(), quick->since.end());
        if (!prev) {
          auto own = stageable_paths(w, quick->summary);
          paths.insert(own.begin(), own.end());
        }
        // (many paths, or a name with a newline, are staged on the whole shadow, where git's
        // status must have named them)
        if (paths.size() <= kMaxEditedPaths &&
            std::none_of(paths.begin(), paths.end(),
                         [](const std::string& p) { return p.find('\n') != std::string::npos; })) {
          one.by_watcher = true;
          one.watched = std::move(quick->verdict);
          one.watched.token = std::move(quick->token);
          one.since = std::move(quick->since);
          one.named.insert(quick->summary.paths.begin(), quick->summary.paths.end());
          one.paths.assign(paths.begin(), paths.end());
          one.prev = std::move(prev);
          summary = std::move(quick->summary);
        }
      }
    if (one.shadow && !summary) {
      one.seen = look(project, w, *one.shadow, counts);
      if (one.seen && !one.seen->capture.empty())
        if (auto kept = kept_capture(w, *one.seen)) {
          results[i] = std::move(*kept);
          done[i] = 1;
          return;
        }
      // HEAD as the verdict's status saw it (the capture builds on that status, so it is of
      // that one moment).
      if (one.seen) {
        summary = parse_status_v2(one.seen->status);
        one.paths = stageable_paths(w, *summary);
      }
    }
    if (!summary || summary->head.empty()) {
      results[i] = capture_slowly(project, one, tmp_dir);
      done[i] = 1;
      return;
    }
    one.c.head = summary->head;
    // Nothing staged: the index's tree is HEAD's (intent-to-add entries are not in either).
    if (one.prev) {
      one.c.head_tree = one.prev->head_tree;
      one.c.index_tree = one.prev->index_tree;
    } else if (summary->staged == 0 && summary->conflicted == 0) {
      one.index_is_head = true;
    } else if (auto staged = index_tree(project, w, *one.shadow)) {
      one.c.index_tree = *staged;
    } else {
      results[i] = capture_slowly(project, one, tmp_dir); // unresolved conflicts: no staged tree
      done[i] = 1;
      return;
    }
    one.c.nested = summary->nested;
    drop_unrecordable(w, one.paths, one.c.unrecordable);
    one.fast = true;
  });

  // One cat-file for all: each HEAD's tree, and the folders their changed paths are in (in the
  // tree they are staged onto: the seeds of their tiny indexes, and what the edit rewrites).
  auto base_of = [](const Capturing& one) {
    return one.index_is_head ? one.c.head : one.c.index_tree;
  };
  std::vector<std::string> wanted;
  for (size_t i = 0; i < n; ++i) {
    Capturing& one = all[i];
    if (!one.fast) continue;
    if (!one.prev) wanted.push_back(folder_of(one.c.head, ""));
    // (cat-file reads names by lines: a path with a newline is staged on the whole shadow)
    if (one.paths.size() > kMaxEditedPaths ||
        std::any_of(one.paths.begin(), one.paths.end(),
                    [](const std::string& p) { return p.find('\n') != std::string::npos; }))
      one.on_shadow = true;
    if (one.paths.empty() || one.on_shadow) continue;
    std::set<std::string> folders{""};
    for (const auto& p : one.paths)
      for (std::string dir = parent_folder(p); !dir.empty(); dir = parent_folder(dir))
        folders.insert(dir);
    for (const auto& dir : folders) {
      wanted.push_back(folder_of(base_of(one), dir));
      if (one.prev) wanted.push_back(folder_of(one.prev->work_tree, dir)); // (what is edited)
    }
  }
  // Which of the paths changed since are ignored, asked meanwhile.
  for (size_t i = 0; i < n; ++i)
    if (all[i].fast && all[i].by_watcher && !all[i].on_shadow && !all[i].paths.empty())
      all[i].ignored = std::async(std::launch::async, [&one = all[i]] { return ask_ignored(one); });
  TreeListing listing;
  bool read = false;
  if (!wanted.empty())
    if (auto got = read_trees(project.common_dir(), wanted, listing); got && *got) read = true;
  static std::atomic<int> counter{0};
  std::vector<size_t> staging;
  for (size_t i = 0; i < n; ++i) {
    Capturing& one = all[i];
    if (!one.fast) continue;
    if (!read) {
      one.fast = false;
      continue;
    }
    if (!one.prev) {
      auto head = listing.find(folder_of(one.c.head, ""));
      if (head == listing.end() || !head->second) {
        one.fast = false;
        continue;
      }
      one.c.head_tree = head->second->oid;
      if (one.index_is_head) one.c.index_tree = one.c.head_tree;
    }
    if (one.paths.empty()) {
      one.c.work_tree = one.prev ? one.prev->work_tree : one.c.index_tree;
      if (!one.prev) one.c.added.emplace(); // (the kept work tree's are not known)
      continue;
    }
    one.tiny = util::join(tmp_dir, fmt::format("tiny.{}.{}", ::getpid(), ++counter));
    staging.push_back(i);
  }

  // The changed paths staged, each in its tiny index (side by side), then every work tree's
  // tree written at once, one hash-object per folder depth for all.
  util::parallel_for(staging.size(), [&](size_t k) {
    Capturing& one = all[staging[k]];
    if (one.on_shadow) return;
    auto seeds = entries_of(listing, base_of(one), one.paths);
    if (one.by_watcher && (!seeds || !drop_ignored(one, *seeds))) {
      one.fast = false; // (which paths are ignored is not known: never staged unfiltered)
      return;
    }
    if (seeds)
      one.changes = stage_paths(*one.w, one.paths, *seeds, one.tiny, project.null_oid().size() / 2,
                                one.added);
    // The verdict a look that keeps one leaves: the old one's status restated for the paths
    // changed since (when it cannot be, none is kept: the next `list` asks git).
    if (one.by_watcher && counts == Counts::take && one.changes && one.c.unrecordable.empty())
      if (auto status = restate_status(one.watched.status, one.since, *seeds, *one.changes)) {
        one.seen = one.watched;
        one.seen->status = std::move(*status);
        one.seen->capture.clear();
      }
  });
  std::vector<TreeEdit> edits;
  std::vector<size_t> edited;
  for (size_t i : staging)
    if (all[i].changes) {
      if (all[i].prev)
        edits.push_back(
            TreeEdit{all[i].prev->work_tree, std::move(*all[i].changes), all[i].prev->work_tree});
      else
        edits.push_back(TreeEdit{all[i].c.index_tree, std::move(*all[i].changes), base_of(all[i])});
      edited.push_back(i);
    }
  if (!edits.empty())
    if (auto trees = edit_trees(project.common_dir(), edits, tmp_dir, &listing))
      for (size_t k = 0; k < edited.size(); ++k)
        if (auto& tree = (*trees)[k]) {
          all[edited[k]].c.work_tree = *tree;
          // (an edit of the kept work tree does not know them all)
          if (!all[edited[k]].prev) all[edited[k]].c.added = std::move(all[edited[k]].added);
        }
  // Many paths, or an edit a tree cannot take: staged on a copy of the whole shadow; when that
  // fails too, the slow way.
  util::parallel_for(staging.size(), [&](size_t k) {
    Capturing& one = all[staging[k]];
    if (one.fast && one.c.work_tree.empty()) {
      // (the shadow holds the index: staged on it, the paths changed since are not all)
      std::optional<std::string> tree;
      if (!one.prev) tree = stage_on_shadow(*one.w, *one.shadow, one.paths, one.tiny);
      if (tree)
        one.c.work_tree = *tree;
      else
        one.fast = false;
    }
    ::unlink(one.tiny.c_str());
  });

  for (size_t i = 0; i < n; ++i) {
    if (done[i]) continue;
    Capturing& one = all[i];
    if (!one.fast) {
      results[i] = capture_slowly(project, one, tmp_dir);
      continue;
    }
    keep_capture(project, one);
    results[i] = std::move(one.c);
  }
  return results;
}

Result<std::string> capture_work_tree_fully(const Project& project, const Workspace& w) {
  std::string tmp_dir = util::join(project.berth_dir(), "tmp");
  if (auto made = util::make_dirs(tmp_dir); !made) return fail(ErrorCode::io_error, made.error());
  // (HEAD is not needed, and may point at a branch discard already deleted.)
  return BERTH_TRY(capture_all(project, w, Captured{}, tmp_dir)).work_tree;
}

namespace {

// The first `n` space-separated fields of a status record, and what follows them (its path).
std::optional<std::pair<std::vector<std::string>, std::string>> status_fields(const std::string& r,
                                                                              int n) {
  std::vector<std::string> fields;
  size_t at = 0;
  for (int f = 0; f < n; ++f) {
    size_t space = r.find(' ', at);
    if (space == std::string::npos) return std::nullopt;
    fields.push_back(r.substr(at, space - at));
    at = space + 1;
  }
  return std::make_pair(std::move(fields), r.substr(at));
}

// Which kind of entry a mode is, as status compares them: a file (either mode), a link, other.
char kind_of(const std::string& mode) {
  if (mode == "100644" || mode == "100755") return 'f';
  if (mode == "120000") return 'l';
  return '?';
}

} // namespace

std::optional<std::string> restate_status(const std::string& before,
                                          const std::vector<std::string>& changed,
                                          const std::map<std::string, TreeEntry>& index,
                                          const PathChanges& now) {
  std::set<std::string> touched(changed.begin(), changed.end());
  std::string headers;
  std::map<std::string, std::string> tracked; // path -> its record(s), NUL-terminated
  std::set<std::string> untracked;
  auto records = split_z(before);
  for (size_t i = 0; i < records.size(); ++i) {
    const std::string& r = records[i];
    if (r.empty()) continue;
    if (r[0] == '#') {
      headers += r + '\0';
    } else if (r.rfind("? ", 0) == 0) {
      untracked.insert(r.substr(2));
    } else if (r[0] == '1' || r[0] == 'u') {
      auto f = status_fields(r, r[0] == '1' ? 8 : 10);
      if (!f) return std::nullopt;
      tracked[f->second] = r + '\0';
    } else if (r[0] == '2') {
      auto f = status_fields(r, 9);
      if (!f || i + 1 >= records.size()) return std::nullopt;
      const std::string& from = records[++i];
      if (touched.contains(from)) return std::nullopt;
      tracked[f->second] = r + '\0' + from + '\0';
    } else {
      return std::nullopt; // ("!": not asked for)
    }
  }
  for (const auto& p : touched) {
    auto w = now.find(p);
    auto line = tracked.find(p);
    if (w == now.end()) {
      // Neither staged nor named before: a new file git ignores (or one gone again).
      if (line != tracked.end() || untracked.contains(p)) return std::nullopt;
      continue;
    }
    const std::optional<TreeEntry>& file = w->second;
    if (file && kind_of(file->mode) == '?') return std::nullopt;
    // Its index side: the record's (HEAD's and the index's entries and how they differ), else
    // the index's entry, the same as HEAD's.
    std::string x = ".", mode_head, mode_index, oid_head, oid_index;
    if (line != tracked.end()) {
      auto f = status_fields(line->second.substr(0, line->second.size() - 1), 8);
      if (line->second[0] != '1' || !f || f->first[1].size() != 2 || f->first[2] != "N...")
        return std::nullopt;
      x = f->first[1].substr(0, 1);
      // (a staged deletion has no index entry; an intent-to-add one none with content)
      if (x == "D" || f->first[1][1] == 'A') return std::nullopt;
      mode_head = f->first[3], mode_index = f->first[4];
      oid_head = f->first[6], oid_index = f->first[7];
    } else if (auto entry = index.find(p); entry != index.end()) {
      mode_head = mode_index = entry->second.mode;
      oid_head = oid_index = entry->second.oid;
    } else {
      // Not in the index: untracked while it is there.
      if (file)
        untracked.insert(p);
      else
        untracked.erase(p);
      continue;
    }
    if (kind_of(mode_index) == '?') return std::nullopt;
    untracked.erase(p);
    char y = '.';
    if (!file)
      y = 'D';
    else if (kind_of(file->mode) != kind_of(mode_index))
      y = 'T';
    else if (file->mode != mode_index || file->oid != oid_index)
      y = 'M';
    if (x == "." && y == '.') {
      tracked.erase(p);
      continue;
    }
    tracked[p] = fmt::format("1 {}{} N... {} {} {} {} {} {}", x, y, mode_head, mode_index,
                             file ? file->mode : std::string("000000"), oid_head, oid_index, p) +
                 '\0';
  }
  std::string out = headers;
  for (const auto& [path, record] : tracked)
    out += record;
  for (const auto& path : untracked)
    out += "? " + path + '\0';
  return out;
}

bool has_identity(const Project& project) {
  auto r = git_status_of(repo_call(project, {"var", "GIT_COMMITTER_IDENT"}));
  auto a = git_status_of(repo_call(project, {"var", "GIT_AUTHOR_IDENT"}));
  return r && r->ok() && a && a->ok();
}

Result<std::string> make_commit(const Project& project, const std::string& tree,
                                const std::vector<std::string>& parents, const std::string& message,
                                const std::map<std::string, std::optional<std::string>>& author) {
  std::vector<std::string> args{"commit-tree", tree};
  for (const auto& p : parents) {
    args.push_back("-p");
    args.push_back(p);
  }
  GitCall call = repo_call(project, args);
  // An identity given whole (a probe's berth identity) needs no asking (two git calls).
  const auto identity = berth_identity();
  bool given = std::all_of(identity.begin(), identity.end(),
                           [&](const auto& kv) { return author.contains(kv.first); });
  if (!given && !has_identity(project)) call.env = berth_identity();
  for (const auto& [key, value] : author)
    call.env[key] = value;
  call.input = message.empty() || message.back() == '\n' ? message : message + "\n";
  return chomp(BERTH_TRY(git(call)).out);
}

} // namespace berth
