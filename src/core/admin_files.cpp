#include "core/admin_files.hpp"

#include "core/git.hpp"
#include "core/porcelain.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/dir.hpp"
#include "util/paths.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace berth {
namespace {

// Where repairs put what they move aside: inside the admin dir (same filesystem, so a rename;
// deleted with the worktree), under a name git never reads. Never scanned.
constexpr const char* kAsidePrefix = "berth-aside";
// How long doctor leaves a berth-aside folder alone (the evidence of a repair) before it reports
// it as a leftover and --repair deletes what holds no data.
constexpr long long kAsideKeptSeconds = 24LL * 60 * 60;

// Files git reads (or writes by rename over) in an admin dir: a directory there is as wrong as a
// FIFO. Anything else that is neither a file nor a directory is wrong wherever it is: git never
// makes a FIFO, socket, device or symlink in an admin dir.
const std::set<std::string>& known_files() {
  static const std::set<std::string> files{
      "HEAD",       "index",      "ORIG_HEAD",        "FETCH_HEAD",   "MERGE_HEAD",   "MERGE_MSG",
      "MERGE_MODE", "MERGE_RR",   "CHERRY_PICK_HEAD", "REVERT_HEAD",  "REBASE_HEAD",  "AUTO_MERGE",
      "SQUASH_MSG", "BISECT_LOG", "BISECT_START",     "BISECT_NAMES", "BISECT_TERMS", "commondir",
      "gitdir",     "locked",     "config.worktree",  "logs/HEAD"};
  return files;
}
const std::set<std::string>& known_dirs() {
  static const std::set<std::string> dirs{"logs", "refs"};
  return dirs;
}

std::string kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISLNK(mode)) return "a symlink";
  if (S_ISDIR(mode)) return "a directory";
  return "not a regular file";
}

// A bound on the walk: an admin dir holds a dozen entries; one stuffed with thousands is looked
// at no further (what was seen is still checked).
constexpr int kMaxEntries = 4096;
constexpr int kMaxDepth = 8;
constexpr const char* kGarbage = "a file git cannot read";

