// Plain folders: see plain.hpp, docs/plain.md and ADR 0011.
#include "core/plain.hpp"

#include "core/accept_steps.hpp"
#include "core/capture.hpp"
#include "core/git.hpp"
#include "core/name.hpp"
#include "core/pool.hpp"
#include "core/porcelain.hpp"
#include "core/registry.hpp"
#include "core/review.hpp"
#include "core/watch.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/dir.hpp"
#include "util/file_lock.hpp"
#include "util/paths.hpp"
#include "util/process_info.hpp"

#include <algorithm>
#include <fcntl.h>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace berth {

namespace {

std::string plain_area() {
  return util::join(util::data_home(), "berth/plain");
}
std::string link_of(const std::string& folder) {
  return util::join(plain_area(),
                    fmt::format("by-path/{:016x}", static_cast<uint64_t>(util::fnv1a(folder))));
}
std::string marker_of(const std::string& common_dir) {
  return util::join(common_dir, "berth/plain.json");
}

// A folder's identity: its device and inode, and its birth time where the file system keeps one
// (0 where not): an inode number freed by a deleted folder and given to a new one is another
// folder.
struct Identity {
  uint64_t device = 0, inode = 0;
  int64_t born = 0; ///< birth time, in nanoseconds
  bool same(const Identity& o) const {
    return device == o.device && inode == o.inode && (born == 0 || o.born == 0 || born == o.born);
  }
};
struct Marker {
  std::string folder;
  Identity identity;
};
std::optional<Marker> read_marker(const std::string& common_dir) {
  auto text = util::read_file(marker_of(common_dir));
  if (!text) return std::nullopt;
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object() || !j.contains("folder") || !j["folder"].is_string()) return std::nullopt;
  return Marker{
      j["folder"].get<std::string>(),
      {j.value("device", uint64_t{0}), j.value("inode", uint64_t{0}), j.value("born", int64_t{0})}};
}
Identity identity_of(const std::string& path) {
  struct statx st;
  if (::statx(AT_FDCWD, path.c_str(), 0, STATX_INO | STATX_BTIME, &st) != 0) return {};
  Identity id{::makedev(st.stx_dev_major, st.stx_dev_minor), st.stx_ino, 0};
  if (st.stx_mask & STATX_BTIME)
    id.born = static_cast<int64_t>(st.stx_btime.tv_sec) * 1000000000 + st.stx_btime.tv_nsec;
  return id;
}
// The marker (inside the private repository) and the link (by the folder's path) name each other:
// the link finds the repository from the folder, the marker's device and inode find a folder
// that moved (its old link then leads nowhere).
Result<void> write_link(const std::string& common_dir, const std::string& folder) {
  Identity id = identity_of(folder);
  nlohmann::json j{{"folder", folder}, {"device", id.device}, {"inode", id.inode}};
  if (id.born != 0) j["born"] = id.born;
  if (auto made = util::make_dirs(util::join(common_dir, "berth")); !made)
    return fail(ErrorCode::io_error, made.error());
  if (auto w = util::write_file_atomic(marker_of(common_dir), j.dump(2) + "\n"); !w)
    return fail(ErrorCode::io_error, w.error());
  if (auto made = util::make_dirs(util::dirname(link_of(folder))); !made)
    return fail(ErrorCode::io_error, made.error());
  if (auto w = util::write_file_atomic(link_of(folder), util::basename(common_dir) + "\n"); !w)
    return fail(ErrorCode::io_error, w.error());
  return {};
}
std::string linked_repo(const std::string& folder) {
  auto id = util::read_file(link_of(folder));
  if (!id) return "";
  std::string name = chomp(*id);
  if (name.empty() || name.find('/') != std::string::npos || name[0] == '.') return "";
  std::string repo = util::join(plain_area(), name);
  auto marker = read_marker(repo);
  return marker && marker->folder == folder ? repo : "";
}

// Folders berth never keeps as plain folders: a snapshot of them would take berth's own private
// repositories or workspaces (and a workspace made there would be written into the folder).
Result<void> refuse_unkeepable(const std::string& folder) {
  auto real = [](const std::string& path) { return util::real_path(path).value_or(path); };
  std::string home = real(util::home_dir());
  std::string data = real(util::join(util::data_home(), "berth"));
  std::string roots = util::join(home, "berth");
  if (folder == "/" || folder == home)
    return fail(
        ErrorCode::not_a_repository,
        fmt::format("berth does not keep {} as a plain folder (it holds everything)", folder),
        "run berth in the folder of one project, or point -C at it");
  if (util::is_within(home, folder))
    return fail(ErrorCode::not_a_repository,
                fmt::format("berth does not keep {} as a plain folder: it holds your home "
                            "directory {}",
                            folder, home),
                "run berth in the folder of one project, or point -C at it");
  if (util::is_within(data, folder))
    return fail(ErrorCode::not_a_repository,
                fmt::format("berth does not keep {} as a plain folder: it holds berth's own data "
                            "directory {}",
                            folder, data),
                "run berth in the folder of one project, or point -C at it");
  if (util::is_within(folder, data))
    return fail(ErrorCode::not_a_repository,
                fmt::format("berth does not keep {} as a plain folder: it is inside berth's own "
                            "data directory {}",
                            folder, data),
                "run berth in a project folder");
  if (util::is_within(folder, roots))
    return fail(ErrorCode::not_a_repository,
                fmt::format("berth does not keep {} as a plain folder: berth makes its "
                            "workspaces in {}",
                            folder, roots),
                "run berth in a project folder, or in one of its workspaces");
  return {};
}

