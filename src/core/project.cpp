#include "berth/berth.hpp"
#include "core/admin_files.hpp"
#include "core/git.hpp"
#include "core/name.hpp"
#include "core/plain.hpp"
#include "core/porcelain.hpp"
#include "core/registry.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/paths.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <dlfcn.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace berth {

#ifndef BERTH_VERSION
#define BERTH_VERSION "0.0.0"
#endif

std::string_view version() {
  return BERTH_VERSION;
}

// Where an embedded libberth looks for the berth it starts (cmake/install.cmake sets both).
#ifndef BERTH_INSTALLED_HELPER
#define BERTH_INSTALLED_HELPER "/usr/local/libexec/berth/berth"
#endif
#ifndef BERTH_HELPER_FROM_LIBDIR
#define BERTH_HELPER_FROM_LIBDIR "../libexec/berth/berth"
#endif

namespace {

// The berth executable for background work. The pool filler and the watcher are berth itself,
// started again with arguments only berth knows: a host program that links the library must
// never be run so. In order: the embedder's explicit choice; this program when it is berth; the
// berth installed beside libberth.so (found from where the library itself lies, so a prefix
// chosen at install time works); the one installed where the library was configured to go.
std::string find_helper(const std::string& option) {
  auto executable = [](const std::string& path) {
    struct stat st;
    return !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
           ::access(path.c_str(), X_OK) == 0;
  };
  if (!option.empty()) return executable(option) ? util::real_path(option).value_or("") : "";
  if (auto self = berth_executable()) return *self;
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&version), &info) != 0 && info.dli_fname != nullptr &&
      util::basename(info.dli_fname).rfind("libberth.so", 0) == 0) {
    if (auto lib = util::real_path(info.dli_fname)) {
      std::string beside = util::join(util::dirname(*lib), BERTH_HELPER_FROM_LIBDIR);
      if (executable(beside)) return util::real_path(beside).value_or("");
    }
  }
  if (executable(BERTH_INSTALLED_HELPER)) return BERTH_INSTALLED_HELPER;
  return "";
}

std::string current_directory() {
  char buf[PATH_MAX];
  if (::getcwd(buf, sizeof buf) == nullptr) return "/";
  return buf;
}

// The default workspace root: a folder with no dot component anywhere in its path (tools treat
// everything under a dot-directory as hidden: express's `send` refuses to serve such files, and
// 55 of express's tests fail under ~/.local/share), outside the project, and on the project's
// filesystem where possible (set-up clones are copy-on-write and discards are renames only
// within one filesystem). In order: ~/berth/<leaf> when it is on the project's filesystem;
// <folder of the checkout>/berth-workspaces/<leaf> beside it (git's own advice puts worktrees
// beside the checkout) when that folder is writable; ~/berth/<leaf> across filesystems; the old
// ${XDG_DATA_HOME:-~/.local/share}/berth/<leaf> when HOME is unusable. See ADR 0009.
std::string choose_default_root(const std::string& anchor, const std::string& leaf) {
  auto usable = [&](const std::string& root) {
    return root.front() == '/' && util::dot_component(root).empty() &&
           !util::is_within(root, anchor) && !util::is_within(anchor, root);
  };
  std::string home = util::home_dir();
  std::string in_home =
      home.front() == '/' ? util::join(util::lexically_normal(home), "berth/" + leaf) : "";
  bool home_ok = !in_home.empty() && usable(in_home);
  uint64_t device = util::device_of(anchor);
  if (home_ok && device != 0 && util::device_of(in_home) == device) return in_home;
  std::string parent = util::dirname(anchor);
  std::string beside = util::join(parent, "berth-workspaces/" + leaf);
  if (parent != "/" && usable(beside) && util::device_of(beside) == device &&
      ::access(parent.c_str(), W_OK) == 0)
    return beside;
  if (!in_home.empty()) return in_home; // across filesystems; or HOME has a dot: new warns once
  return util::join(util::data_home(), "berth/" + leaf);
}

// The root is chosen once per project and recorded in the registry (<berth>/project.json), which
// moves with the repository: a project the user moves keeps finding its workspaces (and pool and
// trash), a copy (whose original is still there) gets its own. A recorded root with a dot
// component (chosen by an older berth) gives way to a new choice; it is kept as a previous root,
// so that its workspaces, pool slots and trash stay berth's (ADR 0009).
void add_once(std::vector<std::string>& roots, const std::string& root) {
  if (std::find(roots.begin(), roots.end(), root) == roots.end()) roots.push_back(root);
}

