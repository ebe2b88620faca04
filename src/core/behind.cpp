#include "core/behind.hpp"

#include "core/registry.hpp"
#include "core/roots.hpp"
#include "core/trash.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/paths.hpp"

#include <algorithm>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace berth {

std::string read_admin_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return {};
  std::string text;
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    constexpr off_t kTail = off_t{64} * 1024;
    off_t from = st.st_size > kTail ? st.st_size - kTail : 0;
    text.resize(static_cast<size_t>(st.st_size - from));
    ssize_t got = ::pread(fd, text.data(), text.size(), from);
    text.resize(got > 0 ? static_cast<size_t>(got) : 0);
  }
  ::close(fd);
  return text;
}

std::optional<Problem> gone_problem(const Project& project, const Workspace& w,
                                    const std::vector<WorktreeEntry>& listed) {
  bool known = std::any_of(listed.begin(), listed.end(),
                           [&](const WorktreeEntry& e) { return e.path == w.path; });
  bool directory = util::is_directory(w.path);
  if (known && directory) return std::nullopt;
  // What discard can keep: the branch's commits, if the branch is still there.
  auto branch =
      git_status_of(repo_call(project, {"rev-parse", "-q", "--verify", "refs/heads/" + w.branch}));
  bool kept = branch && branch->ok();
  std::string fix = "berth discard " + w.name + " (or `berth doctor --repair`; " +
                    (kept ? "its committed work is kept in the trash)"
                          : "its branch is gone too: nothing of it is left to keep)");
  if (!known)
    return Problem{"worktree_missing", w.name, w.path,
                   directory
                       ? fmt::format("workspace '{}': git has no worktree at {}", w.name, w.path)
                       : fmt::format("workspace '{}': its worktree was removed (git has "
                                     "none at {}, and the directory is gone)",
                                     w.name, w.path),
                   directory ? "berth discard " + w.name : fix};
  return Problem{"directory_missing", w.name, w.path,
                 fmt::format("workspace '{}': its directory {} is missing", w.name, w.path), fix};
}

void discard_gone(const Project& project, const std::vector<std::string>& names,
                  DoctorReport& report) {
  for (const auto& name : names) {
    auto done = discard_workspace(project, name, Force::no, Trash::yes);
    auto mine = [&](const Problem& p) {
      return p.name == name && (p.code == "worktree_missing" || p.code == "directory_missing");
    };
    if (!done) {
      for (auto& p : report.problems)
        if (mine(p)) p.message += fmt::format(" (repair failed: {})", done.error().message);
      continue;
    }
    report.problems.erase(std::remove_if(report.problems.begin(), report.problems.end(), mine),
                          report.problems.end());
    report.repaired.push_back(
        done->snapshot
            ? fmt::format("workspace '{}': its directory was gone; discarded (its commits are "
                          "kept as {}: `berth restore {}` brings them back)",
                          name, done->snapshot->ref, name)
            : fmt::format("workspace '{}': its directory was gone; discarded", name));
  }
}

namespace {

// The commit HEAD last held, from the last line of the admin dir's reflog ("<old> <new> ...").
// git itself will not read it once HEAD names a deleted branch. Read without blocking or
// following links (an agent may plant a FIFO or a symlink there), the tail only.
std::string last_reflog_commit(const Project& project, const std::string& admin) {
  std::string text = read_admin_file(util::join(admin, "logs/HEAD"));
  auto lines = split_lines(text);
  while (!lines.empty() && lines.back().empty())
    lines.pop_back();
  if (lines.empty()) return {};
  const std::string& last = lines.back();
  auto space = last.find(' ');
  if (space == std::string::npos) return {};
  std::string commit = last.substr(space + 1, last.find(' ', space + 1) - space - 1);
  auto known = git_status_of(repo_call(
      project, {"rev-parse", "--verify", "-q", "--end-of-options", commit + "^{commit}"}));
  return known && known->ok() ? chomp(known->out) : std::string();
}

} // namespace