Result<PlainLocation> make_plain(const std::string& folder) {
  BERTH_TRY(refuse_unkeepable(folder));
  if (std::string repo = linked_repo(folder); !repo.empty()) return PlainLocation{folder, repo, ""};
  // One maker at a time: of two `new` in a folder berth has not kept before, the second waits,
  // then finds the first one's repository by its link (else each made its own, and the folder's
  // workspaces were split between them, all but one repository's out of view).
  std::string links = util::dirname(link_of(folder));
  if (auto made = util::make_dirs(links); !made) return fail(ErrorCode::io_error, made.error());
  auto lock = util::FileLock::acquire(util::join(links, ".make.lock"));
  if (!lock) return fail(ErrorCode::io_error, lock.error());
  if (std::string repo = linked_repo(folder); !repo.empty()) return PlainLocation{folder, repo, ""};
  // The id is the first path's hash; another folder that once had that path keeps its own.
  std::string id = fmt::format("{:016x}", static_cast<uint64_t>(util::fnv1a(folder)));
  std::string repo = util::join(plain_area(), id);
  for (int n = 1; util::exists(repo); ++n)
    repo = util::join(plain_area(), fmt::format("{}-{}", id, n));
  if (auto made = util::make_dirs(repo); !made) return fail(ErrorCode::io_error, made.error());
  BERTH_TRY(git(GitCall{{"init", "-q", "--bare", "--initial-branch=folder", repo},
                        plain_area(),
                        {},
                        {},
                        util::Stream::pipe}));
  BERTH_TRY(write_link(repo, folder));
  return PlainLocation{folder, *util::real_path(repo), ""};
}

// A git call on the folder: the private repository as git dir, the folder as work tree, no hook
// or fsmonitor of the user's, and the untracked cache so that a snapshot reads only the folders
// that changed. Nothing is ever written into the folder by these (add, write-tree, diff).
GitCall folder_call(const Project& project, std::vector<std::string> args) {
  std::vector<std::string> full{"--git-dir=" + project.common_dir(),
                                "--work-tree=" + project.plain_folder(),
                                "-c",
                                "core.hooksPath=/dev/null",
                                "-c",
                                "core.fsmonitor=false",
                                "-c",
                                "core.untrackedCache=true",
                                "-c",
                                "core.quotePath=false"};
  full.insert(full.end(), args.begin(), args.end());
  return GitCall{std::move(full), project.plain_folder(), {}, {}, util::Stream::pipe};
}

// plain.ignore, as the private repository's info/exclude (rewritten only when it changed).
Result<void> write_excludes(const Project& project) {
  std::string text = "# berth: plain.ignore (docs/plain.md)\n";
  for (const auto& pattern : project.config().get_list("plain.ignore"))
    text += pattern + "\n";
  std::string file = util::join(project.common_dir(), "info/exclude");
  std::string old = util::read_file(file).value_or("");
  // The lines a setup.link adds (a symlink the folder's "dir/" rules do not cover) follow: kept.
  if (auto links = old.find("\n# berth: setup.link\n"); links != std::string::npos)
    text += old.substr(links + 1);
  if (old == text) return {};
  (void)util::make_dirs(util::dirname(file));
  if (auto w = util::write_file_atomic(file, text); !w) return fail(ErrorCode::io_error, w.error());
  return {};
}

// A git repository nested in the folder (a downloaded project with its own .git) is what `add`
// would take as a gitlink, its files left out (or refuse whole, when it has no commit yet); the
// user sees a folder of files, so its working files are taken as ordinary files instead, never
// its .git (git takes no path named .git). Git walks into a folder that the index knows as a
// folder, so each nested repository (listed by `ls-files -o` as "dir/", where ordinary folders'
// files are listed one by one) gets a placeholder entry below it; the `add -A` that follows walks
// it (its .gitignore files and plain.ignore apply) and drops the placeholder, which is on no disk.
// Repositories nested in those come up on the next round.
Result<void> open_nested_repositories(const Project& project) {
  constexpr const char* placeholder = ".berth-nested-repository";
  constexpr const char* empty_blob = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"; // sha1
  for (int round = 0; round < 16; ++round) {
    auto untracked =
        BERTH_TRY(git(folder_call(project, {"ls-files", "-o", "--exclude-standard", "-z"})));
    std::string info;
    for (const auto& path : split_z(untracked.out))
      if (!path.empty() && path.back() == '/')
        info += fmt::format("100644 {} 0\t{}{}\n", empty_blob, path, placeholder);
    if (info.empty()) return {};
    GitCall add = folder_call(project, {"update-index", "--add", "--index-info"});
    add.input = std::move(info);
    BERTH_TRY(git(add));
  }
  return {};
}

