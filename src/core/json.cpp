#include "berth/json.hpp"

#include <ctime>
#include <variant>

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
        w.setup_error.empty() ? nlohmann::json(nullptr) : nlohmann::json(w.setup_error)},
       {"setup_state", std::string(setup_state_name(w))}};
  // Only on attempts of a fork: other workspaces' documents are as before.
  if (!w.fork.empty()) {
    j["fork"] = w.fork;
    j["attempt"] = w.attempt;
  }
}

void to_json(nlohmann::json& j, const WorkspaceStatus& s) {
  j = s.workspace;
  j["state"] = s.state;
  j["head"] = s.head;
  j["head_branch"] = s.head_branch;
  j["ahead"] = s.ahead;
  j["behind"] = s.behind;
  j["dirty"] = s.dirty;
  // Unknown counts are null, so that no script reads "0 changes" as "clean".
  j["changes"] = s.counted ? nlohmann::json{{"staged", s.staged},
                                            {"modified", s.modified},
                                            {"untracked", s.untracked},
                                            {"conflicted", s.conflicted}}
                           : nlohmann::json(nullptr);
  j["last_used"] = iso_time(s.last_used);
  j["lock_reason"] = s.lock_reason;
  j["invalid"] =
      s.workspace.invalid.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.workspace.invalid);
  j["problem"] = s.problem;
  // What `berth sync` last brought in: its commits are not counted in `ahead`.
  j["synced"] =
      s.workspace.synced.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.workspace.synced);
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
  j["setup_files"] = s.ignored_files < 0 || s.setup_files < 0 ? nlohmann::json(nullptr)
                                                              : nlohmann::json(s.setup_files);
  j["setup_bytes"] = s.ignored_files < 0 || s.setup_bytes < 0 ? nlohmann::json(nullptr)
                                                              : nlohmann::json(s.setup_bytes);
  j["head_ref"] = s.head_ref.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.head_ref);
  j["nested"] = s.nested.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.nested);
  j["state"] = s.state;
  j["problem"] = s.problem.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.problem);
  j["missing"] = s.missing;
  // NAME@TIME, as `restore` and `trash drop` take it (TIME: the ref's last part); a salvaged copy
  // is named by its ref.
  const std::string_view trash = "refs/berth/trash/";
  j["spec"] = s.ref.rfind(trash, 0) == 0 && s.ref.rfind('/') >= trash.size()
                  ? nlohmann::json(s.name + "@" + s.ref.substr(s.ref.rfind('/') + 1))
                  : nlohmann::json(nullptr);
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
  // The workspace's fields at the top (as before), and as `workspace`: the same object restore
  // and discard return it in.
  j = c.workspace;
  j["workspace"] = c.workspace;
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
       {"setup_files", d.ignored_counted ? nlohmann::json(d.setup_files) : nlohmann::json(nullptr)},
       {"setup_bytes", d.ignored_counted ? nlohmann::json(d.setup_bytes) : nlohmann::json(nullptr)},
       {"warnings", d.warnings}};
}

void to_json(nlohmann::json& j, const Restored& r) {
  j = {{"workspace", r.workspace}, {"snapshot", r.from}, {"warnings", r.warnings}};
}

void to_json(nlohmann::json& j, const SetupEvent& e) {
  using Kind = SetupEvent::Kind;
  const char* event = "warning";
  switch (e.kind) {
  case Kind::copied:
    event = "copied";
    break;
  case Kind::linked:
    event = "linked";
    break;
  case Kind::progress:
    event = "progress";
    break;
  case Kind::command_started:
    event = "command_started";
    break;
  case Kind::output:
    event = "output";
    break;
  case Kind::command_finished:
    event = "command_finished";
    break;
  case Kind::skipped:
    event = "skipped";
    break;
  case Kind::warning:
    event = "warning";
    break;
  }
  // The fields that mean something for this kind only: a byte count where bytes moved, an exit
  // status where a command ran (a 0 elsewhere would read as "a command succeeded").
  j = {{"type", event}, {"subject", e.subject}, {"detail", e.detail}};
  if (e.kind == Kind::copied || e.kind == Kind::progress) j["bytes"] = e.bytes;
  if (e.kind == Kind::command_finished) j["exit_status"] = e.exit_status;
  if (e.kind == Kind::copied) j["files"] = e.files;
  if (!e.workspace.empty()) j["workspace"] = e.workspace;
}

void to_json(nlohmann::json& j, const FileChange& f) {
  j = {{"path", f.path},
       {"old_path", f.old_path.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.old_path)},
       {"status", std::string(1, f.status)},
       {"old_mode", f.old_mode},
       {"new_mode", f.new_mode},
       {"additions", f.additions},
       {"deletions", f.deletions},
       {"binary", f.binary}};
}

void to_json(nlohmann::json& j, const NestedWork& n) {
  j = {{"path", n.path},
       {"kind", n.submodule ? "submodule" : "repository"},
       {"new_commit", n.new_commit},
       {"modified", n.modified},
       {"untracked", n.untracked}};
}

