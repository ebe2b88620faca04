#include "core/tree_claim.hpp"

#include "core/git.hpp"
#include "core/name.hpp"
#include "core/nested.hpp"
#include "core/registry.hpp"
#include "core/roots.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/dir.hpp"
#include "util/paths.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace berth {
namespace {

// `path` with its symlinks resolved, through `memo` when there is one; nullopt when it is not
// there.
std::optional<std::string> resolved(const std::string& path, RealPaths* memo) {
  if (memo) return memo->of(path);
  auto real = util::real_path(path);
  return real ? std::optional<std::string>(std::move(*real)) : std::nullopt;
}

// Two names of one place: equal once cleaned, or once symlinks are resolved (both must exist
// for the second).
bool same_place(const std::string& a, const std::string& b, RealPaths* memo = nullptr) {
  if (a.empty() || b.empty()) return false;
  if (util::lexically_normal(a) == util::lexically_normal(b)) return true;
  auto ra = resolved(a, memo);
  auto rb = resolved(b, memo);
  return ra && rb && *ra == *rb;
}

std::string admin_root(const Project& project) {
  return util::join(project.common_dir(), "worktrees");
}

// Is `git_dir` directly under this repository's worktrees/ (by name, or once resolved)?
bool is_admin_dir(const Project& project, const std::string& git_dir, RealPaths* memo = nullptr) {
  if (git_dir.empty()) return false;
  return same_place(util::dirname(util::lexically_normal(git_dir)), admin_root(project), memo);
}

// What git's admin dir says its tree is: the `gitdir` file, naming `<tree>/.git`.
std::string admin_gitdir(const std::string& admin) {
  return chomp(util::read_file(util::join(admin, "gitdir")).value_or(""));
}

// Every admin dir of the repository whose `gitdir` names `<tree>/.git`.
std::vector<std::string> admin_dirs_of(const Project& project, const std::string& tree,
                                       RealPaths* memo = nullptr) {
  std::vector<std::string> found;
  std::string root = admin_root(project);
  std::string dotgit = util::join(tree, ".git");
  for (const auto& e : util::DirEntries(root)) {
    std::string admin = util::join(root, std::string(e.name));
    if (same_place(admin_gitdir(admin), dotgit, memo)) found.push_back(admin);
  }
  return found;
}

// The project itself and berth's roots are never a workspace's tree, nor inside one.
std::string protected_problem(const Project& project, const std::string& path,
                              RealPaths* memo = nullptr) {
  std::string normal = util::lexically_normal(path);
  std::string real = resolved(path, memo).value_or(normal);
  const std::pair<const std::string*, const char*> kept[] = {
      {&project.main_worktree(), "the main checkout"},
      {&project.common_dir(), "the repository's git dir"},
      {&project.workspace_root(), "the workspace root"},
      {&project.default_workspace_root(), "the default workspace root"}};
  for (const auto& [place, what] : kept) {
    if (place->empty()) continue;
    std::string real_place = resolved(*place, memo).value_or(*place);
    if (util::is_within(*place, normal) || util::is_within(real_place, real))
      return fmt::format("{} is (or holds) {}", path, what);
  }
  for (const auto& previous : project.previous_workspace_roots())
    if (util::is_within(previous, normal))
      return fmt::format("{} is (or holds) an earlier workspace root", path);
  return {};
}

} // namespace

bool unlinked(const Workspace& w) {
  return util::is_directory(w.path) && !util::is_directory(w.git_dir);
}

std::string unlinked_advice(const Workspace& w) {
  return fmt::format("save what you need from {0}, delete it yourself (rm -rf '{0}'), then "
                     "`berth discard {1}`",
                     w.path, w.name);
}

