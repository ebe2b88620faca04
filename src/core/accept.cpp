// Accept, sync and the repair of interrupted accepts.
//
// The promise: accept never loses or rewrites anything the user has not asked it to. So it
//   1. computes the result entirely as git objects first (merge-tree, commit-tree): a conflict is
//      found before anything is touched, and reported with nothing changed;
//   2. refuses when the user has uncommitted work on any path the change would write;
//   3. records its intent (target, old and new commit, every path with its old and new blob)
//      before touching the user's checkout, so that a crash mid-way can be finished or rolled
//      back path by path by `berth doctor --repair`, never touching any other file;
//   4. moves refs with compare-and-swap only: a branch that moved meanwhile is never overwritten.
#include "berth/berth.hpp"
#include "core/accept_steps.hpp"
#include "core/admin_files.hpp"
#include "core/behind.hpp"
#include "core/capture.hpp"
#include "core/crash_checks.hpp"
#include "core/lease.hpp"
#include "core/name.hpp"
#include "core/nested.hpp"
#include "core/plain.hpp"
#include "core/pool.hpp"
#include "core/porcelain.hpp"
#include "core/registry.hpp"
#include "core/review.hpp"
#include "core/roots.hpp"
#include "core/trash.hpp"
#include "core/tree_claim.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/dir.hpp"
#include "util/paths.hpp"
#include "util/process_info.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace berth {

std::string_view strategy_name(Strategy strategy) {
  switch (strategy) {
  case Strategy::apply:
    return "apply";
  case Strategy::merge:
    return "merge";
  case Strategy::squash:
    return "squash";
  case Strategy::ff:
    return "ff";
  case Strategy::rebase:
    return "rebase";
  }
  return "?";
}

std::optional<Strategy> parse_strategy(std::string_view text) {
  for (Strategy s :
       {Strategy::apply, Strategy::merge, Strategy::squash, Strategy::ff, Strategy::rebase})
    if (text == strategy_name(s)) return s;
  return std::nullopt;
}

// ---- helpers ----------------------------------------------------------------------------------

Result<std::vector<PathChange>> path_changes(const Project& project, const std::string& from,
                                             const std::string& to) {
  auto raw = BERTH_TRY(
      git(tree_diff_call(project, {"diff-tree", "-r", "-z", "--raw", "--no-renames", from, to})));
  std::vector<PathChange> out;
  for (const auto& c : parse_diff_raw(raw.out)) {
    auto zero = [](const std::string& oid) {
      return oid.find_first_not_of('0') == std::string::npos;
    };
    out.push_back({c.path, zero(c.old_oid) ? "" : c.old_mode, zero(c.old_oid) ? "" : c.old_oid,
                   zero(c.new_oid) ? "" : c.new_mode, zero(c.new_oid) ? "" : c.new_oid});
  }
  return out;
}

Result<std::string> tree_of(const Project& project, const std::string& commit) {
  return chomp(BERTH_TRY(git(repo_call(project, {"rev-parse", commit + "^{tree}"}))).out);
}

// The conflicting paths as the user knows them. In a directory/file conflict git moves the file
// out of the directory's way as `PATH~LABEL` (LABEL: a commit, a branch, a rebased commit's
// description) and names that; the user's path is PATH: the longest part before a `~` that one of
// the merged commits has, where the whole name is in none of them.
std::vector<std::string> user_conflict_paths(const Project& project,
                                             const std::vector<std::string>& conflicts,
                                             const std::vector<std::string>& commits) {
  auto in_any = [&](const std::string& path) {
    for (const auto& commit : commits) {
      if (commit.empty()) continue;
      auto r =
          git_status_of(repo_call(project, {"rev-parse", "--verify", "-q", commit + ":" + path}));
      if (r && r->ok()) return true;
    }
    return false;
  };
  std::vector<std::string> out;
  for (const auto& path : conflicts) {
    std::string shown = path;
    if (path.find('~') != std::string::npos && !in_any(path))
      for (auto tilde = path.rfind('~'); tilde != std::string::npos && tilde > 0;
           tilde = path.rfind('~', tilde - 1))
        if (in_any(path.substr(0, tilde))) {
          shown = path.substr(0, tilde);
          break;
        }
    if (std::find(out.begin(), out.end(), shown) == out.end()) out.push_back(shown);
  }
  return out;
}