// The folder's tree now, through the private index (stat data: only changed files are hashed).
Result<std::string> folder_tree(const Project& project) {
  BERTH_TRY(write_excludes(project));
  BERTH_TRY(open_nested_repositories(project));
  // --ignore-errors: every file that cannot be read is named (not only the first); a folder git
  // cannot open is a warning only, yet the snapshot would lack it. Either is refused.
  for (int attempt = 1;; ++attempt) {
    GitCall add = folder_call(project, {"add", "-A", "--ignore-errors"});
    auto added = BERTH_TRY(git_status_of(add));
    std::vector<std::string> unreadable;
    for (const auto& line : split_lines(added.err)) {
      constexpr std::string_view denied = ": Permission denied";
      if (line.size() < denied.size() || line.substr(line.size() - denied.size()) != denied)
        continue;
      // error: open("PATH"): Permission denied / warning: could not open directory 'PATH/': ...
      auto open = line.find("open(\"");
      auto first = open != std::string::npos ? open + 6 : line.find('\'');
      auto last = open != std::string::npos ? line.rfind("\"):") : line.rfind('\'');
      if (first == std::string::npos || last == std::string::npos || last <= first) continue;
      if (line[first] == '\'') ++first;
      unreadable.push_back(line.substr(first, last - first));
    }
    if (!unreadable.empty()) {
      std::sort(unreadable.begin(), unreadable.end());
      unreadable.erase(std::unique(unreadable.begin(), unreadable.end()), unreadable.end());
      Error e{ErrorCode::io_error,
              fmt::format("berth cannot read {} path(s) in the folder {} (permission denied); "
                          "nothing was changed",
                          unreadable.size(), project.plain_folder()),
              "make them readable (chmod -R u+rX PATH), or leave them out of snapshots with a "
              "pattern in a .gitignore of the folder or in plain.ignore (docs/plain.md)",
              std::nullopt, unreadable};
      return tl::unexpected(std::move(e));
    }
    if (added.ok()) break;
    // A file that went between git's listing of its folder and its reading (a tool writing
    // there meanwhile): read the folder again, a moment later (only what changed is read).
    if (added.err.find("No such file or directory") == std::string::npos)
      return tl::unexpected(git_error(add, added));
    if (attempt == 5)
      return fail(ErrorCode::io_error,
                  fmt::format("the folder {} kept changing while berth read it ({}); nothing was "
                              "changed",
                              project.plain_folder(), last_line(added.err)),
                  "try again once the program writing there is done, or leave its scratch files "
                  "out of snapshots (a .gitignore of the folder, or plain.ignore)");
    ::usleep(static_cast<useconds_t>(attempt) * 50000);
  }
  return git_out(project.common_dir(), {"--git-dir=" + project.common_dir(), "write-tree"});
}

std::optional<std::string> private_head(const Project& project) {
  auto head = git_status_of(repo_call(project, {"rev-parse", "-q", "--verify", "HEAD^{commit}"}));
  if (!head || !head->ok()) return std::nullopt;
  return chomp(head->out);
}

// `tree` as the new tip of the private branch (unless it is the tip's tree already).
Result<std::string> commit_folder(const Project& project, const std::string& tree,
                                  const std::string& message) {
  auto head = private_head(project);
  if (head && BERTH_TRY(tree_of(project, *head)) == tree) return *head;
  std::vector<std::string> parents;
  if (head) parents.push_back(*head);
  std::string commit = BERTH_TRY(make_commit(project, tree, parents, message));
  BERTH_TRY(git(repo_call(project, {"update-ref", "-m", "berth: snapshot", "HEAD", commit,
                                    head.value_or(project.null_oid())})));
  return commit;
}

std::string journal_of(const Project& project) {
  return util::join(project.berth_dir(), "plain-accept.json");
}

struct Journal {
  std::string workspace, folder, from_tree, to_tree;
  pid_t pid = 0;
  int64_t pid_start = 0;
};
std::optional<Journal> read_journal(const Project& project) {
  auto text = util::read_file(journal_of(project));
  if (!text) return std::nullopt;
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  return Journal{j.value("workspace", ""), j.value("folder", ""),
                 j.value("from_tree", ""), j.value("to_tree", ""),
                 j.value("pid", pid_t{0}), j.value("pid_start", int64_t{0})};
}

// A dead accept's journal: the folder is half-written until `doctor --repair` finishes it, so a
// snapshot of it would be a base nobody chose.
Result<void> refuse_interrupted(const Project& project, const char* hint) {
  if (auto j = read_journal(project); j && !util::process_alive(j->pid, j->pid_start))
    return fail(ErrorCode::interrupted,
                fmt::format("an accept of '{}' into {} was interrupted", j->workspace, j->folder),
                hint);
  return {};
}

// Paths that differ between two trees (no rename detection: a rename is a delete and an add).
Result<std::set<std::string>> paths_between(const Project& project, const std::string& a,
                                            const std::string& b) {
  auto out = BERTH_TRY(
      git(tree_diff_call(project, {"diff-tree", "-r", "-z", "--no-renames", "--name-only", a, b})));
  std::set<std::string> paths;
  for (auto& p : split_z(out.out))
    if (!p.empty()) paths.insert(p);
  return paths;
}

// Write `to` over `from` in the folder, for a journal whose writing was cut short: the private
// index takes `to` (stat data kept for the paths that did not change), then exactly the changed
// paths are written from it (or removed). Safe to run twice.
Result<void> finish_writing(const Project& project, const Journal& j) {
  std::string lock = util::join(project.common_dir(), "index.lock");
  if (util::exists(lock)) ::unlink(lock.c_str());
  auto changed = BERTH_TRY(paths_between(project, j.from_tree, j.to_tree));
  BERTH_TRY(git(folder_call(project, {"read-tree", "-m", j.from_tree, j.to_tree})));
  auto present =
      BERTH_TRY(git(repo_call(project, {"ls-tree", "-r", "-z", "--name-only", j.to_tree})));
  std::set<std::string> in_to;
  for (auto& p : split_z(present.out))
    in_to.insert(p);
  std::vector<std::string> write{"checkout-index", "-f", "--"};
  for (const auto& path : changed) {
    if (in_to.count(path)) {
      write.push_back(path);
    } else {
      std::string file = util::join(project.plain_folder(), path);
      ::unlink(file.c_str());
      // Folders the removal emptied go too, as git's own checkout does.
      for (std::string dir = util::dirname(file);
           dir != project.plain_folder() && util::is_within(dir, project.plain_folder());
           dir = util::dirname(dir))
        if (::rmdir(dir.c_str()) != 0) break;
    }
  }
  if (write.size() > 3) BERTH_TRY(git(folder_call(project, write)));
  return {};
}

