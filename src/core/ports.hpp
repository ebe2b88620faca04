// Port blocks: each workspace gets 10 consecutive TCP ports, checked free when handed out, never
// shared by two live workspaces, kept for the workspace's life and released with it.
#pragma once

#include "berth/berth.hpp"

#include <utility>
#include <vector>

namespace berth {

inline constexpr int kPortBlock = 10;

/// "20000-29999" -> {20000, 29999}; the error names the key.
Result<std::pair<int, int>> parse_port_range(const std::string& text);

/// Whether every port of the block starting at `first` can be bound on this machine now.
bool port_block_free(int first);

/// The first block in the configured range that no workspace in `taken` holds and that is free.
/// Call under the project lock, with every record of the project.
Result<int> allocate_port_block(const Project& project, const std::vector<Workspace>& taken);

} // namespace berth
