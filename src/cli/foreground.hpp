// What the CLI does for `run` and `shell` that a library must not: forward the signals berth gets
// to the command, and make the command the terminal's foreground job while it runs.
#pragma once

#include "berth/berth.hpp"

namespace cli {

/// Set `options.on_start`/`on_end` so that, while the command runs, SIGINT, SIGTERM, SIGHUP and
/// SIGQUIT sent to berth reach the command's whole process group, and (unless it has a session of
/// its own) that group is the terminal's foreground group, so Ctrl-C and job control work as in a
/// shell. Both are undone when the command ends.
void own_signals_and_terminal(berth::RunOptions& options);

/// For an operation that runs several commands at once (fork): from its first call on, SIGINT,
/// SIGTERM and SIGHUP to berth no longer end it but set a flag, which this returns; the operation
/// then stops every command's process group itself and records what it kept.
bool stop_requested();

} // namespace cli
