// compare: a fork's attempts (or any workspaces) side by side; src/core/compare.cpp does the work.
#include "core/compare.hpp"
#include "core/operations/params.hpp"
#include "util/try.hpp"

namespace berth::ops {

Entry compare_entry() {
  Operation op;
  op.name = "compare";
  op.summary = "compare a fork's attempts (TASK) or two or more workspaces side by side";
  Param names = string_param("names", "a fork's task (its attempts), or two or more workspaces");
  names.kind = ParamKind::strings;
  names.positional = true;
  names.required = true;
  Param html = string_param("html", "also write a self-contained review page to FILE");
  html.value_name = "FILE";
  Param test = string_param("test", "run CMD (after --) in every attempt, side by side, and "
                                    "report each one's exit status and time");
  test.kind = ParamKind::strings;
  test.after_dash_dash = true;
  Param timeout = string_param("timeout", "with --test: stop each attempt's CMD after SECONDS");
  timeout.kind = ParamKind::number;
  Param sandbox = sandbox_param("with --test: confine CMD's writes to its attempt; MECHANISM as "
                                "for run (default: config run.sandbox)");
  op.params = {
      names,   string_param("into", "preview the merge into this branch (default: accept's)"),
      html,    test,
      timeout, sandbox};
  // Only --test runs anything (in the attempts, as `run` does); the comparison itself changes
  // nothing.
  op.read_only = false;
  op.idempotent = true;
  op.schema = "compare";
  return {op,
          [](const Project& project, const Params& p,
             const OperationContext& context) -> Result<Outcome> {
            CompareOptions options;
            options.names = p.strings("names");
            options.into = p.optional_string("into");
            options.html = p.optional_string("html");
            options.test = p.strings("test");
            options.test_timeout = p.optional_number("timeout");
            options.sandbox = p.optional_string("sandbox");
            if (options.test.empty() && (options.test_timeout || options.sandbox))
              return fail(ErrorCode::usage, "--timeout and --sandbox go with --test",
                          "add --test -- CMD, or leave them out");
            // Ctrl-C is ours while the tests run (the front end's first call arms its watch):
            // it stops every test command's process group, and compare reports what ran.
            if (!options.test.empty() && context.stop_requested) {
              context.stop_requested();
              options.cancelled = context.stop_requested;
            }
            auto doc = BERTH_TRY(compare_attempts(project, options));
            if (options.cancelled && options.cancelled())
              return Outcome{
                  doc, {"interrupted: stopped the test commands (exit status 130 each)"}, {}, 130};
            return Outcome{doc, {}, {}, 0};
          }};
}

} // namespace berth::ops
