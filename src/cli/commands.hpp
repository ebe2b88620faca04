// The CLI's side of the operation table (include/berth/operations.hpp): one text renderer per
// command (src/cli/commands/<name>.cpp) turning the operation's JSON document into what a person
// reads. The document is the whole result, so text and --json never disagree; the renderers
// only choose the words and the layout.
#pragma once

#include "berth/berth.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace cli {

/// What a renderer may look at besides the document.
struct RenderContext {
  const nlohmann::json& params; ///< the parameters the operation ran with
  bool quiet = false;           ///< --quiet: only what the command produces
  const berth::Project* project = nullptr;
};

using Renderer = std::string (*)(const nlohmann::json& document, const RenderContext& context);

/// The text renderer of the operation called `name`, or nullptr (its document is printed as
/// JSON then, so a new operation works before it has words of its own).
Renderer find_renderer(std::string_view name);
/// Whether the text of the operation called `name` goes through a pager on a terminal (diff).
bool pages_output(std::string_view name);

// One per command, in src/cli/commands/<name>.cpp.
std::string render_new(const nlohmann::json& document, const RenderContext& context);
std::string render_setup(const nlohmann::json& document, const RenderContext& context);
std::string render_list(const nlohmann::json& document, const RenderContext& context);
std::string render_path(const nlohmann::json& document, const RenderContext& context);
std::string render_status(const nlohmann::json& document, const RenderContext& context);
std::string render_run(const nlohmann::json& document, const RenderContext& context);
std::string render_diff(const nlohmann::json& document, const RenderContext& context);
std::string render_compare(const nlohmann::json& document, const RenderContext& context);
std::string render_commit(const nlohmann::json& document, const RenderContext& context);
std::string render_accept(const nlohmann::json& document, const RenderContext& context);
std::string render_sync(const nlohmann::json& document, const RenderContext& context);
std::string render_discard(const nlohmann::json& document, const RenderContext& context);
std::string render_fork(const nlohmann::json& document, const RenderContext& context);
std::string render_pick(const nlohmann::json& document, const RenderContext& context);
std::string render_restore(const nlohmann::json& document, const RenderContext& context);
std::string render_pool(const nlohmann::json& document, const RenderContext& context);
std::string render_watch(const nlohmann::json& document, const RenderContext& context);
std::string render_doctor(const nlohmann::json& document, const RenderContext& context);
std::string render_config(const nlohmann::json& document, const RenderContext& context);
std::string render_trust(const nlohmann::json& document, const RenderContext& context);
std::string render_hook(const nlohmann::json& document, const RenderContext& context);
std::string render_integrate(const nlohmann::json& document, const RenderContext& context);
std::string render_gc(const nlohmann::json& document, const RenderContext& context);
std::string render_trash(const nlohmann::json& document, const RenderContext& context);
std::string render_forget(const nlohmann::json& document, const RenderContext& context);
/// restore --list and `trash list`: a table of Snapshot documents.
/// `filter`: the name the list was asked for ("" for the whole trash).
std::string snapshots_text(const nlohmann::json& snaps, const RenderContext& context,
                           const std::string& filter);

// Shared by the renderers.
/// A workspace state, coloured: green ready, red gone or invalid, yellow otherwise.
std::string state_cell(const std::string& state);
/// `diff --stat`'s table of FileChange documents and its summary line (accept --dry-run too).
std::string stat_text(const nlohmann::json& files);
/// A string member of a document ("" when absent or null).
std::string str(const nlohmann::json& object, const char* key);

/// Set-up progress of `new` on stderr (stdout is the path alone): text, or NDJSON with --json.
berth::SetupListener setup_printer(bool json, bool quiet);

/// `berth watch hook VERSION TOKEN` (git's fsmonitor hook) and `berth watch serve DIR` (the
/// watcher): internal entry points that bypass the parser and the project lookup.
int watch_hook_main(int argc, char** argv);
int watch_serve_main(int argc, char** argv);

} // namespace cli
