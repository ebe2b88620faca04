// Layered configuration: built-in defaults < user file < repository file < BERTH_* environment <
// command-line flags. Each effective value remembers which layer set it.
#pragma once

#include "berth/error.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

// Exported from libberth.so, which is built with hidden visibility: the public API only.
#pragma GCC visibility push(default)
namespace berth {

/// A value: text, a number, a switch, or a list of strings (patterns, paths, commands).
using ConfigValue = std::variant<std::string, int64_t, bool, std::vector<std::string>>;

/// Where an effective value came from.
struct ConfigSource {
  enum class Layer { built_in, user, repository, environment, flag } layer = Layer::built_in;
  std::string where; ///< the file, variable or flag that set it
};

struct ConfigEntry {
  ConfigValue value;
  ConfigSource source;
};

/// A known key: its name (dots for TOML tables), its default and what it means.
struct ConfigKey {
  const char* name;
  ConfigValue default_value;
  const char* description;
  bool repository_may_set; ///< false: a repository's .berth.toml cannot set it
};

/// The largest pool.size accepted (each slot is a full checkout).
inline constexpr int64_t kMaxPoolSize = 64;

/// The keys berth knows, in documentation order.
const std::vector<ConfigKey>& config_keys();

class Config {
public:
  /// Load every layer. `user_file` and `repo_file` may not exist; `flags` are "key=value" strings.
  static Result<Config> load(const std::string& user_file, const std::string& repo_file,
                             const std::vector<std::string>& flags);

  const ConfigEntry& entry(const std::string& key) const;
  std::string get_string(const std::string& key) const;
  int64_t get_int(const std::string& key) const;
  bool get_bool(const std::string& key) const;
  const std::vector<std::string>& get_list(const std::string& key) const;

  const std::map<std::string, ConfigEntry>& entries() const { return entries_; }
  /// Problems that did not stop loading (unknown keys, values a repository may not set).
  const std::vector<std::string>& warnings() const { return warnings_; }
  /// One more such problem, found by the caller (a value that cannot apply where it was read).
  void add_warning(std::string warning) { warnings_.push_back(std::move(warning)); }

private:
  std::map<std::string, ConfigEntry> entries_;
  std::vector<std::string> warnings_;
};

/// One line of text: lists as a TOML array (["a", "b"]).
std::string to_string(const ConfigValue& value);
/// A list value written as text (BERTH_* variables, -c flags): a TOML array of strings
/// (`["npm ci", "make"]`), or else one item per non-empty line. An Error names `where`.
Result<std::vector<std::string>> parse_list_text(const std::string& text, const std::string& where);
std::string_view layer_name(ConfigSource::Layer layer);

} // namespace berth
#pragma GCC visibility pop