bool is_ancestor(const Project& project, const std::string& a, const std::string& b) {
  auto r = git_status_of(repo_call(project, {"merge-base", "--is-ancestor", a, b}));
  return r && r->ok();
}

Result<Target> find_target(const Project& project, const Workspace& w,
                           const std::optional<std::string>& into) {
  auto entries = BERTH_TRY(worktrees(project));
  // Damaged shared config (core.bare = true set by a hook, say): git no longer sees the checkout,
  // so its branch would look free and move under it. Refused until it is repaired.
  if (!project.bare() && !entries.empty() && entries.front().bare)
    return tl::unexpected(no_work_tree_error(project));
  Target t;
  if (into) {
    t.branch = *into;
    if (t.branch.rfind("refs/heads/", 0) == 0) t.branch = t.branch.substr(11);
  } else {
    // A branch being rebased shows as a detached HEAD: it is still the one the user works on
    // (operation_in_progress then refuses).
    std::string rebasing;
    for (const char* file : {"rebase-merge/head-name", "rebase-apply/head-name"})
      if (rebasing.empty())
        rebasing = chomp(util::read_file(util::join(project.common_dir(), file)).value_or(""));
    if (!entries.empty() && !entries.front().bare && entries.front().branch.empty() &&
        rebasing.rfind("refs/heads/", 0) == 0)
      t.branch = rebasing.substr(11);
    else if (entries.empty() || entries.front().bare || entries.front().branch.empty())
      return fail(ErrorCode::usage, "the main checkout has no branch checked out to accept into",
                  "name the target: --into BRANCH");
    else
      t.branch = entries.front().branch.substr(11);
  }
  if (t.branch.empty() || t.branch.front() == '-')
    return fail(ErrorCode::invalid_revision, fmt::format("invalid branch '{}'", t.branch));
  if (t.branch == w.branch)
    return fail(ErrorCode::usage, fmt::format("'{}' is the workspace's own branch", t.branch),
                "accept into the branch the change should land on, e.g. --into main");
  // Its tip: when it is the branch checked out in the main checkout, what `worktree list` just
  // resolved that HEAD to (one git process less: compare's target); else asked.
  const std::string ref = "refs/heads/" + t.branch;
  std::string main_head = entries.empty() ? std::string() : entries.front().head;
  if (!entries.empty() && entries.front().branch == ref && !main_head.empty() &&
      main_head.find_first_not_of('0') != std::string::npos) {
    t.commit = main_head;
  } else {
    auto tip = BERTH_TRY(git_status_of(repo_call(project, {"rev-parse", "--verify", "-q", ref})));
    if (!tip.ok())
      return fail(ErrorCode::invalid_revision, fmt::format("no branch named '{}'", t.branch),
                  "name an existing local branch with --into");
    t.commit = chomp(tip.out);
  }
  for (const auto& e : entries)
    if (e.branch == "refs/heads/" + t.branch && e.path != w.path) t.worktree = e.path;
  return t;
}

namespace {

// Paths the user has touched in their checkout: staged, unstaged, untracked (not ignored).
Result<std::set<std::string>> dirty_paths(const std::string& worktree) {
  GitCall status{{"status", "--porcelain=v2", "-z", "--untracked-files=all"},
                 worktree,
                 {{"GIT_OPTIONAL_LOCKS", "0"}},
                 {},
                 util::Stream::pipe};
  auto out = BERTH_TRY(git(status));
  auto summary = parse_status_v2(out.out);
  std::set<std::string> paths(summary.paths.begin(), summary.paths.end());
  // Renames list the new path; the original path of a staged rename is dirty too.
  auto records = split_z(out.out);
  for (size_t i = 0; i + 1 < records.size(); ++i)
    if (!records[i].empty() && records[i][0] == '2') paths.insert(records[++i]);
  return paths;
}

// Whether everything under the folder `rel` of `worktree` is in `leaving` (the change deletes
// it): the folder then goes away with it, and is no obstacle to a file of the same name.
bool only_leaving(const std::string& worktree, const std::string& rel,
                  const std::set<std::string>& leaving) {
  util::DirEntries d(util::join(worktree, rel));
  if (!d.is_open()) return false;
  for (const auto& e : d) {
    std::string child = rel + "/" + std::string(e.name);
    struct stat st;
    if (::lstat(util::join(worktree, child).c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode) ? !only_leaving(worktree, child, leaving) : !leaving.count(child))
      return false;
  }
  return true;
}

// Whether something git does not track (an untracked or ignored file or folder) occupies `path`,
// or one of its parent folders, in `worktree`: `read-tree -u` would overwrite ignored files there
// without a word. What the change itself removes (`leaving`: a file in the way of a new folder,
// a folder of deleted files in the way of a new file) is no obstacle.
bool in_the_way(const std::string& worktree, const std::string& path,
                const std::set<std::string>& leaving) {
  struct stat st;
  if (::lstat(util::join(worktree, path).c_str(), &st) == 0)
    return !S_ISDIR(st.st_mode) || !only_leaving(worktree, path, leaving);
  for (size_t slash = path.find('/'); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    std::string parent = path.substr(0, slash);
    if (::lstat(util::join(worktree, parent).c_str(), &st) != 0) return false;
    if (!S_ISDIR(st.st_mode) && !leaving.count(parent)) return true;
  }
  return false;
}

} // namespace

