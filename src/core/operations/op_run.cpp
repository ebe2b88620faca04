// run and shell: shell is run with the user's $SHELL as the command, never ephemeral.
#include "berth/json.hpp"
#include "core/operations/params.hpp"
#include "util/try.hpp"

#include <fmt/format.h>

namespace berth::ops {
namespace {

std::vector<Param> run_params() {
  Param env = string_param("env", "set KEY=VALUE in the command's environment (repeatable)", "e");
  env.kind = ParamKind::strings;
  Param timeout =
      string_param("timeout", "kill the command's whole process group after SECONDS (exit 124)");
  timeout.kind = ParamKind::number;
  Param sandbox = string_param("sandbox", "confine writes to the workspace: --sandbox "
                                          "(landlock), --sandbox=bwrap or --sandbox=best-effort");
  sandbox.implicit_value = "landlock";
  Param net = string_param("net", "network in the sandbox: on or off");
  net.choices = {"on", "off"};
  Param allow_write = string_param(
      "allow_write", "with the sandbox, let the command also write PATH (repeatable; never git's "
                     "dir, hooks or config)");
  allow_write.kind = ParamKind::strings;
  Param allow_read = string_param(
      "allow_read", "with the sandbox, let the command read PATH, which the sandbox hides "
                    "(credentials; repeatable)");
  allow_read.kind = ParamKind::strings;
  return {env, timeout, sandbox, net, allow_write, allow_read};
}

Result<Outcome> run_command(const Project& project, const Params& p,
                            const OperationContext& context, std::vector<std::string> command,
                            bool ephemeral) {
  RunOptions options;
  options.name = p.string("name");
  options.command = std::move(command);
  options.env = p.strings("env");
  options.timeout = p.optional_number("timeout");
  options.sandbox = p.optional_string("sandbox");
  options.network = p.string("net") != "off";
  options.allow_write = p.strings("allow_write");
  options.allow_read = p.strings("allow_read");
  options.ephemeral = ephemeral;
  if (context.prepare_run) context.prepare_run(options);
  auto r = BERTH_TRY(run_in_workspace(project, options));
  Outcome out{r, r.warnings, {}, r.exit_status};
  if (r.timed_out)
    out.warnings.push_back(
        fmt::format("timed out: stopped the command after {}s", options.timeout.value_or(0)));
  if (ephemeral)
    out.notes.push_back(r.kept
                            ? fmt::format("kept workspace {} (it has changes): {}", r.name, r.path)
                            : fmt::format("removed workspace {} (no changes)", r.name));
  return out;
}

} // namespace

Entry run_entry() {
  Operation op;
  op.name = "run";
  op.summary = "run a command in a workspace (-- CMD...); exits with its status";
  Param command = string_param("command", "the command and its arguments, after --");
  command.kind = ParamKind::strings;
  command.required = true;
  command.positional = true;
  op.params = {name_param(), command};
  for (auto& param : run_params())
    op.params.push_back(param);
  op.params.push_back(flag_param(
      "ephemeral", "create NAME first; afterwards remove it if it has no changes, keep it if it "
                   "has"));
  op.schema = "run";
  return {op,
          [](const Project& project, const Params& p,
             const OperationContext& context) -> Result<Outcome> {
            // An empty command is not "the user's shell" (that is `shell`): an MCP client or an
            // embedder can send one; nothing would run.
            if (p.strings("command").empty())
              return fail(ErrorCode::usage, "run needs a command: its argv is empty",
                          "give the command and its arguments, e.g. [\"make\", \"test\"]");
            return run_command(project, p, context, p.strings("command"), p.flag("ephemeral"));
          }};
}

Entry shell_entry() {
  Operation op;
  op.name = "shell";
  op.summary = "your $SHELL inside a workspace";
  op.params = {name_param()};
  for (auto& param : run_params())
    op.params.push_back(param);
  op.schema = "run";
  return {op, [](const Project& project, const Params& p, const OperationContext& context) {
            return run_command(project, p, context, {}, false);
          }};
}

} // namespace berth::ops