Result<void> end_journal(const Project& project, const Journal& j) {
  BERTH_TRY(commit_folder(project, j.to_tree, fmt::format("berth: accepted {}", j.workspace)));
  ::unlink(journal_of(project).c_str());
  return {};
}

// What one side (the workspace, or the user in the folder) changed since the base: path -> its
// entry now (new_mode "000000" when it deleted the path). No rename detection: a rename is a
// deletion and an addition.
using Changes = std::map<std::string, RawChange>;
Result<Changes> changes_of(const Project& project, const std::string& base,
                           const std::string& now) {
  auto out =
      BERTH_TRY(git(tree_diff_call(project, {"diff-tree", "-r", "-z", "--no-renames", base, now})));
  Changes changes;
  for (auto& c : parse_diff_raw(out.out))
    changes.emplace(c.path, std::move(c));
  return changes;
}
bool present(const RawChange& c) {
  return c.new_mode.find_first_not_of('0') != std::string::npos;
}
bool same_end(const RawChange& a, const RawChange& b) {
  return a.new_mode == b.new_mode && a.new_oid == b.new_oid;
}

// The paths where the workspace's and the user's changes meet: a path both changed, each to
// something else; and a path one side made a file (or symlink) of while the other made something
// exist below it (a file replaced by a folder on one side, files added in that folder on the
// other, or the other way round). Sorted, each once.
std::vector<std::string> clashes(const Changes& agent, const Changes& user) {
  std::set<std::string> out;
  for (const auto& [path, change] : agent)
    if (auto u = user.find(path); u != user.end() && !same_end(change, u->second)) out.insert(path);
  auto below = [&](const Changes& one, const Changes& other) {
    for (const auto& [path, change] : one) {
      if (!present(change)) continue;
      for (auto slash = path.rfind('/'); slash != std::string::npos && slash > 0;
           slash = path.rfind('/', slash - 1)) {
        auto above = other.find(path.substr(0, slash));
        if (above != other.end() && present(above->second)) {
          out.insert(path);
          out.insert(above->first);
        }
        if (slash == 0) break;
      }
    }
  };
  below(agent, user);
  below(user, agent);
  return {out.begin(), out.end()};
}

// The folder's state after the accept, as a tree: the folder now (`folder`) with the workspace's
// changes since the base applied, each path as the workspace has it. The paths that clash with the
// user's changes (`clashing`, only with --merge) are merged as text (`git merge-file`) when the
// base, the folder and the workspace all hold a regular file there; any other clash (binary,
// deleted on one side, a file against a folder, different types) is a conflict. Nothing is
// written but objects and a scratch index.
struct Merged {
  std::string tree;
  std::vector<std::string> conflicts;
};
Result<Merged> merge_trees(const Project& project, const std::string& folder, const Changes& agent,
                           const Changes& user, const std::vector<std::string>& clashing) {
  std::string scratch = util::join(project.berth_dir(), "tmp");
  (void)util::make_dirs(scratch);
  std::string index = util::join(scratch, fmt::format("plain-merge-{}", ::getpid()));
  ::unlink(index.c_str());
  auto call = [&](std::vector<std::string> args, std::string input = {}) {
    GitCall c = repo_call(project, std::move(args));
    c.env["GIT_INDEX_FILE"] = index;
    c.input = std::move(input);
    return c;
  };
  struct Cleanup {
    std::string path;
    ~Cleanup() { ::unlink(path.c_str()); }
  } cleanup{index};
  BERTH_TRY(git(call({"read-tree", folder})));
  std::set<std::string> clash(clashing.begin(), clashing.end());
  // Removals first, then the entries written: the index drops a file where a folder comes (and
  // the other way round) by itself.
  std::string removals, entries;
  for (const auto& [path, change] : agent) {
    if (clash.count(path)) continue;
    if (present(change))
      entries += fmt::format("{} {} 0\t{}\n", change.new_mode, change.new_oid, path);
    else
      removals += fmt::format("0 {}\t{}\n", project.null_oid(), path);
  }
  Merged m;
  auto regular = [](const std::string& mode) { return mode == "100644" || mode == "100755"; };
  for (const auto& path : clashing) {
    auto a = agent.find(path);
    auto u = user.find(path);
    // Both changed this very path (not a file against a folder), all three a regular file.
    if (a == agent.end() || u == user.end() || !regular(a->second.old_mode) ||
        !regular(a->second.new_mode) || !regular(u->second.new_mode)) {
      m.conflicts.push_back(path);
      continue;
    }
    std::vector<std::string> files;
    for (const auto* oid : {&u->second.new_oid, &a->second.old_oid, &a->second.new_oid}) {
      std::string f =
          util::join(scratch, fmt::format("plain-merge-{}-{}", ::getpid(), files.size()));
      auto blob = BERTH_TRY(git(repo_call(project, {"cat-file", "blob", *oid})));
      if (auto w = util::write_file(f, blob.out); !w) return fail(ErrorCode::io_error, w.error());
      files.push_back(f);
    }
    auto merged = BERTH_TRY(
        git_status_of(repo_call(project, {"merge-file", "-p", files[0], files[1], files[2]})));
    for (const auto& f : files)
      ::unlink(f.c_str());
    // merge-file: 0 clean, N conflicts, a negative status (255) for binary or unreadable input.
    if (merged.exit_code != 0) {
      m.conflicts.push_back(path);
      continue;
    }
    GitCall hash = repo_call(project, {"hash-object", "-w", "--stdin"});
    hash.input = merged.out;
    std::string blob = chomp(BERTH_TRY(git(hash)).out);
    // The workspace's mode when it changed it, else the folder's.
    const std::string& mode =
        a->second.new_mode != a->second.old_mode ? a->second.new_mode : u->second.new_mode;
    entries += fmt::format("{} {} 0\t{}\n", mode, blob, path);
  }
  if (!m.conflicts.empty()) return m;
  if (!removals.empty() || !entries.empty())
    BERTH_TRY(git(call({"update-index", "--index-info"}, removals + entries)));
  m.tree = chomp(BERTH_TRY(git(call({"write-tree"}))).out);
  return m;
}

