// Setting a new workspace up so that it is ready to work in: included ignored files (.env ...),
// copy-on-write caches, shared links, submodules, LFS, hooks, trusted setup commands.
#pragma once

#include "berth/berth.hpp"

#include <string>
#include <vector>

namespace berth {

/// Run every set-up step for a freshly checked-out workspace. A failing setup command is not an
/// Error: it is reported in SetupReport (failed, with its output and exit status), and the
/// workspace is kept. Errors are for problems that make the workspace unusable. `rerun` (`berth
/// setup`): what the workspace has already is left alone without a warning.
/// `prepared`: the setup.clone / setup.link paths a pool slot was prepared with
/// (prepare_pool_slot), done already: reported as from the pool, not copied again.
Result<SetupReport> set_up_workspace(const Project& project, const Workspace& workspace,
                                     const SetupListener& listener, bool rerun = false,
                                     const std::vector<std::string>& prepared = {});

/// The pool's share of set-up, done in a slot ahead of time so that a pooled `new` stays
/// O(files that differ) with a big node_modules clone: setup.clone and setup.link, never a
/// command (a repository's commands need the user's trust, and would run unasked). The paths
/// made; warnings are left for the `new` that takes the slot, which looks again.
Result<std::vector<std::string>> prepare_pool_slot(const Project& project, const Workspace& slot);

/// What a prepared slot depends on: the setup.clone and setup.link lists, and for each clone
/// source in the main checkout the identity of every entry beneath it (name, inode, mode, size,
/// mtime, ctime; an `npm install` changes them). "" when nothing is to be prepared. A slot
/// prepared with another key is stale: not taken, refreshed by the background filler. The whole
/// clone source is walked: a file edited deep inside (node_modules/x/lib/a.js) changes the key.
std::string setup_inputs_key(const Project& project);

/// What set-up makes in every workspace that git ignores and that is not anyone's work: the
/// setup.clone and setup.link paths and a relative core.hooksPath (husky's .husky/_). A
/// discarded workspace's ignored files under them are "recreated by set-up", not lost.
std::vector<std::string> setup_made_paths(const Project& project);
/// `paths` (setup_made_paths), and `made`: what one workspace's set-up recorded it made
/// (Workspace::setup_made; the `Berth-Setup-Path:` trailers of its snapshot), whatever today's
/// configuration says.
std::vector<std::string> with_setup_made(std::vector<std::string> paths,
                                         const std::vector<std::string>& made);

/// Mark `w` with how its set-up went: `setup_error` (the first failed command) and
/// `setup_untrusted` (repository commands skipped until `berth trust`).
void note_setup_outcome(const SetupReport& report, Workspace& w);

/// What the tree at `rel` in `main` (or a folder up to two levels inside it, or one it is inside)
/// is, when a copy of it would not work on its own: "a Python virtual environment (pyvenv.cfg)",
/// "a conda environment (conda-meta/)", "a CMake build directory (CMakeCache.txt)", "a Meson
/// build directory (meson-private/)"; "" when none.
/// `where` gets the folder that is.
std::string not_relocatable(const std::string& main, const std::string& rel,
                            std::string* where = nullptr);
/// What to do instead of copying such a tree (the recipe for a setup.run command).
std::string not_relocatable_advice(const std::string& what);

// ---- pieces, exposed for tests ----------------------------------------------------------------

/// A path named by setup.clone or setup.link, made canonical ("node_modules/" -> "node_modules"),
/// or an empty string when it is not a plain relative path inside the project (absolute, "..",
/// "~", ".", ".git" or inside it, empty).
std::string setup_path(const std::string& path);

/// The patterns that select included ignored files: .worktreeinclude's text, then setup.copy, one
/// per line (gitignore syntax throughout).
std::string include_patterns(const std::string& worktreeinclude,
                             const std::vector<std::string>& setup_copy);

/// The text a list of setup commands is hashed as for trust: unambiguous (["a b"] and ["a", "b"]
/// differ), order-sensitive, stable across versions.
std::string trust_text(const std::vector<std::string>& commands);

/// The setup commands a new workspace runs, and where they come from: setup.run from any layer;
/// when no layer set it, another tool's committed set-up file (.cursor/worktrees.json's
/// setup-worktree-unix / setup-worktree, then conductor.json's scripts.setup). The repository's
/// (.berth.toml and those files) need trust; the user's own (config, environment, -c) do not.
struct SetupCommands {
  std::vector<std::string> commands;
  std::string source; ///< ".berth.toml", ".cursor/worktrees.json", "conductor.json", or the file
                      ///< / variable / flag of the user's that set setup.run
  bool needs_trust = false;
};
SetupCommands setup_commands(const Project& project);

/// The setup commands that need trust (the repository's, see setup_commands); empty when none.
std::vector<std::string> repository_commands(const Project& project);

} // namespace berth
