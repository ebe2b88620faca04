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
#include "core/admin_files.hpp"
#include "core/behind.hpp"
#include "core/capture.hpp"
#include "core/crash_checks.hpp"
#include "core/lease.hpp"
#include "core/name.hpp"
#include "core/nested.hpp"
#include "core/pool.hpp"
#include "core/porcelain.hpp"
#include "core/registry.hpp"
#include "core/review.hpp"
#include "core/roots.hpp"
#include "core/trash.hpp"
#include "core/tree_claim.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/paths.hpp"
#include "util/process_info.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <thread>
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

namespace {

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

std::string intents_dir(const Project& project) {
  return util::join(project.berth_dir(), "intents");
}

std::string intent_path(const Project& project, const std::string& target) {
  return util::join(intents_dir(project), name_slug(target) + ".json");
}

Result<void> save_intent(const Project& project, const Intent& in) {
  nlohmann::json paths = nlohmann::json::array();
  for (const auto& p : in.paths)
    paths.push_back({{"path", p.path},
                     {"old_mode", p.old_mode},
                     {"old_oid", p.old_oid},
                     {"new_mode", p.new_mode},
                     {"new_oid", p.new_oid}});
  nlohmann::json j = {{"version", 1},
                      {"workspace", in.workspace},
                      {"strategy", in.strategy},
                      {"target", in.target},
                      {"worktree", in.worktree},
                      {"old_commit", in.old_commit},
                      {"new_commit", in.new_commit},
                      {"new_tree", in.new_tree},
                      {"moves_head", in.moves_head},
                      {"time", in.time},
                      {"pid", in.pid},
                      {"pid_start", in.pid_start},
                      {"paths", paths}};
  if (auto made = util::make_dirs(intents_dir(project)); !made)
    return fail(ErrorCode::io_error, made.error());
  if (auto written = util::write_file_atomic(intent_path(project, in.target), j.dump(1) + "\n");
      !written)
    return fail(ErrorCode::io_error, written.error());
  return {};
}

Result<Intent> load_intent(const std::string& file) {
  auto text = util::read_file(file);
  if (!text) return fail(ErrorCode::io_error, text.error());
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded())
    return fail(ErrorCode::io_error, fmt::format("corrupt accept record {}", file));
  try {
    Intent in;
    in.workspace = j.at("workspace");
    in.strategy = j.at("strategy");
    in.target = j.at("target");
    in.worktree = j.at("worktree");
    in.old_commit = j.at("old_commit");
    in.new_commit = j.at("new_commit");
    in.new_tree = j.at("new_tree");
    in.moves_head = j.at("moves_head");
    in.time = j.at("time");
    in.pid = j.at("pid");
    in.pid_start = j.at("pid_start");
    for (const auto& p : j.at("paths"))
      in.paths.push_back(
          {p.at("path"), p.at("old_mode"), p.at("old_oid"), p.at("new_mode"), p.at("new_oid")});
    return in;
  } catch (const nlohmann::json::exception& e) {
    return fail(ErrorCode::io_error, fmt::format("corrupt accept record {}: {}", file, e.what()));
  }
}

std::vector<std::string> intent_files(const Project& project) {
  std::vector<std::string> files;
  DIR* d = ::opendir(intents_dir(project).c_str());
  if (!d) return files;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name.size() > 5 && name.substr(name.size() - 5) == ".json")
      files.push_back(util::join(intents_dir(project), name));
  }
  ::closedir(d);
  std::sort(files.begin(), files.end());
  return files;
}

// ---- helpers ----------------------------------------------------------------------------------

Result<std::vector<PathChange>> path_changes(const Project& project, const std::string& from,
                                             const std::string& to) {
  auto raw = BERTH_TRY(
      git(repo_call(project, {"diff-tree", "-r", "-z", "--raw", "--no-renames", from, to})));
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

struct Target {
  std::string branch;   // "main"
  std::string worktree; // "" when checked out nowhere
  std::string commit;
};

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
  auto tip = BERTH_TRY(
      git_status_of(repo_call(project, {"rev-parse", "--verify", "-q", "refs/heads/" + t.branch})));
  if (!tip.ok())
    return fail(ErrorCode::invalid_revision, fmt::format("no branch named '{}'", t.branch),
                "name an existing local branch with --into");
  t.commit = chomp(tip.out);
  for (const auto& e : entries)
    if (e.branch == "refs/heads/" + t.branch && e.path != w.path) t.worktree = e.path;
  return t;
}

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
  DIR* d = ::opendir(util::join(worktree, rel).c_str());
  if (!d) return false;
  bool only = true;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    std::string child = rel + "/" + name;
    struct stat st;
    if (::lstat(util::join(worktree, child).c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode) ? !only_leaving(worktree, child, leaving) : !leaving.count(child)) {
      only = false;
      break;
    }
  }
  ::closedir(d);
  return only;
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

// The content of `path` in `worktree` as a blob id ("" when absent), with the user's filters, the
// way `git add` would store it.
std::string current_oid(const std::string& worktree, const std::string& path) {
  std::string full = util::join(worktree, path);
  struct stat st;
  if (::lstat(full.c_str(), &st) != 0) return {};
  if (S_ISLNK(st.st_mode)) {
    char buf[4096];
    ssize_t n = ::readlink(full.c_str(), buf, sizeof buf);
    if (n < 0) return "?";
    auto r = git_status_of(GitCall{{"hash-object", "--stdin"},
                                   worktree,
                                   {},
                                   std::string(buf, static_cast<size_t>(n)),
                                   util::Stream::pipe});
    return r && r->ok() ? chomp(r->out) : "?";
  }
  if (!S_ISREG(st.st_mode)) return "?";
  auto r = git_status_of(
      GitCall{{"hash-object", "--path=" + path, "--", path}, worktree, {}, {}, util::Stream::pipe});
  return r && r->ok() ? chomp(r->out) : "?";
}

// `git ls-files -s -z` output as path -> blob id (stage 0 and conflict stages alike).
std::map<std::string, std::string> staged_oids(const std::string& listed) {
  std::map<std::string, std::string> staged;
  for (const auto& entry : split_z(listed)) {
    // "<mode> <oid> <stage>\t<path>"
    auto tab = entry.find('\t');
    auto first = entry.find(' ');
    auto second = first == std::string::npos ? first : entry.find(' ', first + 1);
    if (tab == std::string::npos || second == std::string::npos || second > tab) continue;
    staged[entry.substr(tab + 1)] = entry.substr(first + 1, second - first - 1);
  }
  return staged;
}