struct SettledRoot {
  std::string root;
  std::vector<std::string> previous;
};
SettledRoot settled_default_root(const std::string& berth_dir, const std::string& common_dir,
                                 const std::string& computed, const std::string& legacy) {
  auto home = read_project_home(berth_dir);
  SettledRoot settled{computed, {}};
  if (home) settled.previous = home->previous_roots;
  if (home && home->default_root.front() == '/' &&
      (home->common_dir == common_dir || !util::exists(home->common_dir))) {
    if (!util::dot_component(home->default_root).empty() && util::dot_component(computed).empty()) {
      add_once(settled.previous, home->default_root);
    } else {
      settled.root = home->default_root;
    }
  }
  // Moved, copied or upgraded: the record follows (best effort; the first `new` writes it, so
  // that a refused command changes nothing).
  if (home && (home->common_dir != common_dir || home->default_root != settled.root ||
               home->previous_roots != settled.previous))
    if (auto lock = Registry(berth_dir).lock())
      (void)write_project_home(berth_dir, {common_dir, settled.root, settled.previous});
  // The old default (from before berth recorded roots) may hold workspaces whose records name
  // no root: it stays known while it exists.
  if (legacy != settled.root && util::is_directory(legacy)) add_once(settled.previous, legacy);
  return settled;
}

std::string work_tree_file(const std::string& berth_dir) {
  return util::join(berth_dir, "work-tree");
}

void note_work_tree(const std::string& berth_dir, const std::string& work_tree) {
  if (chomp(util::read_file(work_tree_file(berth_dir)).value_or("")) != work_tree)
    (void)util::write_file_atomic(work_tree_file(berth_dir), work_tree + "\n");
}

// Whether the work tree at `dir` uses the repository at `common_dir`: its `.git` is that directory
// (or a symlink to it), or a gitfile naming it.
bool work_tree_of(const std::string& dir, const std::string& common_dir) {
  if (dir.empty()) return false;
  std::string dot_git = util::join(dir, ".git");
  if (util::real_path(dot_git).value_or("") == common_dir) return true;
  auto text = util::read_file(dot_git);
  if (!text || text->rfind("gitdir: ", 0) != 0) return false;
  std::string target = chomp(text->substr(8));
  return util::real_path(util::absolute(target, dir)).value_or("") == common_dir;
}

// The main checkout. git names it after the common dir (its parent when that is `.git`, else the
// common dir itself), which is wrong when the git dir lives apart from its work tree
// (`git init --separate-git-dir`, `.git` a symlink to a directory elsewhere): git itself does not
// know where that work tree is. Standing in it, berth does, and notes it in <berth>/work-tree so
// that commands run from a workspace or the git dir find it too. `here` is the work tree the
// command runs in when that is the main one, else "".
std::string main_worktree_of(const std::string& berth_dir, const std::string& common_dir,
                             const std::string& git_says, const std::string& here) {
  if (!here.empty()) {
    // Noted only where berth keeps state already: a command that finds no registry writes nothing
    // (the first `new` notes it).
    if (here != git_says && util::is_directory(berth_dir) &&
        chomp(util::read_file(work_tree_file(berth_dir)).value_or("")) != here)
      if (auto lock = Registry(berth_dir).lock()) note_work_tree(berth_dir, here);
    return here;
  }
  // The note first: a `.git` symlink to some `/elsewhere/.git` makes git name /elsewhere.
  std::string noted = chomp(util::read_file(work_tree_file(berth_dir)).value_or(""));
  if (!noted.empty() && noted.front() == '/' && work_tree_of(noted, common_dir)) return noted;
  return git_says;
}

} // namespace

// (Called under the project lock.)
void note_main_worktree(const Project& project) {
  if (project.bare() || project.main_worktree().empty()) return;
  if (util::dirname(project.common_dir()) == project.main_worktree() &&
      util::basename(project.common_dir()) == ".git")
    return; // where git looks for it
  note_work_tree(project.berth_dir(), project.main_worktree());
}

void check_work_tree_note(const Project& project, Repair repair, DoctorReport& report) {
  std::string file = work_tree_file(project.berth_dir());
  std::string noted = chomp(util::read_file(file).value_or(""));
  if (noted.empty() || work_tree_of(noted, project.common_dir())) return;
  // Standing in the new place, the project knows it (Project::open notes it on the way, best
  // effort): said and written here for certain.
  std::string now = project.main_worktree();
  if (repair == Repair::yes && !project.bare() && work_tree_of(now, project.common_dir())) {
    note_work_tree(project.berth_dir(), now);
    report.repaired.push_back(
        fmt::format("the checkout moved from {} to {}: noted in {}", noted, now, file));
    return;
  }
  report.problems.push_back(
      {"work_tree_moved", "", noted,
       fmt::format("your checkout is no longer at {} (noted in {}): moved? Until berth runs "
                   "there, commands run from a workspace or the git dir {} take {} for the "
                   "project",
                   noted, file, project.common_dir(), now),
       "run `berth doctor --repair` in the checkout's new place (or `berth -C NEW doctor "
       "--repair`)"});
}