// What keeps a private repository (gc): "" when nothing does. `idle_seconds` applies to a folder
// that is still there.
struct Keeper {
  std::string why;
  bool tell = false; ///< worth saying (the folder is gone, yet the repository stays)
};
Result<Keeper> keeper_of(const std::string& repo, const Marker& marker, int64_t idle_seconds,
                         int64_t now, std::vector<std::string>* slots) {
  bool gone = !util::exists(marker.folder);
  auto keep = [&](std::string why) { return Keeper{std::move(why), gone}; };
  std::string berth = util::join(repo, "berth");
  if (util::exists(util::join(berth, "plain-accept.json"))) return keep("an interrupted accept");
  auto records = BERTH_TRY(Registry(berth).load_all());
  if (!records.empty()) return keep(fmt::format("{} workspace(s) of it", records.size()));
  auto trash = BERTH_TRY(
      git(GitCall{{"--git-dir=" + repo, "for-each-ref", "--format=%(refname)", "refs/berth/trash/"},
                  repo,
                  {},
                  {},
                  util::Stream::pipe}));
  if (size_t n = split_lines(trash.out).size(); !chomp(trash.out).empty())
    return keep(fmt::format("{} trash snapshot(s) of it (never dropped but by `berth trash` or "
                            "`berth forget --force` in the folder)",
                            n));
  if (!gone) {
    // Used: a snapshot (the index), a workspace made or discarded (the registry), a ref moved.
    int64_t newest = 0;
    for (const char* part : {"index", "berth", "berth/workspaces", "logs/HEAD", "refs/heads"}) {
      struct stat st;
      if (::stat(util::join(repo, part).c_str(), &st) == 0)
        newest = std::max<int64_t>(newest, st.st_mtim.tv_sec);
    }
    if (now - newest < idle_seconds) return Keeper{"used lately", false};
  }
  // Its worktrees: warm pool slots only (<root>/.pool/slot-*); any other is a tree berth has no
  // record of, never removed.
  auto listed =
      BERTH_TRY(git(GitCall{{"--git-dir=" + repo, "worktree", "list", "--porcelain", "-z"},
                            repo,
                            {},
                            {},
                            util::Stream::pipe}));
  for (const auto& w : parse_worktree_list(listed.out)) {
    if (w.bare || w.path == repo) continue;
    if (util::basename(util::dirname(w.path)) != ".pool")
      return keep(fmt::format("a worktree of it berth has no record of: {}", w.path));
    if (slots) slots->push_back(w.path);
  }
  return Keeper{};
}

} // namespace

Result<std::vector<PlainOrphan>> plain_orphans(const std::string& except, int64_t idle_seconds,
                                               int64_t now) {
  std::vector<std::string> names;
  for (const auto& entry : util::DirEntries(plain_area()))
    if (entry.name != "by-path") names.emplace_back(entry.name);
  std::sort(names.begin(), names.end());
  std::vector<PlainOrphan> out;
  for (const auto& name : names) {
    std::string repo = util::join(plain_area(), name);
    auto marker = read_marker(repo);
    if (!marker || util::real_path(repo).value_or(repo) == except) continue;
    PlainOrphan o{marker->folder, repo, {}, {}, false};
    Keeper k = BERTH_TRY(keeper_of(repo, *marker, idle_seconds, now, &o.slots));
    if (!k.why.empty()) {
      if (!k.tell) continue;
      o.skipped = true;
      o.reason = fmt::format("the private repository of {} (gone) stays: {}", o.folder, k.why);
    } else {
      o.reason = util::exists(o.folder)
                     ? fmt::format("the private repository of {}: no workspace or trash snapshot "
                                   "of it left, unused for over {}s",
                                   o.folder, idle_seconds)
                     : fmt::format("the private repository of {}, which is gone: no workspace or "
                                   "trash snapshot of it left",
                                   o.folder);
    }
    out.push_back(std::move(o));
  }
  return out;
}

