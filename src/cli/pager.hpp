// Output through a pager, as git pages its own: only on a terminal, only for people (never with
// --json), with the pager git would choose (berth::diff_presentation).
#pragma once

#include <map>
#include <string>

namespace cli {

/// Show `text` through `pager` (a shell command, as git runs core.pager), with LESS=FRX and LV=-c
/// unless set, as git does; waits for the pager to end. False when it cannot be started, or the
/// shell found no such command (exit 127): the caller prints the text itself then.
bool page(const std::string& text, const std::string& pager);

/// Colour a patch as `git diff` does. `colors`: the escape sequence of each slot (meta, frag, old,
/// new, context; berth::diff_colors); a slot it lacks gets git's default (headers bold, hunk
/// lines cyan, removed lines red, added lines green, context plain).
std::string color_patch(const std::string& patch,
                        const std::map<std::string, std::string>& colors = {});

} // namespace cli
