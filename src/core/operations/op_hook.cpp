#include "berth/claude.hpp"
#include "core/operations/params.hpp"
#include "util/try.hpp"

#include <fmt/format.h>

namespace berth::ops {

// `berth hook claude worktree-create|worktree-remove`: Claude Code's worktree provider
// (docs/integrations.md). It anchors itself at the directory Claude Code names, so the table
// opens no project for it; its input is the hook's JSON, which the front end reads from stdin.
Entry hook_entry() {
  Operation op;
  op.name = "hook";
  op.summary = "Claude Code's worktree provider: hook claude worktree-create|worktree-remove";
  Param agent = agent_param("the agent whose hook runs: claude");
  Param event = positional_param("event", "worktree-create or worktree-remove",
                                 {"worktree-create", "worktree-remove"});
  Param input = string_param("input", "the hook's JSON input (read from stdin)");
  input.internal = true;
  input.from_stdin = true;
  Param project_dir =
      string_param("project_dir", "where Claude Code was started ($CLAUDE_PROJECT_DIR)");
  project_dir.internal = true;
  project_dir.from_env = "CLAUDE_PROJECT_DIR";
  op.params = {agent, event, input, project_dir};
  op.needs_project = false;
  op.destructive = true; // worktree-remove discards (always with its snapshot)
  op.schema = "hook";
  Entry entry{op, nullptr};
  entry.alone = [](const Params& p, const OperationContext& context) -> Result<Outcome> {
    ClaudeHookOptions options;
    options.project_dir = p.string("project_dir");
    // -C names the project outright.
    if (!context.origin.dir.empty()) options.project_dir = context.origin.dir;
    options.config_flags = context.origin.config_flags;
    options.helper_path = context.origin.helper_path;
    options.on_setup = context.on_setup;
    bool create = p.string("event") == "worktree-create";
    std::string json = p.string("input");
    auto w = BERTH_TRY(create ? claude_worktree_create(json, options)
                              : claude_worktree_remove(json, options));
    Outcome out{w, w.warnings, {}, 0};
    if (create)
      out.notes.push_back(
          w.outcome == "reused"
              ? fmt::format("reusing workspace '{}' for Claude Code: {}", w.name, w.path)
              : fmt::format("created workspace '{}' for Claude Code{}: {}", w.name,
                            w.name == w.requested ? ""
                                                  : fmt::format(" (asked for '{}')", w.requested),
                            w.path));
    else if (w.outcome == "gone")
      out.notes.push_back(fmt::format("nothing at {}: nothing to remove", w.path));
    else if (w.outcome == "not_berth")
      out.notes.push_back(fmt::format("{} is not a berth workspace: left as it is", w.path));
    else
      out.notes.push_back(
          fmt::format("discarded workspace '{}'{}", w.name,
                      w.discarded && w.discarded->snapshot
                          ? fmt::format(" (saved as {}; `berth restore {}` brings it back)",
                                        w.discarded->snapshot->ref, w.name)
                          : std::string()));
    return out;
  };
  return entry;
}

} // namespace berth::ops
