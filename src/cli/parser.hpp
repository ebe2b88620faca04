// The command line from the operation table: one CLI11 subcommand per operation, one option or
// positional per parameter, and back from argv to the operation's JSON parameters.
#pragma once

#include "berth/operations.hpp"

#include <CLI/CLI.hpp>
#include <deque>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace cli {

/// One operation's subcommand and where CLI11 puts its values.
class CommandLine {
public:
  CommandLine(CLI::App& app, const berth::Operation& op);

  const berth::Operation& operation() const { return op_; }
  CLI::App& app() const { return *sub_; }
  /// The parameters given on the command line, keyed by parameter name; absent ones are left out.
  nlohmann::json params() const;

private:
  struct Slot {
    const berth::Param* param = nullptr;
    CLI::Option* option = nullptr;
    bool flag = false;
    std::optional<std::string> text;
    std::vector<std::string> list;
    int64_t integer = 0;
    double number = 0;
  };
  const berth::Operation& op_;
  CLI::App* sub_;
  std::deque<Slot> slots_; // stable addresses: CLI11 writes into them
};

/// The parameters that come from outside the command line (Param::from_stdin, from_env), added
/// to `params`.
berth::Result<void> fill_from_outside(const berth::Operation& op, nlohmann::json& params);

/// The `--long` spelling of a parameter name: "dry_run" is "--dry-run".
std::string long_option(const std::string& name);

/// A mistake the parser would misread, found in the words after the command (`words`, up to a
/// `--`): an option that takes its value only as `--name=VALUE` (Param::implicit_value) given as
/// `--sandbox bwrap`, which would make `bwrap` the workspace's NAME.
std::optional<berth::Error> misread_value(const berth::Operation& op,
                                          const std::vector<std::string>& words);

/// Where the command of `op` (run's CMD) begins in `words` when it is given without `--`: the
/// first word that is no positional name, no option of berth's and no such option's value; npos
/// when there is none, a `--` is given, or the operation takes no command.
size_t command_start(const berth::Operation& op, const std::vector<std::string>& words);

/// For a parse error of an operation whose command comes after `--` (run's CMD), when no `--`
/// was given: the same line with `--` where it belongs (`berth run x -- ls -la`); empty otherwise.
std::string dash_dash_suggestion(const berth::Operation& op, const std::vector<std::string>& words);

/// A command given without `--` (`berth run x sh -c 'echo hi'`) whose words include an option:
/// the parser would take it for berth's (`-c`, `-C`, `--json`, `-q`, run's own) or refuse it, so
/// it is refused before parsing, with the line that has `--` in its place.
std::optional<berth::Error> options_after_command(const berth::Operation& op,
                                                  const std::vector<std::string>& words);

/// A value the parser refused (CLI11's ConversionError, ValidationError or RequiredError of
/// `op`), said in berth's words: the option as it is typed (`-n/--attempts`), what it takes, and
/// a hint naming `berth OP --help`. `what` is CLI11's message.
berth::Error option_value_error(const berth::Operation& op, const std::string& what);

/// `berth --json help`: an operation as a help entry (the parameters a person may give, with
/// their option spellings); docs/schema/help.json.
nlohmann::json help_entry(const berth::Operation& op);

} // namespace cli