std::optional<LostBranch> lost_branch(const Project& project, const Workspace& w) {
  if (w.branch.empty() || !util::is_directory(w.git_dir)) return std::nullopt;
  auto tip =
      git_status_of(repo_call(project, {"rev-parse", "--verify", "-q", "refs/heads/" + w.branch}));
  if (!tip || tip->ok()) return std::nullopt;
  GitCall symbolic{{"--git-dir=" + w.git_dir, "symbolic-ref", "-q", "HEAD"},
                   w.git_dir,
                   {},
                   {},
                   util::Stream::pipe};
  GitCall head{{"--git-dir=" + w.git_dir, "rev-parse", "--verify", "-q", "HEAD^{commit}"},
               w.git_dir,
               {},
               {},
               util::Stream::pipe};
  LostBranch lost;
  auto named = git_status_of(symbolic);
  lost.head_on_it = named && named->ok() && chomp(named->out) == "refs/heads/" + w.branch;
  if (auto now = git_status_of(head); now && now->ok())
    lost.commit = chomp(now->out);
  else if (lost.head_on_it)
    lost.commit = last_reflog_commit(project, w.git_dir);
  return lost;
}

Result<void> refuse_lost_branch(const Project& project, const Workspace& w) {
  auto lost = lost_branch(project, w);
  if (!lost || !lost->head_on_it) return {};
  return fail(ErrorCode::branch_missing,
              fmt::format("the branch {} of workspace '{}' was deleted; its HEAD names it still",
                          w.branch, w.name),
              lost->commit.empty()
                  ? fmt::format("`berth discard {}` keeps its files in the trash", w.name)
                  : fmt::format("`berth doctor --repair` makes {} again at {} (its last commit); "
                                "`berth discard {}` keeps its work in the trash",
                                w.branch, lost->commit.substr(0, 12), w.name));
}

Result<void> make_branch_again(const Project& project, const Workspace& w,
                               const std::string& commit, const std::string& why) {
  BERTH_TRY(
      git(repo_call(project, {"update-ref", "-m", why, "refs/heads/" + w.branch, commit, ""})));
  return {};
}

void check_branch(const Project& project, const Workspace& w, Repair repair, DoctorReport& report) {
  auto lost = lost_branch(project, w);
  if (!lost) return;
  std::string where =
      lost->head_on_it ? "its HEAD names it still" : "its HEAD is detached or on another branch";
  if (repair == Repair::yes && !lost->commit.empty()) {
    if (auto made = make_branch_again(project, w, lost->commit, "berth doctor: branch made again");
        made) {
      report.repaired.push_back(fmt::format("workspace '{}': branch {} made again at {} ({})",
                                            w.name, w.branch, lost->commit.substr(0, 12),
                                            lost->head_on_it ? "its last commit" : "its HEAD"));
      return;
    }
  }
  report.problems.push_back(
      {"branch_missing", w.name, w.path,
       fmt::format("workspace '{}': its branch {} was deleted ({})", w.name, w.branch, where),
       lost->commit.empty() ? fmt::format("berth discard {} (keeps its files in the trash)", w.name)
                            : fmt::format("berth doctor --repair (makes {} again at {})", w.branch,
                                          lost->commit.substr(0, 12))});
}

namespace {

// doctor: `ref` (refs/berth, refs/berth/trash or refs/berth/trash/<slug>) is a ref where the
// trash needs a folder of refs, so every discard of that name (or of all) fails. --repair moves
// it to refs/berth/invalid/blocking/<ref>-<time> (created before the old one goes: nothing is
// lost); a refs/berth ref, under which nothing of berth's can exist, is the user's to move.
void check_trash_blocker(const Project& project, const std::string& ref, Repair repair,
                         DoctorReport& report) {
  // One flat name per ref and time (refs/berth/trash and refs/berth/trash/x moved aside must not
  // block each other in turn).
  std::string flat = ref.substr(std::min(ref.size(), sizeof("refs/berth")));
  std::replace(flat.begin(), flat.end(), '/', '.');
  std::string aside = fmt::format("refs/berth/invalid/blocking/{}-{}", flat, unix_now());
  auto oid = git_status_of(repo_call(project, {"rev-parse", "--verify", "-q", ref}));
  std::string value = oid && oid->ok() ? chomp(oid->out) : std::string();
  bool movable = ref != "refs/berth" && !value.empty();
  if (repair == Repair::yes && movable) {
    auto made = git_status_of(repo_call(
        project, {"update-ref", "-m", "berth doctor: a ref blocking the trash", aside, value, ""}));
    if (made && made->ok() &&
        git_status_of(repo_call(project, {"update-ref", "-d", ref, value}))
            .map([](const util::ProcessResult& r) { return r.ok(); })
            .value_or(false)) {
      report.repaired.push_back(fmt::format("the ref {} blocked the trash; moved to {} (`git log "
                                            "{}` shows what it holds)",
                                            ref, aside, aside));
      return;
    }
  }
  std::string who = ref == "refs/berth/trash" || ref == "refs/berth"
                        ? std::string("every workspace")
                        : "workspace '" + ref.substr(sizeof("refs/berth/trash")) + "'";
  report.problems.push_back(
      {"trash_blocked", "", ref,
       fmt::format("the ref {} is in the way of the trash (it needs a folder of refs there): "
                   "discarding {} fails",
                   ref, who),
       movable ? fmt::format("berth doctor --repair (moves it to {})", aside)
       : value.empty()
           ? fmt::format("`git update-ref -d {}` (it names no object berth can read)", ref)
           : fmt::format("move it yourself: `git update-ref refs/berth-moved {}` then `git "
                         "update-ref -d {}`",
                         value, ref)});
}

} // namespace

