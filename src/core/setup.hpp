// Setting a new workspace up so that it is ready to work in: included ignored files (.env ...),
// copy-on-write caches, shared links, submodules, LFS, hooks, trusted setup commands.
#pragma once

#include "berth/berth.hpp"

#include <string>
#include <vector>

namespace berth {

/// Run every set-up step for a freshly checked-out workspace. A failing setup command is not an
/// Error: it is reported in SetupReport (failed, with its output and exit status), and the
/// workspace is kept. Errors are for problems that make the workspace unusable.
Result<SetupReport> set_up_workspace(const Project& project, const Workspace& workspace,
                                     const SetupListener& listener);

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

/// The repository's setup commands: setup.run when the repository's .berth.toml set it (empty
/// when nothing did, or when the user's config, environment or flags overrode it).
std::vector<std::string> repository_commands(const Config& config);

} // namespace berth
