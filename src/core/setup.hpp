// Setting a new workspace up so that it is ready to work in: included ignored files (.env ...),
// copy-on-write caches, shared links, submodules, LFS, hooks, trusted setup commands.
#pragma once

#include "berth/berth.hpp"

namespace berth {

/// Run every set-up step for a freshly checked-out workspace. A failing setup command is not an
/// Error: it is reported in SetupReport (failed, with its output and exit status), and the
/// workspace is kept. Errors are for problems that make the workspace unusable.
Result<SetupReport> set_up_workspace(const Project& project, const Workspace& workspace,
                                     const SetupListener& listener);

} // namespace berth
