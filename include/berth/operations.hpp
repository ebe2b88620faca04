// The operation table: every berth command is one entry (name, summary, parameters, needs,
// handler). Front ends do not re-implement commands: the CLI builds its parser from the entries
// and renders each outcome as text or JSON; the MCP server lists the same entries as tools and
// returns the same documents. Adding a command = one core file + one entry (+ docs).
//
// Parameters travel as one JSON object keyed by parameter name (`{"name": "x", "force": true}`),
// the form an MCP client sends; the CLI fills that object from argv.
#pragma once

#include "berth/berth.hpp"
#include "berth/error.hpp"

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#pragma GCC visibility push(default)

namespace berth {

/// What kind of value a parameter takes (its JSON type).
enum class ParamKind {
  flag,    ///< boolean, false when absent
  string,  ///< one string
  integer, ///< one integer
  number,  ///< one number (seconds, say)
  strings, ///< an array of strings (a command's argv, repeatable KEY=VALUE)
};

struct Param {
  std::string name; ///< JSON key and `--long` option ("dry_run" is `--dry-run`)
  ParamKind kind = ParamKind::string;
  std::string help; ///< one line, for `--help`, the man page and the MCP input schema
  bool required = false;
  bool positional = false;          ///< given without `--name` on the command line
  std::string short_name;           ///< one letter for `-x`, or empty
  std::vector<std::string> choices; ///< allowed values (string kind), or empty for any
  bool internal = false; ///< not shown in help nor offered to agents (berth's own plumbing)
  /// A string option that may be given bare on the command line, meaning this value:
  /// `--sandbox` is `--sandbox=landlock`. It takes its value only as `--name=VALUE`, so that it
  /// never swallows the next word. Empty: an ordinary option.
  std::string implicit_value;
  /// The placeholder for its value in help (`--sandbox[=MECHANISM]`); empty: one by its kind.
  std::string value_name;
  /// Filled by the front end from outside the command line, never given on it: the whole of
  /// stdin (a hook's JSON input), or an environment variable when it is set.
  bool from_stdin = false;
  std::string from_env;
  /// A strings parameter given on the command line as a bare `--NAME` followed, after `--`, by
  /// its words (`compare a b --test -- make check`): a command that follows other positional
  /// words. The words after `--` are its value.
  bool after_dash_dash = false;
};

/// A second document kind an operation yields when one of its flags is set: `restore` with
/// `list` prints a restore-list document.
struct SchemaVariant {
  std::string flag;   ///< the flag parameter that selects it
  std::string schema; ///< docs/schema/<schema>.json
};

/// What a front end lends an operation while it runs.
struct OperationContext {
  SetupListener on_setup; ///< set-up progress of `new`/`restore` (optional)
  /// Called with a run's options just before it starts: the CLI hands it signals and the
  /// terminal; the MCP server captures its output and wires cancellation.
  std::function<void(RunOptions&)> prepare_run;
  /// Where the front end was started (-C) and its `-c` overrides: an operation that finds its
  /// own project (needs_project = false) starts from here.
  ProjectOptions origin;
  /// Polled while an operation's commands run (fork's attempts): true once the user asked to
  /// stop (Ctrl-C, SIGTERM; a cancelled MCP call). The first call may arm the front end's
  /// signal watch. Optional.
  std::function<bool()> stop_requested;
  /// Progress of an operation that runs several things ("attempt_started" / "attempt_finished"
  /// with the attempt's fields: docs/schema/event.json). Optional.
  std::function<void(std::string_view type, const nlohmann::json& fields)> on_event;
  /// The output of the user's hooks an operation runs where they would share the front end's
  /// stderr and terminal (the post-merge hook after accept's and pick's landing): when set, it
  /// is captured and handed here (AcceptOptions::on_hook_output); unset, the hook writes to
  /// stderr. Optional.
  SetupListener on_hook_output;
};

/// What an operation produced: its JSON document (the contract, docs/schema/<schema>.json),
/// what to tell a person besides, and the exit status.
struct Outcome {
  nlohmann::json document;
  std::vector<std::string> warnings; ///< worth a person's attention ("berth: warning: ...")
  std::vector<std::string> notes;    ///< plain news ("berth: ...")
  int exit = 0;                      ///< 0, or the command's own status (run; doctor's 1)
};

struct Operation {
  std::string name;    ///< the command name: `berth NAME`
  std::string summary; ///< one line, for `berth help` and tool descriptions
  std::vector<Param> params;
  /// Opened from the working directory (or -C) before `run`; when false `run` gets nullptr and
  /// finds its own (a hook anchored at the directory its JSON names) or needs none.
  bool needs_project = true;
  bool read_only = false;                     ///< changes nothing (list, status, diff)
  bool destructive = false;                   ///< may remove or overwrite work (discard, accept)
  bool idempotent = false;                    ///< a second identical call changes nothing more
  std::string schema;                         ///< its document's schema: docs/schema/<schema>.json
  std::vector<SchemaVariant> schema_variants; ///< other document kinds, by flag (see schema_for)
  /// It reports interrupted accepts itself (doctor), so front ends do not warn of them first
  /// (berth::pending_accepts) as they do before any other operation.
  bool reports_pending_accepts = false;
  std::function<Result<Outcome>(const Project* project, const nlohmann::json& params,
                                const OperationContext&)>
      run;
};

/// Every operation, in the order `berth help` lists them.
const std::vector<Operation>& operations();
/// The operation called `name`, or nullptr.
const Operation* find_operation(std::string_view name);

/// Whether `params` suit `op`: an object whose keys are `op`'s parameters, each of its kind (a
/// JSON null counts as absent), the required ones present, a string one of its choices. A usage
/// error naming the parameter otherwise. Every entry's `run` checks this first.
Result<void> check_params(const Operation& op, const nlohmann::json& params);

/// The schema of the document `op` yields for `params` (its `schema`, or a variant's).
std::string schema_for(const Operation& op, const nlohmann::json& params);

/// The table as JSON, for tools that generate from it (shell completions, the MCP tool list,
/// docs checks): [{"name", "summary", "needs_project", "read_only", "destructive",
/// "idempotent", "schema", "params": [{"name", "kind", "help", "required", "positional",
/// "short_name", "choices", "internal", "implicit_value"}]}].
nlohmann::json operations_document();

} // namespace berth

#pragma GCC visibility pop