void check_trash(const Project& project, Repair repair, DoctorReport& report) {
  auto all = list_snapshots(project, std::nullopt);
  if (!all) {
    report.problems.push_back({"trash_unreadable", "", "refs/berth/trash/", all.error().message,
                               "run `git for-each-ref refs/berth/trash/` to inspect the trash"});
    return;
  }
  std::string ledger = util::join(project.berth_dir(), "trash-damaged");
  // A ref where the trash needs a folder of refs: no snapshot can be written under it.
  std::vector<std::string> blockers;
  if (auto top = trash_blocker(project, ""); !top.empty()) blockers.push_back(top);
  for (const auto& s : *all)
    if (s.ref.rfind("refs/berth/trash/", 0) == 0 &&
        s.ref.find('/', std::string_view("refs/berth/trash/").size()) == std::string::npos)
      blockers.push_back(s.ref);
  for (const auto& ref : blockers)
    check_trash_blocker(project, ref, repair, report);
  for (auto& s : *all) {
    // What an earlier repair kept of a damaged one is already out of the trash; a blocking ref
    // is not a snapshot.
    if (s.ref.rfind("refs/berth/trash/", 0) != 0 ||
        std::find(blockers.begin(), blockers.end(), s.ref) != blockers.end())
      continue;
    if (s.state == "ok" && snapshot_complete(project, s.commit)) continue;
    if (s.state == "ok") {
      s.state = "damaged";
      s.problem = "objects it needs are missing from the object store";
    }
    bool damaged = s.state == "damaged";
    if (repair == Repair::yes) {
      std::string moved;
      std::string rest = s.ref.substr(std::string_view("refs/berth/trash/").size());
      // Its commit still there: what is left of it (its files but the missing ones, its intact
      // parents) stays referenced under refs/berth/damaged/, out of restore's way. The damaged
      // commit itself is not kept by a ref: one reaching a missing object makes `git gc` fail.
      size_t missing = 0;
      std::string salvaged = damaged ? salvage_snapshot(project, s.commit, &missing) : "";
      std::string kept_as = "refs/berth/damaged/" + rest;
      if (!salvaged.empty()) {
        std::string text = util::read_file(ledger).value_or("");
        text += fmt::format("{} {} {} (what is left: {} {})\n", s.ref, s.commit, s.problem, kept_as,
                            salvaged);
        auto made = git_status_of(repo_call(
            project, {"update-ref", "-m", "berth doctor: what is left of a damaged snapshot",
                      kept_as, salvaged, ""}));
        if (made && made->ok() && util::write_file_atomic(ledger, text) &&
            git_status_of(repo_call(project, {"update-ref", "-d", s.ref, s.commit}))
                .map([](const util::ProcessResult& r) { return r.ok(); })
                .value_or(false))
          moved = fmt::format("what is left of it kept as {} ({} missing file(s) left out; the "
                              "damaged commit's id is in {})",
                              kept_as, missing, ledger);
      } else if (damaged) {
        // Out of refs/ (git will not even write a ref to a missing object), its id kept.
        std::string text = util::read_file(ledger).value_or("");
        text += fmt::format("{} {} {}\n", s.ref, s.commit, s.problem);
        if (util::write_file_atomic(ledger, text) &&
            git_status_of(repo_call(project, {"update-ref", "-d", s.ref, s.commit}))
                .map([](const util::ProcessResult& r) { return r.ok(); })
                .value_or(false))
          moved = fmt::format("moved out of refs/ (its name and id are kept in {}; `git update-ref "
                              "{} {}` puts it back)",
                              ledger, s.ref, s.commit);
      } else {
        std::string aside = "refs/berth/invalid/" + rest;
        auto made = git_status_of(repo_call(
            project, {"update-ref", "-m", "berth doctor: not a snapshot", aside, s.commit, ""}));
        if (made && made->ok() &&
            git_status_of(repo_call(project, {"update-ref", "-d", s.ref, s.commit}))
                .map([](const util::ProcessResult& r) { return r.ok(); })
                .value_or(false))
          moved = "moved to " + aside;
      }
      if (!moved.empty()) {
        report.repaired.push_back(fmt::format("trash {} ({}): {}", s.ref, s.problem, moved));
        continue;
      }
    }
    report.problems.push_back(
        {damaged ? "trash_damaged" : "trash_invalid", s.name, s.ref,
         fmt::format("trash snapshot {} cannot be restored: {}", s.ref, s.problem),
         damaged ? "berth doctor --repair (keeps what is left of it as refs/berth/damaged/" +
                       s.ref.substr(std::string_view("refs/berth/trash/").size()) +
                       ", or, its commit gone, moves it out of refs/; its id goes to "
                       "<git-common-dir>/berth/trash-damaged)"
                 : "berth doctor --repair (moves it to refs/berth/invalid/)"});
  }
}