Result<bool> remove_plain_orphan(const PlainOrphan& orphan, int64_t idle_seconds, int64_t now) {
  auto marker = read_marker(orphan.repository);
  if (!marker) return false;
  // Under its project lock: a `new` there waits, then finds no repository and makes a new one.
  auto lock = BERTH_TRY(Registry(util::join(orphan.repository, "berth")).lock());
  std::vector<std::string> slots;
  if (!BERTH_TRY(keeper_of(orphan.repository, *marker, idle_seconds, now, &slots)).why.empty())
    return false;
  // The link first (as forget does): a crash after it leaves a repository nobody finds.
  if (auto id = util::read_file(link_of(marker->folder));
      id && chomp(*id) == util::basename(orphan.repository))
    ::unlink(link_of(marker->folder).c_str());
  for (const auto& slot : slots) {
    (void)util::remove_tree(slot);
    // The slot's folder, and the workspace root, when nothing else is left in them.
    std::string pool = util::dirname(slot);
    if (::rmdir(pool.c_str()) == 0) ::rmdir(util::dirname(pool).c_str());
  }
  if (auto gone = util::remove_tree(orphan.repository); !gone)
    return fail(ErrorCode::io_error, gone.error());
  return true;
}

GitCall plain_folder_call(const Project& project, std::vector<std::string> args) {
  return folder_call(project, std::move(args));
}

std::string plain_folder_of(const std::string& common_dir) {
  if (!util::is_within(common_dir, plain_area())) return "";
  auto marker = read_marker(common_dir);
  return marker ? marker->folder : "";
}

Result<std::optional<PlainLocation>> find_plain(const std::string& cwd, bool create, bool force,
                                                bool inside_git) {
  if (force) return BERTH_TRY(make_plain(cwd));
  for (std::string dir = cwd;; dir = util::dirname(dir)) {
    if (std::string repo = linked_repo(dir); !repo.empty())
      return PlainLocation{dir, util::real_path(repo).value_or(repo), ""};
    if (util::exists(util::join(dir, ".git")) || dir == "/" || dir.empty()) break;
  }
  if (inside_git) return std::nullopt;
  // Moved: a private repository whose folder is gone (or is another folder now), recorded with
  // the identity of the folder we stand in (or one above it). Looked for before `new` makes a
  // repository: a moved folder keeps its workspaces, and `doctor --repair` re-links it.
  std::vector<std::pair<Identity, std::string>> here;
  for (std::string dir = cwd; dir != "/" && !dir.empty(); dir = util::dirname(dir))
    here.emplace_back(identity_of(dir), dir);
  std::vector<std::string> names;
  {
    util::DirEntries entries(plain_area());
    for (const auto& entry : entries)
      if (entry.name != "by-path") names.emplace_back(entry.name);
  }
  std::sort(names.begin(), names.end());
  for (const auto& name : names) {
    std::string repo = util::join(plain_area(), name);
    auto marker = read_marker(repo);
    if (!marker || marker->identity.inode == 0) continue;
    if (util::exists(marker->folder) && identity_of(marker->folder).same(marker->identity))
      continue;
    for (const auto& [identity, dir] : here)
      if (identity.inode != 0 && identity.same(marker->identity))
        return PlainLocation{dir, util::real_path(repo).value_or(repo), marker->folder};
  }
  if (create) return BERTH_TRY(make_plain(cwd));
  return std::nullopt;
}

namespace {
// A private repository that holds nothing yet (no snapshot, so no workspace, trash or accept of
// it) goes, link first, when the `new` that made it is refused: the refused `new` leaves no
// trace. Under the project lock (`registry` holds it).
void drop_unborn(const std::string& common_dir, const std::string& folder,
                 const Registry& registry) {
  auto head = git_status_of(
      GitCall{{"--git-dir=" + common_dir, "rev-parse", "-q", "--verify", "HEAD^{commit}"},
              common_dir,
              {},
              {},
              util::Stream::pipe});
  if (!head || head->ok()) return;
  auto records = registry.load_all();
  if (!records || !records->empty() ||
      util::exists(util::join(common_dir, "berth/plain-accept.json")))
    return;
  if (auto id = util::read_file(link_of(folder)); id && chomp(*id) == util::basename(common_dir))
    ::unlink(link_of(folder).c_str());
  (void)util::remove_tree(common_dir);
}
} // namespace

void drop_unborn_plain(const std::string& common_dir, const std::string& folder) {
  Registry registry(util::join(common_dir, "berth"));
  auto lock = registry.lock();
  if (lock) drop_unborn(common_dir, folder, registry);
}

Result<std::string> plain_snapshot(const Project& project) {
  // Under the project lock: two commands snapshotting at once would fight over the private index
  // (no user hook runs here: hooksPath is off for the folder's calls).
  Registry registry(project.berth_dir());
  auto lock = BERTH_TRY(registry.lock());
  BERTH_TRY(refuse_interrupted(project, "run `berth doctor --repair` to finish it"));
  auto tree = folder_tree(project);
  if (!tree) {
    // The folder's first snapshot failed (a file berth cannot read): no trace of it is kept.
    drop_unborn(project.common_dir(), project.plain_folder(), registry);
    return tl::unexpected(tree.error());
  }
  return commit_folder(project, *tree, "berth: snapshot of the folder");
}

