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
#include "core/capture.hpp"
#include "core/name.hpp"
#include "core/pool.hpp"
#include "core/porcelain.hpp"
#include "core/registry.hpp"
#include "core/review.hpp"
#include "core/roots.hpp"
#include "core/trash.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/paths.hpp"
#include "util/process_info.hpp"

#include <algorithm>
#include <dirent.h>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sys/stat.h>
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
  auto listed = BERTH_TRY(git(repo_call(project, {"worktree", "list", "--porcelain", "-z"})));
  auto entries = parse_worktree_list(listed.out);
  Target t;
  if (into) {
    t.branch = *into;
    if (t.branch.rfind("refs/heads/", 0) == 0) t.branch = t.branch.substr(11);
  } else {
    if (entries.empty() || entries.front().bare || entries.front().branch.empty())
      return fail(ErrorCode::usage, "the main checkout has no branch checked out to accept into",
                  "name the target: --into BRANCH");
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

// Whether something git does not track (an untracked or ignored file or folder) occupies `path`,
// or one of its parent folders, in `worktree`: `read-tree -u` would overwrite ignored files there
// without a word. Parents the change itself removes (`leaving`) are no obstacle.
bool in_the_way(const std::string& worktree, const std::string& path,
                const std::set<std::string>& leaving) {
  struct stat st;
  if (::lstat(util::join(worktree, path).c_str(), &st) == 0) return true;
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

// Bring exactly `paths` of `worktree` (index and files) to one side of an intent.
Result<std::vector<std::string>> settle_paths(const Intent& in, bool forward,
                                              std::vector<std::string>* left_alone) {
  std::vector<std::string> moved;
  std::string index_info;
  std::vector<std::string> to_write, to_delete;
  std::vector<const PathChange*> kept;
  for (const auto& p : in.paths) {
    const std::string& want = forward ? p.new_oid : p.old_oid;
    const std::string& want_mode = forward ? p.new_mode : p.old_mode;
    const std::string& other = forward ? p.old_oid : p.new_oid;
    std::string have = current_oid(in.worktree, p.path);
    // git removes a file before it writes the new version: a crash in between leaves the path
    // missing although both sides have it. Nothing of the user's is there to lose.
    bool torn = have.empty() && !p.old_oid.empty() && !p.new_oid.empty();
    if (have != want && have != other && !torn) {
      // Neither side: the user edited it after the crash. Theirs now; not ours to touch.
      left_alone->push_back(p.path);
      kept.push_back(&p);
      continue;
    }
    if (want.empty())
      index_info += fmt::format("0 {}\t{}", kNullOid, p.path) + '\0';
    else
      index_info += fmt::format("{} {}\t{}", want_mode, want, p.path) + '\0';
    if (have == want) continue;
    moved.push_back(p.path);
    if (want.empty())
      to_delete.push_back(p.path);
    else
      to_write.push_back(p.path);
  }
  // A file left alone keeps its content, but an index entry still on the other side would make
  // the user's next commit undo that path's change silently: it follows the rest, unless the user
  // staged something of their own there.
  if (!kept.empty()) {
    std::vector<std::string> args{"ls-files", "-s", "-z", "--"};
    for (const auto* p : kept)
      args.push_back(p->path);
    auto listed = BERTH_TRY(
        git(GitCall{args, in.worktree, {{"GIT_LITERAL_PATHSPECS", "1"}}, {}, util::Stream::pipe}));
    std::map<std::string, std::string> staged; // path -> oid
    for (const auto& entry : split_z(listed.out)) {
      // "<mode> <oid> <stage>\t<path>"
      auto tab = entry.find('\t');
      auto first = entry.find(' ');
      auto second = first == std::string::npos ? first : entry.find(' ', first + 1);
      if (tab == std::string::npos || second == std::string::npos || second > tab) continue;
      staged[entry.substr(tab + 1)] = entry.substr(first + 1, second - first - 1);
    }
    for (const auto* p : kept) {
      const std::string& want = forward ? p->new_oid : p->old_oid;
      const std::string& other = forward ? p->old_oid : p->new_oid;
      auto it = staged.find(p->path);
      std::string in_index = it == staged.end() ? std::string() : it->second;
      if (in_index != other || in_index == want) continue;
      if (want.empty())
        index_info += fmt::format("0 {}\t{}", kNullOid, p->path) + '\0';
      else
        index_info +=
            fmt::format("{} {}\t{}", forward ? p->new_mode : p->old_mode, want, p->path) + '\0';
    }
  }
  if (!index_info.empty())
    BERTH_TRY(git(GitCall{
        {"update-index", "-z", "--index-info"}, in.worktree, {}, index_info, util::Stream::pipe}));
  for (const auto& path : to_delete)
    ::unlink(util::join(in.worktree, path).c_str());
  if (!to_write.empty()) {
    std::vector<std::string> args{"checkout-index", "-f", "-q", "--"};
    args.insert(args.end(), to_write.begin(), to_write.end());
    BERTH_TRY(git(GitCall{args, in.worktree, {}, {}, util::Stream::pipe}));
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

Result<Accepted> accept_workspace(const Project& project, std::string_view name,
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

  Registry registry(project.berth_dir());
  auto lock = BERTH_TRY(registry.lock());
  Workspace w = BERTH_TRY(usable_workspace(project, name));
  a.name = w.name;
  if (held(w) && util::process_alive(w.holder_pid, w.holder_start))
    return fail(
        ErrorCode::busy,
        fmt::format("workspace '{}' is {} (pid {})", w.name, state_name(w.state), w.holder_pid),
        "wait for it to finish");
  Target target = BERTH_TRY(find_target(project, w, options.into));
  a.target = target.branch;
  a.target_worktree = target.worktree;
  a.old_commit = target.commit;
  if (util::exists(intent_path(project, target.branch)))
    return fail(ErrorCode::interrupted,
                fmt::format("an earlier accept into {} was interrupted", target.branch),
                "run `berth doctor --repair` first");

  // 1. The workspace's whole state as a commit, without touching the workspace: its commits plus
  //    anything uncommitted or untracked.
  Captured now = BERTH_TRY(capture(project, w));
  std::string source = now.head;
  if (!now.clean())
    source = BERTH_TRY(make_commit(project, now.work_tree, {now.head},
                                   fmt::format("berth: uncommitted work of {}", w.name)));
  auto mb_result =
      BERTH_TRY(git_status_of(repo_call(project, {"merge-base", target.commit, source})));
  std::string merge_base = mb_result.ok() ? chomp(mb_result.out) : w.base;
  if (BERTH_TRY(tree_of(project, source)) == BERTH_TRY(tree_of(project, merge_base)) ||
      is_ancestor(project, source, target.commit)) {
    a.empty = true;
    a.new_commit = target.commit;
    a.warnings.push_back(
        fmt::format("workspace '{}' has no change to accept into {}", w.name, target.branch));
    return a;
  }

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
        std::nullopt, parse_merge_tree(merged.out).conflicts};
    return tl::unexpected(std::move(e));
  }
  if (!merged.ok()) return tl::unexpected(git_error(preview, merged));
  result_tree = parse_merge_tree(merged.out).tree;

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
    if (is_ancestor(project, target.commit, source)) {
      new_commit = source;
      result_tree = BERTH_TRY(tree_of(project, source));
    }
    break;
  }
  a.files = BERTH_TRY(changes_between(project, target.commit, result_tree));
  if (strategy == Strategy::apply && target.worktree.empty())
    return fail(
        ErrorCode::usage,
        fmt::format("{} is not checked out anywhere, and apply stages the change in a checkout",
                    target.branch),
        "use --strategy squash or merge to update the branch without a checkout");

  // 3. The user's uncommitted work is never overwritten: refuse if the change lands on any path
  //    they have touched (staged, unstaged or untracked).
  if (!target.worktree.empty()) {
    auto dirty = BERTH_TRY(dirty_paths(target.worktree));
    std::set<std::string> leaving;
    for (const auto& f : a.files)
      if (f.status == 'D' || f.status == 'R')
        leaving.insert(f.old_path.empty() ? f.path : f.old_path);
    std::vector<std::string> clash;
    for (const auto& f : a.files) {
      bool created = f.status == 'A' || f.status == 'R' || f.status == 'C';
      if (dirty.count(f.path) || (created && in_the_way(target.worktree, f.path, leaving)))
        clash.push_back(f.path);
      if (!f.old_path.empty() && dirty.count(f.old_path)) clash.push_back(f.old_path);
    }
    if (!clash.empty()) {
      Error e{
          ErrorCode::dirty_target,
          fmt::format("you have uncommitted changes or untracked files in {} at {} path(s) this "
                      "accept would write",
                      target.worktree, clash.size()),
          "commit or stash those files in your checkout, then accept again", std::nullopt, clash};
      return tl::unexpected(std::move(e));
    }
  }
  if (options.dry_run) {
    a.new_commit = new_commit;
    if (strategy == Strategy::rebase && new_commit.empty())
      a.warnings.push_back(
          "dry run: the commits would be replayed one by one; each may still conflict");
    return a;
  }

  // Uncommitted work is committed first: the workspace's branch then holds what lands, and a kept
  // workspace is clean. Compare-and-swap through HEAD; only the index follows, no file is written.
  if (strategy != Strategy::apply && !now.clean()) {
    auto recorded = BERTH_TRY(git_status_of(workspace_call(
        w, {"update-ref", "-m", "berth accept: " + w.name, "HEAD", source, now.head})));
    if (!recorded.ok())
      return fail(
          ErrorCode::busy,
          fmt::format("workspace '{}' got a new commit during the accept; nothing landed", w.name),
          "accept again");
    BERTH_TRY(git(workspace_call(w, {"reset", "-q", "--no-refresh"})));
    (void)git_status_of(workspace_call(w, {"update-index", "-q", "--refresh"}));
  }

  // Rebase replays the workspace's commits onto the target, inside the workspace (which is ours
  // to rewrite), then fast-forwards the target.
  if (strategy == Strategy::rebase && new_commit.empty()) {
    GitCall rebase = workspace_call(w, {"-c", "core.hooksPath=/dev/null", "rebase",
                                        "--no-autosquash", "--onto", target.commit, merge_base});
    if (!has_identity(project)) rebase.env = berth_identity();
    auto rebased = BERTH_TRY(git_status_of(rebase));
    if (!rebased.ok()) {
      auto unmerged =
          git_status_of(workspace_call(w, {"diff", "--name-only", "-z", "--diff-filter=U"}));
      (void)git_status_of(workspace_call(w, {"rebase", "--abort"}));
      Error e{ErrorCode::conflict,
              fmt::format("replaying the commits of '{}' onto {} conflicts; nothing landed (its "
                          "files are as they were; uncommitted work is now a commit on its branch)",
                          w.name, target.branch),
              "use --strategy squash or merge, or `berth sync` and resolve in the workspace",
              std::nullopt,
              unmerged && unmerged->ok() ? split_z(unmerged->out) : std::vector<std::string>{}};
      return tl::unexpected(std::move(e));
    }
    new_commit = chomp(BERTH_TRY(git(workspace_call(w, {"rev-parse", "HEAD"}))).out);
    result_tree = BERTH_TRY(tree_of(project, new_commit));
  }

  // 4. Land it. In a checkout: record the intent, write exactly the changed paths (a two-way
  //    read-tree keeps every other staged or unstaged change of the user), then move the branch.
  //    Checked out nowhere: only the ref moves.
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
    BERTH_TRY(save_intent(project, in));

    (void)git_status_of(
        GitCall{{"update-index", "-q", "--refresh"}, target.worktree, {}, {}, util::Stream::pipe});
    GitCall write{{"read-tree", "-m", "-u", target.commit, result_tree},
                  target.worktree,
                  {},
                  {},
                  util::Stream::pipe};
    auto written = BERTH_TRY(git_status_of(write));
    if (!written.ok()) {
      // read-tree checks everything before it writes anything: nothing changed.
      (void)::unlink(intent_path(project, target.branch).c_str());
      return tl::unexpected(git_error(
          write, written,
          fmt::format("cannot write the change into {}: {}", target.worktree, chomp(written.err))));
    }
    if (in.moves_head) {
      GitCall move{{"update-ref", "-m", fmt::format("berth accept {} ({})", w.name, in.strategy),
                    "HEAD", new_commit, target.commit},
                   target.worktree,
                   {},
                   {},
                   util::Stream::pipe};
      auto moved = BERTH_TRY(git_status_of(move));
      if (!moved.ok())
        return fail(ErrorCode::interrupted,
                    fmt::format("{} moved while accepting '{}'; the files were written but the "
                                "branch was not moved",
                                target.branch, w.name),
                    "run `berth doctor --repair` to put the checkout back");
      GitCall hook{{"hook", "run", "--ignore-missing", "post-merge", "--",
                    strategy == Strategy::squash ? "1" : "0"},
                   target.worktree,
                   {},
                   {},
                   util::Stream::inherit};
      (void)git_status_of(hook);
    }
    (void)::unlink(intent_path(project, target.branch).c_str());
  } else {
    GitCall move =
        repo_call(project, {"update-ref", "-m",
                            fmt::format("berth accept {} ({})", w.name, strategy_name(strategy)),
                            "refs/heads/" + target.branch, new_commit, target.commit});
    auto moved = BERTH_TRY(git_status_of(move));
    if (!moved.ok())
      return fail(
          ErrorCode::conflict,
          fmt::format("{} moved while accepting '{}'; nothing was changed", target.branch, w.name),
          "run the accept again");
  }
  a.new_commit = new_commit;

  // 5. The workspace is done: landed, then discarded (with its trash snapshot) unless --keep.
  w.state = State::landed;
  w.landed_commit = new_commit.empty() ? target.commit : new_commit;
  BERTH_TRY(registry.save(w));
  { auto released = std::move(lock); }
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

Result<Synced> sync_workspace(const Project& project, std::string_view name,
                              std::optional<std::string> onto, SyncMode mode) {
  Workspace w = BERTH_TRY(usable_workspace(project, name));
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
  s.old_head = chomp(BERTH_TRY(git(workspace_call(w, {"rev-parse", "HEAD"}))).out);
  if (is_ancestor(project, onto_commit, s.old_head)) {
    s.up_to_date = true;
    s.new_head = s.old_head;
    return s;
  }
  // The agent's uncommitted work is committed first, so the merge can never mix with it.
  BERTH_TRY(
      commit_work_tree(project, w, fmt::format("berth: uncommitted work of {}", w.name), nullptr));
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
    s.conflicts = split_z(unmerged.out);
    if (s.conflicts.empty()) return tl::unexpected(git_error(call, result));
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

Result<DoctorReport> doctor(const Project& project, Repair repair) {
  DoctorReport report;
  Registry registry(project.berth_dir());
  auto lock = BERTH_TRY(registry.lock());

  // Interrupted accepts: finish them (the user asked for the change) unless the branch has moved
  // elsewhere since, in which case the written paths are rolled back. Only the recorded paths are
  // touched, and only where they hold exactly the old or the new content.
  for (const auto& file : intent_files(project)) {
    auto loaded = load_intent(file);
    if (!loaded) {
      report.problems.push_back(loaded.error().message);
      continue;
    }
    Intent in = *loaded;
    if (util::process_alive(in.pid, in.pid_start)) continue; // still running
    std::string what = fmt::format("interrupted accept of '{}' into {} ({} file(s))", in.workspace,
                                   in.target, in.paths.size());
    if (repair == Repair::no) {
      report.problems.push_back(what);
      continue;
    }
    // A crash inside git leaves its index.lock behind; it is ours if it is no older than the
    // intent.
    std::string gitdir = BERTH_TRY(git_out(in.worktree, {"rev-parse", "--absolute-git-dir"}));
    std::string index_lock = util::join(gitdir, "index.lock");
    struct stat st;
    if (::stat(index_lock.c_str(), &st) == 0 && st.st_mtime + 1 >= in.time)
      ::unlink(index_lock.c_str());

    std::string head = chomp(
        BERTH_TRY(git(GitCall{{"rev-parse", "HEAD"}, in.worktree, {}, {}, util::Stream::pipe}))
            .out);
    bool forward = !in.moves_head || head == in.old_commit || head == in.new_commit;
    std::vector<std::string> left_alone;
    auto moved = BERTH_TRY(settle_paths(in, forward, &left_alone));
    if (forward && in.moves_head && head == in.old_commit)
      BERTH_TRY(git(GitCall{{"update-ref", "-m", "berth doctor: finish accept of " + in.workspace,
                             "HEAD", in.new_commit, in.old_commit},
                            in.worktree,
                            {},
                            {},
                            util::Stream::pipe}));
    report.repaired.push_back(fmt::format("{}: {} ({} file(s) written)", what,
                                          forward ? "finished" : "rolled back", moved.size()));
    for (const auto& p : left_alone)
      report.problems.push_back(
          fmt::format("{}: {} was changed since; left as it is", in.worktree, p));
    ::unlink(file.c_str());
    if (forward) {
      if (auto record = registry.load(name_slug(in.workspace)); record && *record) {
        (*record)->state = State::landed;
        (*record)->landed_commit = in.new_commit.empty() ? in.old_commit : in.new_commit;
        (void)registry.save(**record);
      }
    }
  }

  // Registry against git and the disk.
  auto listed = BERTH_TRY(git(repo_call(project, {"worktree", "list", "--porcelain", "-z"})));
  auto entries = parse_worktree_list(listed.out);
  std::vector<std::string> problems_in_records;
  auto records = BERTH_TRY(registry.load_all(&problems_in_records));
  for (const auto& p : problems_in_records)
    report.problems.push_back(p);
  for (const auto& w : records) {
    bool known = std::any_of(entries.begin(), entries.end(),
                             [&](const WorktreeEntry& e) { return e.path == w.path; });
    if (!known)
      report.problems.push_back(
          fmt::format("workspace '{}': git has no worktree at {}; `berth discard {}` cleans it up",
                      w.name, w.path, w.name));
    else if (!util::is_directory(w.path))
      report.problems.push_back(
          fmt::format("workspace '{}': its directory {} is missing", w.name, w.path));
  }
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
        report.problems.push_back(fmt::format(
            "discarded tree {} is kept: its snapshot could not be verified against it (save "
            "what you need from it, then `git worktree remove --force --force {}`)",
            e.path, e.path));
        continue;
      }
      if (remove_aside(project, e.path)) {
        report.repaired.push_back(fmt::format("removed leftover {} (snapshot verified)", e.path));
        continue;
      }
    }
    report.problems.push_back(
        fmt::format("worktree {} is locked by berth but has no workspace record", e.path));
  }
  return report;
}

} // namespace berth
