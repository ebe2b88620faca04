/// The JSON forms of berth's results: the `--json` contract of the CLI and the MCP server.
/// Field names are stable; new fields may be added, none renamed or removed.
#pragma once

#include "berth/berth.hpp"

#include <nlohmann/json.hpp>

// Exported from libberth.so, which is built with hidden visibility: the public API only.
#pragma GCC visibility push(default)
namespace berth {

void to_json(nlohmann::json& j, const Error& e);
void to_json(nlohmann::json& j, const Workspace& w);
void to_json(nlohmann::json& j, const WorkspaceStatus& s);
void to_json(nlohmann::json& j, const Snapshot& s);
void to_json(nlohmann::json& j, const SetupReport& r);
void to_json(nlohmann::json& j, const Created& c);
void to_json(nlohmann::json& j, const Discarded& d);
void to_json(nlohmann::json& j, const Restored& r);
void to_json(nlohmann::json& j, const Problem& p);
void to_json(nlohmann::json& j, const DoctorReport& r);

/// {"error": {"code", "message", "hint"[, "git": {...}]}}
nlohmann::json error_document(const Error& e);

/// ISO 8601 UTC ("2026-11-22T13:02:58Z") of unix seconds; "" for 0.
std::string iso_time(int64_t unix_seconds);

} // namespace berth
#pragma GCC visibility pop
