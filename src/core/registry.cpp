#include "core/registry.hpp"

#include "core/name.hpp"
#include "util/atomic_file.hpp"
#include "util/dir.hpp"
#include "util/paths.hpp"
#include "util/process_info.hpp"
#include "util/try.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace berth {
namespace {

constexpr int kRecordVersion = 1;

Result<State> parse_state(const std::string& s) {
  for (State st : {State::creating, State::ready, State::busy, State::discarding, State::landed})
    if (s == state_name(st)) return st;
  return fail(ErrorCode::io_error, fmt::format("unknown state '{}'", s));
}

} // namespace

std::string_view state_name(State state) {
  switch (state) {
  case State::creating:
    return "creating";
  case State::ready:
    return "ready";
  case State::busy:
    return "busy";
  case State::discarding:
    return "discarding";
  case State::landed:
    return "landed";
  }
  return "?";
}

std::string_view setup_state_name(const Workspace& w) {
  if (!w.setup_error.empty()) return "failed";
  return w.setup_untrusted ? "untrusted" : "done";
}

std::string workspace_to_record(const Workspace& w) {
  nlohmann::json j = {{"version", kRecordVersion},
                      {"name", w.name},
                      {"branch", w.branch},
                      {"base", w.base},
                      {"path", w.path},
                      {"git_dir", w.git_dir},
                      {"owner", w.owner},
                      {"created", w.created},
                      {"last_used", w.last_used},
                      {"state", std::string(state_name(w.state))},
                      {"holder_pid", w.holder_pid},
                      {"holder_start", w.holder_start},
                      {"landed_commit", w.landed_commit},
                      {"synced", w.synced},
                      {"port", w.port},
                      {"setup_error", w.setup_error},
                      {"setup_untrusted", w.setup_untrusted},
                      {"root", w.root},
                      {"start", w.start}};
  if (!w.setup_made.empty()) j["setup_made"] = w.setup_made;
  if (!w.fork.empty()) {
    j["fork"] = w.fork;
    j["attempt"] = w.attempt;
  }
  return j.dump(2) + "\n";
}

Result<Workspace> workspace_from_record(const std::string& text, const std::string& where) {
  auto bad = [&](const std::string& why) {
    return fail(ErrorCode::io_error, fmt::format("corrupt workspace record {}: {}", where, why),
                "move the file aside (it is one workspace's record) and run berth again");
  };
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
  try {
    if (j.value("version", 0) > kRecordVersion)
      return bad("written by a newer berth; upgrade berth");
    Workspace w;
    w.name = j.at("name").get<std::string>();
    w.branch = j.at("branch").get<std::string>();
    w.base = j.at("base").get<std::string>();
    w.path = j.at("path").get<std::string>();
    w.git_dir = j.value("git_dir", std::string());
    w.owner = j.value("owner", std::string());
    w.created = j.value("created", int64_t{0});
    w.last_used = j.value("last_used", int64_t{0});
    auto state = parse_state(j.value("state", std::string("ready")));
    if (!state) return bad(state.error().message);
    w.state = *state;
    w.holder_pid = j.value("holder_pid", 0);
    w.holder_start = j.value("holder_start", int64_t{0});
    w.landed_commit = j.value("landed_commit", std::string());
    w.synced = j.value("synced", std::string());
    w.port = j.value("port", 0);
    w.setup_error = j.value("setup_error", std::string());
    w.setup_untrusted = j.value("setup_untrusted", false);
    w.setup_made = j.value("setup_made", std::vector<std::string>());
    w.fork = j.value("fork", std::string());
    w.attempt = j.value("attempt", 0);
    // Absent from records written before berth kept each workspace's root.
    w.root = j.value("root", std::string());
    w.start = j.value("start", std::string());
    if (validate_name(w.name).has_value() == false) return bad("invalid name");
    if (w.path.empty() || w.path.front() != '/') return bad("path is not absolute");
    return w;
  } catch (const nlohmann::json::exception& e) {
    return bad(e.what());
  }
}

std::optional<ProjectHome> read_project_home(const std::string& berth_dir) {
  auto text = util::read_file(util::join(berth_dir, "project.json"));
  if (!text) return std::nullopt;
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  ProjectHome home{
      j.value("common_dir", std::string()), j.value("default_root", std::string()), {}};
  if (home.common_dir.empty() || home.default_root.empty()) return std::nullopt;
  if (auto previous = j.find("previous_roots"); previous != j.end() && previous->is_array())
    for (const auto& root : *previous)
      if (root.is_string() && root.get<std::string>().rfind('/', 0) == 0)
        home.previous_roots.push_back(root.get<std::string>());
  return home;
}

Result<void> write_project_home(const std::string& berth_dir, const ProjectHome& home) {
  std::string text;
  try {
    nlohmann::json j{{"common_dir", home.common_dir}, {"default_root", home.default_root}};
    if (!home.previous_roots.empty()) j["previous_roots"] = home.previous_roots;
    text = j.dump(2) + "\n";
  } catch (const nlohmann::json::exception&) {
    return fail(ErrorCode::io_error, "the project's paths are not valid UTF-8");
  }
  auto written = util::write_file_atomic(util::join(berth_dir, "project.json"), text);
  if (!written) return fail(ErrorCode::io_error, written.error());
  return {};
}

