#include "berth/config.hpp"

#include "berth/berth.hpp"
#include "core/gc.hpp"
#include "core/name.hpp"
#include "core/ports.hpp"
#include "util/paths.hpp"
#include "util/try.hpp"

#include <cstdlib>
#include <fmt/format.h>
#include <toml++/toml.h>

namespace berth {

const std::vector<ConfigKey>& config_keys() {
  static const std::vector<ConfigKey> keys = {
      {"workspace_root", std::string(),
       "where workspaces live; empty means ~/berth/<project>-<id> (no dot component; beside the "
       "checkout when ~ is on another filesystem); "
       "a relative path is taken from the project's main checkout (and added to .git/info/exclude)",
       true},
      {"branch_prefix", std::string("berth/"), "prefix of every workspace branch", true},
      {"pool.size", int64_t{2},
       "how many pre-checked-out worktrees berth keeps ready per project, so `new` is instant (0: "
       "none)",
       true},
      {"ports.range", std::string("20000-29999"),
       "TCP ports handed out to workspaces, in blocks of 10 (BERTH_PORT, BERTH_PORT_0..9)", true},
      {"run.sandbox", false, "run every `berth run` in the sandbox (as if --sandbox were given)",
       true},
      {"accept.strategy", std::string("apply"),
       "how `berth accept` lands a workspace: apply, merge, squash, ff or rebase", true},
      {"setup.copy", std::vector<std::string>{},
       "gitignore-style patterns of ignored files copied from your checkout into each new "
       "workspace (added to those of .worktreeinclude)",
       true},
      {"setup.clone", std::vector<std::string>{},
       "ignored cache folders copied into each new workspace, copy-on-write where the filesystem "
       "can (node_modules, target, .venv)",
       true},
      {"setup.link", std::vector<std::string>{},
       "ignored folders each new workspace shares with your checkout through a symlink", true},
      {"setup.run", std::vector<std::string>{},
       "shell commands run in each new workspace; a repository's list runs only once you trusted "
       "it (`berth trust`)",
       true},
      {"watch.enabled", true,
       "follow workspace changes with a background watcher (inotify), so list, status, diff and "
       "discard look only at what changed; turn off on network filesystems",
       true},
      // Plain folders (docs/plain.md): what their snapshots leave out besides .gitignore files.
      {"plain.ignore",
       std::vector<std::string>{"node_modules/", "target/", "build/", "dist/", "__pycache__/",
                                "*.pyc", ".venv/", "venv/", ".tox/", ".mypy_cache/",
                                ".pytest_cache/", ".gradle/", ".next/", ".cache/", ".DS_Store",
                                ".hg/", ".svn/", ".jj/", ".bzr/"},
       "gitignore-style patterns a plain folder's snapshots leave out (build output, dependency "
       "folders, other version control), besides its .gitignore files",
       true},
      {"setup.lfs", std::string("auto"),
       "auto: Git LFS files are real files in a new workspace; skip: leave them as pointers", true},
      // A repository's own .berth.toml must not loosen what the MCP server lets an agent do.
      {"mcp.sandbox", true,
       "`berth mcp`: run workspace_run commands in the sandbox (an agent may turn it off only when "
       "the server was started with --allow-unsandboxed)",
       false},
      {"mcp.allow_accept", false,
       "`berth mcp`: offer the workspace_accept tool (as --allow-accept does); off, the human "
       "lands the change",
       false},
      // Nor what the sandbox may write or must hide: a cloned project must not widen it.
      {"sandbox.writable", std::vector<std::string>{},
       "further paths a sandboxed run may write (absolute or ~/; never git's dir, hooks or "
       "config), as --allow-write adds them",
       false},
      {"sandbox.hidden", std::vector<std::string>{},
       "further paths a sandboxed run must not read, besides the credential locations berth "
       "hides by default (absolute or ~/)",
       false},
      // issue 16: gc and the trash (docs/gc.md)
      {"gc.auto", true,
       "after `new` and `discard`, a light gc pass in the background (orphans and expired trash "
       "only)",
       true},
      {"gc.older_than", std::string("7d"),
       "`berth gc` removes a workspace with no change at all once unused this long (45s, 30m, 12h, "
       "7d, 2w)",
       true},
      {"gc.max_disk", std::string(),
       "`berth gc` removes the oldest clean, idle workspaces while all of them take more than this "
       "(500M, 20G; empty: no limit); never one with work in it",
       true},
      {"gc.max_workspaces", int64_t{0},
       "`berth gc` removes the oldest clean, idle workspaces while there are more than this (0: no "
       "limit); never one with work in it",
       true},
      {"trash.keep", int64_t{3},
       "snapshots of each workspace name gc always keeps in the trash, the newest ones", true},
      {"trash.keep_days", int64_t{30},
       "gc drops a snapshot older than this many days, beyond the newest trash.keep of its name",
       true},
  };
  return keys;
}

namespace {

const ConfigKey* find_key(const std::string& name) {
  for (const auto& key : config_keys())
    if (name == key.name) return &key;
  return nullptr;
}

std::string type_name(const ConfigValue& v) {
  if (std::holds_alternative<std::string>(v)) return "a string";
  if (std::holds_alternative<int64_t>(v)) return "an integer";
  if (std::holds_alternative<bool>(v)) return "a boolean";
  return "an array of strings";
}

// Convert text (from the environment or a flag) to the key's type.
Result<ConfigValue> parse_text(const ConfigKey& key, const std::string& text,
                               const std::string& where) {
  const ConfigValue& def = key.default_value;
  if (std::holds_alternative<std::string>(def)) return ConfigValue(text);
  if (std::holds_alternative<std::vector<std::string>>(def))
    return ConfigValue(BERTH_TRY(parse_list_text(text, where)));
  if (std::holds_alternative<int64_t>(def)) {
    char* end = nullptr;
    long long n = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0')
      return fail(ErrorCode::config_invalid,
                  fmt::format("{}: {} must be an integer, not '{}'", where, key.name, text),
                  fmt::format("fix {} in {}", key.name, where));
    return ConfigValue(static_cast<int64_t>(n));
  }
  if (text == "true" || text == "1" || text == "yes" || text == "on") return ConfigValue(true);
  if (text == "false" || text == "0" || text == "no" || text == "off") return ConfigValue(false);
  return fail(ErrorCode::config_invalid,
              fmt::format("{}: {} must be true or false, not '{}'", where, key.name, text),
              fmt::format("fix {} in {}", key.name, where));
}

Result<ConfigValue> from_toml(const ConfigKey& key, const toml::node& node,
                              const std::string& where) {
  const ConfigValue& def = key.default_value;
  if (std::holds_alternative<std::string>(def) && node.is_string())
    return ConfigValue(*node.value<std::string>());
  if (std::holds_alternative<int64_t>(def) && node.is_integer())
    return ConfigValue(*node.value<int64_t>());
  if (std::holds_alternative<bool>(def) && node.is_boolean())
    return ConfigValue(*node.value<bool>());
  if (std::holds_alternative<std::vector<std::string>>(def) && node.is_array()) {
    std::vector<std::string> items;
    for (const auto& item : *node.as_array()) {
      if (!item.is_string())
        return fail(ErrorCode::config_invalid,
                    fmt::format("{}: {} must be an array of strings", where, key.name),
                    "fix the value in that file");
      items.push_back(*item.value<std::string>());
    }
    return ConfigValue(std::move(items));
  }
  return fail(ErrorCode::config_invalid,
              fmt::format("{}: {} must be {}", where, key.name, type_name(def)),
              "fix the value in that file");
}

// A value of the right type may still mean nothing (`pool.size = -3`, an unknown strategy): it is
// refused where it is written, naming the key, the file (variable, flag) and what is accepted, not
// left to fail somewhere later or be read as something else.
Result<void> check_value(const ConfigKey& key, const ConfigValue& value, const std::string& where) {
  std::string name = key.name;
  auto refuse = [&](std::string_view accepted) {
    return fail(ErrorCode::config_invalid,
                fmt::format("{}: {} = {} is not accepted: it must be {}", where, name,
                            to_string(value), accepted),
                fmt::format("fix {} in {}", name, where));
  };
  if (name == "pool.size") {
    int64_t n = std::get<int64_t>(value);
    if (n < 0 || n > kMaxPoolSize)
      return refuse(fmt::format("an integer from 0 (no pool) to {}", kMaxPoolSize));
  } else if (name == "accept.strategy") {
    if (!parse_strategy(std::get<std::string>(value)))
      return refuse("apply, merge, squash, ff or rebase");
  } else if (name == "setup.lfs") {
    const auto& mode = std::get<std::string>(value);
    if (mode != "auto" && mode != "skip") return refuse("auto or skip");
  } else if (name == "ports.range") {
    if (!parse_port_range(std::get<std::string>(value)))
      return refuse("FIRST-LAST within 1024-65535 with room for a block of 10, e.g. 20000-29999");
  } else if (name == "gc.older_than") {
    if (!parse_duration(std::get<std::string>(value), name))
      return refuse("a duration: a number and a unit, 45s, 30m, 12h, 7d or 2w");
  } else if (name == "gc.max_disk") {
    if (!parse_size(std::get<std::string>(value), name))
      return refuse("a size: 500M, 20G, 1T, or empty for no limit");
  } else if (name == "gc.max_workspaces" || name == "trash.keep" || name == "trash.keep_days") {
    if (std::get<int64_t>(value) < 0) return refuse("0 or more");
  } else if (name == "branch_prefix") {
    if (auto valid = validate_branch_prefix(std::get<std::string>(value)); !valid) {
      Error e = valid.error();
      e.message = where + ": " + e.message;
      e.hint = fmt::format("fix branch_prefix in {}: {}", where, e.hint);
      return tl::unexpected(std::move(e));
    }
  }
  return {};
}

// Flatten a TOML table into dotted keys ("pool.size").
void flatten(const toml::table& table, const std::string& prefix,
             std::vector<std::pair<std::string, const toml::node*>>& out) {
  for (const auto& [k, node] : table) {
    std::string name = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (const auto* sub = node.as_table())
      flatten(*sub, name, out);
    else
      out.emplace_back(name, &node);
  }
}

} // namespace

Result<Config> Config::load(const std::string& user_file, const std::string& repo_file,
                            const std::vector<std::string>& flags) {
  Config config;
  for (const auto& key : config_keys())
    config.entries_[key.name] =
        ConfigEntry{key.default_value, {ConfigSource::Layer::built_in, "built-in"}};

  auto load_file = [&](const std::string& path, ConfigSource::Layer layer) -> Result<void> {
    if (path.empty() || !util::exists(path)) return {};
    toml::table table;
    try {
      table = toml::parse_file(path);
    } catch (const toml::parse_error& e) {
      const auto& where = e.source().begin;
      return fail(ErrorCode::config_invalid,
                  fmt::format("{}:{}:{}: {}", path, where.line, where.column, e.description()),
                  "fix the TOML syntax in that file");
    }
    std::vector<std::pair<std::string, const toml::node*>> values;
    flatten(table, "", values);
    for (const auto& [name, node] : values) {
      const ConfigKey* key = find_key(name);
      if (!key) {
        config.warnings_.push_back(fmt::format("{}: unknown key '{}' ignored", path, name));
        continue;
      }
      if (layer == ConfigSource::Layer::repository && !key->repository_may_set) {
        config.warnings_.push_back(
            fmt::format("{}: '{}' can only be set in your own config, ignored", path, name));
        continue;
      }
      ConfigValue value = BERTH_TRY(from_toml(*key, *node, path));
      BERTH_TRY(check_value(*key, value, path));
      // A repository may keep its workspaces inside itself (".worktrees"), but never point berth
      // at an arbitrary place on the user's disk.
      if (layer == ConfigSource::Layer::repository && name == "workspace_root") {
        const auto& root = std::get<std::string>(value);
        // Trailing slashes are spelling (".worktrees/"); "." alone would be the checkout itself.
        std::string trimmed = root;
        while (trimmed.size() > 1 && trimmed.back() == '/')
          trimmed.pop_back();
        if (!root.empty() && (root.front() == '/' || root.front() == '~' ||
                              util::lexically_normal("/" + trimmed) != "/" + trimmed ||
                              root.find("..") != std::string::npos)) {
          config.warnings_.push_back(fmt::format(
              "{}: workspace_root '{}' ignored: a repository may only name a folder inside itself",
              path, root));
          continue;
        }
      }
      config.entries_[name] = ConfigEntry{std::move(value), {layer, path}};
    }
    return {};
  };
  BERTH_TRY(load_file(user_file, ConfigSource::Layer::user));
  BERTH_TRY(load_file(repo_file, ConfigSource::Layer::repository));

  for (const auto& key : config_keys()) {
    std::string var = "BERTH_";
    for (const char* c = key.name; *c; ++c)
      var += (*c == '.') ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(*c)));
    if (const char* text = std::getenv(var.c_str())) {
      ConfigValue value = BERTH_TRY(parse_text(key, text, var));
      BERTH_TRY(check_value(key, value, var));
      config.entries_[key.name] =
          ConfigEntry{std::move(value), {ConfigSource::Layer::environment, var}};
    }
  }

  // A list key named by several -c flags collects them all, in order (`-c setup.run=a -c
  // setup.run=b`): the first replaces what lower layers set, the next ones append.
  std::map<std::string, bool> appended;
  for (const auto& flag : flags) {
    auto eq = flag.find('=');
    std::string name = flag.substr(0, eq);
    const ConfigKey* key = find_key(name);
    if (eq == std::string::npos || !key)
      return fail(ErrorCode::usage,
                  eq == std::string::npos ? fmt::format("-c '{}': expected KEY=VALUE", flag)
                                          : fmt::format("-c: unknown config key '{}'", name),
                  "run `berth config` to see every key");
    ConfigValue value = BERTH_TRY(parse_text(*key, flag.substr(eq + 1), "-c " + name));
    BERTH_TRY(check_value(*key, value, "-c " + name));
    if (auto* items = std::get_if<std::vector<std::string>>(&value)) {
      auto& entry = config.entries_[name];
      if (appended[name]) {
        auto& list = std::get<std::vector<std::string>>(entry.value);
        list.insert(list.end(), items->begin(), items->end());
        continue;
      }
      appended[name] = true;
    }
    config.entries_[name] =
        ConfigEntry{std::move(value), {ConfigSource::Layer::flag, "-c " + name}};
  }
  return config;
}

