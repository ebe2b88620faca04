#include "berth/json.hpp"

#include <ctime>

namespace berth {

std::string iso_time(int64_t unix_seconds) {
  if (unix_seconds <= 0) return {};
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void to_json(nlohmann::json& j, const Error& e) {
  j = {{"code", std::string(code_name(e.code))}, {"message", e.message}, {"hint", e.hint}};
  if (!e.paths.empty()) j["paths"] = e.paths;
  if (e.git)
    j["git"] = {{"argv", e.git->argv},
                {"status", e.git->status},
                {"stdout", e.git->out},
                {"stderr", e.git->err}};
}

nlohmann::json error_document(const Error& e) {
  return {{"error", e}};
}

void to_json(nlohmann::json& j, const Workspace& w) {
  j = {{"name", w.name},
       {"branch", w.branch},
       {"base", w.base},
       {"path", w.path},
       {"root", w.root},
       {"owner", w.owner},
       {"created", iso_time(w.created)},
       {"last_used", iso_time(w.last_used)},
       {"state", std::string(state_name(w.state))},
       {"port", w.port == 0 ? nlohmann::json(nullptr) : nlohmann::json(w.port)},
       {"setup_error",
        w.setup_error.empty() ? nlohmann::json(nullptr) : nlohmann::json(w.setup_error)}};
}

void to_json(nlohmann::json& j, const WorkspaceStatus& s) {
  j = s.workspace;
  j["state"] = s.state;
  j["head"] = s.head;
  j["head_branch"] = s.head_branch;
  j["ahead"] = s.ahead;
  j["behind"] = s.behind;
  j["dirty"] = s.dirty;
  j["changes"] = {{"staged", s.staged},
                  {"modified", s.modified},
                  {"untracked", s.untracked},
                  {"conflicted", s.conflicted}};
  j["last_used"] = iso_time(s.last_used);
  j["lock_reason"] = s.lock_reason;
  j["invalid"] =
      s.workspace.invalid.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.workspace.invalid);
  j["problem"] = s.problem;
}

void to_json(nlohmann::json& j, const Snapshot& s) {
  j = {
      {"name", s.name},          {"ref", s.ref},   {"commit", s.commit},         {"head", s.head},
      {"branch", s.branch},      {"base", s.base}, {"branch_tip", s.branch_tip}, {"owner", s.owner},
      {"time", iso_time(s.time)}};
  j["ignored_files"] =
      s.ignored_files < 0 ? nlohmann::json(nullptr) : nlohmann::json(s.ignored_files);
  j["ignored_bytes"] =
      s.ignored_bytes < 0 ? nlohmann::json(nullptr) : nlohmann::json(s.ignored_bytes);
  j["head_ref"] = s.head_ref.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.head_ref);
  j["nested"] = s.nested.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.nested);
  j["state"] = s.state;
  j["problem"] = s.problem.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.problem);
  j["missing"] = s.missing;
}

void to_json(nlohmann::json& j, const SetupReport& r) {
  nlohmann::json copies = nlohmann::json::array(), commands = nlohmann::json::array();
  for (const auto& c : r.copies)
    copies.push_back({{"path", c.path},
                      {"kind", c.kind},
                      {"method", c.method},
                      {"files", c.files},
                      {"bytes", c.bytes}});
  for (const auto& c : r.commands)
    commands.push_back({{"command", c.command},
                        {"trusted", c.trusted},
                        {"ran", c.ran},
                        {"exit_status", c.exit_status},
                        {"output", c.output}});
  j = {{"copies", copies},
       {"commands", commands},
       {"submodules", r.submodules},
       {"warnings", r.warnings},
       {"failed", r.failed}};
}

void to_json(nlohmann::json& j, const Created& c) {
  j = c.workspace;
  j["setup"] = c.setup;
  j["warnings"] = c.warnings;
}

void to_json(nlohmann::json& j, const Discarded& d) {
  j = {{"workspace", d.workspace},
       {"snapshot", d.snapshot ? nlohmann::json(*d.snapshot) : nlohmann::json(nullptr)},
       {"unsaved_work", d.unsaved_work},
       {"ignored_files",
        d.ignored_counted ? nlohmann::json(d.ignored_files) : nlohmann::json(nullptr)},
       {"ignored_bytes",
        d.ignored_counted ? nlohmann::json(d.ignored_bytes) : nlohmann::json(nullptr)},
       {"warnings", d.warnings}};
}

void to_json(nlohmann::json& j, const Restored& r) {
  j = {{"workspace", r.workspace}, {"snapshot", r.from}, {"warnings", r.warnings}};
}

void to_json(nlohmann::json& j, const Problem& p) {
  auto or_null = [](const std::string& s) {
    return s.empty() ? nlohmann::json() : nlohmann::json(s);
  };
  j = {{"code", p.code},
       {"name", or_null(p.name)},
       {"path", or_null(p.path)},
       {"message", p.message},
       {"repair", or_null(p.repair)}};
}

void to_json(nlohmann::json& j, const DoctorReport& r) {
  j = {{"problems", r.problems}, {"repaired", r.repaired}, {"pending", r.pending}};
}

} // namespace berth
