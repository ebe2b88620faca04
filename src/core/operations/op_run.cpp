// run and shell: shell is run with the user's $SHELL as the command, never ephemeral.
#include "berth/json.hpp"
#include "core/operations/params.hpp"
#include "util/try.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <memory>
#include <mutex>
#include <string_view>

namespace berth::ops {
namespace {

// --capture (and the MCP server's workspace_run): what one answer may carry of each stream. A
// build's failure is at its end and its command line at its start, so both are kept.
constexpr std::size_t kCaptureCap = std::size_t{32} * 1024; ///< per stream

// Keeps the start and the end of one stream, counts all of it.
struct Capped {
  std::string head, tail;
  std::size_t total = 0;
  void add(std::string_view chunk) {
    total += chunk.size();
    std::size_t half = kCaptureCap / 2;
    if (head.size() < half) {
      std::size_t take = std::min(half - head.size(), chunk.size());
      head.append(chunk.substr(0, take));
      chunk.remove_prefix(take);
    }
    tail.append(chunk);
    if (tail.size() > 2 * half) tail.erase(0, tail.size() - half);
  }
  bool truncated() const { return total > kCaptureCap; }
  std::string text() const {
    if (!truncated()) return head + tail;
    std::string end = tail.substr(tail.size() - std::min(tail.size(), kCaptureCap / 2));
    return head +
           fmt::format("\n[... berth: {} bytes left out ...]\n", total - head.size() - end.size()) +
           end;
  }
};

// Both streams of a captured run; chunks arrive from the running thread while a front end's
// own sink (the MCP server's progress) may read alongside.
struct CapturedOutput {
  std::mutex mutex;
  Capped out, err;
  nlohmann::json document() {
    std::lock_guard lock(mutex);
    return {{"stdout", out.text()},
            {"stderr", err.text()},
            {"stdout_bytes", out.total},
            {"stderr_bytes", err.total},
            {"truncated", out.truncated() || err.truncated()}};
  }
};

std::vector<Param> run_params() {
  Param timeout =
      string_param("timeout", "kill the command's whole process group after SECONDS (exit 124)");
  timeout.kind = ParamKind::number;
  Param sandbox = sandbox_param("confine writes to the workspace; MECHANISM is landlock (what a "
                                "bare --sandbox means), bwrap, best-effort, or off (not confined, "
                                "overriding run.sandbox)");
  Param capture = flag_param(
      "capture", "return the command's stdout and stderr in the result (each capped at 32 KiB: "
                 "start and end kept, `truncated`); stdin is empty");
  Param result_file = string_param(
      "result_file", "write the JSON result to FILE (atomically) instead of stdout; the "
                     "command's output passes through untouched");
  Param allow_write = string_param(
      "allow_write", "with the sandbox, let the command also write PATH (repeatable; never git's "
                     "dir, hooks or config)");
  allow_write.kind = ParamKind::strings;
  Param allow_read = string_param(
      "allow_read", "with the sandbox, let the command read PATH, which the sandbox hides "
                    "(credentials; repeatable)");
  allow_read.kind = ParamKind::strings;
  return {env_param(), timeout,    sandbox, net_param(),
          allow_write, allow_read, capture, result_file};
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
  options.on_setup = context.on_setup;
  if (context.prepare_run) context.prepare_run(options);
  // --capture: the library keeps the output (the front end's own sink, if any, still sees each
  // chunk: the MCP server's progress).
  std::shared_ptr<CapturedOutput> captured;
  if (p.flag("capture")) {
    captured = std::make_shared<CapturedOutput>();
    options.on_output = [captured, outer = std::move(options.on_output)](std::string_view chunk,
                                                                         int stream) {
      {
        std::lock_guard lock(captured->mutex);
        (stream == 2 ? captured->err : captured->out).add(chunk);
      }
      if (outer) outer(chunk, stream);
    };
  }
  auto r = BERTH_TRY(run_in_workspace(project, options));
  Outcome out{r, r.warnings, {}, r.exit_status};
  if (captured) out.document["output"] = captured->document();
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
