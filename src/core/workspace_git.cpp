// The small shared pieces of the workspace modules (workspace_git.hpp): how berth calls git on
// the repository and inside one workspace, and what every lifecycle flow reads of a worktree.
#include "core/workspace_git.hpp"

#include "berth/berth.hpp"
#include "core/admin_files.hpp"
#include "core/behind.hpp"
#include "core/capture.hpp"
#include "core/crash_checks.hpp"
#include "core/name.hpp"
#include "core/nested.hpp"
#include "core/pool.hpp"
#include "core/porcelain.hpp"
#include "core/ports.hpp"
#include "core/registry.hpp"
#include "core/roots.hpp"
#include "core/sandbox.hpp"
#include "core/setup.hpp"
#include "core/shadow.hpp"
#include "core/trash.hpp"
#include "core/tree_claim.hpp"
#include "util/atomic_file.hpp"
#include "util/parallel.hpp"
#include "util/paths.hpp"
#include "util/process_info.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <ctime>
#include <fcntl.h>
#include <fmt/format.h>
#include <functional>
#include <future>
#include <sys/stat.h>
#include <thread>
#include <tuple>
#include <unistd.h>

namespace berth {

GitCall repo_call(const Project& project, std::vector<std::string> args) {
  args.insert(args.begin(), "--git-dir=" + project.common_dir());
  return GitCall{std::move(args), project.common_dir(), {}, {}, util::Stream::pipe};
}

GitCall tree_diff_call(const Project& project, std::vector<std::string> args) {
  GitCall call = repo_call(project, std::move(args));
  // git reads a missing index as an empty one. berth never makes this folder.
  call.env["GIT_INDEX_FILE"] = util::join(project.berth_dir(), "no-index/index");
  return call;
}

std::vector<std::string> agent_commits_args(const Workspace& w, const std::string& tip) {
  std::vector<std::string> args{"rev-list", "--count", tip, "--not", w.base};
  if (!w.synced.empty()) {
    args.push_back(w.synced);
    // `--not` applies to what follows: the merge filter is an option, not a revision.
    args.insert(args.begin() + 2, "--no-merges");
  }
  args.push_back("--");
  return args;
}

GitCall workspace_call(const Workspace& workspace, std::vector<std::string> args) {
  auto prefix = workspace_git_args(workspace.git_dir, workspace.path);
  args.insert(args.begin(), prefix.begin(), prefix.end());
  return GitCall{std::move(args), workspace.path, {}, {}, util::Stream::pipe};
}

GitCall ignore_checker(const Workspace& workspace) {
  return workspace_call(workspace, {"check-ignore", "--no-index", "-z", "--stdin"});
}

std::optional<std::set<std::string>> ignored_by_rules(const Workspace& workspace,
                                                      const std::vector<std::string>& paths) {
  if (paths.empty()) return std::set<std::string>{};
  GitCall ask = ignore_checker(workspace);
  for (const auto& p : paths)
    ask.input += p + '\0';
  auto told = git_status_of(ask);
  // 0: some are ignored (named), 1: none is.
  if (!told || told->signal != 0 || (told->exit_code != 0 && told->exit_code != 1))
    return std::nullopt;
  auto ignored = split_z(told->out);
  return std::set<std::string>(ignored.begin(), ignored.end());
}

Result<std::vector<std::string>> workspace_files(const Workspace& workspace,
                                                 const std::string& under) {
  std::vector<std::string> args{"ls-files",      "-z", "--cached", "--others", "--exclude-standard",
                                "--deduplicate", "--"};
  // Literal: a folder called `*` or `:(glob)x` is a folder, not a pattern.
  if (!under.empty() && under != ".") args.push_back(":(literal)" + under);
  auto listed = BERTH_TRY(git(workspace_call(workspace, std::move(args))));
  std::vector<std::string> files;
  for (std::size_t at = 0; at < listed.out.size();) {
    auto end = listed.out.find('\0', at);
    if (end == std::string::npos) end = listed.out.size();
    if (end > at) files.push_back(listed.out.substr(at, end - at));
    at = end + 1;
  }
  std::sort(files.begin(), files.end());
  return files;
}

Error no_work_tree_error(const Project& project) {
  return Error{ErrorCode::bare_repository,
               fmt::format("git sees no work tree at {}: the repository's config says it is "
                           "bare, or names another work tree",
                           project.main_worktree()),
               "run `berth doctor` (it names the setting and `--repair` fixes it)",
               std::nullopt,
               {}};
}

Result<std::vector<WorktreeEntry>> worktrees(const Project& project) {
  // git reads every worktree's HEAD for this: one planted FIFO would hang it.
  BERTH_TRY(refuse_blocking_admin(project.common_dir()));
  GitCall list = repo_call(project, {"worktree", "list", "--porcelain", "-z"});
  auto out = BERTH_TRY(git_status_of(list));
  // A `git worktree add` half-way (outside berth's lock): asked again.
  for (int attempt = 1; attempt < 20 && !out.ok() && saw_half_made_worktree(out.err); ++attempt) {
    wait_for_half_made_worktree(attempt);
    out = BERTH_TRY(git_status_of(list));
  }
  if (!out.ok()) return tl::unexpected(git_error(list, out));
  auto entries = parse_worktree_list(out.out);
  if (!entries.empty() && !entries.front().bare && !project.main_worktree().empty())
    entries.front().path = project.main_worktree();
  return entries;
}

void test_kill_at(std::string_view step) {
  static const char* wanted = std::getenv("BERTH_TEST_FAIL_AT");
  if (wanted && fmt::format("{}:kill", step) == wanted) ::kill(::getpid(), SIGKILL);
}

bool rename_worktree(const std::string& git_dir, const std::string& from, const std::string& to,
                     std::string_view kill_step) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) != 0)
    return false;
  if (!kill_step.empty()) test_kill_at(kill_step);
  auto real = util::real_path(to);
  if (!real ||
      !util::write_file_atomic(util::join(git_dir, "gitdir"), util::join(*real, ".git") + "\n")) {
    (void)::renameat2(AT_FDCWD, to.c_str(), AT_FDCWD, from.c_str(), RENAME_NOREPLACE);
    return false;
  }
  return true;
}