Result<Project> Project::open(const ProjectOptions& options) {
  Project p;
  std::string here = current_directory();
  p.cwd_ = options.dir.empty() ? here : util::absolute(options.dir, here);
  if (!util::is_directory(p.cwd_) && !util::is_directory(util::real_path(p.cwd_).value_or("")))
    return fail(ErrorCode::not_a_repository,
                fmt::format("cannot use '{}': no such directory", p.cwd_),
                "pass -C an existing directory inside a git repository");

  // One call answers where the repository is and which work tree we stand in; outside a work
  // tree (a bare repository, a .git dir) git prints the first four answers, then refuses the last.
  // The object format too: every object name berth writes (the null id of a ref update) is as
  // wide as the repository's (sha1: 40 hex digits, sha256: 64).
  GitCall probe{{"rev-parse", "--path-format=absolute", "--git-common-dir", "--absolute-git-dir",
                 "--show-object-format", "--is-inside-work-tree", "--show-toplevel"},
                p.cwd_,
                {},
                {},
                util::Stream::pipe};
  auto probed = BERTH_TRY(git_status_of(probe));
  auto lines = split_lines(probed.out);
  bool outside_work_tree = lines.size() >= 4 && lines[3] == "false";
  // A plain folder (not a git repository; docs/plain.md): berth's private repository of it, or,
  // standing in one of its workspaces, the folder that repository's marker names.
  bool in_git = probed.ok() || outside_work_tree;
  if (options.plain_create && !options.plain_workspace_name.empty())
    BERTH_TRY(validate_name(options.plain_workspace_name));
  auto plain = BERTH_TRY(find_plain(util::real_path(p.cwd_).value_or(p.cwd_), options.plain_create,
                                    options.plain_force, in_git));
  if (!plain && in_git && lines.size() >= 4)
    if (auto common = util::real_path(lines[0])) {
      if (std::string folder = plain_folder_of(*common); !folder.empty())
        plain = PlainLocation{folder, *common, ""};
    }
  if (plain) {
    p.plain_folder_ = plain->folder;
    p.plain_moved_from_ = plain->moved_from;
    p.common_dir_ = plain->common_dir;
    p.bare_ = true;
    p.object_format_ = "sha1";
    if (in_git && !outside_work_tree && lines.size() >= 5) p.current_worktree_ = lines[4];
  }
  if (!plain && !probed.ok() && !outside_work_tree)
    return fail(ErrorCode::not_a_repository, fmt::format("not a git repository: {}", p.cwd_),
                "run berth inside a git repository, or point -C at one (`berth new NAME` in a "
                "folder that is not one keeps it as a plain folder: docs/plain.md)");
  if (plain) {
    p.null_oid_ = std::string(40, '0');
    p.empty_tree_ = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
    p.berth_dir_ = util::join(p.common_dir_, "berth");
  } else {
    if (lines.size() < 4 || (!outside_work_tree && lines.size() < 5))
      return tl::unexpected(git_error(probe, probed, "unexpected rev-parse output"));
    auto common = util::real_path(lines[0]);
    if (!common) return fail(ErrorCode::io_error, common.error());
    p.common_dir_ = *common;
    p.object_format_ = lines[2];
    bool sha256 = p.object_format_ == "sha256";
    p.null_oid_ = std::string(sha256 ? 64 : 40, '0');
    p.empty_tree_ = sha256 ? "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
                           : "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
    if (!outside_work_tree) p.current_worktree_ = lines[4];
    p.berth_dir_ = util::join(p.common_dir_, "berth");

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
    // Run from the main checkout in git's standard layout (its `.git` folder is the common dir):
    // that checkout is the main worktree, and the list (a git process reading every worktree's
    // HEAD, on every command) can only say so too.
    bool standard_main = !outside_work_tree && !p.current_worktree_.empty() &&
                         util::basename(p.common_dir_) == ".git" &&
                         util::dirname(p.common_dir_) == p.current_worktree_ &&
                         util::real_path(lines[1]).value_or("") == p.common_dir_;
    if (standard_main) {
      WorktreeEntry main;
      main.path = p.current_worktree_;
      worktrees.push_back(main);
    } else if (!admin_dir_blocking_list(p.common_dir_).empty()) {
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
    } else {
      bool in_main = !outside_work_tree && util::real_path(lines[1]).value_or("") == p.common_dir_;
      p.main_worktree_ = main_worktree_of(p.berth_dir_, p.common_dir_,
                                          worktrees.empty() ? util::dirname(p.common_dir_)
                                                            : worktrees.front().path,
                                          in_main ? p.current_worktree_ : std::string());
    }
    // Shared config damaged behind berth's back (`core.bare = true` set by a hook, `core.worktree`
    // pointing into a workspace) must not move the project: its name, its .berth.toml and so its
    // workspace root. A common dir named `.git` that has an index (the main checkout's) is the git
    // dir of the checkout around it, which git's answer may only replace by a folder outside it
    // (`berth doctor` reports the damage). A bare repository named `.git` with worktrees beside it
    // has no index of its own: it stays bare.
    if (std::string around = util::dirname(p.common_dir_);
        util::basename(p.common_dir_) == ".git" && util::is_directory(around) &&
        util::exists(util::join(p.common_dir_, "index")) &&
        (p.bare_ || (p.main_worktree_ != around && util::is_within(p.main_worktree_, around)) ||
         util::is_within(p.main_worktree_, util::join(util::data_home(), "berth")))) {
      p.bare_ = false;
      p.main_worktree_ = around;
    }
  } // not plain

  // The folder a plain project stands for names it and anchors its workspace root.
  const std::string& anchor =
      p.plain() ? p.plain_folder_ : (p.bare_ ? p.common_dir_ : p.main_worktree_);
  std::string name =
      util::basename(p.plain() ? p.plain_folder_ : (p.bare_ ? p.common_dir_ : p.main_worktree_));
  if (p.bare_ && !p.plain() && name.size() > 4 && name.substr(name.size() - 4) == ".git")
    name.resize(name.size() - 4);
  if (name.empty() || name == "/") name = "project";
  p.name_ = name;

  // A relative HOME (`HOME=.`) would put the workspaces, the trust list and the user's config
  // under whatever directory berth runs in — the user's checkout. git resolves it the same way;
  // berth refuses instead (relative XDG_* values are ignored, as the XDG spec says).
  if (util::data_home().front() != '/' || util::config_home().front() != '/')
    return fail(ErrorCode::config_invalid,
                fmt::format("HOME is a relative path ('{}'): berth's workspaces and settings "
                            "would land inside the current directory",
                            util::home_dir()),
                "set HOME (or XDG_DATA_HOME and XDG_CONFIG_HOME) to an absolute path");
  std::string user_file = util::join(util::config_home(), "berth/config.toml");
  std::string repo_file =
      p.setup_source().empty() ? std::string() : util::join(p.setup_source(), ".berth.toml");
  p.config_ = BERTH_TRY(Config::load(user_file, repo_file, options.config_flags));

  std::string leaf =
      fmt::format("{}-{:08x}", p.name_, static_cast<uint32_t>(util::fnv1a(p.common_dir_)));
  auto settled =
      settled_default_root(p.berth_dir_, p.common_dir_, choose_default_root(anchor, leaf),
                           util::join(util::data_home(), "berth/" + leaf));
  p.default_root_ = std::move(settled.root);
  p.previous_roots_ = std::move(settled.previous);
  const std::string& configured_root = p.config_.get_string("workspace_root");
  std::string root = util::expand_home(configured_root);
  if (root != configured_root && (root.empty() || root.front() != '/'))
    return fail(ErrorCode::config_invalid,
                fmt::format("workspace_root '{}' starts with ~ but HOME is not an absolute path",
                            configured_root),
                "set HOME to an absolute path, or workspace_root to an absolute one");
  if (root.empty())
    p.workspace_root_ = p.default_root_;
  else
    p.workspace_root_ = util::absolute(root, anchor);
  // A plain folder is written only by accept: its workspaces never go inside it. Its own
  // .berth.toml (one copied from a repository, `workspace_root = ".worktrees"`) can name no other
  // place: ignored, with a warning; the user's own setting is refused.
  if (p.plain() && util::is_within(util::lexically_normal(p.workspace_root_), p.plain_folder_)) {
    const ConfigSource& from = p.config_.entry("workspace_root").source;
    if (from.layer != ConfigSource::Layer::repository) {
      drop_unborn_plain(p.common_dir_, p.plain_folder_);
      return fail(ErrorCode::config_invalid,
                  fmt::format("{}: workspace_root {} is inside the plain folder {}, which berth "
                              "writes only on accept",
                              from.where, p.workspace_root_, p.plain_folder_),
                  "set workspace_root to a folder outside it");
    }
    p.config_.add_warning(fmt::format("{}: workspace_root '{}' ignored: a plain folder's "
                                      "workspaces are never made inside it",
                                      from.where, configured_root));
    p.workspace_root_ = p.default_root_;
  }
  p.helper_ = find_helper(options.helper_path);
  return p;
}

} // namespace berth
