// Trust in a repository's setup commands, like direnv's: a repository's .berth.toml may name
// commands, but they run on the user's machine only once the user approved that exact list. The
// approval is kept outside every repository (a repository cannot trust itself), keyed by the
// project's common git dir and a hash of the list, so any change to the list needs approval again.
#include "core/setup.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/file_lock.hpp"
#include "util/paths.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace berth {

std::string trust_text(const std::vector<std::string>& commands) {
  // JSON quotes and separates each command, so no two lists share a text.
  return nlohmann::json(commands).dump() + "\n";
}

namespace {

// Other worktree tools' set-up files, committed to the repository like .berth.toml: a team that
// configured Cursor or Conductor needs nothing new. Read from the main checkout.
//
// Cursor's .cursor/worktrees.json: "setup-worktree-unix" (else "setup-worktree"), either an array
// of shell commands run in order in the worktree, or a string naming a script relative to the
// .cursor folder.
std::vector<std::string> cursor_commands(const std::string& main) {
  std::string file = util::join(main, ".cursor/worktrees.json");
  if (util::is_symlink(file)) return {};
  auto text = util::read_file(file);
  if (!text) return {};
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object()) return {};
  const nlohmann::json* setup = nullptr;
  for (const char* key : {"setup-worktree-unix", "setup-worktree"})
    if (auto it = j.find(key); !setup && it != j.end()) setup = &*it;
  if (!setup) return {};
  std::vector<std::string> commands;
  if (setup->is_array()) {
    for (const auto& c : *setup)
      if (c.is_string() && !c.get<std::string>().empty()) commands.push_back(c.get<std::string>());
    return commands;
  }
  // A script: relative to .cursor/ (lexically kept inside the project), run from the workspace
  // as itself when executable (its #! line), else with sh. Quoted: no quote in the name.
  if (!setup->is_string()) return {};
  const std::string& named = setup->get<std::string>();
  if (named.empty() || named.front() == '/' || named.find('\'') != std::string::npos) return {};
  std::string script = util::lexically_normal("/.cursor/" + named).substr(1);
  if (script.empty()) return {};
  bool executable = ::access(util::join(main, script).c_str(), X_OK) == 0;
  return {(executable ? "'./" : "sh './") + script + "'"};
}

// Conductor's conductor.json: {"scripts": {"setup": "<a shell command line>"}}.
std::vector<std::string> conductor_commands(const std::string& main) {
  std::string file = util::join(main, "conductor.json");
  if (util::is_symlink(file)) return {};
  auto text = util::read_file(file);
  if (!text) return {};
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object() || !j.contains("scripts") || !j["scripts"].is_object()) return {};
  auto it = j["scripts"].find("setup");
  if (it == j["scripts"].end() || !it->is_string() || it->get<std::string>().empty()) return {};
  return {it->get<std::string>()};
}

} // namespace

SetupCommands setup_commands(const Project& project) {
  const auto& entry = project.config().entry("setup.run");
  SetupCommands out;
  out.commands = std::get<std::vector<std::string>>(entry.value);
  switch (entry.source.layer) {
  case ConfigSource::Layer::repository:
    out.source = ".berth.toml";
    out.needs_trust = true;
    return out;
  case ConfigSource::Layer::built_in:
    break; // nobody set setup.run: another tool's file may
  default:
    out.source = entry.source.where; // the user's: yours, no trust needed
    return out;
  }
  const std::string& main = project.setup_source();
  if (main.empty() || !util::is_directory(main)) return out;
  out.needs_trust = true;
  if (out.commands = cursor_commands(main); !out.commands.empty()) {
    out.source = ".cursor/worktrees.json";
    return out;
  }
  if (out.commands = conductor_commands(main); !out.commands.empty()) {
    out.source = "conductor.json";
    return out;
  }
  out.needs_trust = false;
  return out;
}

std::vector<std::string> repository_commands(const Project& project) {
  auto commands = setup_commands(project);
  return commands.needs_trust ? commands.commands : std::vector<std::string>{};
}

