#include "core/capture.hpp"

#include "core/behind.hpp"
#include "core/nested.hpp"
#include "core/porcelain.hpp"
#include "core/shadow.hpp"
#include "core/tree_edit.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/paths.hpp"

#include <algorithm>
#include <atomic>
#include <fcntl.h>
#include <fmt/format.h>
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

// The new entries of `paths` as git would stage them (filters, modes, symlinks, gitlinks), made
// in a tiny index that holds only those paths: seeded with their entries in `base` (so that
// core.fileMode=false keeps a mode, as with the full index), then updated from the work tree.
// Nullopt when git refuses.
std::optional<PathChanges> stage_paths(const Workspace& w, const std::string& base,
                                       const std::vector<std::string>& paths,
                                       const std::string& tiny) {
  GitCall seeds = workspace_call(w, {"ls-tree", "-z", "--full-tree", base, "--"});
  seeds.env["GIT_LITERAL_PATHSPECS"] = "1";
  seeds.args.insert(seeds.args.end(), paths.begin(), paths.end());
  auto listed = git_status_of(seeds);
  if (!listed || !listed->ok()) return std::nullopt;
  GitCall seed = with_index(w, {"update-index", "-z", "--index-info"}, tiny);
  for (const auto& record : split_z(listed->out))
    if (record.rfind("040000 ", 0) != 0) seed.input += record + '\0';
  if (!seed.input.empty()) {
    auto seeded = git_status_of(seed);
    if (!seeded || !seeded->ok()) return std::nullopt;
  }
  if (!update_paths(w, paths, tiny)) return std::nullopt;
  auto staged = git_status_of(with_index(w, {"ls-files", "-s", "-z"}, tiny));
  if (!staged || !staged->ok()) return std::nullopt;
  PathChanges changes;
  for (const auto& p : paths)
    changes[p] = std::nullopt;
  for (const auto& record : split_z(staged->out)) {
    // "<mode> <oid> <stage>\t<path>"
    auto tab = record.find('\t');
    auto s1 = record.find(' ');
    auto s2 = record.find(' ', s1 + 1);
    if (tab == std::string::npos || s1 == std::string::npos || s2 == std::string::npos ||
        s2 > tab || record.compare(s2 + 1, tab - s2 - 1, "0") != 0)
      return std::nullopt;
    std::string path = record.substr(tab + 1);
    auto it = changes.find(path);
    if (it == changes.end()) continue; // a seed the update left alone cannot be: be safe
    it->second = TreeEntry{record.substr(0, s1), {}, record.substr(s1 + 1, s2 - s1 - 1)};
  }
  return changes;
}

// The work tree's tree without looking at unchanged files: the status through the shadow (which
// the watcher keeps informed) names what differs from the index, and only those paths are staged
// onto the index's tree. Nullopt when this way does not work here: the caller stages everything.
std::optional<Captured> capture_changes(const Project& project, const Workspace& w,
                                        const Shadow& shadow, const Verdict& seen,
                                        const std::string& tmp_dir, Captured c) {
  auto summary = parse_status_v2(seen.status);
  if (summary.head != c.head) return std::nullopt; // HEAD moved under us: look at everything
  // Nothing staged: the index's tree is HEAD's (intent-to-add entries are not in either).
  if (summary.staged == 0 && summary.conflicted == 0) {
    c.index_tree = c.head_tree;
  } else {
    auto staged = index_tree(project, w, shadow);
    if (!staged) return std::nullopt; // unresolved conflicts: no staged tree
    c.index_tree = *staged;
  }
  c.nested = summary.nested;
  auto paths = stageable_paths(w, summary);
  drop_unrecordable(w, paths, c.unrecordable);
  if (paths.empty()) {
    c.work_tree = c.index_tree;
    return c;
  }
  static std::atomic<int> counter{0};
  ScratchFile tiny{util::join(tmp_dir, fmt::format("tiny.{}.{}", ::getpid(), ++counter))};
  if (paths.size() <= kMaxEditedPaths) {
    if (auto changes = stage_paths(w, c.index_tree, paths, tiny.path)) {
      auto tree = edit_tree(project.common_dir(), c.index_tree, *changes, tmp_dir);
      if (tree && *tree) {
        c.work_tree = **tree;
        return c;
      }
    }
  }
  // Many paths (or an edit a tree cannot take): stage them on a copy of the whole shadow.
  if (!copy_index(shadow.index, tiny.path) || !update_paths(w, paths, tiny.path))
    return std::nullopt;
  auto tree = git_status_of(with_index(w, {"write-tree"}, tiny.path));
  if (!tree || !tree->ok()) return std::nullopt;
  c.work_tree = chomp(tree->out);
  return c;
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
  Captured c{ids[0], ids[1], ids[2], ids[3], summary.nested, {}};
  auto paths = stageable_paths(w, summary);
  drop_unrecordable(w, paths, c.unrecordable);
  return c;
}

} // namespace

Result<Captured> capture(const Project& project, const Workspace& w) {
  // Through the shadow, the status first: when the watcher says nothing changed since the last
  // capture, its trees stand (compare, diff and accept of an idle workspace cost no git call).
  std::optional<Shadow> shadow = open_shadow(project, w);
  std::optional<Verdict> seen;
  if (shadow) seen = look(project, w, *shadow);
  if (seen && !seen->capture.empty())
    if (auto kept = kept_capture(w, *seen)) return *kept;
  // HEAD and its tree: HEAD as the verdict's status saw it when there is one (the fast way below
  // builds on that status, so the capture is of that one moment), else asked; one git call
  // either way.
  auto ends = [&](const std::string& seen_head) -> Result<Captured> {
    Captured c;
    if (!seen_head.empty()) {
      c.head = seen_head;
      c.head_tree =
          chomp(BERTH_TRY(git(repo_call(project, {"rev-parse", c.head + "^{tree}"}))).out);
      return c;
    }
    // HEAD and its tree in one call (after "--", which git echoes, nothing is a path).
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
  };
  std::string seen_head = seen ? parse_status_v2(seen->status).head : std::string();
  Captured c = BERTH_TRY(ends(seen_head));

  std::string tmp_dir = util::join(project.berth_dir(), "tmp");
  if (auto made = util::make_dirs(tmp_dir); !made) return fail(ErrorCode::io_error, made.error());
  if (shadow) {
    if (seen)
      if (auto fast = capture_changes(project, w, *shadow, *seen, tmp_dir, c)) {
        // Kept only with a verdict that was saved whole (its commit counts taken): a later
        // `list` must not reuse one without them.
        if (!seen->token.empty() && !seen->counts.empty()) {
          Verdict with = *seen;
          with.capture = capture_record(*fast);
          save_verdict(project, w, with);
        }
        return *fast;
      }
    // Something went wrong the fast way (a shadow git cannot read, say): drop the shadow and let
    // git look at everything, HEAD included (it may have moved since that status).
    discard_shadow(project, w);
    if (!seen_head.empty()) c = BERTH_TRY(ends({}));
  }
  return capture_all(project, w, std::move(c), tmp_dir);
}

Result<std::string> capture_work_tree_fully(const Project& project, const Workspace& w) {
  std::string tmp_dir = util::join(project.berth_dir(), "tmp");
  if (auto made = util::make_dirs(tmp_dir); !made) return fail(ErrorCode::io_error, made.error());
  // (HEAD is not needed, and may point at a branch discard already deleted.)
  return BERTH_TRY(capture_all(project, w, Captured{}, tmp_dir)).work_tree;
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
