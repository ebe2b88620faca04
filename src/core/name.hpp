// Workspace names: what is accepted, and how a name maps to a folder and a file.
#pragma once

#include "berth/error.hpp"

#include <string>
#include <string_view>

namespace berth {

inline constexpr size_t kMaxNameLength = 100;

/// Check a workspace name. Accepted: 1..100 characters from [A-Za-z0-9._-/], components separated
/// by single slashes, none starting with '.' or '-', none ending in ".lock" or '.', no "..", and
/// no first component that reads like a ref namespace (refs, heads, tags, remotes, HEAD).
/// The error says which rule failed.
Result<void> validate_name(std::string_view name);

/// Check a branch prefix from config ("berth/" by default): empty, or ref components ending in '/'.
Result<void> validate_branch_prefix(std::string_view prefix);

/// Check an owner label: up to 100 characters of printable UTF-8, no control characters (it ends
/// up in records and commit trailers).
Result<void> validate_owner(std::string_view owner);

/// The folder and registry-file name of a workspace: slashes become '-'.
std::string name_slug(std::string_view name);

} // namespace berth