namespace {

// Whether `path` lies in a workspace, a discarded tree or a pool slot of this project: places whose
// content an agent controls.
bool into_workspace(const Project& project, const std::string& path) {
  std::string normal = util::lexically_normal(path);
  for (const auto& root : workspace_roots(project)) {
    for (const char* sub : {".trash", ".pool"})
      if (util::is_within(normal, util::join(root, sub))) return true;
    // Anywhere under a root that holds workspaces only (not one around the checkout): a folder a
    // discarded workspace left, or one a later `berth new` makes, is an agent's to write.
    if (normal != util::lexically_normal(root) && util::is_within(normal, root) &&
        !util::is_within(project.main_worktree(), root) &&
        !util::is_within(project.common_dir(), root))
      return true;
  }
  if (auto all = Registry(project.berth_dir()).load_all())
    for (const auto& w : *all)
      if (!w.path.empty() && w.path != "/" &&
          util::is_within(normal, util::lexically_normal(w.path)))
        return true;
  return false;
}

// git's own reading of a path in config: "~/" is the home folder.
std::string expand_user(const std::string& value) {
  return value.rfind("~/", 0) == 0 ? util::join(util::home_dir(), value.substr(2)) : value;
}

} // namespace

void check_config(const Project& project, Repair repair, DoctorReport& report) {
  // A checkout's git dir (not a bare repository named `.git` with worktrees beside it, which has
  // no index of its own): the only layout whose core.bare / core.worktree berth sets right.
  bool checkout_git_dir = util::basename(project.common_dir()) == ".git" &&
                          util::exists(util::join(project.common_dir(), "index"));
  std::string around = util::dirname(project.common_dir());
  // A path in config (relative to the checkout, "~/" the home folder) into a workspace.
  auto names_workspace_path = [&](const std::string& value) {
    return into_workspace(project, util::absolute(expand_user(value), around));
  };
  for (const char* leaf : {"config", "config.worktree"}) {
    std::string file = util::join(project.common_dir(), leaf);
    if (!util::exists(file)) continue;
    auto listed =
        git_status_of(repo_call(project, {"config", "--file", file, "-z", "--get-regexp",
                                          "^core\\.(bare|worktree|hookspath|fsmonitor)$"}));
    if (!listed || !listed->ok()) continue;
    for (const auto& entry : split_z(listed->out)) {
      auto nl = entry.find('\n');
      std::string key = entry.substr(0, nl);
      std::string value = nl == std::string::npos ? std::string() : entry.substr(nl + 1);
      Problem p;
      p.path = file;
      std::vector<std::string> fix; // the git config arguments that repair it
      if (key == "core.bare") {
        auto truth = git_status_of(
            repo_call(project, {"config", "--type=bool", "--file", file, "core.bare"}));
        if (!checkout_git_dir || !truth || chomp(truth->out) != "true") continue;
        p.code = "config_core_bare";
        p.message = fmt::format("core.bare = true in {}: git takes your checkout {} for a bare "
                                "repository (git commands there fail)",
                                file, around);
        fix = {"config", "--file", file, "core.bare", "false"};
      } else if (key == "core.worktree") {
        std::string target = util::absolute(value, project.common_dir());
        bool into = into_workspace(project, target);
        // A checkout's .git naming any other work tree than the folder around it: git works
        // there instead (`git status` shows every file of the project deleted). Only one that
        // points into a workspace is surely damage to undo; another may be deliberate.
        if (!into && (!checkout_git_dir || util::lexically_normal(target) == around)) continue;
        p.code = "config_core_worktree";
        p.message =
            into ? fmt::format("core.worktree in {} points into a workspace ({}): git works on it "
                               "instead of your checkout",
                               file, value)
                 : fmt::format("core.worktree in {} names {}, not the checkout {} around it: git "
                               "works there instead",
                               file, value, around);
        if (checkout_git_dir && into)
          fix = {"config", "--file", file, "--unset-all", "core.worktree"};
      } else if (key == "core.hookspath") {
        if (!names_workspace_path(value)) continue;
        p.code = "config_hooks_path";
        p.message = fmt::format("core.hooksPath in {} points into a workspace ({}): your commits "
                                "would run hooks an agent can write",
                                file, value);
      } else {
        // A boolean (the built-in monitor) or a hook command: only a path is a concern.
        if (value.find('/') == std::string::npos || !names_workspace_path(value)) continue;
        p.code = "config_fsmonitor";
        p.message = fmt::format("core.fsmonitor in {} runs a command inside a workspace ({}) on "
                                "every git status",
                                file, value);
        fix = {"config", "--file", file, "--unset-all", "core.fsmonitor"};
      }
      std::string shown = "git";
      for (const auto& a : fix)
        shown += " " + a;
      if (repair == Repair::yes && !fix.empty()) {
        if (auto done = git_status_of(repo_call(project, fix)); done && done->ok()) {
          report.repaired.push_back(fmt::format("{} (ran `{}`)", p.message, shown));
          continue;
        }
      }
      p.repair = !fix.empty() ? "berth doctor --repair (runs `" + shown + "`)"
                 : p.code == "config_hooks_path"
                     ? fmt::format("set core.hooksPath back to your project's hooks, or `git "
                                   "config --file {} --unset core.hooksPath`",
                                   file)
                 : p.code == "config_core_worktree"
                     ? fmt::format("if git should work in {}, `git config --file {} --unset "
                                   "core.worktree`",
                                   around, file)
                     : fmt::format("set {} back by hand in {}", key, file);
      report.problems.push_back(std::move(p));
    }
  }
}

