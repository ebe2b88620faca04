/// Claude Code integration: berth as Claude Code's worktree provider (its `WorktreeCreate` and
/// `WorktreeRemove` hooks) and `berth integrate claude`, which registers those hooks in a Claude
/// Code settings file. docs/integrations.md describes both.
#pragma once

#include "berth/berth.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#pragma GCC visibility push(default)
namespace berth {

/// What a hook gets besides its JSON input (which the front end reads from stdin).
struct ClaudeHookOptions {
  /// $CLAUDE_PROJECT_DIR: where Claude Code was started. Anchors worktree-create; when empty, the
  /// input's `cwd` does. (worktree-remove works in the repository its worktree_path belongs to.)
  std::string project_dir;
  std::vector<std::string> config_flags; ///< "key=value" from `-c`
  std::string helper_path;               ///< see ProjectOptions::helper_path
  SetupListener on_setup;                ///< set-up progress of a new workspace (optional)
};

/// What `berth hook claude worktree-create|worktree-remove` did (docs/schema/hook.json).
struct ClaudeWorktree {
  std::string event;     ///< "WorktreeCreate" or "WorktreeRemove"
  std::string outcome;   ///< create: "created", "reused"; remove: "discarded", "gone", "not_berth"
  std::string requested; ///< create: the name Claude Code asked for
  std::string name;      ///< the berth workspace ("" when remove found none)
  std::string path;      ///< create: its real path; remove: the worktree_path Claude sent
  std::string owner;     ///< create: "claude:<session_id>" for a new workspace
  std::optional<Workspace> workspace; ///< create: the workspace handed to Claude Code
  std::optional<SetupReport> setup;   ///< create: its set-up, when it was made now
  std::optional<Discarded> discarded; ///< remove: the discard (with its snapshot)
  std::vector<std::string> warnings;
};

/// The berth workspace name for a name Claude Code sends: the name itself when berth accepts it,
/// otherwise a deterministic valid one (characters outside [A-Za-z0-9._/-] become '-', parts
/// trimmed of leading '.'/'-' and trailing '.', ".." and ".lock" broken up, a reserved first part
/// prefixed with "claude-", cut to fit) followed by '-' and 8 hex digits of a hash of the original,
/// so that two different names never share a workspace. Never fails.
std::string claude_workspace_name(std::string_view requested);

/// WorktreeCreate: parse `input` (Claude Code's hook JSON), then create the workspace (from the
/// warm pool, with berth's set-up, .worktreeinclude included) or reuse the live one of that name.
/// Errors: invalid_hook_input for malformed JSON or a missing field (nothing created).
Result<ClaudeWorktree> claude_worktree_create(std::string_view input,
                                              const ClaudeHookOptions& options);

/// WorktreeRemove: a recoverable discard (snapshot to the trash first) of the berth workspace at
/// the input's `worktree_path`; outcome "gone" when there is nothing at that path and "not_berth"
/// when it is not a berth workspace (both leave everything as it is).
Result<ClaudeWorktree> claude_worktree_remove(std::string_view input,
                                              const ClaudeHookOptions& options);

/// Which Claude Code settings file `berth integrate claude` edits.
enum class ClaudeScope {
  user,    ///< ~/.claude/settings.json ($CLAUDE_CONFIG_DIR/settings.json when that is set)
  project, ///< <checkout>/.claude/settings.json (shared with the team when committed)
  local,   ///< <checkout>/.claude/settings.local.json (yours, not committed)
};
std::string_view scope_name(ClaudeScope scope);

struct IntegrateOptions {
  ClaudeScope scope = ClaudeScope::project;
  bool remove = false; ///< take berth's hooks out instead
  std::string dir;     ///< like `-C` (project and local scopes)
  std::vector<std::string> config_flags;
};

/// What `berth integrate claude` did (docs/schema/integrate.json).
struct Integrated {
  std::string agent = "claude";
  std::string scope;
  std::string settings; ///< the settings file
  std::string action;   ///< "added", "removed" or "unchanged"
  bool changed = false;
  std::string backup; ///< where the file's previous content was kept ("" when not written)
  /// WorktreeCreate hooks that are not berth's (in this file and Claude Code's other settings
  /// files): each runs beside berth's and makes a worktree Claude Code never uses.
  std::vector<std::string> other_hooks;
  std::vector<std::string> warnings;
};

/// Merge berth's WorktreeCreate/WorktreeRemove hooks into (or, with `remove`, take exactly them out
/// of) a Claude Code settings file, keeping every other setting; the previous content is kept in
/// <file>.berth-backup and the file is replaced atomically. A second identical call changes
/// nothing. A settings file that is not a JSON object: settings_invalid, the file untouched.
Result<Integrated> integrate_claude(const IntegrateOptions& options);

/// The hooks object berth merges (the plugin's hooks/hooks.json carries the same).
nlohmann::json claude_hooks();

void to_json(nlohmann::json& j, const ClaudeWorktree& w);
void to_json(nlohmann::json& j, const Integrated& i);

} // namespace berth
#pragma GCC visibility pop