Result<Accepted> plain_accept(const Project& project, const Workspace& w,
                              const AcceptOptions& options, Accepted a) {
  a.target = project.plain_folder();
  a.target_worktree = project.plain_folder();
  Captured now = BERTH_TRY(capture(project, w));
  BERTH_TRY(refuse_unrecordable(w, now));
  std::string base_tree = BERTH_TRY(tree_of(project, w.base));
  a.head = now.head;

  Registry registry(project.berth_dir());
  auto lock = BERTH_TRY(registry.lock());
  BERTH_TRY(
      refuse_interrupted(project, "run `berth doctor --repair` to finish it, then accept again"));
  // The folder as it is now: the private index takes it (with fresh stat data), and the
  // two-way read-tree below refuses any file that changes after this look.
  std::string folder_now = BERTH_TRY(folder_tree(project));
  a.old_commit = private_head(project).value_or("");
  a.onto = a.old_commit;
  if (now.work_tree == base_tree) {
    a.empty = true;
    a.warnings.push_back(fmt::format("workspace '{}' has no change to accept", w.name));
    return a;
  }
  auto agent = BERTH_TRY(changes_of(project, base_tree, now.work_tree));
  auto user = BERTH_TRY(changes_of(project, base_tree, folder_now));
  // A file the folder already holds exactly as the workspace has it (the same edit made twice, an
  // accept that doctor --repair finished) is no clash; a file against a folder is.
  std::vector<std::string> both = clashes(agent, user);
  if (!both.empty() && !options.merge) {
    Error e{ErrorCode::plain_folder_changed,
            fmt::format("{} file(s) the workspace changed were changed in {} too; nothing was "
                        "changed",
                        both.size(), project.plain_folder()),
            "pass --merge to merge text changes three-way, or undo your change of those files, "
            "then accept again",
            std::nullopt, both};
    return tl::unexpected(std::move(e));
  }
  Merged merged = BERTH_TRY(merge_trees(project, folder_now, agent, user, both));
  if (!merged.conflicts.empty()) {
    a.conflicts = merged.conflicts;
    a.hint = fmt::format("workspace '{}' conflicts with your changes in {}; nothing was changed; "
                         "edit the workspace to take your change in, then accept again",
                         w.name, project.plain_folder());
    a.new_commit = "";
    return a;
  }
  if (merged.tree == folder_now) {
    a.empty = true;
    a.new_commit = a.old_commit;
    a.warnings.push_back(fmt::format("the folder {} holds workspace '{}''s change already",
                                     project.plain_folder(), w.name));
    return a;
  }
  a.files = BERTH_TRY(changes_between(project, folder_now, merged.tree));
  if (options.dry_run) return a;

  // The journal first: a crash from here on is finished by `doctor --repair` (finish_writing).
  Journal j{w.name,     project.plain_folder(),
            folder_now, merged.tree,
            ::getpid(), util::process_start_time(::getpid())};
  nlohmann::json doc{{"workspace", j.workspace}, {"folder", j.folder}, {"from_tree", j.from_tree},
                     {"to_tree", j.to_tree},     {"pid", j.pid},       {"pid_start", j.pid_start}};
  if (auto saved = util::write_file_atomic(journal_of(project), doc.dump(2) + "\n"); !saved)
    return fail(ErrorCode::io_error, saved.error());
  test_kill_at("plain-accept-journaled");
  // git writes a changed file anew, with the umask's permissions: a file of the user's keeps its
  // own (a private 0600 stays so), only its executable bit follows the workspace's.
  std::vector<std::pair<std::string, mode_t>> permissions;
  auto regular = [](const std::string& mode) { return mode == "100644" || mode == "100755"; };
  for (const auto& f : a.files) {
    if ((f.status != 'M' && f.status != 'R') || !regular(f.old_mode) || !regular(f.new_mode))
      continue;
    struct stat st;
    std::string from = util::join(project.plain_folder(), f.old_path.empty() ? f.path : f.old_path);
    if (::lstat(from.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    mode_t mode = st.st_mode & 07777;
    if (f.new_mode == "100755" && f.old_mode != "100755") mode |= (mode & 0444) >> 2;
    if (f.new_mode != "100755") mode &= ~static_cast<mode_t>(0111);
    permissions.emplace_back(util::join(project.plain_folder(), f.path), mode);
  }
  // Exactly the changed paths are written; a file that differs from the look above (the user
  // saved it meanwhile) stops git before it writes anything ("not uptodate").
  auto written =
      git_status_of(folder_call(project, {"read-tree", "-m", "-u", folder_now, merged.tree}));
  if (!written || !written->ok()) {
    ::unlink(journal_of(project).c_str());
    if (!written) return tl::unexpected(written.error());
    Error e{ErrorCode::plain_folder_changed,
            fmt::format("{} changed while the accept was writing; nothing was changed: {}",
                        project.plain_folder(), last_line(written->err)),
            "accept again",
            std::nullopt,
            {}};
    return tl::unexpected(std::move(e));
  }
  for (const auto& [path, mode] : permissions) {
    struct stat st;
    if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) != mode)
      (void)::chmod(path.c_str(), mode);
  }
  test_kill_at("plain-accept-written");
  BERTH_TRY(end_journal(project, j));
  a.new_commit = private_head(project).value_or("");
  return a;
}