namespace {

std::string generated_message(const Project& project, const Workspace& w, const std::string& from,
                              const std::string& to, Strategy strategy) {
  auto log =
      git_status_of(repo_call(project, {"log", "--format=%s", "--reverse", from + ".." + to}));
  std::vector<std::string> subjects;
  if (log && log->ok())
    for (auto& s : split_lines(log->out))
      if (!s.empty() && s.rfind("berth: uncommitted work", 0) != 0) subjects.push_back(s);
  if (strategy == Strategy::merge) return fmt::format("Merge berth workspace '{}'\n", w.name);
  if (subjects.size() == 1) return subjects.front() + "\n";
  std::string msg = fmt::format("{} (berth workspace)\n", w.name);
  if (!subjects.empty()) {
    msg += "\n";
    for (const auto& s : subjects)
      msg += "* " + s + "\n";
  }
  return msg;
}

// ---- refusals checked before anything changes --------------------------------------------------

// What the user is in the middle of on the target branch (a merge, a rebase...), or "": landing
// then would mix the change into their half-done operation. A rebase or bisect of the branch is
// found in whichever checkout runs it (git shows that checkout detached, not on the branch).
Result<std::string> operation_in_progress(const Project& project, const Target& target) {
  auto is_file = [](const std::string& path) {
    struct stat st;
    return ::lstat(path.c_str(), &st) == 0;
  };
  if (!target.worktree.empty()) {
    std::string gitdir = BERTH_TRY(git_out(target.worktree, {"rev-parse", "--absolute-git-dir"}));
    const std::pair<const char*, const char*> markers[] = {
        {"MERGE_HEAD", "a merge"},    {"CHERRY_PICK_HEAD", "a cherry-pick"},
        {"REVERT_HEAD", "a revert"},  {"sequencer", "a cherry-pick or revert"},
        {"rebase-merge", "a rebase"}, {"rebase-apply", "a rebase or `git am`"},
        {"BISECT_LOG", "a bisect"}};
    for (const auto& [file, what] : markers)
      if (is_file(util::join(gitdir, file))) return std::string(what);
    // Conflicts left without any of those (a `git stash pop` or `checkout -m` that conflicted):
    // read-tree would refuse the unmerged index anyway.
    auto unmerged = BERTH_TRY(git(GitCall{{"ls-files", "--unmerged", "-z"},
                                          target.worktree,
                                          {{"GIT_OPTIONAL_LOCKS", "0"}},
                                          {},
                                          util::Stream::pipe}));
    if (!unmerged.out.empty()) return std::string("resolving conflicts");
  }
  std::vector<std::string> admin_dirs{project.common_dir()};
  std::string linked = util::join(project.common_dir(), "worktrees");
  for (const auto& e : util::DirEntries(linked))
    if (e.name[0] != '.') admin_dirs.push_back(util::join(linked, std::string(e.name)));
  std::string ref = "refs/heads/" + target.branch;
  for (const auto& dir : admin_dirs) {
    for (const char* rebase : {"rebase-merge/head-name", "rebase-apply/head-name"})
      if (chomp(util::read_file(util::join(dir, rebase)).value_or("")) == ref)
        return std::string("a rebase");
    if (chomp(util::read_file(util::join(dir, "BISECT_START")).value_or("")) == target.branch)
      return std::string("a bisect");
  }
  return std::string();
}

// Paths the user edited although `git status` cannot see it: flagged assume-unchanged or
// skip-worktree in the index, with a file that differs from its index entry (a skip-worktree file
// that is absent is a sparse checkout leaving it out, not an edit).
Result<std::set<std::string>> hidden_edits(const std::string& worktree) {
  auto listed =
      BERTH_TRY(git(GitCall{{"ls-files", "-v", "-z"}, worktree, {}, {}, util::Stream::pipe}));
  std::map<std::string, bool> flagged; // path -> skip-worktree
  for (const auto& entry : split_z(listed.out)) {
    if (entry.size() < 3) continue;
    char tag = entry[0];
    bool skipped = tag == 'S' || tag == 's';
    if (skipped || (tag >= 'a' && tag <= 'z')) flagged[entry.substr(2)] = skipped;
  }
  std::set<std::string> edited;
  if (flagged.empty()) return edited;
  std::vector<std::string> args{"ls-files", "-s", "-z", "--"};
  for (const auto& [path, skipped] : flagged)
    args.push_back(path);
  auto staged = staged_oids(
      BERTH_TRY(
          git(GitCall{args, worktree, {{"GIT_LITERAL_PATHSPECS", "1"}}, {}, util::Stream::pipe}))
          .out);
  for (const auto& [path, oid] : staged) {
    std::string have = current_oid(worktree, path);
    if (have == oid || (have.empty() && flagged[path])) continue;
    edited.insert(path);
  }
  return edited;
}

// ---- rebase as objects -------------------------------------------------------------------------

struct CommitObject {
  std::string tree, parent, message;
  std::map<std::string, std::optional<std::string>> author; // GIT_AUTHOR_NAME/EMAIL/DATE
};

Result<CommitObject> read_commit(const Project& project, const std::string& commit) {
  std::string raw = BERTH_TRY(git(repo_call(project, {"cat-file", "commit", commit}))).out;
  CommitObject c;
  size_t end = raw.find("\n\n");
  c.message = end == std::string::npos ? "" : raw.substr(end + 2);
  for (const auto& line : split_lines(raw.substr(0, end))) {
    if (line.rfind("tree ", 0) == 0) c.tree = line.substr(5);
    if (line.rfind("parent ", 0) == 0 && c.parent.empty()) c.parent = line.substr(7);
    if (line.rfind("author ", 0) == 0) {
      // "author Name <email> 1700000000 +0100"
      auto open = line.find(" <"), close = line.rfind('>');
      if (open == std::string::npos || close == std::string::npos || close < open) continue;
      c.author = {{"GIT_AUTHOR_NAME", line.substr(7, open - 7)},
                  {"GIT_AUTHOR_EMAIL", line.substr(open + 2, close - open - 2)},
                  {"GIT_AUTHOR_DATE", close + 2 <= line.size() ? line.substr(close + 2) : ""}};
    }
  }
  return c;
}

// Replay the commits of base..source onto `onto` the way `git rebase` does (merge commits and
// commits that become empty dropped; authors, dates and messages kept), as git objects only: the
// workspace's branch, index and files are never touched. git 2.39's merge-tree takes no
// --merge-base, so each pick merges two scratch commits whose only common ancestor holds the
// picked commit's parent tree.
Result<std::string> replay(const Project& project, const std::string& base,
                           const std::string& source, const std::string& onto,
                           const std::string& workspace, const std::string& target) {
  auto listed = BERTH_TRY(git(repo_call(
      project, {"rev-list", "--reverse", "--no-merges", "--topo-order", base + ".." + source})));
  std::string tip = onto;
  std::string tip_tree = BERTH_TRY(tree_of(project, onto));
  for (const auto& commit : split_lines(listed.out)) {
    if (commit.empty()) continue;
    CommitObject c = BERTH_TRY(read_commit(project, commit));
    std::string parent_tree =
        c.parent.empty() ? project.empty_tree() : BERTH_TRY(tree_of(project, c.parent));
    std::string picked = c.tree;
    if (parent_tree != tip_tree) {
      std::string ancestor = BERTH_TRY(make_commit(project, parent_tree, {}, "berth: replay base"));
      std::string ours =
          BERTH_TRY(make_commit(project, tip_tree, {ancestor}, "berth: replay onto"));
      std::string theirs =
          BERTH_TRY(make_commit(project, c.tree, {ancestor}, "berth: replay pick"));
      GitCall merge = repo_call(project, {"merge-tree", "--write-tree", "--name-only", "-z",
                                          "--no-messages", ours, theirs});
      auto merged = BERTH_TRY(git_status_of(merge));
      if (merged.exit_code == 1) {
        Error e{
            ErrorCode::conflict,
            fmt::format("replaying the commits of '{}' onto {} conflicts; nothing was changed",
                        workspace, target),
            "use --strategy squash or merge, or `berth sync` and resolve in the workspace",
            std::nullopt,
            user_conflict_paths(project, parse_merge_tree(merged.out).conflicts, {ours, theirs})};
        return tl::unexpected(std::move(e));
      }
      if (!merged.ok()) return tl::unexpected(git_error(merge, merged));
      picked = parse_merge_tree(merged.out).tree;
    }
    if (picked == tip_tree && c.tree != parent_tree) continue; // became empty: dropped
    tip = BERTH_TRY(make_commit(project, picked, {tip}, c.message, c.author));
    tip_tree = picked;
  }
  return tip;
}

// While an accept lands a workspace, its record says busy (held by this process), so that no
// run, sync or discard starts on it, and the registry lock is free for everyone else: it is never
// held across a write into the user's checkout or a hook. A crash leaves a busy record with a dead
// holder, which the next command frees (recover_interrupted). Destroyed before finish(), it puts
// the record back exactly as it was.
class AcceptHold {
public:
  AcceptHold(const Registry& registry, Workspace original)
      : registry_(registry), original_(std::move(original)) {}
  AcceptHold(const AcceptHold&) = delete;
  AcceptHold& operator=(const AcceptHold&) = delete;
  ~AcceptHold() {
    if (!armed_) return;
    auto lock = registry_.lock();
    if (!lock) return;
    auto now = registry_.load(name_slug(original_.name));
    if (now && *now && (*now)->holder_pid == static_cast<int>(::getpid()))
      (void)registry_.save(original_);
  }
  // Under the lock, mark the workspace held by this process.
  Result<void> take() {
    Workspace mine = original_;
    hold(mine, State::busy);
    BERTH_TRY(registry_.save(mine));
    armed_ = true;
    return {};
  }
  // The accept landed: the record says so, and nobody holds the workspace any more.
  Result<void> finish(const std::string& landed_commit) {
    auto lock = BERTH_TRY(registry_.lock());
    Workspace done = original_;
    if (auto now = BERTH_TRY(registry_.load(name_slug(original_.name)))) done = *now;
    done.state = State::landed;
    done.holder_pid = 0;
    done.holder_start = 0;
    done.landed_commit = landed_commit;
    BERTH_TRY(registry_.save(done));
    armed_ = false;
    return {};
  }

private:
  const Registry& registry_;
  Workspace original_;
  bool armed_ = false;
};

// Refuse (dirty_target) when the change would write a path the user has touched in the target
// checkout: staged, unstaged, untracked, or an edit hidden by assume-unchanged/skip-worktree.
Result<void> check_target_clean(const Target& target, const std::vector<FileChange>& files) {
  auto dirty = BERTH_TRY(dirty_paths(target.worktree));
  for (const auto& hidden : BERTH_TRY(hidden_edits(target.worktree)))
    dirty.insert(hidden);
  std::set<std::string> leaving;
  for (const auto& f : files)
    if (f.status == 'D' || f.status == 'R')
      leaving.insert(f.old_path.empty() ? f.path : f.old_path);
  std::vector<std::string> clash;
  for (const auto& f : files) {
    bool created = f.status == 'A' || f.status == 'R' || f.status == 'C';
    if (dirty.count(f.path) || (created && in_the_way(target.worktree, f.path, leaving)))
      clash.push_back(f.path);
    if (!f.old_path.empty() && dirty.count(f.old_path)) clash.push_back(f.old_path);
  }
  if (clash.empty()) return {};
  Error e{ErrorCode::dirty_target,
          fmt::format("you have uncommitted changes or untracked files in {} at {} path(s) this "
                      "accept would write",
                      target.worktree, clash.size()),
          "commit or stash those files in your checkout, then accept again", std::nullopt, clash};
  return tl::unexpected(std::move(e));
}

} // namespace