const ConfigEntry& Config::entry(const std::string& key) const {
  return entries_.at(key);
}
std::string Config::get_string(const std::string& key) const {
  return std::get<std::string>(entry(key).value);
}
int64_t Config::get_int(const std::string& key) const {
  return std::get<int64_t>(entry(key).value);
}
bool Config::get_bool(const std::string& key) const {
  return std::get<bool>(entry(key).value);
}
const std::vector<std::string>& Config::get_list(const std::string& key) const {
  return std::get<std::vector<std::string>>(entry(key).value);
}

Result<std::vector<std::string>> parse_list_text(const std::string& text,
                                                 const std::string& where) {
  // A TOML array when it reads as one; anything else is lines, so that an ordinary command
  // starting with "[" (`[ -f x ] && make`) still means itself.
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '[') {
    try {
      toml::table table = toml::parse("v = " + text);
      if (const auto* array = table["v"].as_array()) {
        std::vector<std::string> items;
        for (const auto& item : *array) {
          if (!item.is_string())
            return fail(ErrorCode::config_invalid,
                        fmt::format("{}: must be an array of strings, not '{}'", where, text));
          items.push_back(*item.value<std::string>());
        }
        return items;
      }
    } catch (const toml::parse_error&) {
    }
  }
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") != std::string::npos) items.push_back(line);
    start = end + 1;
  }
  return items;
}

