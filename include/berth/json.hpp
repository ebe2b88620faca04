/// The JSON forms of berth's results: the `--json` contract of the CLI and the MCP server.
/// Field names are stable; new fields may be added, none renamed or removed. Every document a
/// front end prints is built here, so that every front end prints the same one; docs/json.md
/// describes them and docs/schema/ holds their JSON Schemas.
#pragma once

#include "berth/berth.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

// Exported from libberth.so, which is built with hidden visibility: the public API only.
#pragma GCC visibility push(default)
namespace berth {

// ---- one result, one object (nlohmann's ADL hooks: `nlohmann::json j = result;`) -------------

void to_json(nlohmann::json& j, const Error& e);
void to_json(nlohmann::json& j, const Workspace& w);
void to_json(nlohmann::json& j, const WorkspaceStatus& s);
void to_json(nlohmann::json& j, const Snapshot& s);
void to_json(nlohmann::json& j, const SetupReport& r);
/// One set-up progress event: a line of `new --json`'s NDJSON on standard error.
void to_json(nlohmann::json& j, const SetupEvent& e);
void to_json(nlohmann::json& j, const Created& c);
void to_json(nlohmann::json& j, const Discarded& d);
void to_json(nlohmann::json& j, const Restored& r);
void to_json(nlohmann::json& j, const FileChange& f);
void to_json(nlohmann::json& j, const NestedWork& n);
/// `patch` is there only for DiffFormat::patch.
void to_json(nlohmann::json& j, const Diff& d);
void to_json(nlohmann::json& j, const Committed& c);
void to_json(nlohmann::json& j, const Accepted& a);
void to_json(nlohmann::json& j, const Synced& s);
void to_json(nlohmann::json& j, const RunResult& r);
void to_json(nlohmann::json& j, const PoolSlot& s);
void to_json(nlohmann::json& j, const PoolStatus& s);
/// `pid`, `roots`, `watches` and `blind` only while it runs.
void to_json(nlohmann::json& j, const WatchStatus& s);
/// `trust`'s document (`revoked` belongs to revoke_document only).
void to_json(nlohmann::json& j, const TrustStatus& s);
void to_json(nlohmann::json& j, const Problem& p);
void to_json(nlohmann::json& j, const DoctorReport& r);
/// One member per known key: {"value", "source", "where"}.
void to_json(nlohmann::json& j, const Config& c);

// ---- documents that are more than one result ------------------------------------------------

/// {"error": {"code", "message", "hint"[, "paths"][, "git": {...}]}}
nlohmann::json error_document(const Error& e);
/// `list`: an array of WorkspaceStatus; with `overlaps` (list --overlaps) each element gains
/// "overlaps", the other workspaces it shares changed files with.
nlohmann::json list_document(const std::vector<WorkspaceStatus>& workspaces,
                             const std::vector<Overlap>* overlaps = nullptr);
/// `path`: {"name", "path"}.
nlohmann::json path_document(const Workspace& w);
/// `watch`: the WatchStatus, plus "stopped" after `watch stop`.
nlohmann::json watch_document(const WatchStatus& s, std::optional<bool> stopped);
/// `trust --revoke`: the TrustStatus plus "revoked".
nlohmann::json revoke_document(const TrustStatus& s);
/// `trust --list`: {"trusted": [{"project", "hash"}]} from list_trust().
nlohmann::json trust_list_document(const std::vector<std::pair<std::string, std::string>>& trusted);
/// `--version`: {"version"}.
nlohmann::json version_document();

/// ISO 8601 UTC ("2026-11-22T13:02:58Z") of unix seconds; "" for 0.
std::string iso_time(int64_t unix_seconds);

} // namespace berth
#pragma GCC visibility pop