std::optional<std::string> berth_executable() {
  auto self = util::real_path("/proc/self/exe");
  if (!self || (util::basename(*self) != "berth" && util::basename(*self) != "git-berth"))
    return std::nullopt;
  return *self;
}

int64_t unix_now() {
  return static_cast<int64_t>(::time(nullptr));
}

std::map<std::string, std::optional<std::string>> berth_identity() {
  return {{"GIT_AUTHOR_NAME", "berth"},
          {"GIT_AUTHOR_EMAIL", "berth@localhost"},
          {"GIT_COMMITTER_NAME", "berth"},
          {"GIT_COMMITTER_EMAIL", "berth@localhost"}};
}

Result<CheckoutTuning> checkout_tuning(const Project& project) {
  CheckoutTuning t;
  // One config read for everything a checkout depends on (each git call costs a few ms, and
  // taking a pool slot should cost about ten of them in all).
  auto read = BERTH_TRY(git_status_of(repo_call(
      project,
      {"config", "-z", "--get-regexp",
       "^(checkout\\.workers|filter\\.lfs\\.process|filter\\.lfs\\.smudge|core\\.hookspath)$"})));
  std::map<std::string, std::string> config;
  for (const auto& entry : split_z(read.out)) {
    auto nl = entry.find('\n');
    config[entry.substr(0, nl)] = nl == std::string::npos ? "" : entry.substr(nl + 1);
  }
  if (auto it = config.find("core.hookspath"); it != config.end()) t.hooks_path = it->second;
  // git's own default is one checkout worker; a fresh workspace writes every file, so use the
  // cores unless the user chose a value.
  if (!config.count("checkout.workers"))
    t.args = {"-c", fmt::format("checkout.workers={}",
                                std::max(1u, std::thread::hardware_concurrency()))};
  // LFS: with setup.lfs = "skip", files stay pointers (git-lfs's own --skip mode). Without
  // git-lfs installed but its filter configured, git would die mid-checkout: check out the
  // pointers instead, and say so.
  bool lfs_configured = config.count("filter.lfs.process") || config.count("filter.lfs.smudge");
  if (lfs_configured && util::find_in_path("git-lfs").empty()) {
    t.args.insert(t.args.end(), {"-c", "filter.lfs.process=", "-c", "filter.lfs.smudge=", "-c",
                                 "filter.lfs.required=false"});
    t.warnings.push_back("git-lfs is not installed: LFS files are left as pointers (install "
                         "git-lfs, then `git lfs pull` in the workspace)");
  } else if (lfs_configured && project.config().get_string("setup.lfs") == "skip") {
    t.args.insert(t.args.end(), {"-c", "filter.lfs.process=git-lfs filter-process --skip", "-c",
                                 "filter.lfs.smudge=git-lfs smudge --skip -- %f"});
  }
  return t;
}