Result<void> refuse_unlinked(const Workspace& w) {
  if (!unlinked(w)) return {};
  return fail(ErrorCode::record_mismatch,
              fmt::format("workspace '{}' has its directory {} but not its git admin dir {} (was "
                          "the repository moved?): berth will neither use nor delete it",
                          w.name, w.path, w.git_dir),
              "nothing was changed; if the repository moved, `berth doctor --repair` re-links "
              "it; otherwise " +
                  unlinked_advice(w));
}

std::optional<std::string> RealPaths::of(const std::string& path) {
  auto [at, fresh] = known_.try_emplace(path);
  if (fresh) at->second = resolved(path, nullptr);
  return at->second;
}

std::string tree_claim_problem(const Project& project, const std::vector<Workspace>& records,
                               const Workspace& w, RealPaths* memo) {
  RealPaths own;
  if (!memo) memo = &own;
  if (auto problem = protected_problem(project, w.path, memo); !problem.empty()) return problem;
  // Another record naming this tree (or a tree inside it, or around it) or this admin dir: at
  // most one of them can be right, and berth cannot tell which.
  // A record berth does not trust (a path of `/`, say) speaks for nothing: it never makes a
  // sound workspace's claim doubtful (doctor reports it on its own). Asked only of a record that
  // clashes, so a look costs one pass over the records.
  auto trusted = [&](const Workspace& other) { return record_problem(project, other).empty(); };
  for (const auto& other : records) {
    if (other.name == w.name) continue;
    std::string a = util::lexically_normal(other.path), b = util::lexically_normal(w.path);
    if ((util::is_within(a, b) || util::is_within(b, a) || same_place(other.path, w.path, memo)) &&
        trusted(other))
      return fmt::format("workspace '{}' is recorded at {} too", other.name, other.path);
    if (!w.git_dir.empty() && same_place(other.git_dir, w.git_dir, memo) && trusted(other))
      return fmt::format("workspace '{}' is recorded with the same git admin dir {}", other.name,
                         w.git_dir);
  }
  std::string dotgit = util::join(w.path, ".git");
  if (!w.git_dir.empty()) {
    if (!is_admin_dir(project, w.git_dir, memo))
      return fmt::format("its git admin dir {} is not one of this repository's ({}/…)", w.git_dir,
                         admin_root(project));
    // git's own record of where this admin dir's tree lives must be this tree.
    std::string back = admin_gitdir(w.git_dir);
    if (util::is_directory(w.git_dir) && !same_place(back, dotgit, memo))
      return fmt::format("git's admin dir {} belongs to the tree at {}", w.git_dir,
                         back.empty() ? std::string("(nowhere)") : util::dirname(back));
    // The tree's .git file naming another workspace's admin dir.
    std::string named = read_gitfile(w.path);
    for (const auto& other : records)
      if (other.name != w.name && !named.empty() && same_place(other.git_dir, named, memo) &&
          trusted(other))
        return fmt::format("its .git file names the admin dir of workspace '{}'", other.name);
  }
  // No other worktree of git's may be registered at this tree.
  for (const auto& admin : admin_dirs_of(project, w.path, memo))
    if (w.git_dir.empty() || !same_place(admin, w.git_dir, memo))
      return fmt::format("git registers the tree {} as worktree {}, not {}", w.path,
                         util::basename(admin),
                         w.git_dir.empty() ? std::string("this record's") : w.git_dir);
  return {};
}

std::string creation_admin_dir(const Project& project, const std::vector<Workspace>& records,
                               const Workspace& w) {
  if (!w.git_dir.empty()) return {};
  auto admins = admin_dirs_of(project, w.path);
  if (admins.size() != 1) return {};
  for (const auto& other : records)
    if (other.name != w.name && same_place(other.git_dir, admins.front())) return {};
  return util::real_path(admins.front()).value_or(admins.front());
}