std::vector<std::string> pending_accepts(const Project& project) {
  std::vector<std::string> notes;
  if (project.plain())
    if (std::string note = plain_pending_accept(project); !note.empty()) notes.push_back(note);
  for (const auto& file : intent_files(project)) {
    auto in = load_intent(file);
    if (!in) continue;
    if (util::process_alive(in->pid, in->pid_start)) continue;
    notes.push_back(
        fmt::format("an accept of '{}' into {} was interrupted; run `berth doctor --repair`",
                    in->workspace, in->target));
  }
  return notes;
}

// ---- the steps ---------------------------------------------------------------------------------

Result<Strategy> accept_strategy(const Project& project, const AcceptOptions& options) {
  if (options.strategy) return *options.strategy;
  auto configured = parse_strategy(project.config().get_string("accept.strategy"));
  if (!configured)
    return fail(ErrorCode::config_invalid,
                fmt::format("accept.strategy '{}' is not a strategy",
                            project.config().get_string("accept.strategy")),
                "use apply, merge, squash, ff or rebase");
  return *configured;
}

Result<Target> check_target(const Project& project, const Workspace& w,
                            const std::optional<std::string>& into) {
  Target target = BERTH_TRY(find_target(project, w, into));
  wait_for_running_accept(project, target.branch);
  BERTH_TRY(check_no_accept_pending(project, target.branch));
  std::string busy_with = BERTH_TRY(operation_in_progress(project, target));
  if (!busy_with.empty())
    return fail(ErrorCode::target_in_progress,
                fmt::format("{} is in the middle of {}{}; nothing was changed", target.branch,
                            busy_with, target.worktree.empty() ? "" : " in " + target.worktree),
                "finish it or abort it there (e.g. `git merge --abort`, `git rebase --abort`; "
                "resolve and `git add` the conflicted files), then accept again");
  return target;
}

