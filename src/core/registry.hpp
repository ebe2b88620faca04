// The registry: one JSON record per workspace in <common-git-dir>/berth/workspaces/<slug>.json,
// each written atomically, every mutation made under <common-git-dir>/berth/lock.
#pragma once

#include "berth/berth.hpp"
#include "util/file_lock.hpp"

#include <optional>
#include <string>
#include <vector>

namespace berth {

class Registry {
public:
  explicit Registry(std::string berth_dir);

  /// Take the project lock. Hold it for metadata changes only, never across a checkout.
  Result<util::FileLock> lock() const;

  Result<std::optional<Workspace>> load(const std::string& slug) const;
  /// Every record, sorted by name. Unreadable records are reported in `problems`
  /// (code "record_unreadable").
  Result<std::vector<Workspace>> load_all(std::vector<Problem>* problems = nullptr) const;
  Result<void> save(const Workspace& workspace) const;
  /// save for several records at once, as safely, with one sync for all; one result each.
  std::vector<Result<void>> save_all(const std::vector<Workspace>& workspaces) const;
  Result<void> remove(const std::string& slug) const;

  const std::string& dir() const { return dir_; }
  std::string record_path(const std::string& slug) const;

private:
  std::string dir_;
};

/// Where berth recorded a project and its default workspace root (<berth>/project.json): a
/// moved repository keeps its workspaces' root (see Project::open).
struct ProjectHome {
  std::string common_dir;
  std::string default_root;
  /// Default roots an older berth chose (one with a dot component, ~/.local/share/berth/...):
  /// their workspaces, pool slots and trash are still berth's, new ones go to default_root.
  std::vector<std::string> previous_roots;
};
std::optional<ProjectHome> read_project_home(const std::string& berth_dir);
/// Write it (call under the project lock).
Result<void> write_project_home(const std::string& berth_dir, const ProjectHome& home);

/// Note where the main work tree is when git cannot tell (a git dir apart from its work tree), in
/// <berth>/work-tree, so that commands run from a workspace or the git dir find it.
/// Call under the project lock.
void note_main_worktree(const Project& project);
/// doctor: the note names a folder that is no longer the repository's work tree (the user moved
/// the checkout of a separate git dir: until berth runs in the new place, commands run from a
/// workspace or the git dir name the project after the git dir, and accept has no checkout):
/// `work_tree_moved`. With Repair::yes the note is rewritten when this command stands in (or
/// was pointed with -C at) the checkout's new place. Call under the project lock.
void check_work_tree_note(const Project& project, Repair repair, DoctorReport& report);

/// Record (de)serialisation, exposed for tests.
std::string workspace_to_record(const Workspace& workspace);
Result<Workspace> workspace_from_record(const std::string& text, const std::string& where);

/// Whether the record names a holder process (creating, busy, discarding).
bool held(const Workspace& workspace);
/// Mark `workspace` as held by this process (creating, busy, discarding).
void hold(Workspace& workspace, State state);
/// Held by a process that still runs (not one that died: its leftovers are settled instead).
bool held_alive(const Workspace& workspace);
/// busy (exit 5): "workspace 'x' is busy (pid N)", the one refusal of every command that would
/// change a workspace another process holds.
Error busy_error(const Workspace& workspace, std::string hint = "wait for it to finish");

} // namespace berth
