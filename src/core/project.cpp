#include "berth/berth.hpp"
#include "core/admin_files.hpp"
#include "core/git.hpp"
#include "core/porcelain.hpp"
#include "core/registry.hpp"
#include "util/paths.hpp"

#include <cerrno>
#include <climits>
#include <cstring>
#include <fmt/format.h>
#include <unistd.h>

namespace berth {

#ifndef BERTH_VERSION
#define BERTH_VERSION "0.0.0"
#endif

std::string_view version() {
  return BERTH_VERSION;
}

namespace {

std::string current_directory() {
  char buf[PATH_MAX];
  if (::getcwd(buf, sizeof buf) == nullptr) return "/";
  return buf;
}

std::string expand_home(const std::string& path) {
  if (path == "~") return util::home_dir();
  if (path.rfind("~/", 0) == 0) return util::join(util::home_dir(), path.substr(2));
  return path;
}

// The default workspace root is named after the common dir, so that two projects of one name
// never share it; but a project the user moves must keep finding its workspaces (and pool and
// trash). The registry (which moves with the repository) records the root berth chose: a moved
// project keeps it, a copy (whose original is still there) gets its own.
std::string settled_default_root(const std::string& berth_dir, const std::string& common_dir,
                                 const std::string& computed) {
  auto home = read_project_home(berth_dir);
  std::string root = computed;
  if (home && home->default_root.front() == '/' &&
      (home->common_dir == common_dir || !util::exists(home->common_dir)))
    root = home->default_root;
  // Moved or copied: the record follows (best effort; the first `new` writes it, so that a
  // refused command changes nothing).
  if (home && (home->common_dir != common_dir || home->default_root != root))
    if (auto lock = Registry(berth_dir).lock())
      (void)write_project_home(berth_dir, {common_dir, root});
  return root;
}

} // namespace

Result<Project> Project::open(const ProjectOptions& options) {
  Project p;
  std::string here = current_directory();
  p.cwd_ = options.dir.empty() ? here : util::absolute(options.dir, here);
  if (!util::is_directory(p.cwd_) && !util::is_directory(util::real_path(p.cwd_).value_or("")))
    return fail(ErrorCode::not_a_repository,
                fmt::format("cannot use '{}': no such directory", p.cwd_),
                "pass -C an existing directory inside a git repository");

  // One call answers where the repository is and which work tree we stand in; outside a work
  // tree (a bare repository, a .git dir) git prints the first two answers, then refuses the third.
  GitCall probe{{"rev-parse", "--path-format=absolute", "--git-common-dir", "--is-inside-work-tree",
                 "--show-toplevel"},
                p.cwd_,
                {},
                {},
                util::Stream::pipe};
  auto probed = BERTH_TRY(git_status_of(probe));
  auto lines = split_lines(probed.out);
  bool outside_work_tree = lines.size() >= 2 && lines[1] == "false";
  if (!probed.ok() && !outside_work_tree)
    return fail(ErrorCode::not_a_repository, fmt::format("not a git repository: {}", p.cwd_),
                "run berth inside a git repository, or point -C at one");
  if (lines.size() < 2 || (!outside_work_tree && lines.size() < 3))
    return tl::unexpected(git_error(probe, probed, "unexpected rev-parse output"));
  auto common = util::real_path(lines[0]);
  if (!common) return fail(ErrorCode::io_error, common.error());
  p.common_dir_ = *common;
  if (!outside_work_tree) p.current_worktree_ = lines[2];

  // The first entry of `worktree list` is the main worktree (or the bare repository itself).
  // While another process is half-way through `git worktree add` (another `berth new`, whose
  // lock we do not hold here), listing fails ("failed to read .git/worktrees/<new>/commondir").
  // That window lasts milliseconds: try again rather than fail.
  std::vector<std::string> list_args{"--git-dir=" + p.common_dir_, "worktree", "list",
                                     "--porcelain", "-z"};
  // A worktree whose HEAD (or gitdir, locked) was replaced by a FIFO would make the list wait
  // forever, and so every command: then git's own rule for the main worktree (the common dir
  // without its "/.git"; bare per core.bare) stands in for the list, and the commands that need
  // the list refuse with hostile_file.
  std::vector<WorktreeEntry> worktrees;
  if (!admin_dir_blocking_list(p.common_dir_).empty()) {
    WorktreeEntry main;
    main.path = p.common_dir_;
    main.bare = BERTH_TRY(git_out(p.common_dir_, {"--git-dir=" + p.common_dir_, "rev-parse",
                                                  "--is-bare-repository"})) == "true";
    if (!main.bare && main.path.size() > 5 && main.path.substr(main.path.size() - 5) == "/.git")
      main.path.resize(main.path.size() - 5);
    worktrees.push_back(main);
  } else {
    auto listed = git_out(p.common_dir_, list_args);
    for (int attempt = 0; !listed && attempt < 50; ++attempt) {
      ::usleep(20 * 1000);
      listed = git_out(p.common_dir_, list_args);
    }
    worktrees = parse_worktree_list(BERTH_TRY(std::move(listed)));
  }
  if (!worktrees.empty() && worktrees.front().bare) {
    p.bare_ = true;
  } else if (!worktrees.empty()) {
    p.main_worktree_ = worktrees.front().path;
  } else {
    p.main_worktree_ = util::dirname(p.common_dir_);
  }

  std::string name = util::basename(p.bare_ ? p.common_dir_ : p.main_worktree_);
  if (p.bare_ && name.size() > 4 && name.substr(name.size() - 4) == ".git")
    name.resize(name.size() - 4);
  if (name.empty() || name == "/") name = "project";
  p.name_ = name;
  p.berth_dir_ = util::join(p.common_dir_, "berth");

  std::string user_file = util::join(util::config_home(), "berth/config.toml");
  std::string repo_file = p.bare_ ? std::string() : util::join(p.main_worktree_, ".berth.toml");
  p.config_ = BERTH_TRY(Config::load(user_file, repo_file, options.config_flags));

  p.default_root_ = settled_default_root(
      p.berth_dir_, p.common_dir_,
      util::join(util::data_home(),
                 fmt::format("berth/{}-{:08x}", p.name_,
                             static_cast<uint32_t>(util::fnv1a(p.common_dir_)))));
  std::string root = expand_home(p.config_.get_string("workspace_root"));
  if (root.empty())
    p.workspace_root_ = p.default_root_;
  else
    p.workspace_root_ = util::absolute(root, p.bare_ ? p.common_dir_ : p.main_worktree_);
  return p;
}

} // namespace berth