Result<std::optional<Landing>> plan_landing(const Project& project, const Workspace& w,
                                            Strategy strategy, const AcceptOptions& options,
                                            const Target& target, GitlinkCheck& gitlinks,
                                            std::vector<std::string>& warnings) {
  // 1. The workspace's whole state as a commit, without touching the workspace: its commits plus
  //    anything uncommitted or untracked. The workspace's branch, index and files stay as they
  //    are, whatever the strategy and whatever happens next.
  Captured now = BERTH_TRY(capture(project, w));
  BERTH_TRY(refuse_unrecordable(w, now));
  // Never a gitlink the project cannot follow: submodule commits made reachable, or refused.
  gitlinks = BERTH_TRY(check_gitlinks(project, w, now, options.allow_gitlink));
  warnings.insert(warnings.end(), gitlinks.warnings.begin(), gitlinks.warnings.end());
  std::string source = now.head;
  if (!now.clean())
    source = BERTH_TRY(make_commit(project, now.work_tree, {now.head},
                                   fmt::format("berth: uncommitted work of {}", w.name)));
  auto mb_result =
      BERTH_TRY(git_status_of(repo_call(project, {"merge-base", target.commit, source})));
  std::string merge_base = mb_result.ok() ? chomp(mb_result.out) : w.base;
  std::string target_tree = BERTH_TRY(tree_of(project, target.commit));
  if (BERTH_TRY(tree_of(project, source)) == BERTH_TRY(tree_of(project, merge_base)) ||
      is_ancestor(project, source, target.commit))
    return std::nullopt;

  // 2. Preview the result before touching anything.
  std::string result_tree;
  GitCall preview = repo_call(project, {"merge-tree", "--write-tree", "--name-only", "-z",
                                        "--no-messages", target.commit, source});
  auto merged = BERTH_TRY(git_status_of(preview));
  if (merged.exit_code == 1) {
    Error e{
        ErrorCode::conflict,
        fmt::format("workspace '{}' conflicts with {}; nothing was changed", w.name, target.branch),
        fmt::format("run `berth sync {}` to merge {} into the workspace and resolve it there, then "
                    "accept again",
                    w.name, target.branch),
        std::nullopt,
        user_conflict_paths(project, parse_merge_tree(merged.out).conflicts,
                            {target.commit, source})};
    return tl::unexpected(std::move(e));
  }
  if (!merged.ok()) return tl::unexpected(git_error(preview, merged));
  result_tree = parse_merge_tree(merged.out).tree;
  // Everything it would change is in the target already (landed before, kept with --keep).
  if (result_tree == target_tree && strategy != Strategy::ff && strategy != Strategy::rebase)
    return std::nullopt;

  std::string new_commit;
  std::string message = options.message.value_or("");
  switch (strategy) {
  case Strategy::apply:
    break;
  case Strategy::ff:
    if (!is_ancestor(project, target.commit, source))
      return fail(ErrorCode::not_fast_forward,
                  fmt::format("{} has moved on since workspace '{}' started: not a fast-forward",
                              target.branch, w.name),
                  "use --strategy merge, squash or rebase, or `berth sync` first");
    new_commit = source;
    result_tree = BERTH_TRY(tree_of(project, source));
    break;
  case Strategy::merge:
    if (message.empty()) message = generated_message(project, w, merge_base, source, strategy);
    new_commit = BERTH_TRY(make_commit(project, result_tree, {target.commit, source}, message));
    break;
  case Strategy::squash:
    if (message.empty()) message = generated_message(project, w, merge_base, source, strategy);
    new_commit = BERTH_TRY(make_commit(project, result_tree, {target.commit}, message));
    break;
  case Strategy::rebase:
    // The workspace's commits replayed onto the target as objects; the workspace is untouched.
    new_commit =
        is_ancestor(project, target.commit, source)
            ? source
            : BERTH_TRY(replay(project, merge_base, source, target.commit, w.name, target.branch));
    if (new_commit == target.commit) return std::nullopt;
    result_tree = BERTH_TRY(tree_of(project, new_commit));
    break;
  }
  return Landing{w.name, strategy, target, new_commit, result_tree, now.head};
}

