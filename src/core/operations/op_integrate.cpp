#include "berth/claude.hpp"
#include "core/operations/params.hpp"
#include "util/try.hpp"

namespace berth::ops {

// `berth integrate claude [--user|--project|--local] [--remove]`: berth's worktree hooks merged
// into (or taken out of) a Claude Code settings file. --user needs no project, so the table
// opens none; the other scopes find the checkout from where berth was started (-C).
Entry integrate_entry() {
  Operation op;
  op.name = "integrate";
  op.summary = "register berth's worktree hooks with Claude Code (--user, --remove)";
  op.params = {
      agent_param("the agent to integrate with: claude"),
      flag_param("user", "edit ~/.claude/settings.json: every project you open in Claude Code"),
      flag_param("project", "edit .claude/settings.json of this checkout (the default)"),
      flag_param("local", "edit .claude/settings.local.json of this checkout (not committed)"),
      flag_param("remove", "take berth's hooks out again (nothing else)")};
  op.needs_project = false;
  op.idempotent = true;
  op.schema = "integrate";
  Entry entry{op, nullptr};
  entry.alone = [](const Params& p, const OperationContext& context) -> Result<Outcome> {
    if (int(p.flag("user")) + int(p.flag("project")) + int(p.flag("local")) > 1)
      return fail(ErrorCode::usage, "--user, --project and --local do not go together",
                  "name one settings file: berth integrate claude --user (or --project, --local)");
    IntegrateOptions options;
    options.scope = p.flag("user")    ? ClaudeScope::user
                    : p.flag("local") ? ClaudeScope::local
                                      : ClaudeScope::project;
    options.remove = p.flag("remove");
    options.dir = context.origin.dir;
    options.config_flags = context.origin.config_flags;
    auto i = BERTH_TRY(integrate_claude(options));
    return Outcome{i, i.warnings, {}, 0};
  };
  return entry;
}

} // namespace berth::ops