std::string to_string(const ConfigValue& value) {
  if (const auto* s = std::get_if<std::string>(&value)) return *s;
  if (const auto* n = std::get_if<int64_t>(&value)) return std::to_string(*n);
  if (const auto* list = std::get_if<std::vector<std::string>>(&value)) {
    // A TOML array of basic strings, the spelling a user would write in a file.
    std::string out = "[";
    for (const auto& item : *list) {
      if (out.size() > 1) out += ", ";
      out += '"';
      for (char c : item) {
        auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\')
          out += {'\\', c};
        else if (c == '\n')
          out += "\\n";
        else if (c == '\t')
          out += "\\t";
        else if (u < 0x20 || u == 0x7f)
          out += fmt::format("\\u{:04x}", u);
        else
          out += c;
      }
      out += '"';
    }
    return out + "]";
  }
  return std::get<bool>(value) ? "true" : "false";
}

std::string_view layer_name(ConfigSource::Layer layer) {
  switch (layer) {
  case ConfigSource::Layer::built_in:
    return "built-in";
  case ConfigSource::Layer::user:
    return "user";
  case ConfigSource::Layer::repository:
    return "repository";
  case ConfigSource::Layer::environment:
    return "environment";
  case ConfigSource::Layer::flag:
    return "flag";
  }
  return "?";
}

} // namespace berth