namespace {

// Whether the user asked to stop (Ctrl-C): asked only where stopping leaves nothing half-done.
bool stop_asked(const AcceptOptions& options) {
  return options.stop_requested && options.stop_requested();
}

// Stopped before the landing began: the hold puts the record back, nothing else was written.
Error stopped_before_landing(const std::string& name) {
  return Error{ErrorCode::stopped,
               fmt::format("interrupted: nothing was changed (workspace '{}' is as it was)", name),
               {},
               {},
               {}};
}

// No change to accept: the target has it all already. Not an error; nothing is touched.
Accepted nothing_to_accept(Accepted a, const Workspace& w, const Target& target) {
  a.empty = true;
  a.new_commit = target.commit;
  a.warnings.push_back(
      fmt::format("workspace '{}' has no change to accept into {}", w.name, target.branch));
  return a;
}

// check → plan → land, for a workspace this process holds. `*lost_race` says the target moved
// before its refs were locked (nothing changed; planning again may succeed).
Result<Accepted> plan_and_land(const Project& project, const Workspace& w, Strategy strategy,
                               const AcceptOptions& options, const Registry& registry, Accepted a,
                               bool* lost_race) {
  Target target = BERTH_TRY(check_target(project, w, options.into));
  a.target = target.branch;
  a.target_worktree = target.worktree;
  a.old_commit = target.commit;
  a.onto = target.commit;
  GitlinkCheck gitlinks;
  auto plan = plan_landing(project, w, strategy, options, target, gitlinks, a.warnings);
  // The change does not merge (the preview, or a replayed commit): a result naming the paths,
  // what it was merged onto and the workspace's HEAD; nothing was changed.
  if (!plan && plan.error().code == ErrorCode::conflict && !plan.error().paths.empty()) {
    a.conflicts = plan.error().paths;
    a.hint = plan.error().message + "; " + plan.error().hint;
    auto head = git_status_of(workspace_call(w, {"rev-parse", "-q", "--verify", "HEAD"}));
    a.head = head && head->ok() ? chomp(head->out) : std::string();
    a.new_commit = "";
    return a;
  }
  auto planned = BERTH_TRY(std::move(plan));
  if (!planned) return nothing_to_accept(std::move(a), w, target);
  const Landing& landing = *planned;
  a.head = landing.head;
  a.files = BERTH_TRY(changes_between(project, target.commit, landing.result_tree));
  if (strategy == Strategy::apply && target.worktree.empty())
    return fail(
        ErrorCode::usage,
        fmt::format("{} is not checked out anywhere, and apply stages the change in a checkout",
                    target.branch),
        "use --strategy squash or merge to update the branch without a checkout");

  // 3. The user's uncommitted work is never overwritten.
  if (!target.worktree.empty()) BERTH_TRY(check_target_clean(target, a.files));
  if (options.dry_run) {
    a.new_commit = landing.new_commit;
    return a;
  }
  // Ctrl-C so far stops here, with nothing changed; from here on the landing runs to its end
  // (its git calls do not get the terminal's signal) and the stop is honoured after it.
  if (stop_asked(options)) return tl::unexpected(stopped_before_landing(w.name));
  // The submodule commits it lands, kept where the project can follow them: only now that
  // nothing refuses (a ref of berth's in the user's module repository; harmless if the landing
  // itself then fails).
  BERTH_TRY(keep_gitlink_commits(gitlinks.keep));

  // 4. Land it. In a checkout: record the intent, then, with the branch's refs locked, write
  //    exactly the changed paths (a two-way read-tree keeps every other staged or unstaged change
  //    of the user) and move the branch. Checked out nowhere: only the ref moves.
  BERTH_TRY(land(project, registry, landing, lost_race, options.on_hook_output));
  a.new_commit = landing.new_commit;
  return a;
}

// The whole accept; accept_workspace() only names a full disk as such.
Result<Accepted> accept_steps(const Project& project, std::string_view name,
                              const AcceptOptions& options) {
  Accepted a;
  if (project.plain() && (options.strategy || options.into))
    return fail(ErrorCode::usage,
                fmt::format("--{} is for git repositories: a plain folder's accept writes the "
                            "change into the folder itself",
                            options.strategy ? "strategy" : "into"),
                "leave it out (docs/plain.md); --merge also merges files you changed in the "
                "folder");
  Strategy strategy = BERTH_TRY(accept_strategy(project, options));
  a.strategy = strategy;
  a.dry_run = options.dry_run;
  // A FIFO or the like in the checkout's own submodule git dirs (.git/modules/...) would make
  // accept's look at the checkout wait forever: refused before anything is written.
  BERTH_TRY(refuse_hostile_checkout_modules(project.common_dir()));

  // The workspace is held (busy) from here to the landing, but the registry lock only for as
  // long as it takes to say so.
  Registry registry(project.berth_dir());
  Workspace w;
  std::optional<AcceptHold> holding;
  {
    auto lock = BERTH_TRY(registry.lock());
    w = BERTH_TRY(usable_workspace(project, name));
    if (held_alive(w)) return tl::unexpected(busy_error(w));
    if (!options.dry_run) {
      holding.emplace(registry, w);
      BERTH_TRY(holding->take());
    }
  }
  a.name = w.name;
  if (!options.dry_run && stop_asked(options))
    return tl::unexpected(stopped_before_landing(w.name));
  if (project.plain()) {
    // A plain folder: the change is written into the folder itself (docs/plain.md).
    auto put = plain_accept(project, w, options, a);
    if (!put || put->empty || put->dry_run || !put->conflicts.empty()) return put;
    a = *put;
    BERTH_TRY(holding->finish(a.new_commit));
    if (!options.keep && !stop_asked(options)) discard_after_landing(project, w.name, a);
    return a;
  }
  // A branch that moves between the preview and the locking of its refs (the user committed)
  // changed nothing: the accept is planned again on top of the new commit, a few times.
  bool lost_race = false;
  Result<Accepted> landed = Accepted{};
  for (int attempt = 0; attempt < 3; ++attempt) {
    lost_race = false;
    landed = plan_and_land(project, w, strategy, options, registry, a, &lost_race);
    if (landed || !lost_race) break;
  }
  if (!landed) return landed;
  a = *landed;
  if (a.empty || a.dry_run || !a.conflicts.empty()) return a;

  // 5. Recorded: the workspace's record says landed (and at which commit), and nobody holds it.
  BERTH_TRY(holding->finish(a.new_commit.empty() ? a.old_commit : a.new_commit));
  // 6. The workspace is done: discarded (with its trash snapshot) unless --keep, or unless the
  //    user asked to stop (Ctrl-C): then it stays, landed, for `berth discard` (the caller says
  //    so).
  if (!options.keep && !stop_asked(options)) discard_after_landing(project, w.name, a);
  return a;
}

} // namespace

void discard_after_landing(const Project& project, const std::string& name, Accepted& a) {
  auto discarded = discard_workspace(project, name, Force::no, Trash::yes);
  if (discarded)
    a.discarded = *discarded;
  else
    a.warnings.push_back(
        fmt::format("landed, but discarding the workspace failed: {}", discarded.error().message));
}

Result<Accepted> accept_workspace(const Project& project, std::string_view name,
                                  const AcceptOptions& options) {
  auto accepted = accept_steps(project, name, options);
  if (accepted) return accepted;
  // A full disk can stop an accept before it writes into the checkout (its record, a commit
  // object, the intent): nothing was changed then, but the user should hear why.
  return tl::unexpected(blame_full_disk(accepted.error(), "accept again"));
}

} // namespace berth