// Whether the regular file `name` in `dir_fd` (HEAD or index of an admin dir) holds what git
// writes there: a sandboxed command may overwrite them with anything, and git then fails on every
// call ("unreadable" forever, a discard that cannot snapshot). Read without following links and
// without waiting (it was a regular file a moment ago; it may not be now).
bool garbage(int dir_fd, const std::string& name) {
  int fd = ::openat(dir_fd, name.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false; // gone meanwhile: nothing to judge
  char buf[128];
  ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  std::string_view head(buf, n > 0 ? static_cast<size_t>(n) : 0);
  if (name == "index") return head.substr(0, 4) != "DIRC";
  while (!head.empty() && (head.back() == '\n' || head.back() == '\r'))
    head.remove_suffix(1);
  if (head.rfind("ref: refs/", 0) == 0) return false;
  return !((head.size() == 40 || head.size() == 64) &&
           head.find_first_not_of("0123456789abcdef") == std::string_view::npos);
}

void scan(const std::string& root, const std::string& rel, int depth, int& budget,
          std::vector<HostileFile>& out) {
  std::string dir = rel.empty() ? root : util::join(root, rel);
  util::DirEntries d(dir);
  for (const auto& e : d) {
    std::string name(e.name);
    if (--budget < 0) break;
    std::string sub = rel.empty() ? name : rel + "/" + name;
    // Submodules' git dirs (walked by scan_modules) and what berth moved aside. A submodule's
    // object store is large and read by git only when asked for an object: its top level, info
    // and pack (alternates, pack indexes: what every git call opens) are looked at, not the
    // loose objects.
    if (rel.empty() && (name == "modules" || name.rfind(kAsidePrefix, 0) == 0)) continue;
    bool in_objects = rel == "objects";
    struct stat st;
    if (::fstatat(d.fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    std::string path = util::join(root, sub);
    if (S_ISREG(st.st_mode)) {
      if (known_dirs().count(sub))
        out.push_back({path, kind_of(st.st_mode)});
      else if (rel.empty() && (name == "HEAD" || name == "index") && garbage(d.fd(), name))
        out.push_back({path, kGarbage});
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      if (known_files().count(sub))
        out.push_back({path, "a directory"});
      else if (in_objects && name != "info" && name != "pack")
        continue;
      else if (depth < kMaxDepth)
        scan(root, sub, depth + 1, budget, out);
      continue;
    }
    out.push_back({path, kind_of(st.st_mode)});
  }
}

// Whether `dir` (under a modules/ folder) is a submodule's git dir, rather than a folder of a
// submodule name with slashes in it ("modules/a/b"): git's own test, a HEAD of any kind or an
// object store there. lstat only.
bool is_module_dir(const std::string& dir) {
  struct stat st;
  return ::lstat(util::join(dir, "HEAD").c_str(), &st) == 0 ||
         ::lstat(util::join(dir, "objects").c_str(), &st) == 0;
}

// The submodules' git dirs under `<git_dir>/modules/` (git keeps a worktree's own there:
// `<admin>/modules/<name>`, nested ones in `modules/<name>/modules/<name2>`): each is scanned
// like an admin dir. `modules` itself, or a folder on the way, that is not a directory is hostile.
void scan_modules(const std::string& git_dir, int depth, int& budget,
                  std::vector<HostileFile>& out) {
  std::string modules = util::join(git_dir, "modules");
  struct stat st;
  if (::lstat(modules.c_str(), &st) != 0) return;
  if (!S_ISDIR(st.st_mode)) {
    out.push_back({modules, kind_of(st.st_mode)});
    return;
  }
  // Depth-first over the folders under modules/: a module dir is scanned (and its own modules/
  // walked), any other folder is a part of a name.
  std::vector<std::pair<std::string, int>> todo{{modules, depth}};
  while (!todo.empty() && budget > 0) {
    auto [dir, level] = todo.back();
    todo.pop_back();
    util::DirEntries d(dir);
    for (const auto& e : d) {
      std::string name(e.name);
      if (name.rfind(kAsidePrefix, 0) == 0) continue;
      if (--budget < 0) break;
      std::string path = util::join(dir, name);
      if (::fstatat(d.fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      if (!S_ISDIR(st.st_mode)) {
        if (!S_ISREG(st.st_mode)) out.push_back({path, kind_of(st.st_mode)});
        continue;
      }
      if (level >= kMaxDepth) continue;
      if (is_module_dir(path)) {
        std::size_t before = out.size();
        scan(path, "", 0, budget, out);
        for (std::size_t i = before; i < out.size(); ++i)
          out[i].module = path;
        scan_modules(path, level + 1, budget, out);
      } else {
        todo.push_back({path, level + 1});
      }
    }
  }
}

// The commit a submodule's HEAD was at, from its reflog (`<module>/logs/HEAD`, last line's new
// id): git keeps a submodule detached there. "" when there is no readable reflog.
std::string module_head_from_reflog(const std::string& module) {
  auto log = util::read_file(util::join(module, "logs/HEAD"));
  if (!log) return {};
  std::string line = last_line(*log);
  std::size_t sp1 = line.find(' ');
  if (sp1 == std::string::npos) return {};
  std::size_t sp2 = line.find(' ', sp1 + 1);
  std::string id =
      line.substr(sp1 + 1, sp2 == std::string::npos ? std::string::npos : sp2 - sp1 - 1);
  if (id.size() < 40 || id.find_first_not_of("0123456789abcdef") != std::string::npos) return {};
  return id;
}

// The branch the reflog's last "checkout: moving from A to B" went to, when B is a name git
// would take for a branch (no spaces, no ".."); "" otherwise.
std::string module_branch_from_reflog(const std::string& module) {
  auto log = util::read_file(util::join(module, "logs/HEAD"));
  if (!log) return {};
  constexpr std::string_view mark = "\tcheckout: moving from ";
  std::size_t at = log->rfind(mark);
  if (at == std::string::npos) return {};
  std::size_t eol = log->find('\n', at);
  std::string message = log->substr(
      at + mark.size(), eol == std::string::npos ? std::string::npos : eol - at - mark.size());
  std::size_t to = message.rfind(" to ");
  if (to == std::string::npos) return {};
  std::string name = message.substr(to + 4);
  if (name.empty() || name.find_first_of(" \t:~^?*[\\") != std::string::npos ||
      name.find("..") != std::string::npos || name[0] == '-')
    return {};
  return name;
}

// What git needs in a submodule's git dir after its hostile entries went aside: HEAD (detached
// at the commit its reflog last names) and the index (rebuilt from HEAD, refreshed against the
// submodule's files through its core.worktree).
Result<void> repair_module(const std::string& module, const std::vector<HostileFile>& moved) {
  auto was_moved = [&](const char* rel) {
    std::string path = util::join(module, rel);
    for (const auto& f : moved)
      if (f.path == path) return true;
    return false;
  };
  if (was_moved("HEAD")) {
    std::string head = module_head_from_reflog(module);
    if (head.empty())
      return fail(ErrorCode::hostile_file,
                  fmt::format("cannot put back the HEAD of the submodule git dir {}: it has no "
                              "reflog to take it from",
                              module),
                  fmt::format("write the submodule's commit into {}/HEAD by hand", module));
    if (auto written = util::write_file_atomic(util::join(module, "HEAD"), head + "\n"); !written)
      return fail(ErrorCode::hostile_file,
                  fmt::format("cannot rewrite {}/HEAD: {}", module, written.error()));
    // On a branch the reflog last checked out, and that branch is still at that commit: put HEAD
    // back on it (git would otherwise show the submodule's work as detached).
    std::string branch = module_branch_from_reflog(module);
    GitCall tip;
    tip.args = {"--git-dir=" + module, "rev-parse", "--verify", "-q", "refs/heads/" + branch};
    tip.cwd = module;
    if (!branch.empty())
      if (auto at = git_status_of(tip); at && at->exit_code == 0 && chomp(at->out) == head)
        (void)util::write_file_atomic(util::join(module, "HEAD"),
                                      "ref: refs/heads/" + branch + "\n");
  }
  if (was_moved("index")) {
    GitCall read_tree;
    // The module's config is the workspace's to write: no fsmonitor hook it names is run.
    read_tree.args = {"--git-dir=" + module, "-c", "core.fsmonitor=false", "read-tree", "HEAD"};
    read_tree.cwd = module;
    BERTH_TRY(git(read_tree));
    GitCall refresh = read_tree;
    refresh.args = {"--git-dir=" + module, "-c", "core.fsmonitor=false",
                    "update-index",        "-q", "--refresh"};
    (void)git_status_of(refresh);
  }
  return {};
}

} // namespace

std::vector<HostileFile> hostile_admin_files(const std::string& git_dir) {
  std::vector<HostileFile> out;
  int budget = kMaxEntries;
  scan(git_dir, "", 0, budget, out);
  scan_modules(git_dir, 0, budget, out);
  return out;
}

std::string describe_hostile(const std::vector<HostileFile>& files) {
  if (files.empty()) return {};
  const auto& first = files.front();
  std::string text =
      first.kind == kGarbage
          ? fmt::format("{} holds something git cannot read (not what git writes there)",
                        first.path)
          : fmt::format("{} is {} where git expects a {}", first.path, first.kind,
                        first.kind == "a directory" ? "file" : "regular file");
  if (files.size() > 1) text += fmt::format(" (and {} more)", files.size() - 1);
  return text;
}

Result<void> refuse_hostile_admin(const Workspace& w) {
  auto files = hostile_admin_files(w.git_dir);
  if (files.empty()) return {};
  Error error{
      ErrorCode::hostile_file,
      fmt::format("workspace '{}' cannot be read safely: {}", w.name, describe_hostile(files)),
      fmt::format("a command run there planted it (git would wait on it forever); `berth "
                  "doctor --repair` moves it aside, `berth discard {}` keeps the work "
                  "in the trash",
                  w.name),
      std::nullopt,
      {}};
  for (const auto& f : files)
    error.paths.push_back(f.path);
  return tl::unexpected(std::move(error));
}

namespace {
// Move `files` (all under `git_dir`) into a fresh berth-aside folder of `git_dir`.
Result<std::vector<std::string>> move_aside(const std::string& git_dir,
                                            const std::vector<HostileFile>& files) {
  std::vector<std::string> moved;
  if (files.empty()) return moved;
  // A fresh folder per repair: whatever sits under an older name is never written through.
  std::string aside = util::join(git_dir, fmt::format("{}-{}-{}", kAsidePrefix,
                                                      static_cast<long long>(::time(nullptr)),
                                                      static_cast<long>(::getpid())));
  if (::mkdir(aside.c_str(), 0700) != 0 && errno != EEXIST)
    return fail(ErrorCode::hostile_file,
                fmt::format("cannot make {}: {}", aside, std::strerror(errno)),
                "move the files named here out of the way by hand");
  for (const auto& f : files) {
    std::string rel = f.path.substr(git_dir.size() + 1);
    std::string flat = rel;
    for (char& c : flat)
      if (c == '/') c = '_';
    std::string to = util::join(aside, flat);
    // A rename never opens the file: a FIFO or a device is moved, not read.
    if (::rename(f.path.c_str(), to.c_str()) != 0)
      return fail(ErrorCode::hostile_file,
                  fmt::format("cannot move {} aside: {}", f.path, std::strerror(errno)),
                  fmt::format("remove it by hand (`rm -r {}`)", f.path));
    moved.push_back(fmt::format("{} ({}) moved aside to {}", f.path, f.kind, to));
  }
  return moved;
}

// The hostile entries of the submodules' git dirs of the main checkout (<common>/modules/).
std::vector<HostileFile> hostile_main_modules(const std::string& common_dir) {
  std::vector<HostileFile> out;
  int budget = kMaxEntries;
  scan_modules(common_dir, 0, budget, out);
  return out;
}
} // namespace

Result<void> refuse_hostile_checkout_modules(const std::string& common_dir) {
  auto files = hostile_main_modules(common_dir);
  if (files.empty()) return {};
  Error error{
      ErrorCode::hostile_file,
      fmt::format("your checkout's submodules cannot be read safely: {}", describe_hostile(files)),
      "git would wait on it forever; `berth doctor --repair` moves it aside (and "
      "rebuilds the submodule's HEAD and index), then accept again",
      std::nullopt,
      {}};
  for (const auto& f : files)
    error.paths.push_back(f.path);
  return tl::unexpected(std::move(error));
}

Result<std::vector<std::string>> move_hostile_aside(const std::string& git_dir) {
  return move_aside(git_dir, hostile_admin_files(git_dir));
}

Result<std::vector<std::string>> repair_admin_files(const Workspace& w, const std::string& head) {
  auto files = hostile_admin_files(w.git_dir);
  auto moved = BERTH_TRY(move_hostile_aside(w.git_dir));
  if (moved.empty()) return moved;
  auto was_moved = [&](const char* rel) {
    std::string path = util::join(w.git_dir, rel);
    for (const auto& f : files)
      if (f.path == path) return true;
    return false;
  };
  // What git needs to see a worktree at all, from berth's record: HEAD on the branch (or the
  // commit a confined session detached it at), and the links between the admin dir and the tree.
  auto put = [&](const char* rel, const std::string& text) -> Result<void> {
    if (!was_moved(rel)) return {};
    if (auto written = util::write_file_atomic(util::join(w.git_dir, rel), text); !written)
      return fail(
          ErrorCode::hostile_file,
          fmt::format("cannot rewrite {}: {}", util::join(w.git_dir, rel), written.error()));
    return {};
  };
  BERTH_TRY(put("HEAD", head.empty() ? "ref: refs/heads/" + w.branch + "\n" : head + "\n"));
  BERTH_TRY(put("commondir", "../..\n"));
  BERTH_TRY(put("gitdir", util::join(w.path, ".git") + "\n"));
  BERTH_TRY(put("locked", idle_lock_reason(w)));
  // The submodules' git dirs, each once (git reads them before the worktree's own index).
  std::set<std::string> modules;
  for (const auto& f : files)
    if (!f.module.empty()) modules.insert(f.module);
  for (const auto& module : modules)
    BERTH_TRY(repair_module(module, files));
  // The index: rebuilt from HEAD, then refreshed against the files (which are all still there;
  // only what was staged and not committed is lost, and it was lost when the index was replaced).
  if (was_moved("index")) {
    BERTH_TRY(git(workspace_call(w, {"read-tree", "HEAD"})));
    (void)git_status_of(workspace_call(w, {"update-index", "-q", "--refresh"}));
  }
  return moved;
}

} // namespace berth

namespace berth {

namespace {
std::vector<std::string> admin_dirs(const std::string& common_dir) {
  std::string admin_root = util::join(common_dir, "worktrees");
  std::vector<std::string> dirs;
  for (const auto& e : util::DirEntries(admin_root))
    dirs.push_back(util::join(admin_root, std::string(e.name)));
  return dirs;
}
} // namespace

std::string admin_dir_blocking_list(const std::string& common_dir) {
  for (const auto& dir : admin_dirs(common_dir))
    for (const char* file : {"HEAD", "gitdir", "commondir", "locked"}) {
      struct stat st;
      if (::lstat(util::join(dir, file).c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return dir;
    }
  return {};
}

std::optional<std::vector<CheckedOut>> checked_out_branches(const std::string& common_dir) {
  std::vector<std::string> dirs = admin_dirs(common_dir);
  dirs.push_back(common_dir); // (the main checkout's HEAD)
  std::vector<CheckedOut> listed;
  for (auto& dir : dirs) {
    auto head = read_git_line(util::join(dir, "HEAD"));
    if (!head) return std::nullopt;
    if (head->rfind("ref: ", 0) == 0)
      listed.push_back(CheckedOut{std::move(dir), head->substr(5)});
    else if (!is_hex(*head))
      return std::nullopt;
  }
  return listed;
}

bool held_elsewhere(const std::vector<CheckedOut>& listed, const std::string& own_git_dir,
                    const std::string& ref) {
  struct stat own;
  bool known = ::stat(own_git_dir.c_str(), &own) == 0;
  return std::any_of(listed.begin(), listed.end(), [&](const CheckedOut& one) {
    struct stat st;
    return one.ref == ref && !(known && ::stat(one.admin_dir.c_str(), &st) == 0 &&
                               st.st_dev == own.st_dev && st.st_ino == own.st_ino);
  });
}

Result<void> refuse_blocking_admin(const std::string& common_dir) {
  std::string dir = admin_dir_blocking_list(common_dir);
  if (dir.empty()) return {};
  auto files = hostile_admin_files(dir);
  return fail(ErrorCode::hostile_file,
              fmt::format("the worktree admin dir {} cannot be read safely: {}", dir,
                          files.empty() ? std::string("a file there is not a regular file")
                                        : describe_hostile(files)),
              "a command run in that worktree planted it (git, your own `git gc` included, "
              "would wait on it forever); `berth doctor --repair` moves it aside");
}

namespace {

// Under `dir` (never following a symlink): delete what holds no data (with `remove`) and collect
// the regular files that stay in `kept`. True when `dir` itself is empty after (then removed too
// with `remove`).
bool clear_aside(const std::string& dir, bool remove, int depth, std::vector<std::string>& kept) {
  util::DirEntries d(dir);
  if (!d.is_open()) return false;
  bool empty = true;
  std::vector<std::string> names;
  for (const auto& e : d)
    names.emplace_back(e.name);
  for (const auto& name : names) {
    std::string path = util::join(dir, name);
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) continue;
    if (S_ISREG(st.st_mode)) {
      kept.push_back(path);
      empty = false;
    } else if (S_ISDIR(st.st_mode)) {
      // A planted directory (where git wanted a file) may hold anything: the same rule inside.
      if (depth >= kMaxDepth || !clear_aside(path, remove, depth + 1, kept)) empty = false;
    } else if (!remove || ::unlink(path.c_str()) != 0) {
      // A FIFO, a socket, a device or a symlink: nothing of the user's is in it.
      empty = false;
    }
  }
  if (empty && remove) return ::rmdir(dir.c_str()) == 0;
  return empty;
}

} // namespace

void doctor_aside_leftovers(const Project& project, const std::vector<Workspace>& records,
                            Repair repair, DoctorReport& report) {
  std::vector<std::string> places = admin_dirs(project.common_dir());
  places.push_back(project.common_dir());
  for (const auto& place : places) {
    util::DirEntries d(place);
    if (!d.is_open()) continue;
    std::vector<std::string> asides;
    for (const auto& e : d) {
      std::string name(e.name);
      struct stat st;
      if (name.rfind(kAsidePrefix, 0) != 0 ||
          ::fstatat(d.fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode))
        continue;
      // berth-aside-<time>-<pid>: a recent one is the evidence of what was planted, for the
      // user to look at after the repair that made it said so; only an old one is a leftover.
      long long made = static_cast<long long>(st.st_mtime);
      (void)std::sscanf(name.c_str() + std::strlen(kAsidePrefix), "-%lld-", &made);
      if (static_cast<long long>(::time(nullptr)) - made < kAsideKeptSeconds) continue;
      asides.push_back(util::join(place, name));
    }
    std::string name;
    for (const auto& w : records)
      if (w.git_dir == place) name = w.name;
    for (const auto& aside : asides) {
      std::vector<std::string> kept;
      bool gone = clear_aside(aside, repair == Repair::yes, 0, kept);
      if (gone && repair == Repair::yes) {
        report.repaired.push_back(fmt::format(
            "{} (what an earlier repair moved aside: nothing of yours in it) deleted", aside));
        continue;
      }
      std::string shown;
      for (size_t i = 0; i < kept.size() && i < 5; ++i)
        shown += (i ? ", " : "") + kept[i].substr(aside.size() + 1);
      if (kept.size() > 5) shown += fmt::format(" and {} more", kept.size() - 5);
      Problem p{"aside_leftover", name, aside,
                fmt::format("{} holds what an earlier repair moved aside (planted non-files; "
                            "git never reads there){}",
                            aside, kept.empty() ? "" : "; files kept: " + shown),
                kept.empty() ? "berth doctor --repair (deletes it: FIFOs, sockets, devices, "
                               "symlinks and empty folders hold no data)"
                             : fmt::format("look at the files, then `rm -r {}`{}", aside,
                                           repair == Repair::yes
                                               ? " (berth deleted what held no data)"
                                               : "; `berth doctor --repair` deletes what holds "
                                                 "no data first")};
      report.problems.push_back(std::move(p));
    }
  }
}

void doctor_admin_files(const Project& project, const std::vector<Workspace>& records,
                        Repair repair, DoctorReport& report) {
  for (const auto& dir : admin_dirs(project.common_dir())) {
    auto files = hostile_admin_files(dir);
    if (files.empty()) continue;
    const Workspace* owner = nullptr;
    for (const auto& w : records)
      if (w.git_dir == dir) owner = &w;
    std::string who = owner ? fmt::format("workspace '{}'", owner->name) : dir;
    std::string name = owner ? owner->name : std::string();
    if (repair == Repair::no) {
      report.problems.push_back(
          {"hostile_file", name, dir,
           fmt::format("{}: {} (git would wait on it forever, and so would `git gc`)", who,
                       describe_hostile(files)),
           "berth doctor --repair (moves it aside)"});
      continue;
    }
    auto moved = owner ? repair_admin_files(*owner) : move_hostile_aside(dir);
    if (!moved) {
      report.problems.push_back({"hostile_file", name, dir,
                                 fmt::format("{}: {}", who, moved.error().message),
                                 moved.error().hint});
      continue;
    }
    for (const auto& m : *moved)
      report.repaired.push_back(fmt::format("{}: {}", who, m));
  }
  // The main checkout's own submodules (<common>/modules/): only an unconfined command can plant
  // there, but the user's git, and accept's look at their tree, would wait on it all the same.
  const std::string& common = project.common_dir();
  auto files = hostile_main_modules(common);
  if (files.empty()) return;
  std::string who = "the main checkout's submodules";
  if (repair == Repair::no) {
    report.problems.push_back(
        {"hostile_file", "", util::join(common, "modules"),
         fmt::format("{}: {} (git would wait on it forever)", who, describe_hostile(files)),
         "berth doctor --repair (moves it aside)"});
    return;
  }
  auto moved = move_aside(common, files);
  std::set<std::string> modules;
  for (const auto& f : files)
    modules.insert(f.module);
  Result<void> fixed;
  for (const auto& module : modules)
    if (fixed && !module.empty()) fixed = repair_module(module, files);
  if (!moved || !fixed) {
    const Error& e = !moved ? moved.error() : fixed.error();
    report.problems.push_back({"hostile_file", "", util::join(common, "modules"),
                               fmt::format("{}: {}", who, e.message), e.hint});
    return;
  }
  for (const auto& m : *moved)
    report.repaired.push_back(fmt::format("{}: {}", who, m));
}

} // namespace berth