bool held(const Workspace& workspace) {
  return workspace.state == State::creating || workspace.state == State::busy ||
         workspace.state == State::discarding;
}

bool held_alive(const Workspace& workspace) {
  return held(workspace) && util::process_alive(workspace.holder_pid, workspace.holder_start);
}

Error busy_error(const Workspace& workspace, std::string hint) {
  return Error{ErrorCode::busy,
               fmt::format("workspace '{}' is {} (pid {})", workspace.name,
                           state_name(workspace.state), workspace.holder_pid),
               std::move(hint),
               std::nullopt,
               {}};
}

void hold(Workspace& workspace, State state) {
  workspace.state = state;
  workspace.holder_pid = static_cast<int>(::getpid());
  workspace.holder_start = util::process_start_time(::getpid());
}

Registry::Registry(std::string berth_dir) : dir_(std::move(berth_dir)) {}

std::string Registry::record_path(const std::string& slug) const {
  return util::join(dir_, "workspaces/" + slug + ".json");
}

Result<util::FileLock> Registry::lock() const {
  if (auto made = util::make_dirs(util::join(dir_, "workspaces")); !made)
    return fail(ErrorCode::io_error, made.error(),
                "check the permissions of the repository's git dir");
  auto lock = util::FileLock::acquire(util::join(dir_, "lock"));
  if (!lock) return fail(ErrorCode::io_error, lock.error());
  return std::move(*lock);
}

Result<std::optional<Workspace>> Registry::load(const std::string& slug) const {
  std::string path = record_path(slug);
  if (!util::exists(path)) return std::optional<Workspace>();
  auto text = util::read_file(path);
  if (!text) return fail(ErrorCode::io_error, text.error());
  return std::optional<Workspace>(BERTH_TRY(workspace_from_record(*text, path)));
}

Result<std::vector<Workspace>> Registry::load_all(std::vector<Problem>* problems) const {
  std::vector<Workspace> all;
  std::string dir = util::join(dir_, "workspaces");
  for (const auto& entry : util::DirEntries(dir)) {
    std::string file(entry.name);
    if (file.size() <= 5 || file.substr(file.size() - 5) != ".json") continue;
    auto record = load(file.substr(0, file.size() - 5));
    if (!record) {
      if (problems)
        problems->push_back({"record_unreadable", "", util::join(dir, file), record.error().message,
                             record.error().hint});
      continue;
    }
    if (*record) {
      // A name edited to disagree with its file: the record would speak for another workspace.
      std::string slug = file.substr(0, file.size() - 5);
      if (name_slug((*record)->name) != slug)
        (*record)->invalid =
            fmt::format("its record file {} names it '{}'", util::join(dir, file), (*record)->name);
      all.push_back(std::move(**record));
    }
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return all;
}

namespace {

// The record's text; JSON holds only UTF-8: a field that is not (an owner label or a path with
// other bytes) must be an error for this one command, not an exception that aborts berth
// mid-operation.
Result<std::string> record_text(const Workspace& workspace) {
  try {
    return workspace_to_record(workspace);
  } catch (const nlohmann::json::exception&) {
    return fail(ErrorCode::io_error,
                fmt::format("cannot record workspace '{}': a field is not valid UTF-8",
                            name_slug(workspace.name)),
                "use UTF-8 in the owner label and the workspace root");
  }
}

} // namespace

Result<void> Registry::save(const Workspace& workspace) const {
  if (auto made = util::make_dirs(util::join(dir_, "workspaces")); !made)
    return fail(ErrorCode::io_error, made.error());
  std::string record = BERTH_TRY(record_text(workspace));
  auto written = util::write_file_atomic(record_path(name_slug(workspace.name)), record);
  if (!written) return fail(ErrorCode::io_error, written.error());
  return {};
}

std::vector<Result<void>> Registry::save_all(const std::vector<Workspace>& workspaces) const {
  std::vector<Result<void>> results(workspaces.size());
  if (auto made = util::make_dirs(util::join(dir_, "workspaces")); !made) {
    for (auto& r : results)
      r = fail(ErrorCode::io_error, made.error());
    return results;
  }
  std::vector<std::pair<std::string, std::string>> files;
  std::vector<size_t> written_for;
  for (size_t i = 0; i < workspaces.size(); ++i) {
    auto text = record_text(workspaces[i]);
    if (!text) {
      results[i] = tl::unexpected(text.error());
      continue;
    }
    files.emplace_back(record_path(name_slug(workspaces[i].name)), std::move(*text));
    written_for.push_back(i);
  }
  auto written = util::write_files_atomic(files);
  for (size_t k = 0; k < written.size(); ++k)
    if (!written[k]) results[written_for[k]] = fail(ErrorCode::io_error, written[k].error());
  return results;
}

Result<void> Registry::remove(const std::string& slug) const {
  std::string path = record_path(slug);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    return fail(ErrorCode::io_error, fmt::format("cannot remove {}", path));
  return {};
}

} // namespace berth
