#include "core/roots.hpp"

#include "core/behind.hpp"
#include "core/git.hpp"
#include "core/name.hpp"
#include "core/registry.hpp"
#include "util/atomic_file.hpp"
#include "util/dir.hpp"
#include "util/paths.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <unistd.h>

namespace berth {
namespace {

// <berth>/trash-roots: one root a line. Only roots other than the default one, and only while
// their `.trash` holds something: the records say where workspaces live, this
// file where discarded trees wait after their record is gone.
std::string trash_roots_file(const Project& project) {
  return util::join(project.berth_dir(), "trash-roots");
}

std::vector<std::string> noted_roots(const Project& project) {
  std::vector<std::string> roots;
  for (const auto& line : split_lines(util::read_file(trash_roots_file(project)).value_or("")))
    if (!line.empty() && line.front() == '/') roots.push_back(line);
  return roots;
}

} // namespace

bool is_standard_root(const Project& project, const std::string& root) {
  std::string r = util::lexically_normal(root);
  if (r == util::lexically_normal(project.workspace_root()) ||
      r == util::lexically_normal(project.default_workspace_root()))
    return true;
  // An earlier berth's default root (~/.local/share/berth/...): its workspaces are still ours.
  for (const auto& previous : project.previous_workspace_roots())
    if (r == util::lexically_normal(previous)) return true;
  return false;
}

namespace {

bool has_entries(const std::string& dir) {
  util::DirEntries entries(dir);
  return entries.begin() != entries.end();
}

} // namespace

std::string workspace_root_of(const Project& project, const Workspace& w) {
  if (!w.root.empty()) return util::lexically_normal(w.root);
  std::string parent = util::lexically_normal(util::dirname(w.path));
  return is_standard_root(project, parent) ? parent : std::string();
}

bool deletable_workspace_path(const Project& project, const Workspace& w) {
  std::string root = workspace_root_of(project, w);
  if (root.empty() || root.front() != '/' || root == "/") return false;
  std::string path = util::lexically_normal(w.path);
  std::string parent = util::dirname(path);
  if (parent != root) return false;
  std::string leaf = util::basename(path);
  if (leaf.empty() || leaf == "." || leaf == "..") return false;
  // A record may be wrong (hand-edited, corrupt): whatever it says, never the user's checkout or
  // the repository itself, nor a folder holding them.
  for (const auto& precious : {project.main_worktree(), project.common_dir()})
    if (!precious.empty() && util::is_within(util::lexically_normal(precious), path)) return false;
  // Never through a symlinked parent: the root must resolve to itself.
  auto real_parent = util::real_path(parent);
  auto real_root = util::real_path(root);
  return real_parent && real_root && *real_parent == *real_root;
}

std::vector<std::string> workspace_roots(const Project& project) {
  std::vector<std::string> roots{util::lexically_normal(project.workspace_root()),
                                 util::lexically_normal(project.default_workspace_root())};
  for (const auto& previous : project.previous_workspace_roots())
    roots.push_back(util::lexically_normal(previous));
  Registry registry(project.berth_dir());
  if (auto all = registry.load_all())
    for (const auto& w : *all)
      if (auto root = workspace_root_of(project, w);
          !root.empty() && record_problem(project, w).empty())
        roots.push_back(root);
  for (const auto& root : noted_roots(project))
    roots.push_back(util::lexically_normal(root));
  std::vector<std::string> unique;
  for (auto& root : roots)
    if (!root.empty() && root != "/" &&
        std::find(unique.begin(), unique.end(), root) == unique.end())
      unique.push_back(std::move(root));
  return unique;
}

std::string record_problem(const Project& project, const Workspace& w) {
  if (!w.invalid.empty()) return w.invalid;
  const std::string& path = w.path;
  if (path == "/") return "its path is / (the whole filesystem)";
  if (path.empty() || path.front() != '/' || util::lexically_normal(path) != path)
    return fmt::format("its path '{}' is not an absolute, normal path", path);
  // (No root: a record from before berth kept roots, outside today's: git must vouch for it.)
  std::string root = workspace_root_of(project, w);
  if (!root.empty() && (root.front() != '/' || root == "/"))
    return fmt::format("its root '{}' is not a workspace root", root);
  if (!root.empty() && util::dirname(path) != root)
    return fmt::format("its path {} is not in its root {}", path, root);
  if (util::basename(path) != name_slug(w.name))
    return fmt::format("its path {} is not named after it", path);
  for (const auto& precious : {project.main_worktree(), project.common_dir()})
    if (!precious.empty() && util::is_within(util::lexically_normal(precious), path))
      return fmt::format("its path {} is (or holds) {}", path, precious);
  bool known = !root.empty() && is_standard_root(project, root);
  for (const auto& noted : noted_roots(project))
    known = known || (!root.empty() && util::lexically_normal(noted) == root);
  if (known || !util::exists(path)) return {};
  // A root of its own (`-c workspace_root=DIR` for one command): git must vouch for the tree.
  std::string admins = util::join(project.common_dir(), "worktrees");
  std::string gitdir = chomp(read_admin_file(util::join(w.git_dir, "gitdir")));
  if (!w.git_dir.empty() && util::dirname(util::lexically_normal(w.git_dir)) == admins &&
      util::lexically_normal(gitdir) == util::join(path, ".git"))
    return {};
  return fmt::format("its root {} is not a workspace root berth knows, and git has no worktree "
                     "at {} to vouch for it",
                     root.empty() ? util::dirname(path) : root, path);
}

void note_trash_root(const Project& project, const std::string& root) {
  // Even the configured root, unless it is the default: it may be configured for this command only
  // (`-c workspace_root=DIR`), and the background deleter does not get the flag.
  if (util::lexically_normal(root) == util::lexically_normal(project.default_workspace_root()))
    return;
  auto roots = noted_roots(project);
  std::string normal = util::lexically_normal(root);
  if (std::find(roots.begin(), roots.end(), normal) != roots.end()) return;
  std::string text = util::read_file(trash_roots_file(project)).value_or("");
  if (!text.empty() && text.back() != '\n') text += '\n';
  (void)util::write_file_atomic(trash_roots_file(project), text + normal + "\n");
}

void forget_empty_trash_roots(const Project& project) {
  auto roots = noted_roots(project);
  if (roots.empty()) return;
  std::string kept;
  for (const auto& root : roots)
    if (has_entries(util::join(root, ".trash"))) kept += root + "\n";
  if (kept.empty())
    ::unlink(trash_roots_file(project).c_str());
  else
    (void)util::write_file_atomic(trash_roots_file(project), kept);
}

} // namespace berth