namespace {
// An index this large (about 10k entries) is worth settling after a checkout; below it the
// re-hash is cheaper than the wait.
constexpr off_t kSettleIndexBytes = 1 << 20;
} // namespace

std::string read_gitfile(const std::string& work_tree) {
  std::string gitfile = util::join(work_tree, ".git");
  if (util::is_symlink(gitfile)) return {};
  std::string text = chomp(util::read_file(gitfile).value_or(""));
  if (text.rfind("gitdir: ", 0) != 0) return {};
  return util::real_path(util::absolute(text.substr(8), work_tree)).value_or("");
}

void settle_index(const Workspace& w) {
  struct stat st;
  if (::stat(util::join(w.git_dir, "index").c_str(), &st) == 0)
    while (::time(nullptr) <= st.st_mtime)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  (void)git_status_of(workspace_call(w, {"update-index", "-q", "--refresh"}));
}

bool large_index(const Workspace& w) {
  struct stat st;
  return ::stat(util::join(w.git_dir, "index").c_str(), &st) == 0 &&
         st.st_size >= kSettleIndexBytes;
}

void settle_large_index(const Workspace& w) {
  if (large_index(w)) settle_index(w);
}

std::string idle_lock_reason(const Workspace& workspace) {
  return fmt::format("{}: workspace {} (remove with `berth discard`)", kLockReasonPrefix,
                     workspace.name);
}

void set_lock_reason(const Project& project, const Workspace& workspace,
                     const std::string& reason) {
  (void)project;
  std::string locked = util::join(workspace.git_dir, "locked");
  auto current = util::read_file(locked);
  if (!current || current->rfind(kLockReasonPrefix, 0) != 0) return;
  // git has no "change the reason", and unlock + lock would leave a moment unlocked (and cost two
  // processes): replace the lock file's content atomically instead. Its format is git's
  // documented one (gitrepository-layout: worktrees/<id>/locked holds the reason).
  (void)util::write_file_atomic(locked, reason + "\n");
}

Result<void> exclude_in_checkouts(const Project& project, const std::string& line,
                                  std::string_view comment, const std::string& also) {
  std::string info = util::join(project.common_dir(), "info");
  std::string file = util::join(info, "exclude");
  std::string content = util::read_file(file).value_or("");
  for (const auto& existing : split_lines(content))
    if (existing == line || (!also.empty() && existing == also)) return {};
  if (!content.empty() && content.back() != '\n') content += '\n';
  content += fmt::format("# {}\n{}\n", comment, line);
  if (auto made = util::make_dirs(info); !made) return fail(ErrorCode::io_error, made.error());
  if (auto written = util::write_file_atomic(file, content); !written)
    return fail(ErrorCode::io_error, written.error());
  return {};
}

Registry registry_of(const Project& project) {
  return Registry(project.berth_dir());
}

Result<bool> ref_exists(const Project& project, const std::string& ref) {
  auto r = BERTH_TRY(git_status_of(repo_call(project, {"rev-parse", "--verify", "-q", ref})));
  return r.ok();
}

// Whether git lists a worktree at `path` (true when git cannot tell: then it is asked to remove
// it, and says why not).
bool git_has_worktree(const Project& project, const std::string& path) {
  auto list = worktrees(project);
  if (!list) return true;
  return std::any_of(list->begin(), list->end(),
                     [&](const WorktreeEntry& e) { return e.path == path; });
}

std::string read_lock_reason(const Workspace& w, bool* locked) {
  auto text = util::read_file(util::join(w.git_dir, "locked"));
  *locked = text.has_value();
  return text ? chomp(*text) : std::string();
}

// Point the workspace's .git file back at its admin dir, as berth's record has it. An agent may
// have rewritten it (to another repository, say), and git refuses to move or remove a worktree
// whose .git file does not point back. The atomic rename replaces a symlink itself, never what
// it points to.
void repoint_gitfile(const Workspace& w) {
  if (read_gitfile(w.path) == w.git_dir) return;
  (void)util::write_file_atomic(util::join(w.path, ".git"), "gitdir: " + w.git_dir + "\n");
}

} // namespace berth