void check_gitfile(const Workspace& w, Repair repair, DoctorReport& report) {
  if (!util::is_directory(w.path) || !util::is_directory(w.git_dir)) return;
  std::string gitfile = util::join(w.path, ".git");
  std::string named = read_gitfile(w.path);
  std::string own = util::real_path(w.git_dir).value_or(w.git_dir);
  if (!named.empty() && named == own) return;
  std::string now = named.empty() ? std::string("is not a `gitdir:` file") : "names " + named;
  Problem p{"gitfile_mismatch", w.name, gitfile,
            fmt::format("workspace '{}': its .git {}, not its admin dir {}: git run there works on "
                        "another repository (or fails)",
                        w.name, now, w.git_dir),
            "berth doctor --repair (writes it back)"};
  if (util::is_directory(gitfile) && !util::is_symlink(gitfile)) {
    p.repair = fmt::format("a repository was made at {}: move it away, then `berth doctor "
                           "--repair` writes the .git file back",
                           gitfile);
    report.problems.push_back(std::move(p));
    return;
  }
  if (repair == Repair::yes) {
    // The rename replaces whatever is there (a FIFO, a symlink) without opening it.
    if (util::write_file_atomic(gitfile, "gitdir: " + w.git_dir + "\n")) {
      report.repaired.push_back(fmt::format(
          "workspace '{}': its .git file names its admin dir {} again", w.name, w.git_dir));
      return;
    }
  }
  report.problems.push_back(std::move(p));
}

} // namespace berth
