// A fork's record: <berth>/forks/<slug of TASK>/fork.json, written atomically, with the attempts'
// logs beside it. Read by list (groups), compare (run results) and pick (the siblings).
#include "berth/fork.hpp"
#include "core/name.hpp"
#include "core/registry.hpp"
#include "util/atomic_file.hpp"
#include "util/dir.hpp"
#include "util/paths.hpp"
#include "util/try.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace berth {

namespace {

constexpr int kForkRecordVersion = 1;

std::string record_path(const Project& project, std::string_view task) {
  return util::join(fork_dir(project, task), "fork.json");
}

nlohmann::json run_to_json(const AttemptRun& r) {
  nlohmann::json j = {{"name", r.name},
                      {"attempt", r.attempt},
                      {"state", r.state},
                      {"exit_code", nullptr},
                      {"signal", nullptr},
                      {"started_ms", r.started_ms},
                      {"duration_ms", r.duration_ms},
                      {"log", r.log}};
  if (r.exit_code >= 0) j["exit_code"] = r.exit_code;
  if (r.signal > 0) j["signal"] = r.signal;
  if (!r.error.empty()) j["error"] = r.error;
  return j;
}

AttemptRun run_from_json(const nlohmann::json& j) {
  AttemptRun r;
  r.name = j.at("name").get<std::string>();
  r.attempt = j.at("attempt").get<int>();
  r.state = j.value("state", std::string("pending"));
  const auto& exit_code = j.value("exit_code", nlohmann::json());
  r.exit_code = exit_code.is_number_integer() ? exit_code.get<int>() : -1;
  const auto& signal = j.value("signal", nlohmann::json());
  r.signal = signal.is_number_integer() ? signal.get<int>() : 0;
  r.started_ms = j.value("started_ms", int64_t{0});
  r.duration_ms = j.value("duration_ms", int64_t{0});
  r.log = j.value("log", std::string());
  r.error = j.value("error", std::string());
  return r;
}

} // namespace

std::string attempt_name(std::string_view task, int attempt) {
  return fmt::format("{}-{}", task, attempt);
}

std::string fork_dir(const Project& project, std::string_view task) {
  return util::join(project.berth_dir(), "forks/" + name_slug(task));
}

nlohmann::json fork_to_json(const ForkGroup& fork) {
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& run : fork.runs)
    runs.push_back(run_to_json(run));
  return {{"task", fork.task},
          {"base", fork.base},
          {"attempts", fork.attempts},
          {"created", fork.created},
          {"command", fork.command},
          {"runs", std::move(runs)},
          {"sandbox", fork.sandbox ? nlohmann::json(*fork.sandbox) : nullptr},
          {"network", fork.network},
          {"env", fork.env}};
}

Result<ForkGroup> fork_from_json(const nlohmann::json& j, const std::string& where) {
  auto bad = [&](const std::string& why) {
    return fail(ErrorCode::io_error, fmt::format("corrupt fork record {}: {}", where, why),
                "move the file aside (the attempts stay workspaces of their own) and run berth "
                "again");
  };
  if (!j.is_object()) return bad("not a JSON object");
  try {
    if (j.value("version", 0) > kForkRecordVersion)
      return bad("written by a newer berth; upgrade berth");
    ForkGroup fork;
    fork.task = j.at("task").get<std::string>();
    fork.base = j.at("base").get<std::string>();
    fork.attempts = j.at("attempts").get<int>();
    fork.created = j.value("created", int64_t{0});
    fork.command = j.value("command", std::vector<std::string>());
    // (Absent in records written before them: unsandboxed, network on, no --env.)
    if (const auto& sandbox = j.value("sandbox", nlohmann::json()); sandbox.is_string())
      fork.sandbox = sandbox.get<std::string>();
    fork.network = j.value("network", true);
    fork.env = j.value("env", std::vector<std::string>());
    for (const auto& run : j.value("runs", nlohmann::json::array()))
      fork.runs.push_back(run_from_json(run));
    if (fork.attempts < 1) return bad("attempts must be at least 1");
    return fork;
  } catch (const nlohmann::json::exception& e) {
    return bad(e.what());
  }
}

namespace {

// One fork.json, known to exist.
Result<ForkGroup> read_record(const std::string& path) {
  auto text = util::read_file(path);
  if (!text) return fail(ErrorCode::io_error, text.error());
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded())
    return fail(ErrorCode::io_error, fmt::format("corrupt fork record {}: not JSON", path),
                "move the file aside and run berth again");
  return fork_from_json(j, path);
}

} // namespace

Result<std::optional<ForkGroup>> load_fork(const Project& project, std::string_view task) {
  std::string path = record_path(project, task);
  if (!util::exists(path)) return std::optional<ForkGroup>();
  ForkGroup fork = BERTH_TRY(read_record(path));
  // The folder is the task's slug: `a/b`'s record is no record of `a-b` (whose discard would
  // otherwise remove it).
  if (fork.task != task) return std::optional<ForkGroup>();
  return std::optional<ForkGroup>(std::move(fork));
}

Result<std::vector<ForkGroup>> load_forks(const Project& project) {
  std::vector<ForkGroup> all;
  std::string dir = util::join(project.berth_dir(), "forks");
  for (const auto& entry : util::DirEntries(dir)) {
    std::string path = util::join(util::join(dir, std::string(entry.name)), "fork.json");
    if (util::exists(path)) all.push_back(BERTH_TRY(read_record(path)));
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.task < b.task; });
  return all;
}

Result<void> save_fork(const Project& project, const ForkGroup& fork) {
  std::string dir = fork_dir(project, fork.task);
  if (auto made = util::make_dirs(dir); !made) return fail(ErrorCode::io_error, made.error());
  nlohmann::json j = fork_to_json(fork);
  j["version"] = kForkRecordVersion;
  std::string text;
  try {
    text = j.dump(2) + "\n";
  } catch (const nlohmann::json::exception&) {
    return fail(ErrorCode::io_error,
                fmt::format("cannot record fork '{}': a field is not valid UTF-8", fork.task),
                "use UTF-8 in the command's arguments");
  }
  auto written = util::write_file_atomic(record_path(project, fork.task), text);
  if (!written) return fail(ErrorCode::io_error, written.error());
  return {};
}

Result<bool> fork_has_attempts(const Project& project, std::string_view task) {
  for (const auto& w : BERTH_TRY(Registry(project.berth_dir()).load_all()))
    if (w.fork == task) return true;
  return false;
}

Result<void> remove_fork(const Project& project, std::string_view task) {
  auto removed = util::remove_tree(fork_dir(project, task));
  if (!removed) return fail(ErrorCode::io_error, removed.error());
  return {};
}

} // namespace berth