Result<void> may_delete_tree(const Project& project, const std::vector<Workspace>& records,
                             const Workspace& w, RealPaths* memo) {
  std::string problem = tree_claim_problem(project, records, w, memo);
  if (problem.empty()) return {};
  return fail(ErrorCode::record_mismatch,
              fmt::format("the record of workspace '{}' does not match git: {}; berth will not "
                          "delete {}",
                          w.name, problem, w.path),
              "nothing was changed; run `berth doctor` to see which records disagree, then fix or "
              "move aside the wrong record under <git-common-dir>/berth/workspaces/");
}

std::string aside_claim_problem(const Project& project, const std::string& path) {
  if (auto problem = protected_problem(project, path); !problem.empty()) return problem;
  auto records = Registry(project.berth_dir()).load_all();
  if (!records) return records.error().message;
  std::vector<std::string> admins = admin_dirs_of(project, path);
  std::string named = read_gitfile(path);
  if (!named.empty()) admins.push_back(named);
  for (const auto& w : *records) {
    std::string a = util::lexically_normal(w.path), b = util::lexically_normal(path);
    if (util::is_within(a, b) || util::is_within(b, a))
      return fmt::format("workspace '{}' is recorded at {}", w.name, w.path);
    for (const auto& admin : admins)
      if (same_place(admin, w.git_dir))
        return fmt::format("its git admin dir {} is workspace '{}''s", admin, w.name);
  }
  return {};
}

std::string moved_admin_dir(const Project& project, const std::string& tree) {
  auto admins = admin_dirs_of(project, tree);
  if (admins.size() != 1) return {};
  std::string admin = util::real_path(admins.front()).value_or(admins.front());
  return read_gitfile(tree) == admin ? admin : std::string();
}

bool owned_by_another_repository(const Project& project, const std::string& git_dir,
                                 const std::string& tree) {
  if (git_dir.empty() || is_admin_dir(project, git_dir) || !util::is_directory(git_dir))
    return false;
  return same_place(admin_gitdir(git_dir), util::join(tree, ".git")) &&
         same_place(read_gitfile(tree), git_dir);
}

void drop_copied_admin_dirs(const Project& project, const std::string& tree) {
  for (const auto& admin : admin_dirs_of(project, tree))
    (void)util::remove_tree(admin);
}

std::optional<Workspace>
moved_workspace(const Project& project, const std::vector<Workspace>& records, const Workspace& w) {
  if (w.git_dir.empty() || is_admin_dir(project, w.git_dir)) return std::nullopt;
  Workspace found = w;
  if (util::is_directory(w.path)) {
    found.git_dir = moved_admin_dir(project, w.path);
  } else {
    // git keeps a worktree's admin dir name when the repository moves: the admin dir of that
    // name, whose tree (of the same folder name) names it back, is this record's tree.
    std::string admin = util::join(admin_root(project), util::basename(w.git_dir));
    std::string tree = util::dirname(admin_gitdir(admin));
    if (tree.empty() || !util::is_directory(tree) || util::basename(tree) != util::basename(w.path))
      return std::nullopt;
    found.path = tree;
    // Its root moved with it (a root inside the project, such as .worktrees).
    if (!w.root.empty() &&
        util::lexically_normal(w.root) == util::lexically_normal(util::dirname(w.path)))
      found.root = util::dirname(tree);
    found.git_dir = moved_admin_dir(project, tree);
  }
  if (found.git_dir.empty()) return std::nullopt;
  for (const auto& other : records)
    if (other.name != w.name &&
        (same_place(other.git_dir, found.git_dir) || same_place(other.path, found.path)))
      return std::nullopt;
  return found;
}

bool needs_relink(const Project& project, const std::vector<Workspace>& records) {
  std::string root = admin_root(project);
  // The common case costs no system call: records name their admin dir by its resolved path,
  // as the project does its common dir.
  return std::any_of(records.begin(), records.end(), [&](const Workspace& w) {
    return !w.git_dir.empty() && util::dirname(w.git_dir) != root &&
           !is_admin_dir(project, w.git_dir);
  });
}

