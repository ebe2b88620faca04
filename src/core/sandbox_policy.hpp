// What a sandboxed run may write besides its workspace (the per-project tool caches, the paths
// the user allowed) and what it may not read (credentials). Decided from the project before
// anything runs, so that a refused run changes nothing; see docs/sandbox.md.
#pragma once

#include "berth/berth.hpp"

#include <map>
#include <string>
#include <vector>

namespace berth {

/// The credential locations hidden from every sandboxed run ("~/" is $HOME), in docs/sandbox.md.
const std::vector<std::string>& default_hidden_paths();

struct SandboxPaths {
  std::vector<std::string> writable; ///< --allow-write and sandbox.writable, resolved, existing
  std::vector<std::string> hidden; ///< resolved; the defaults, sandbox.hidden, the checkout's .env
  std::string cache_dir;           ///< the project's tool caches (writable in the sandbox)
  /// npm_config_cache, PIP_CACHE_DIR, CARGO_HOME, ... pointing into cache_dir.
  std::map<std::string, std::string> cache_env;
  std::string stub_dir; ///< bwrap's empty, mode-000 stand-ins for hidden paths
};

/// The paths of a sandboxed run. `allow_write`/`allow_read` are the user's flags (relative to the
/// directory berth runs in, ~ expanded). Refused: a writable path that is, holds or lies in the
/// project's git dir, its hooks or git's config files (sandbox_path_refused), or overlaps a hidden
/// path (sandbox_path_refused); a writable path that does not exist, an --allow-read that names
/// nothing hidden (usage).
Result<SandboxPaths> sandbox_paths(const Project& project,
                                   const std::vector<std::string>& allow_write,
                                   const std::vector<std::string>& allow_read);

/// Create the cache directories and the stubs (when the run starts).
Result<void> make_sandbox_dirs(const SandboxPaths& paths);

} // namespace berth