Result<Forgotten> forget_plain(const Project& project, Force force) {
  if (!project.plain())
    return fail(ErrorCode::usage, "forget is for plain folders; this is a git repository",
                "discard the workspaces you no longer want");
  Registry registry(project.berth_dir());
  auto refuse_in_use = [&]() -> Result<void> {
    auto records = BERTH_TRY(registry.load_all());
    auto trash = BERTH_TRY(
        git(repo_call(project, {"for-each-ref", "--format=%(refname)", "refs/berth/trash/"})));
    std::vector<std::string> left;
    left.reserve(records.size());
    for (const auto& w : records)
      left.push_back("workspace " + w.name);
    // The trash goes with the repository: only when asked (--force), it cannot be restored after.
    for (const auto& ref : split_lines(trash.out))
      if (!ref.empty() && force == Force::no) left.push_back("trash " + ref);
    if (util::exists(journal_of(project))) left.push_back("an interrupted accept");
    if (left.empty()) return {};
    Error e{ErrorCode::plain_in_use,
            fmt::format("{} still has {} workspace(s) or trash snapshot(s) of berth's; nothing "
                        "was removed",
                        project.plain_folder(), left.size()),
            "discard (or accept) the workspaces first; `berth forget --force` forgets the trash "
            "snapshots too (they cannot be restored afterwards)",
            std::nullopt, left};
    return tl::unexpected(std::move(e));
  };
  {
    auto lock = BERTH_TRY(registry.lock());
    BERTH_TRY(refuse_in_use());
  }
  // A background filler (started by the last `new` or `discard`) finishes its pass first and
  // starts no other while the repository goes: it would make slots in it, and start a watcher.
  auto fillers = hold_pool_fillers(project);
  // The warm pool's slots are worktrees of the repository (full copies of the folder): they go
  // first (the drain takes the lock itself), with their folder and the workspace root when
  // nothing else is left there.
  (void)pool_drain(project);
  // (An empty .trash, the deleter's, goes too: the filler has finished.)
  for (const char* kept : {".pool", ".trash"})
    (void)::rmdir(util::join(project.workspace_root(), kept).c_str());
  (void)::rmdir(project.workspace_root().c_str());
  auto lock = BERTH_TRY(registry.lock());
  BERTH_TRY(refuse_in_use()); // a `new` meanwhile keeps it
  Forgotten f{project.plain_folder(), project.common_dir()};
  // The watcher of its workspaces goes first: it keeps state in the repository and would write
  // it again while the repository is being removed.
  (void)watch_stop(project.common_dir());
  // The link first: a crash after it leaves an orphan repository nobody finds, never a link to
  // half a repository.
  ::unlink(link_of(project.plain_folder()).c_str());
  // A background process of the repository's that was still finishing (a pool filler, the
  // watcher on its way out) may write a file into it meanwhile: removed again, a few times.
  tl::expected<void, std::string> gone;
  for (int attempt = 0; attempt < 5; ++attempt) {
    gone = util::remove_tree(project.common_dir());
    if (gone || !util::exists(project.common_dir())) return f;
    ::usleep(100000);
  }
  return fail(ErrorCode::io_error,
              fmt::format("the private repository of {} is forgotten, but {} could not be removed "
                          "whole: {}",
                          project.plain_folder(), project.common_dir(), gone.error()),
              fmt::format("a berth process of it may still run; once it is done, remove the folder "
                          "(rm -rf '{}')",
                          project.common_dir()));
}

std::string plain_pending_accept(const Project& project) {
  auto j = read_journal(project);
  if (!j || util::process_alive(j->pid, j->pid_start)) return "";
  return fmt::format("an accept of '{}' into {} was interrupted; run `berth doctor --repair`",
                     j->workspace, j->folder);
}

Result<void> plain_doctor(const Project& project, Repair repair, DoctorReport& report) {
  if (!project.plain_moved_from().empty()) {
    if (repair == Repair::yes) {
      auto lock = BERTH_TRY(Registry(project.berth_dir()).lock());
      BERTH_TRY(write_link(project.common_dir(), project.plain_folder()));
      ::unlink(link_of(project.plain_moved_from()).c_str());
      report.repaired.push_back(fmt::format("the folder moved from {} to {}: re-linked",
                                            project.plain_moved_from(), project.plain_folder()));
    } else {
      report.problems.push_back({"plain_folder_moved", "", project.plain_moved_from(),
                                 fmt::format("the plain folder {} is now at {}",
                                             project.plain_moved_from(), project.plain_folder()),
                                 "berth doctor --repair"});
    }
  }
  auto j = read_journal(project);
  if (!j || util::process_alive(j->pid, j->pid_start)) return {};
  if (repair == Repair::no) {
    report.problems.push_back(
        {"interrupted_accept", j->workspace, j->folder,
         fmt::format("an accept of '{}' into {} was interrupted", j->workspace, j->folder),
         "berth doctor --repair"});
    return {};
  }
  Registry registry(project.berth_dir());
  auto lock = BERTH_TRY(registry.lock());
  BERTH_TRY(finish_writing(project, *j));
  BERTH_TRY(end_journal(project, *j));
  // The change is in the folder: the workspace is landed, as the accept would have left it (kept:
  // discarding it is the user's call, as after a repository's accept finished by doctor).
  if (auto record = registry.load(name_slug(j->workspace)); record && *record) {
    (*record)->state = State::landed;
    (*record)->holder_pid = 0;
    (*record)->holder_start = 0;
    (*record)->landed_commit = private_head(project).value_or("");
    BERTH_TRY(registry.save(**record));
  }
  report.repaired.push_back(
      fmt::format("finished the interrupted accept of '{}' into {}", j->workspace, j->folder));
  return {};
}

} // namespace berth