std::string moved_with_checkout(const Project& project, const Workspace& w) {
  // <old-checkout>/.git/worktrees/<id>: the checkout the record was made in.
  std::string old_common = util::dirname(util::dirname(util::lexically_normal(w.git_dir)));
  if (util::basename(old_common) != ".git" || project.main_worktree().empty()) return {};
  std::string old_checkout = util::dirname(old_common);
  std::string path = util::lexically_normal(w.path);
  if (!util::is_within(path, old_checkout) || path == old_checkout) return {};
  std::string now = project.main_worktree() + path.substr(old_checkout.size());
  // Its .git file still names the old admin dir, which git now has under the same id.
  if (!util::is_directory(now) || util::is_symlink(now)) return {};
  std::string admin = util::join(admin_root(project), util::basename(w.git_dir));
  if (!util::is_directory(admin)) return {};
  return now;
}

namespace {
// The submodules' links inside a re-linked workspace: `git submodule` wrote them relative, so
// they still lead to where the repository (or the tree) was.
void relink_submodules(const Workspace& w, Relinked& out) {
  for (const auto& path : repair_submodule_links(w))
    out.relinked.push_back(
        fmt::format("workspace '{}': submodule {} re-linked to its module", w.name, path));
}
} // namespace

Relinked relink_moved(const Project& project, std::vector<Workspace>& records, Repair repair) {
  Relinked out;
  Registry registry(project.berth_dir());
  std::vector<std::string> forgotten;
  for (auto& w : records) {
    if (w.git_dir.empty() || is_admin_dir(project, w.git_dir)) continue;
    // A tree that moved with the repository (a workspace root inside it), once `git worktree
    // repair NEW-PATH` has fixed git's links.
    if (!util::is_directory(w.path)) {
      // The record follows the tree git's links prove is its own now.
      auto follow = [&]() {
        auto moved = moved_workspace(project, records, w);
        if (!moved) return false;
        std::string from = w.path;
        Workspace relinked = w;
        relinked.path = moved->path;
        relinked.git_dir = moved->git_dir;
        relinked.root = moved->root;
        if (auto saved = registry.save(relinked); !saved) {
          out.problems.push_back({"record_unwritable", w.name,
                                  registry.record_path(name_slug(w.name)), saved.error().message,
                                  saved.error().hint});
          return true;
        }
        w = relinked;
        out.relinked.push_back(
            fmt::format("workspace '{}': re-linked from {} to {}", w.name, from, w.path));
        relink_submodules(w, out);
        return true;
      };
      if (follow()) continue;
      // Moved with the repository, but git's links still name the old place (the user ran no
      // `git worktree repair PATH`): where the tree is now, if it lay inside the old checkout.
      std::string now = moved_with_checkout(project, w);
      if (now.empty()) continue; // nothing on disk to re-link (status: missing)
      if (repair == Repair::yes) {
        (void)git_status_of(repo_call(project, {"worktree", "repair", now}));
        if (follow()) continue;
      }
      out.problems.push_back(
          repair == Repair::no
              ? Problem{"moved_with_repository", w.name, now,
                        fmt::format("workspace '{}': its directory moved with the repository to {}",
                                    w.name, now),
                        "berth doctor --repair"}
              : Problem{"moved_with_repository", w.name, now,
                        fmt::format("workspace '{}': its directory moved with the repository to "
                                    "{}, but git's links to it cannot be repaired",
                                    w.name, now),
                        fmt::format("git worktree repair {}", now)});
      continue;
    }
    // A copy of the repository whose original is still there: the tree stays the original's.
    // The copy's record (and git's admin dir for it, copied too) are forgotten under --repair.
    if (owned_by_another_repository(project, w.git_dir, w.path)) {
      std::string origin = util::dirname(util::dirname(w.git_dir));
      if (util::basename(origin) == ".git") origin = util::dirname(origin);
      if (repair == Repair::no) {
        out.problems.push_back(
            {"copied_repository", w.name, w.path,
             fmt::format("workspace '{}' belongs to the repository at {}: this repository is a "
                         "copy of it, and the record came with the copy",
                         w.name, origin),
             "berth doctor --repair forgets the copy's record (the workspace and its repository "
             "are not touched)"});
        continue;
      }
      drop_copied_admin_dirs(project, w.path);
      if (auto removed = registry.remove(name_slug(w.name)); !removed) {
        out.problems.push_back({"record_unwritable", w.name,
                                registry.record_path(name_slug(w.name)), removed.error().message,
                                removed.error().hint});
        continue;
      }
      out.relinked.push_back(fmt::format("workspace '{}': forgot this copy's record of {} (it "
                                         "belongs to the repository at {})",
                                         w.name, w.path, origin));
      forgotten.push_back(w.name);
      continue;
    }
    // git's admin dir for this tree in the repository as it is now: exactly one, and no other
    // record's.
    auto admins = admin_dirs_of(project, w.path);
    bool taken = admins.size() == 1 && std::any_of(records.begin(), records.end(), [&](auto& o) {
                   return o.name != w.name && same_place(o.git_dir, admins.front());
                 });
    if (admins.size() != 1 || taken) {
      out.problems.push_back(
          {"admin_dir_foreign", w.name, w.path,
           fmt::format("workspace '{}': its git admin dir {} is not in this repository, and git "
                       "has no single worktree at {} to re-link it to",
                       w.name, w.git_dir, w.path),
           "move the record aside (<git-common-dir>/berth/workspaces/) and the directory out of "
           "berth's root if the work there is to be kept"});
      continue;
    }
    std::string admin = util::real_path(admins.front()).value_or(admins.front());
    // The tree's .git file must name that admin dir (the user ran `git worktree repair`), or
    // still the recorded one (the repository moved from under it): either proves the tree is
    // this record's. Anything else is someone else's repository.
    std::string named = read_gitfile(w.path);
    std::string text = chomp(util::read_file(util::join(w.path, ".git")).value_or(""));
    bool names_old = text == "gitdir: " + w.git_dir;
    if (named != admin && !names_old) {
      out.problems.push_back(
          {"gitfile_mismatch", w.name, w.path,
           fmt::format("workspace '{}': its .git file names neither {} nor the recorded {}; not "
                       "re-linked",
                       w.name, admin, w.git_dir),
           "check which repository the directory belongs to; berth leaves it alone"});
      continue;
    }
    if (named != admin) {
      if (repair == Repair::no) {
        out.problems.push_back(
            {"moved_repository", w.name, w.path,
             fmt::format("workspace '{}': the repository moved (its .git file still names {})",
                         w.name, w.git_dir),
             "berth doctor --repair"});
        continue;
      }
      auto repaired = git_status_of(repo_call(project, {"worktree", "repair", w.path}));
      if (!repaired || !repaired->ok() || read_gitfile(w.path) != admin) {
        out.problems.push_back(
            {"moved_repository", w.name, w.path,
             fmt::format("workspace '{}': `git worktree repair {}` did not re-link it", w.name,
                         w.path),
             fmt::format("run `git worktree repair {}` and read its message", w.path)});
        continue;
      }
    }
    std::string old = w.git_dir;
    w.git_dir = admin;
    if (auto saved = registry.save(w); !saved) {
      w.git_dir = old;
      out.problems.push_back({"record_unwritable", w.name, registry.record_path(name_slug(w.name)),
                              saved.error().message, saved.error().hint});
      continue;
    }
    out.relinked.push_back(
        fmt::format("workspace '{}': re-linked from {} to {}", w.name, old, admin));
    relink_submodules(w, out);
  }
  std::erase_if(records, [&](const Workspace& w) {
    return std::find(forgotten.begin(), forgotten.end(), w.name) != forgotten.end();
  });
  return out;
}

} // namespace berth