// Whether `path` holds only the beginning of blob `oid`: what a write cut short (a full disk, a
// crash) leaves behind. Such a file is a torn write of ours, not an edit of the user's.
bool cut_short(const std::string& worktree, const std::string& path, const std::string& oid) {
  if (oid.empty()) return false;
  std::string full = util::join(worktree, path);
  struct stat st;
  if (::lstat(full.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  auto blob =
      git_status_of(GitCall{{"cat-file", "blob", oid}, worktree, {}, {}, util::Stream::pipe});
  if (!blob || !blob->ok() || static_cast<size_t>(st.st_size) >= blob->out.size()) return false;
  auto text = util::read_file(full);
  return text && blob->out.compare(0, text->size(), *text) == 0;
}

// Bring exactly `paths` of `worktree` (index and files) to one side of an intent.
//
// A path is left alone (and listed in `left_alone`) when it is the user's now: its file holds
// neither side (edited since), or HEAD is neither of the intent's commits and holds something else
// there than the side we would write (the user committed it since: rolling it back would stage a
// deletion or a revert of their commit). `index_file` (GIT_INDEX_FILE) is the index to bring
// along: "" for the checkout's own; accept's copy while it holds index.lock (IndexGuard).
Result<std::vector<std::string>> settle_paths(const Intent& in, bool forward,
                                              std::vector<std::string>* left_alone,
                                              const std::string& index_file = {}) {
  std::map<std::string, std::optional<std::string>> index_env;
  if (!index_file.empty()) index_env["GIT_INDEX_FILE"] = index_file;
  std::vector<std::string> moved;
  std::string index_info;
  std::vector<std::string> to_write, to_delete;
  std::vector<const PathChange*> kept;
  auto head = git_status_of(
      GitCall{{"rev-parse", "-q", "--verify", "HEAD"}, in.worktree, {}, {}, util::Stream::pipe});
  std::string head_commit = head && head->ok() ? chomp(head->out) : "";
  bool head_is_ours =
      !head_commit.empty() && (head_commit == in.old_commit || head_commit == in.new_commit);
  std::map<std::string, std::string> at_head; // path -> oid, when HEAD is not ours
  if (!head_is_ours && !head_commit.empty()) {
    auto listed = BERTH_TRY(git(GitCall{{"ls-tree", "-r", "-z", "--full-tree", head_commit},
                                        in.worktree,
                                        {},
                                        {},
                                        util::Stream::pipe}));
    for (const auto& entry : split_z(listed.out)) {
      // "<mode> <type> <oid>\t<path>"
      auto tab = entry.find('\t');
      auto last_space = entry.rfind(' ', tab);
      if (tab == std::string::npos || last_space == std::string::npos) continue;
      at_head[entry.substr(tab + 1)] = entry.substr(last_space + 1, tab - last_space - 1);
    }
  }
  for (const auto& p : in.paths) {
    const std::string& want = forward ? p.new_oid : p.old_oid;
    const std::string& want_mode = forward ? p.new_mode : p.old_mode;
    const std::string& other = forward ? p.old_oid : p.new_oid;
    if (!head_is_ours && !head_commit.empty()) {
      auto it = at_head.find(p.path);
      if ((it == at_head.end() ? std::string() : it->second) != want) {
        left_alone->push_back(p.path);
        continue;
      }
    }
    std::string have = current_oid(in.worktree, p.path);
    // git removes a file before it writes the new version: a crash in between leaves the path
    // missing although both sides have it, and a full disk leaves a file cut short. Nothing of the
    // user's is there to lose.
    bool torn = (have.empty() && !p.old_oid.empty() && !p.new_oid.empty()) ||
                (have != want && have != other &&
                 (cut_short(in.worktree, p.path, want) || cut_short(in.worktree, p.path, other)));
    if (have != want && have != other && !torn) {
      // Neither side: the user edited it after the crash. Theirs now; not ours to touch.
      left_alone->push_back(p.path);
      kept.push_back(&p);
      continue;
    }
    if (want.empty())
      index_info += fmt::format("0 {}\t{}", std::string(other.size(), '0'), p.path) + '\0';
    else
      index_info += fmt::format("{} {}\t{}", want_mode, want, p.path) + '\0';
    if (have == want) continue;
    moved.push_back(p.path);
    // A torn file is removed first, so checkout-index writes it afresh.
    if (want.empty() || torn) to_delete.push_back(p.path);
    if (!want.empty()) to_write.push_back(p.path);
  }
  // A file left alone keeps its content, but an index entry still on the other side would make
  // the user's next commit undo that path's change silently: it follows the rest, unless the user
  // staged something of their own there.
  if (!kept.empty()) {
    std::vector<std::string> args{"ls-files", "-s", "-z", "--"};
    for (const auto* p : kept)
      args.push_back(p->path);
    auto env = index_env;
    env["GIT_LITERAL_PATHSPECS"] = "1";
    auto listed = BERTH_TRY(git(GitCall{args, in.worktree, env, {}, util::Stream::pipe}));
    std::map<std::string, std::string> staged = staged_oids(listed.out);
    for (const auto* p : kept) {
      const std::string& want = forward ? p->new_oid : p->old_oid;
      const std::string& other = forward ? p->old_oid : p->new_oid;
      auto it = staged.find(p->path);
      std::string in_index = it == staged.end() ? std::string() : it->second;
      if (in_index != other || in_index == want) continue;
      if (want.empty())
        index_info += fmt::format("0 {}\t{}", std::string(other.size(), '0'), p->path) + '\0';
      else
        index_info +=
            fmt::format("{} {}\t{}", forward ? p->new_mode : p->old_mode, want, p->path) + '\0';
    }
  }
  // Deletions first: on a full disk they make the room the index and the other files need.
  for (const auto& path : to_delete)
    ::unlink(util::join(in.worktree, path).c_str());
  if (!index_info.empty())
    BERTH_TRY(git(GitCall{{"update-index", "-z", "--index-info"},
                          in.worktree,
                          index_env,
                          index_info,
                          util::Stream::pipe}));
  if (!to_write.empty()) {
    std::vector<std::string> args{"checkout-index", "-f", "-q", "--"};
    args.insert(args.end(), to_write.begin(), to_write.end());
    BERTH_TRY(git(GitCall{args, in.worktree, index_env, {}, util::Stream::pipe}));
  }
  return moved;
}

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
  if (DIR* d = ::opendir(linked.c_str())) {
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') admin_dirs.push_back(util::join(linked, e->d_name));
    ::closedir(d);
  }
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

// ---- landing: all or nothing -------------------------------------------------------------------

// The first line of git's stderr that says what went wrong (git's advice follows it).
std::string first_complaint(const std::string& err) {
  for (const auto& line : split_lines(err))
    if (line.rfind("fatal: ", 0) == 0 || line.rfind("error: ", 0) == 0) return line.substr(7);
  return last_line(err);
}

// Git's own locks on the target's refs (HEAD and the branch it points to), taken by a
// `git update-ref --stdin` transaction that a child process keeps prepared while accept writes
// into the checkout. While they are held, a `git commit` of the user's fails to lock HEAD (a plain
// git error, nothing lost) instead of sweeping the half-landed files into their commit, and the
// branch move is certain before the first file is written. If berth dies, the child reads EOF
// and git aborts the transaction: the locks go with it.
class RefLock {
public:
  RefLock() = default;
  RefLock(RefLock&& other) noexcept
      : call_(std::move(other.call_)), child_(std::move(other.child_)) {
    other.child_.reset();
  }
  RefLock& operator=(RefLock&&) = delete;
  ~RefLock() { release(); }

  // `command` is the transaction's one line: "update HEAD <new> <old>" or "verify HEAD <old>".
  static Result<RefLock> take(const std::string& worktree, const std::string& command,
                              const std::string& reflog, const std::string& branch) {
    RefLock lock;
    lock.call_ =
        GitCall{{"update-ref", "-m", reflog, "--stdin"}, worktree, {}, {}, util::Stream::pipe};
    lock.child_.emplace(BERTH_TRY(git_start(lock.call_)));
    // One write: git never sees the transaction started without its prepare.
    bool sent = lock.child_->send("start\n" + command + "\nprepare\n");
    auto started = sent ? lock.child_->read_line() : std::nullopt;
    auto prepared = started ? lock.child_->read_line() : std::nullopt;
    if (started == "start: ok" && prepared == "prepare: ok") return lock;
    auto ended = lock.child_->communicate();
    lock.child_.reset();
    std::string said = ended ? chomp(ended->err) : std::string();
    if (said.find("cannot lock ref") != std::string::npos)
      return fail(ErrorCode::conflict,
                  fmt::format("{} moved, or another git command holds it; nothing was changed "
                              "({})",
                              branch, first_complaint(said)),
                  "run the accept again (if no git command is running, a git that crashed left "
                  "the lock file named here: remove it)");
    return tl::unexpected(git_error(lock.call_, ended ? *ended : util::ProcessResult{}));
  }

  Result<void> commit() {
    bool sent = child_->send("commit\n");
    auto line = sent ? child_->read_line() : std::nullopt;
    auto ended = child_->communicate();
    child_.reset();
    if (line == "commit: ok") return {};
    return tl::unexpected(git_error(call_, ended ? *ended : util::ProcessResult{}));
  }

private:
  void release() {
    if (!child_) return;
    (void)child_->send("abort\n");
    (void)child_->communicate();
    child_.reset();
  }
  GitCall call_;
  std::optional<util::Child> child_;
};

// Git's own lock on the checkout's index, taken by berth itself (O_EXCL, as git takes it) before
// the first file is written and held until the new index is in place. git writes into a copy of
// the index (GIT_INDEX_FILE), which replaces the index at the end as git's own commit of a lock
// would. The ref transaction's locks (RefLock) die with berth; this one stays on disk when berth
// dies half-way, so that the user's next `git commit -a` (any git command that writes the index)
// refuses with git's usual "Unable to create '.../index.lock': File exists" instead of
// committing a half-landed change. `berth doctor --repair` removes it once it has finished or
// rolled back the accept (it is no older than the intent). It says so inside, for whoever looks.
class IndexGuard {
public:
  IndexGuard(IndexGuard&& other) noexcept
      : lock_(std::move(other.lock_)), work_(std::move(other.work_)), fd_(other.fd_),
        keep_(other.keep_) {
    other.fd_ = -1;
    other.lock_.clear();
  }
  IndexGuard& operator=(IndexGuard&&) = delete;
  ~IndexGuard() {
    (void)::unlink(work_.c_str());
    if (fd_ >= 0) ::close(fd_);
    if (!lock_.empty() && !keep_) (void)::unlink(lock_.c_str());
  }

  // nullopt when someone else (the user's git) holds index.lock: nothing was written.
  static Result<std::optional<IndexGuard>> take(const std::string& gitdir, const Intent& in) {
    std::string lock = util::join(gitdir, "index.lock");
    int fd = ::open(lock.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST) return std::optional<IndexGuard>();
    if (fd < 0)
      return fail(ErrorCode::io_error,
                  fmt::format("cannot create {}: {}", lock, std::strerror(errno)));
    IndexGuard guard(lock, util::join(gitdir, berth_index_leaf()), fd);
    std::string note = fmt::format(
        "berth accept of '{}' into {} (pid {}) holds this lock while it writes.\nIf that "
        "accept is gone, run `berth doctor --repair`: it finishes or rolls back the change and "
        "removes this file.\n",
        in.workspace, in.target, in.pid);
    (void)!::write(fd, note.data(), note.size());
    // The copy: a hard link is enough, git never writes an index in place (it renames a new one
    // over it). No index yet: git reads a missing one as empty, as it would the real one.
    std::string index = util::join(gitdir, "index");
    (void)::unlink(guard.work_.c_str());
    if (util::exists(index) && ::link(index.c_str(), guard.work_.c_str()) != 0) {
      auto content = util::read_file(index);
      if (!content || !util::write_file_atomic(guard.work_, *content))
        return fail(ErrorCode::io_error, fmt::format("cannot copy {}", index));
    }
    return std::optional<IndexGuard>(std::move(guard));
  }

  // The copy git writes into, and which becomes the index.
  const std::string& work_index() const { return work_; }
  static const char* berth_index_leaf() { return "index.berth-accept"; }

  // The new index in place, the lock gone.
  Result<void> commit() {
    std::string index = util::join(util::dirname(lock_), "index");
    if (util::exists(work_) && ::rename(work_.c_str(), index.c_str()) != 0)
      return fail(ErrorCode::io_error,
                  fmt::format("cannot move {} to {}: {}", work_, index, std::strerror(errno)));
    return {};
  }
  // Something could not be put back: the lock stays, so that git refuses to commit the
  // half-written checkout until `berth doctor --repair` has settled it.
  void keep() { keep_ = true; }

private:
  IndexGuard(std::string lock, std::string work, int fd)
      : lock_(std::move(lock)), work_(std::move(work)), fd_(fd) {}
  std::string lock_, work_;
  int fd_ = -1;
  bool keep_ = false;
};

// After a failed write into the checkout: put the written paths back at once (the index copy
// along with them). True when the checkout is as it was (the intent can go); false when
// something could not be put back (the intent stays for `berth doctor --repair`).
bool undo_partial_write(const Intent& in, const std::string& index_file) {
  std::vector<std::string> left_alone;
  auto undone = settle_paths(in, false, &left_alone, index_file);
  return undone && left_alone.empty();
}

// Write the change into the checkout that has the target branch, and move the branch: all or
// nothing. The intent is on disk already.
Result<void> land_in_checkout(const Project& project, const Intent& in, const std::string& reflog,
                              bool* lost_race) {
  std::string intent_file = intent_path(project, in.target);
  std::string command = in.moves_head
                            ? fmt::format("update HEAD {} {}", in.new_commit, in.old_commit)
                            : fmt::format("verify HEAD {}", in.old_commit);
  auto lock = RefLock::take(in.worktree, command, reflog, in.target);
  if (!lock) {
    (void)::unlink(intent_file.c_str()); // nothing was written
    *lost_race = lock.error().code == ErrorCode::conflict;
    return tl::unexpected(lock.error());
  }
  auto gitdir = git_out(in.worktree, {"rev-parse", "--absolute-git-dir"});
  if (!gitdir) {
    (void)::unlink(intent_file.c_str());
    return tl::unexpected(gitdir.error());
  }
  auto guard = IndexGuard::take(*gitdir, in);
  if (!guard || !*guard) {
    (void)::unlink(intent_file.c_str()); // nothing was written
    if (!guard) return tl::unexpected(guard.error());
    // Another git command (the user's `git add`, `git commit`) holds the index. Lost like a race
    // on the branch.
    *lost_race = true;
    return fail(ErrorCode::conflict,
                fmt::format("another git command was using the index of {}; nothing was changed",
                            in.worktree),
                "run the accept again");
  }
  std::map<std::string, std::optional<std::string>> copy{
      {"GIT_INDEX_FILE", (*guard)->work_index()}};
  (void)git_status_of(
      GitCall{{"update-index", "-q", "--refresh"}, in.worktree, copy, {}, util::Stream::pipe});
  GitCall write{{"read-tree", "-m", "-u", in.old_commit, in.new_tree},
                in.worktree,
                copy,
                {},
                util::Stream::pipe};
  auto started = git_status_of(write);
  if (!started) {
    (void)::unlink(intent_file.c_str()); // git did not even start: nothing was written
    return tl::unexpected(started.error());
  }
  util::ProcessResult written = std::move(*started);
  std::optional<Error> failed;
  if (!written.ok())
    failed = git_error(write, written,
                       fmt::format("cannot write the change into {}: {}", in.worktree,
                                   first_complaint(written.err)));
  else if (auto moved = lock->commit(); !moved)
    failed = moved.error();
  // The refs moved: the new index goes in place (a kill before this leaves the lock, and the
  // intent, for doctor).
  else if (auto placed = (*guard)->commit(); !placed) {
    (*guard)->keep();
    Error e = placed.error();
    e.code = ErrorCode::interrupted;
    e.hint = "run `berth doctor --repair` to finish it";
    return tl::unexpected(std::move(e));
  }
  if (!failed) {
    (void)::unlink(intent_file.c_str());
    return {};
  }
  // read-tree checks before it writes, but a full disk (or any write error) stops it half-way.
  bool full = says_no_space(written.err) || (failed->git && says_no_space(failed->git->err)) ||
              (!written.ok() && disk_full(in.worktree));
  bool undone = undo_partial_write(in, (*guard)->work_index());
  if (undone)
    (void)::unlink(intent_file.c_str());
  else
    (*guard)->keep();
  Error e = *failed;
  if (full) {
    e.code = ErrorCode::no_space;
    e.message = fmt::format("the disk of {} is full; {}", in.worktree,
                            undone ? "nothing was changed" : "the accept is half-way");
    e.hint = undone ? "free some space, then accept again"
                    : "free some space, then run `berth doctor --repair` to finish or roll it back";
  } else if (!undone) {
    e.code = ErrorCode::interrupted;
    e.hint = "run `berth doctor --repair` to finish or roll it back";
  } else {
    e.message += "; nothing was changed";
  }
  return tl::unexpected(std::move(e));
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

// An earlier accept into `branch` that has not finished: still running (busy) or interrupted.
Result<void> check_no_accept_pending(const Project& project, const std::string& branch) {
  std::string file = intent_path(project, branch);
  if (!util::exists(file)) return {};
  auto in = load_intent(file);
  if (in && util::process_alive(in->pid, in->pid_start))
    return fail(ErrorCode::busy,
                fmt::format("another accept into {} is running (pid {})", branch, in->pid),
                "wait for it to finish, then accept again");
  return fail(ErrorCode::interrupted,
              fmt::format("an earlier accept into {} was interrupted", branch),
              "run `berth doctor --repair` first");
}

// Another accept into `branch` still running (two agents accepting at once): wait for it — an
// accept takes seconds — so that they land one after the other, the second planned on top of the
// first, instead of the second being refused. Never under the registry lock; after
// kAcceptWaitSeconds the check that follows refuses `busy` as before.
constexpr int kAcceptWaitSeconds = 30;
void wait_for_running_accept(const Project& project, const std::string& branch) {
  std::string file = intent_path(project, branch);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kAcceptWaitSeconds);
  while (std::chrono::steady_clock::now() < deadline) {
    auto in = load_intent(file); // gone (finished) or unreadable: nothing to wait for
    if (!in || !util::process_alive(in->pid, in->pid_start)) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// Record the intent, before the first file is written; under the registry lock, so that two
// accepts into one branch never both go ahead.
Result<void> claim_intent(const Project& project, const Registry& registry, const Intent& in) {
  auto lock = BERTH_TRY(registry.lock());
  BERTH_TRY(check_no_accept_pending(project, in.target));
  auto saved = save_intent(project, in);
  if (!saved && says_no_space(saved.error().message))
    return fail(ErrorCode::no_space,
                fmt::format("the disk of {} is full; nothing was changed", project.common_dir()),
                "free some space, then accept again");
  return saved;
}

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

// Steps 1 to 4 of an accept, for a workspace this process holds: plan the result as objects,
// check the target, and land it. `*lost_race` says the target moved before its refs were locked
// (nothing changed; planning again may succeed).
Result<Accepted> plan_and_land(const Project& project, const Workspace& w, Strategy strategy,
                               const AcceptOptions& options, const Registry& registry, Accepted a,
                               bool* lost_race) {
  Target target = BERTH_TRY(find_target(project, w, options.into));
  a.target = target.branch;
  a.target_worktree = target.worktree;
  a.old_commit = target.commit;
  wait_for_running_accept(project, target.branch);
  BERTH_TRY(check_no_accept_pending(project, target.branch));
  std::string busy_with = BERTH_TRY(operation_in_progress(project, target));
  if (!busy_with.empty())
    return fail(ErrorCode::target_in_progress,
                fmt::format("{} is in the middle of {}{}; nothing was changed", target.branch,
                            busy_with, target.worktree.empty() ? "" : " in " + target.worktree),
                "finish it or abort it there (e.g. `git merge --abort`, `git rebase --abort`; "
                "resolve and `git add` the conflicted files), then accept again");

  // 1. The workspace's whole state as a commit, without touching the workspace: its commits plus
  //    anything uncommitted or untracked. The workspace's branch, index and files stay as they
  //    are, whatever the strategy and whatever happens next.
  Captured now = BERTH_TRY(capture(project, w));
  BERTH_TRY(refuse_unrecordable(w, now));
  // Never a gitlink the project cannot follow: submodule commits made reachable, or refused.
  GitlinkCheck gitlinks = BERTH_TRY(check_gitlinks(project, w, now, options.allow_gitlink));
  a.warnings.insert(a.warnings.end(), gitlinks.warnings.begin(), gitlinks.warnings.end());
  std::string source = now.head;
  if (!now.clean())
    source = BERTH_TRY(make_commit(project, now.work_tree, {now.head},
                                   fmt::format("berth: uncommitted work of {}", w.name)));
  auto mb_result =
      BERTH_TRY(git_status_of(repo_call(project, {"merge-base", target.commit, source})));
  std::string merge_base = mb_result.ok() ? chomp(mb_result.out) : w.base;
  auto nothing_to_accept = [&]() {
    a.empty = true;
    a.new_commit = target.commit;
    a.warnings.push_back(
        fmt::format("workspace '{}' has no change to accept into {}", w.name, target.branch));
    return a;
  };
  std::string target_tree = BERTH_TRY(tree_of(project, target.commit));
  if (BERTH_TRY(tree_of(project, source)) == BERTH_TRY(tree_of(project, merge_base)) ||
      is_ancestor(project, source, target.commit))
    return nothing_to_accept();

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
    return nothing_to_accept();

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
    if (new_commit == target.commit) return nothing_to_accept();
    result_tree = BERTH_TRY(tree_of(project, new_commit));
    break;
  }
  a.files = BERTH_TRY(changes_between(project, target.commit, result_tree));
  if (strategy == Strategy::apply && target.worktree.empty())
    return fail(
        ErrorCode::usage,
        fmt::format("{} is not checked out anywhere, and apply stages the change in a checkout",
                    target.branch),
        "use --strategy squash or merge to update the branch without a checkout");

  // 3. The user's uncommitted work is never overwritten.
  if (!target.worktree.empty()) BERTH_TRY(check_target_clean(target, a.files));
  if (options.dry_run) {
    a.new_commit = new_commit;
    return a;
  }
  // The submodule commits it lands, kept where the project can follow them: only now that
  // nothing refuses (a ref of berth's in the user's module repository; harmless if the landing
  // itself then fails).
  BERTH_TRY(keep_gitlink_commits(gitlinks.keep));

  // 4. Land it. In a checkout: record the intent, then, with the branch's refs locked, write
  //    exactly the changed paths (a two-way read-tree keeps every other staged or unstaged change
  //    of the user) and move the branch. Checked out nowhere: only the ref moves.
  std::string reflog = fmt::format("berth accept {} ({})", w.name, strategy_name(strategy));
  if (!target.worktree.empty()) {
    Intent in;
    in.workspace = w.name;
    in.strategy = std::string(strategy_name(strategy));
    in.target = target.branch;
    in.worktree = target.worktree;
    in.old_commit = target.commit;
    in.new_commit = new_commit;
    in.new_tree = result_tree;
    in.moves_head = strategy != Strategy::apply;
    in.time = unix_now();
    in.pid = static_cast<int>(::getpid());
    in.pid_start = util::process_start_time(::getpid());
    in.paths = BERTH_TRY(path_changes(project, target.commit, result_tree));
    if (auto claimed = claim_intent(project, registry, in); !claimed) {
      // Another accept claimed the branch since we waited: plan again once it has landed.
      *lost_race = claimed.error().code == ErrorCode::busy;
      return tl::unexpected(claimed.error());
    }
    BERTH_TRY(land_in_checkout(project, in, reflog, lost_race));
    if (in.moves_head) {
      GitCall hook{{"hook", "run", "--ignore-missing", "post-merge", "--",
                    strategy == Strategy::squash ? "1" : "0"},
                   target.worktree,
                   {},
                   {},
                   util::Stream::inherit};
      (void)git_status_of(hook);
    }
  } else {
    GitCall move = repo_call(project, {"update-ref", "-m", reflog, "refs/heads/" + target.branch,
                                       new_commit, target.commit});
    auto moved = BERTH_TRY(git_status_of(move));
    if (!moved.ok()) {
      *lost_race = true;
      return fail(
          ErrorCode::conflict,
          fmt::format("{} moved while accepting '{}'; nothing was changed", target.branch, w.name),
          "run the accept again");
    }
  }
  a.new_commit = new_commit;

  return a;
}

namespace {

// The whole accept; accept_workspace() only names a full disk as such.
Result<Accepted> accept_steps(const Project& project, std::string_view name,
                              const AcceptOptions& options) {
  Accepted a;
  Strategy strategy = Strategy::apply;
  if (options.strategy) {
    strategy = *options.strategy;
  } else {
    auto configured = parse_strategy(project.config().get_string("accept.strategy"));
    if (!configured)
      return fail(ErrorCode::config_invalid,
                  fmt::format("accept.strategy '{}' is not a strategy",
                              project.config().get_string("accept.strategy")),
                  "use apply, merge, squash, ff or rebase");
    strategy = *configured;
  }
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
  if (a.empty || a.dry_run) return a;

  // 5. The workspace is done: landed, then discarded (with its trash snapshot) unless --keep.
  BERTH_TRY(holding->finish(a.new_commit.empty() ? a.old_commit : a.new_commit));
  if (!options.keep) {
    auto discarded = discard_workspace(project, w.name, Force::no, Trash::yes);
    if (discarded)
      a.discarded = *discarded;
    else
      a.warnings.push_back(fmt::format("landed, but discarding the workspace failed: {}",
                                       discarded.error().message));
  }
  return a;
}

} // namespace

Result<Accepted> accept_workspace(const Project& project, std::string_view name,
                                  const AcceptOptions& options) {
  auto accepted = accept_steps(project, name, options);
  if (accepted) return accepted;
  // A full disk can stop an accept before it writes into the checkout (its record, a commit
  // object, the intent): nothing was changed then, but the user should hear why.
  return tl::unexpected(blame_full_disk(accepted.error(), "accept again"));
}

Result<Synced> sync_workspace(const Project& project, std::string_view name,
                              std::optional<std::string> onto, SyncMode mode) {
  // Busy while it syncs: a discard, a commit or another sync waits its turn (refused busy).
  Lease lease = BERTH_TRY(Lease::take(project, name, "sync"));
  const Workspace& w = lease.workspace();
  Synced s;
  s.name = w.name;
  std::string onto_commit;
  std::string label = onto.value_or("");
  if (onto) {
    auto r = BERTH_TRY(git_status_of(
        GitCall{{"rev-parse", "--verify", "-q", "--end-of-options", *onto + "^{commit}"},
                project.cwd(),
                {},
                {},
                util::Stream::pipe}));
    if (onto->empty() || onto->front() == '-' || !r.ok())
      return fail(ErrorCode::invalid_revision, fmt::format("unknown revision '{}'", *onto),
                  "name a branch or commit");
    onto_commit = chomp(r.out);
  } else {
    Target t = BERTH_TRY(find_target(project, w, std::nullopt));
    onto_commit = t.commit;
    label = t.branch;
  }
  s.onto = onto_commit;
  auto head = git(workspace_call(w, {"rev-parse", "--verify", "HEAD^{commit}"}));
  if (!head) BERTH_TRY(refuse_lost_branch(project, w)); // its branch deleted under it
  s.old_head = chomp(BERTH_TRY(std::move(head)).out);
  if (is_ancestor(project, onto_commit, s.old_head)) {
    s.up_to_date = true;
    s.new_head = s.old_head;
    return s;
  }
  // A sync killed half-way is undone by the next command (crash_checks.hpp): the marker says
  // where it started, what was staged then (so the undo gives back the index, not only the
  // files) and, once the agent's work is committed, from which commit it merges. An index git
  // cannot write as a tree (unmerged entries) is recorded as "": the undo then leaves it at HEAD.
  auto staged = git_status_of(workspace_call(w, {"write-tree"}));
  std::string staged_tree = staged && staged->ok() ? chomp(staged->out) : std::string();
  auto marked = BERTH_TRY(WorkspaceOp::begin(project, w, "sync",
                                             {{"start", s.old_head},
                                              {"onto", onto_commit},
                                              {"phase", "commit"},
                                              {"committed", ""},
                                              {"staged", staged_tree}}));
  // The agent's uncommitted work is committed first, so the merge can never mix with it.
  std::string committed = BERTH_TRY(
      commit_work_tree(project, w, fmt::format("berth: uncommitted work of {}", w.name), nullptr));
  BERTH_TRY(marked.update("committed", committed.empty() ? s.old_head : committed));
  BERTH_TRY(marked.update("phase", "merge"));
  GitCall call =
      mode == SyncMode::merge
          ? workspace_call(w, {"merge", "--no-edit", "-m",
                               fmt::format("berth sync: merge {} into {}", label, w.name),
                               onto_commit})
          : workspace_call(w, {"rebase", onto_commit});
  if (!has_identity(project)) call.env = berth_identity();
  auto result = BERTH_TRY(git_status_of(call));
  s.new_head = chomp(BERTH_TRY(git(workspace_call(w, {"rev-parse", "HEAD"}))).out);
  Registry registry(project.berth_dir());
  {
    auto lock = BERTH_TRY(registry.lock());
    if (auto record = BERTH_TRY(registry.load(name_slug(w.name)))) {
      record->synced = onto_commit;
      BERTH_TRY(registry.save(*record));
    }
  }
  if (!result.ok()) {
    auto unmerged =
        BERTH_TRY(git(workspace_call(w, {"diff", "--name-only", "-z", "--diff-filter=U"})));
    if (unmerged.out.empty()) {
      // Not a conflict (a git took the index meanwhile, say): the sync did not happen. Its
      // marker stays, so the next berth command puts the workspace back where it started (the
      // agent's work uncommitted again), as after a crash.
      marked.keep();
      Error e = git_error(call, result);
      e.hint = (e.hint.empty() ? "" : e.hint + "; ") +
               "the next berth command puts the workspace back where the sync started";
      return tl::unexpected(std::move(e));
    }
    s.conflicts =
        user_conflict_paths(project, split_z(unmerged.out), {s.new_head, onto_commit, s.old_head});
    Error e{ErrorCode::conflict,
            fmt::format("sync left {} conflicted file(s) in workspace '{}'", s.conflicts.size(),
                        w.name),
            mode == SyncMode::merge
                ? "resolve them in the workspace and commit (git add + git commit), then accept"
                : "resolve them in the workspace, then `git rebase --continue` there",
            std::nullopt, s.conflicts};
    return tl::unexpected(std::move(e));
  }
  return s;
}

// doctor --repair's ref updates, made without the project lock (a user's reference-transaction
// hook runs for each, and may take its time): each is a compare-and-swap on what was judged, so a
// command that changed a ref meanwhile makes the update fail rather than be undone by it.
// - Orphan branches, judged against records read now: a `new` claims its record (under the
//   lock) before its branch exists, and a branch that exists blocks every `new`/`restore` of it.
// - Branches deleted behind berth's back, made again only where none exists now, for records
//   not held by a live command since.
// - The trash's damaged or blocking refs, moved aside (created before the old one goes).
static void doctor_ref_repairs(const Project& project, const std::vector<Workspace>& branch_checks,
                               DoctorReport& report) {
  Registry registry(project.berth_dir());
  std::vector<Problem> ignored;
  auto now = registry.load_all(&ignored);
  if (now) {
    auto orphans = orphan_branches(project, *now, Repair::yes, report.repaired);
    report.problems.insert(report.problems.end(), orphans.begin(), orphans.end());
  }
  for (const auto& w : branch_checks) {
    auto fresh = registry.load(name_slug(w.name));
    if (!fresh || !*fresh) continue; // discarded meanwhile
    if (held(**fresh) && util::process_alive((*fresh)->holder_pid, (*fresh)->holder_start))
      continue; // a live command has it now
    check_branch(project, **fresh, Repair::yes, report);
  }
  check_trash(project, Repair::yes, report);
}

Result<DoctorReport> doctor(const Project& project, Repair repair) {
  DoctorReport report;
  Registry registry(project.berth_dir());
  // What berth commands that died left half made or half removed is finished or undone first
  // (as the next command would), so the checks below see settled records.
  if (repair == Repair::yes) {
    settle_dead_ops(project, &report.repaired);
    BERTH_TRY(recover_interrupted(project));
  }

  // Interrupted accepts: finish them (the user asked for the change) unless the branch has moved
  // elsewhere since, in which case the written paths are rolled back. Only the recorded paths are
  // touched, and only where they hold exactly the old or the new content. Not under the project
  // lock: this writes into the user's checkout and moves its HEAD (their hooks run); the dead
  // intent itself keeps every other accept into that branch away, each path is written only
  // where it holds the old or the new content, and HEAD moves by compare-and-swap.
  for (const auto& file : intent_files(project)) {
    auto loaded = load_intent(file);
    if (!loaded) {
      report.problems.push_back(
          {"intent_unreadable", "", file, loaded.error().message, loaded.error().hint});
      continue;
    }
    Intent in = *loaded;
    if (util::process_alive(in.pid, in.pid_start)) continue; // still running
    std::string what = fmt::format("interrupted accept of '{}' into {} ({} file(s))", in.workspace,
                                   in.target, in.paths.size());
    if (repair == Repair::no) {
      std::string hint = "berth doctor --repair (finishes it, or rolls it back if " + in.target +
                         " has moved since";
      // The dead accept's index.lock (IndexGuard) keeps the user's git from committing the
      // half-written checkout meanwhile: named, so that nobody takes it for a stray lock.
      struct stat st;
      auto gitdir = git_out(in.worktree, {"rev-parse", "--absolute-git-dir"});
      if (std::string guard = gitdir ? util::join(*gitdir, "index.lock") : std::string();
          !guard.empty() && ::stat(guard.c_str(), &st) == 0 && st.st_mtime + 1 >= in.time)
        hint += "; it also removes " + guard + ", which keeps git from committing there until then";
      report.problems.push_back(
          {"interrupted_accept", in.workspace, in.worktree, what, hint + ")"});
      continue;
    }
    // The accept's own index.lock (IndexGuard), which keeps git from committing the half-written
    // checkout, and its copy of the index; a git killed with it leaves its lock too. Ours if no
    // older than the intent.
    std::string gitdir = BERTH_TRY(git_out(in.worktree, {"rev-parse", "--absolute-git-dir"}));
    std::string copy = util::join(gitdir, IndexGuard::berth_index_leaf());
    // So does a ref transaction killed with it (the machine went down): HEAD's and the branch's.
    struct stat st;
    for (const auto& stale :
         {util::join(gitdir, "index.lock"), copy, copy + ".lock", util::join(gitdir, "HEAD.lock"),
          util::join(project.common_dir(), "refs/heads/" + in.target + ".lock")})
      if (::stat(stale.c_str(), &st) == 0 && st.st_mtime + 1 >= in.time) ::unlink(stale.c_str());

    std::string head = chomp(
        BERTH_TRY(git(GitCall{{"rev-parse", "HEAD"}, in.worktree, {}, {}, util::Stream::pipe}))
            .out);
    bool forward = !in.moves_head || head == in.old_commit || head == in.new_commit;
    std::vector<std::string> left_alone;
    auto moved = BERTH_TRY(settle_paths(in, forward, &left_alone));
    if (forward && in.moves_head && head == in.old_commit) {
      GitCall finish{{"update-ref", "-m", "berth doctor: finish accept of " + in.workspace, "HEAD",
                      in.new_commit, in.old_commit},
                     in.worktree,
                     {},
                     {},
                     util::Stream::pipe};
      auto moved_head = BERTH_TRY(git_status_of(finish));
      // Refused because another `doctor --repair` finished it first: done all the same.
      if (!moved_head.ok() &&
          chomp(BERTH_TRY(
                    git(GitCall{{"rev-parse", "HEAD"}, in.worktree, {}, {}, util::Stream::pipe}))
                    .out) != in.new_commit)
        return tl::unexpected(git_error(finish, moved_head));
    }
    report.repaired.push_back(fmt::format("{}: {} ({} file(s) written)", what,
                                          forward ? "finished" : "rolled back", moved.size()));
    for (const auto& p : left_alone)
      report.problems.push_back(
          {"accept_path_changed", in.workspace, util::join(in.worktree, p),
           fmt::format("{}: {} was changed since; left as it is", in.worktree, p),
           "compare it with the workspace's version (`berth diff " + in.workspace +
               "`) and settle it by hand"});
    ::unlink(file.c_str());
    if (forward) {
      auto relock = BERTH_TRY(registry.lock());
      if (auto record = registry.load(name_slug(in.workspace)); record && *record) {
        (*record)->state = State::landed;
        (*record)->holder_pid = 0;
        (*record)->holder_start = 0;
        (*record)->landed_commit = in.new_commit.empty() ? in.old_commit : in.new_commit;
        (void)registry.save(**record);
      }
    }
  }

  // Registry against git and the disk, under the lock: no command changes what is judged here.
  // Repairs that update refs (a user's reference-transaction hook runs for each) are made after
  // the lock is released, below; under it they are only judged.
  const Repair ref_repair = repair;
  std::vector<Workspace> branch_checks; // records whose branch is checked once the lock is gone
  auto lock = BERTH_TRY(registry.lock());
  auto records = BERTH_TRY(registry.load_all(&report.problems));
  // Planted FIFOs and the like first: every git call below would wait on them. Left in place
  // (no --repair), those `git worktree list` reads stop the look here.
  doctor_admin_files(project, records, repair, report);
  doctor_aside_leftovers(project, records, repair, report);
  if (!admin_dir_blocking_list(project.common_dir()).empty()) return report;
  // A moved repository: records re-linked to the admin dirs git has now (with --repair, after
  // `git worktree repair` for trees whose .git file still names the old place). git's list of
  // worktrees is read after that repair.
  std::vector<std::string> gone_names; // discarded by --repair once the lock is released
  auto relinked = relink_moved(project, records, repair);
  report.repaired.insert(report.repaired.end(), relinked.relinked.begin(), relinked.relinked.end());
  report.problems.insert(report.problems.end(), relinked.problems.begin(), relinked.problems.end());
  auto entries = BERTH_TRY(worktrees(project));
  // Crash leftovers (docs/crashes.md): each check says what a dead command left, and settles it
  // under --repair.
  auto interrupted = interrupted_commands(project, records);
  auto append = [&](std::vector<Problem> found) {
    report.problems.insert(report.problems.end(), found.begin(), found.end());
  };
  append(interrupted);
  append(interrupted_ops(project));
  // The repository's ref locks first: deleting an orphan branch needs packed-refs.lock free.
  append(stale_repo_locks(project, repair, report.repaired));
  if (ref_repair == Repair::no)
    append(orphan_branches(project, records, Repair::no, report.repaired));
  append(stale_locks(records, repair, report.repaired));
  append(stale_temp_files(project, repair, report.repaired));
  for (const auto& w : records) {
    if (auto why = record_problem(project, w); !why.empty()) {
      report.problems.push_back(
          {"record_invalid", w.name, w.path,
           fmt::format("workspace '{}': its record cannot be trusted: {}; berth does not act on it",
                       w.name, why),
           fmt::format("fix or move aside its record under {} (the files it names are left as "
                       "they are)",
                       registry.dir())});
      continue;
    }
    if (needs_relink(project, {w}) && util::exists(w.path)) continue; // said above
    if (std::any_of(interrupted.begin(), interrupted.end(),
                    [&](const Problem& p) { return p.name == w.name; }))
      continue; // said above: the half-made record is not a workspace to check
    // A live `new` or `discard` makes or removes its worktree and branch without the lock: a
    // workspace half made or half gone is theirs, not a problem.
    if ((w.state == State::creating || w.state == State::discarding) &&
        util::process_alive(w.holder_pid, w.holder_start))
      continue;
    // A record that does not match git never gets a tree deleted: say which and why.
    if (util::exists(w.path)) {
      if (unlinked(w)) {
        report.problems.push_back(
            {"unlinked", w.name, w.path,
             fmt::format("workspace '{}': its directory {} is there but its git admin dir {} is "
                         "not; berth will not delete it",
                         w.name, w.path, w.git_dir),
             "save what you need from the directory, then `berth discard " + w.name + "`"});
        continue;
      }
      if (auto problem = tree_claim_problem(project, records, w); !problem.empty()) {
        report.problems.push_back(
            {"record_mismatch", w.name, w.path,
             fmt::format("workspace '{}': its record does not match git: {}", w.name, problem),
             "check the record (<git-common-dir>/berth/workspaces/) against `git worktree list`; "
             "berth leaves the directory alone"});
        continue;
      }
    }
    check_gitfile(w, repair, report);
    // Submodule links a move of the repository broke (records re-linked by an older berth).
    if (repair == Repair::yes && util::is_directory(w.path))
      for (const auto& path : repair_submodule_links(w))
        report.repaired.push_back(
            fmt::format("workspace '{}': submodule {} re-linked to its module", w.name, path));
    // Removed or pruned behind berth's back (a live `new` or `discard` is not: it is at work).
    if (held(w) && util::process_alive(w.holder_pid, w.holder_start)) continue;
    if (auto gone = gone_problem(project, w, entries)) {
      report.problems.push_back(*gone);
      // (Not when its whole root is gone: an unmounted disk comes back with the work on it.)
      if (repair == Repair::yes && !util::exists(w.path) &&
          util::is_directory(util::dirname(w.path)))
        gone_names.push_back(w.name);
    } else if (ref_repair == Repair::no) {
      check_branch(project, w, Repair::no, report);
    } else {
      branch_checks.push_back(w);
    }
  }
  if (ref_repair == Repair::no) check_trash(project, Repair::no, report);
  check_config(project, repair, report);
  check_work_tree_note(project, repair, report);
  // Discarded trees wait in the .trash folder of the root they lived in, whichever it is.
  auto roots = workspace_roots(project);
  auto in_trash = [&](const std::string& path) {
    std::string folder = util::dirname(util::lexically_normal(path));
    return util::basename(folder) == ".trash" &&
           std::find(roots.begin(), roots.end(), util::dirname(folder)) != roots.end();
  };
  // A deleter at work (the background one, or a `pool fill`) holds the trash lock; --repair
  // holds it itself while it deletes, so the two never settle the same tree at once.
  // (Taken only when there is a tree to look at: a healthy project is left exactly as it was.)
  std::optional<util::FileLock> reaping;
  bool tried_reaping = false;
  auto deleter_running = [&] {
    if (!tried_reaping) {
      tried_reaping = true;
      if (auto held_now = try_lock_trash(project)) reaping.emplace(std::move(*held_now));
    }
    return !reaping.has_value();
  };
  for (const auto& e : entries) {
    if (!e.locked || e.lock_reason.rfind("berth", 0) != 0) continue;
    if (e.lock_reason.rfind("berth: pool slot", 0) == 0) continue; // the pool's, not orphans
    bool recorded = std::any_of(records.begin(), records.end(),
                                [&](const Workspace& w) { return w.path == e.path; });
    if (recorded) continue;
    if (in_trash(e.path)) {
      // A tree discard moved aside: it waits for the background deleter, which may be at work
      // right now. That is no problem. --repair deletes it only when the deleter is not running
      // and only once its own full look has verified the snapshot holds all of it.
      if (repair == Repair::no || deleter_running()) {
        report.pending.push_back(fmt::format("discarded tree {} waits for deletion", e.path));
        continue;
      }
      if (!settle_aside(project, e.path, true)) {
        report.problems.push_back(
            {"trash_unverified", "", e.path,
             fmt::format("discarded tree {} is kept: its snapshot could not be verified against it",
                         e.path),
             fmt::format(
                 "save what you need from it, then `git worktree remove --force --force {}`",
                 e.path)});
        continue;
      }
      if (auto why = aside_may_go(project, e.path); !why.empty()) {
        report.problems.push_back(
            {"trash_kept", "", e.path, fmt::format("{}: kept: {}", e.path, why),
             fmt::format(
                 "save what you need from it, then `git worktree remove --force --force {}`",
                 e.path)});
        continue;
      }
      if (remove_aside(project, e.path)) {
        report.repaired.push_back(fmt::format("removed leftover {} (snapshot verified)", e.path));
        continue;
      }
    }
    report.problems.push_back(
        {"orphan_worktree", "", e.path,
         fmt::format("worktree {} is locked by berth but has no workspace record", e.path),
         fmt::format("save what you need from it, then `git worktree remove --force --force {}`",
                     e.path)});
  }
  // Repairs that are whole berth commands take the lock themselves.
  { auto released = std::move(lock); }
  if (ref_repair == Repair::yes) doctor_ref_repairs(project, branch_checks, report);
  reaping.reset();
  discard_gone(project, gone_names, report);
  return report;
}

} // namespace berth
