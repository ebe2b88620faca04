// Path helpers on plain strings (absolute POSIX paths), so that callers never have to guess how
// std::filesystem normalises trailing slashes or symlinks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <tl/expected.hpp>

namespace util {

/// Join with exactly one slash.
std::string join(std::string_view a, std::string_view b);
/// Last path component ("/a/b/" -> "b").
std::string basename(std::string_view path);
/// Everything before the last component ("/a/b" -> "/a").
std::string dirname(std::string_view path);
/// Lexically clean an absolute path: collapse "//", "/./" and "/x/.." (no symlink resolution).
std::string lexically_normal(std::string_view path);
/// Make `path` absolute against `base` (itself absolute) and normalise it lexically.
std::string absolute(std::string_view path, std::string_view base);
/// realpath(3); the error names the path.
tl::expected<std::string, std::string> real_path(const std::string& path);
/// True when `path` equals `root` or lies beneath it (both lexically normal, absolute).
bool is_within(std::string_view path, std::string_view root);

/// The first component of `path` that starts with a dot ("/home/me/.local/share" -> ".local"),
/// or "" when none does. Tools refuse such paths as hidden (express's `send`: every file under
/// them is a "dotfile"), which is why a workspace root must not have one.
std::string dot_component(std::string_view path);
/// The device of `path`, or of its nearest existing ancestor when it does not exist yet; 0 when
/// nothing on the way can be examined.
uint64_t device_of(const std::string& path);

/// mkdir -p; existing directories are fine.
tl::expected<void, std::string> make_dirs(const std::string& path, unsigned mode = 0755);
/// Remove a tree without following symlinks (a symlink is removed, never its target).
tl::expected<void, std::string> remove_tree(const std::string& path);

bool exists(const std::string& path);       // lstat succeeds
bool is_directory(const std::string& path); // a real directory, not a symlink to one
bool is_symlink(const std::string& path);

/// $HOME, or the passwd entry.
std::string home_dir();
/// "~" and "~/x" with $HOME in place of the ~; any other path as it is.
std::string expand_home(const std::string& path);
/// $XDG_DATA_HOME or ~/.local/share; $XDG_CONFIG_HOME or ~/.config.
std::string data_home();
std::string config_home();

/// 64-bit FNV-1a: a stable, dependency-free hash for naming things after paths.
uint64_t fnv1a(std::string_view data);

} // namespace util