namespace {

std::string store_path() {
  return util::join(util::config_home(), "berth/trust.json");
}

// {"version": 1, "projects": {"<common dir>": {"hash": ..., "commands": [...], "time": ...}}}
Result<nlohmann::json> read_store(const std::string& path) {
  if (!util::exists(path))
    return nlohmann::json{{"version", 1}, {"projects", nlohmann::json::object()}};
  auto text = util::read_file(path);
  if (!text) return fail(ErrorCode::io_error, text.error());
  nlohmann::json store = nlohmann::json::parse(*text, nullptr, false);
  if (store.is_discarded() || !store.is_object() || !store.contains("projects") ||
      !store["projects"].is_object())
    return fail(ErrorCode::config_invalid, fmt::format("{} is not a berth trust file", path),
                "remove it (you will be asked to trust each project's setup commands again)");
  return store;
}

Result<void> write_store(const std::string& path, const nlohmann::json& store) {
  if (auto made = util::make_dirs(util::dirname(path)); !made)
    return fail(ErrorCode::io_error, made.error());
  if (auto written = util::write_file_atomic(path, store.dump(2) + "\n"); !written)
    return fail(ErrorCode::io_error, written.error());
  return {};
}

// Read-modify-write of the store by concurrent berth processes is serialised by a lock beside it.
Result<util::FileLock> lock_store(const std::string& path) {
  if (auto made = util::make_dirs(util::dirname(path)); !made)
    return fail(ErrorCode::io_error, made.error());
  auto lock = util::FileLock::acquire(path + ".lock");
  if (!lock) return fail(ErrorCode::io_error, lock.error());
  return std::move(*lock);
}

Result<std::string> hash_commands(const Project& project,
                                  const std::vector<std::string>& commands) {
  GitCall call = repo_call(project, {"hash-object", "--stdin"});
  call.input = trust_text(commands);
  auto hashed = BERTH_TRY(git(call));
  return chomp(hashed.out);
}

Result<TrustStatus> status_in(const Project& project, const nlohmann::json& store) {
  TrustStatus status;
  auto listed = setup_commands(project);
  if (listed.needs_trust) {
    status.commands = listed.commands;
    status.source = listed.source;
  }
  status.store = store_path();
  if (status.commands.empty()) return status;
  status.hash = BERTH_TRY(hash_commands(project, status.commands));
  const auto& projects = store["projects"];
  if (auto it = projects.find(project.common_dir()); it != projects.end() && it->is_object())
    status.trusted = it->value("hash", std::string()) == status.hash;
  return status;
}

} // namespace

Result<TrustStatus> trust_status(const Project& project) {
  auto store = BERTH_TRY(read_store(store_path()));
  return status_in(project, store);
}

Result<TrustStatus> trust_project(const Project& project) {
  std::string path = store_path();
  auto lock = BERTH_TRY(lock_store(path));
  auto store = BERTH_TRY(read_store(path));
  auto status = BERTH_TRY(status_in(project, store));
  if (status.commands.empty())
    return fail(ErrorCode::not_found,
                "this project names no setup commands (in .berth.toml, .cursor/worktrees.json or "
                "conductor.json)",
                "add setup.run to .berth.toml first");
  if (status.trusted) return status;
  store["projects"][project.common_dir()] = {
      {"hash", status.hash}, {"commands", status.commands}, {"time", unix_now()}};
  BERTH_TRY(write_store(path, store));
  status.trusted = true;
  return status;
}

Result<TrustStatus> revoke_trust(const Project& project) {
  std::string path = store_path();
  auto lock = BERTH_TRY(lock_store(path));
  auto store = BERTH_TRY(read_store(path));
  bool revoked = store["projects"].erase(project.common_dir()) > 0;
  if (revoked) BERTH_TRY(write_store(path, store));
  auto status = BERTH_TRY(status_in(project, store));
  status.revoked = revoked;
  return status;
}

Result<std::vector<std::pair<std::string, std::string>>> list_trust() {
  auto store = BERTH_TRY(read_store(store_path()));
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [dir, entry] : store["projects"].items())
    if (entry.is_object()) out.emplace_back(dir, entry.value("hash", std::string()));
  return out;
}

} // namespace berth