void to_json(nlohmann::json& j, const Diff& d) {
  j = {{"name", d.name},
       {"from", d.from},
       {"tree", d.to_tree},
       {"files", d.files},
       {"nested", d.nested}};
  // --stat and --name-only never compute a patch: no "patch" rather than an empty one.
  if (d.format == DiffFormat::patch) j["patch"] = d.patch;
}

void to_json(nlohmann::json& j, const Committed& c) {
  j = {{"name", c.name},
       {"commit", c.commit.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.commit)},
       {"files", c.files}};
}

void to_json(nlohmann::json& j, const Accepted& a) {
  j = {{"name", a.name},
       {"strategy", strategy_name(a.strategy)},
       {"target", a.target},
       {"target_worktree", a.target_worktree},
       {"old_commit", a.old_commit},
       {"new_commit", a.new_commit},
       {"files", a.files},
       {"dry_run", a.dry_run},
       {"empty", a.empty},
       {"discarded", a.discarded ? nlohmann::json(*a.discarded) : nlohmann::json(nullptr)},
       {"warnings", a.warnings},
       {"conflicts", a.conflicts},
       {"onto", a.onto},
       {"head", a.head},
       {"hint", a.hint}};
}

void to_json(nlohmann::json& j, const Synced& s) {
  j = {{"name", s.name},
       {"onto", s.onto},
       {"old_head", s.old_head},
       {"new_head", s.new_head},
       {"up_to_date", s.up_to_date},
       {"conflicts", s.conflicts},
       {"aborted", s.aborted},
       {"hint", s.hint}};
}

void to_json(nlohmann::json& j, const RunResult& r) {
  j = {{"name", r.name},
       {"path", r.path},
       {"cwd", r.cwd},
       {"exit_status", r.exit_status},
       {"timed_out", r.timed_out},
       {"cancelled", r.cancelled},
       {"sandbox", r.sandbox_layers},
       {"commits", r.commits},
       {"kept", r.kept},
       {"warnings", r.warnings}};
}

void to_json(nlohmann::json& j, const PoolSlot& s) {
  j = {{"id", s.id},
       {"path", s.path},
       {"commit", s.commit},
       {"state", s.state},
       {"created", iso_time(s.created)}};
}

void to_json(nlohmann::json& j, const PoolStatus& s) {
  nlohmann::json slots = nlohmann::json::array();
  int ready = 0;
  for (const auto& slot : s.slots) {
    slots.push_back(slot);
    if (slot.state == "ready") ++ready;
  }
  j = {{"dir", s.dir}, {"size", s.size}, {"ready", ready}, {"slots", slots}, {"trash", s.trash}};
}

void to_json(nlohmann::json& j, const WatchStatus& s) {
  j = {{"running", s.running}, {"address", s.address}};
  // What it follows means nothing when it does not run.
  if (s.running) {
    j["pid"] = s.pid;
    j["roots"] = s.roots;
    j["watches"] = s.watches;
    j["blind"] = s.blind;
  }
}

void to_json(nlohmann::json& j, const TrustStatus& s) {
  j = {{"commands", s.commands},
       {"source", s.source},
       {"hash", s.hash},
       {"trusted", s.trusted},
       {"store", s.store}};
}

void to_json(nlohmann::json& j, const Config& c) {
  j = nlohmann::json::object();
  for (const auto& key : config_keys()) {
    const auto& entry = c.entry(key.name);
    nlohmann::json value;
    std::visit([&](const auto& v) { value = v; }, entry.value);
    j[key.name] = {{"value", value},
                   {"source", layer_name(entry.source.layer)},
                   {"where", entry.source.where}};
  }
}

nlohmann::json list_document(const std::vector<WorkspaceStatus>& workspaces,
                             const std::vector<Overlap>* overlaps) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& s : workspaces) {
    nlohmann::json item = s;
    if (overlaps) {
      // Each workspace lists the others it overlaps with, from its own side ("with").
      const std::string& self = s.workspace.name;
      nlohmann::json mine = nlohmann::json::array();
      for (const auto& o : *overlaps) {
        if (o.a != self && o.b != self) continue;
        mine.push_back({{"with", o.a == self ? o.b : o.a},
                        {"paths", o.paths},
                        {"conflicts", o.conflicts},
                        {"conflict_paths", o.conflict_paths}});
      }
      item["overlaps"] = mine;
    }
    list.push_back(std::move(item));
  }
  return list;
}

nlohmann::json path_document(const Workspace& w) {
  return {{"name", w.name}, {"path", w.path}};
}

nlohmann::json watch_document(const WatchStatus& s, std::optional<bool> stopped) {
  nlohmann::json j = s;
  if (stopped) j["stopped"] = *stopped;
  return j;
}

nlohmann::json revoke_document(const TrustStatus& s) {
  nlohmann::json j = s;
  j["revoked"] = s.revoked;
  return j;
}

nlohmann::json
trust_list_document(const std::vector<std::pair<std::string, std::string>>& trusted) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [dir, hash] : trusted)
    list.push_back({{"project", dir}, {"hash", hash}});
  return {{"trusted", list}};
}

nlohmann::json version_document() {
  return {{"version", version()}};
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
