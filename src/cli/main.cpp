// The `berth` front end (also installed as `git-berth`, so that `git berth ...` works): parse the
// command line into an operation's parameters (the table: include/berth/operations.hpp), open the
// project, run the operation, render its outcome. This is the only place that prints or exits.
#include "berth/fork.hpp"
#include "berth/json.hpp"
#include "berth/operations.hpp"
#include "cli/commands.hpp"
#include "cli/foreground.hpp"
#include "cli/fork_progress.hpp"
#include "cli/pager.hpp"
#include "cli/parser.hpp"
#include "cli/render.hpp"
#include "cli/result_line.hpp"
#include "mcp/server.hpp"
#include "util/atomic_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fmt/format.h>
#include <iostream>
#include <new>
#include <optional>
#include <signal.h>
#include <system_error>
#include <unistd.h>

namespace {

// Paths and names are bytes, not necessarily UTF-8 (a directory named in Latin-1, say): such
// bytes become U+FFFD rather than an exception that would abort berth after the work is done.
std::string json_text(const nlohmann::json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The compact form: one line. `run` and `shell` share stdout with their command, so their
// result is one line a script finds as the last (docs/run.md).
std::string json_line(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// --result-file: written whole or not at all (a reader polling for it never sees half a line).
tl::expected<void, berth::Error> write_result_file(const std::string& path,
                                                   const std::string& line) {
  if (auto written = util::write_file_atomic(path, line); !written)
    return tl::unexpected(
        berth::Error{berth::ErrorCode::io_error,
                     fmt::format("cannot write the result file {}: {}", path, written.error()),
                     "give --result-file a path in a writable directory",
                     std::nullopt,
                     {}});
  return {};
}

// `run` and `shell` print their --json documents, errors included, as one compact line; a usage
// error is found before the command is known to the parser, so the word is looked for here.
bool g_compact_json = false;

bool command_shares_stdout(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--") return false;
    if (a == "-C" || a == "-c") {
      ++i; // their value
      continue;
    }
    if (a.starts_with("-")) continue;
    return a == "run" || a == "shell";
  }
  return false;
}

void print_error(const berth::Error& e, bool json) {
  if (json) {
    auto document = berth::error_document(e);
    std::cout << (g_compact_json ? json_line(document) : json_text(document)) << std::endl;
    // The event stream on stderr says it too, so a reader of events alone sees the failure.
    cli::emit_event("error", berth::error_document(e)["error"]);
    return;
  }
  // The code on the line: what docs/errors.md is searched by, and all a hook's caller (Claude
  // Code shows stderr as it is) may show.
  std::cerr << "berth: " << e.message << " [" << berth::code_name(e.code) << "]\n";
  if (!e.hint.empty()) std::cerr << "hint: " << e.hint << "\n";
  for (const auto& path : e.paths)
    std::cerr << "  " << path << "\n";
  if (e.git && std::getenv("BERTH_DEBUG")) {
    std::cerr << "git command: " << fmt::format("{}", fmt::join(e.git->argv, " ")) << "\n"
              << "exit status: " << e.git->status << "\n"
              << e.git->err;
  }
}

std::string help_text(const CLI::App& app) {
  std::string out = "berth " + std::string(berth::version()) +
                    ": a workspace per task: git worktrees for agents and people\n\n"
                    "usage: berth [--json] [--quiet] [-C DIR] [-c KEY=VALUE] COMMAND [ARGS]\n\n"
                    "commands:\n";
  for (const auto& op : berth::operations())
    out += fmt::format("  {:<10} {}\n", op.name, op.summary);
  // Not an entry of the table: the MCP server is a front end of its own (src/mcp/).
  out += fmt::format("  {:<10} {}\n", "mcp", "serve this project to an MCP client on stdio");
  out +=
      "  help       show help for berth or a command\n\n"
      "global options (before or after the command):\n"
      "  --json         machine-readable output on stdout (errors too: {\"error\": {...}})\n"
      "  -q, --quiet    print only what the command produces\n"
      "  -C DIR         run as if started in DIR\n"
      "  -c KEY=VALUE   override a config value for this command (repeatable)\n"
      "  -V, --version  print the version\n"
      "  -h, --help     show this help\n\n"
      "exit status: 0 ok, 1 error, 2 usage, 3 conflict, 4 not found, 5 refused for safety;\n"
      "run and shell: the command's status (124 timeout, 127 cannot start, 128+N signal)\n"
      "`berth help COMMAND` or `berth COMMAND --help` shows a command's options; see berth(1).\n";
  (void)app;
  return out;
}

// `berth --json help [COMMAND]` (docs/schema/help.json): the commands and their parameters, as
// the table has them; `only` names one command (an operation, or `help`).
nlohmann::json help_document(const berth::Operation* op, const std::string& only = "") {
  nlohmann::json commands = nlohmann::json::array();
  auto own = [](const std::string& name, const std::string& summary,
                const std::vector<std::pair<std::string, std::string>>& flags) {
    nlohmann::json params = nlohmann::json::array();
    for (const auto& [option, help] : flags) {
      std::string key = option.substr(2);
      std::replace(key.begin(), key.end(), '-', '_');
      params.push_back({{"name", key},
                        {"option", option},
                        {"short", nullptr},
                        {"kind", "flag"},
                        {"help", help},
                        {"required", false},
                        {"positional", false},
                        {"choices", nlohmann::json::array()},
                        {"implicit_value", nullptr}});
    }
    return nlohmann::json{{"name", name}, {"summary", summary}, {"params", params}};
  };
  if (op) {
    commands.push_back(cli::help_entry(*op));
  } else {
    if (only.empty())
      for (const auto& each : berth::operations())
        commands.push_back(cli::help_entry(each));
    if (only.empty())
      commands.push_back(
          own("mcp", "serve this project to an MCP client on stdio",
              {{"--allow-accept", "offer workspace_accept to the client"},
               {"--allow-unsandboxed", "let the client run commands without the sandbox"}}));
    nlohmann::json help = own("help", "show help for berth or a command", {});
    help["params"].push_back({{"name", "command"},
                              {"option", nullptr},
                              {"short", nullptr},
                              {"kind", "string"},
                              {"help", "the command to show the options of"},
                              {"required", false},
                              {"positional", true},
                              {"choices", nlohmann::json::array()},
                              {"implicit_value", nullptr}});
    commands.push_back(help);
  }
  return {{"version", std::string(berth::version())}, {"commands", commands}};
}

// `berth help --completion-data` (hidden): the table as scripts/completions reads it, one
// tab-separated line each: "command NAME SUMMARY", "option NAME --LONG [-S]", "choice NAME VALUE".
// Internal parameters (berth's own plumbing) are left out, as from help.
std::string completion_data_text() {
  std::string out;
  for (const auto& op : berth::operations()) {
    out += fmt::format("command\t{}\t{}\n", op.name, op.summary);
    for (const auto& p : op.params) {
      if (p.internal) continue;
      if (!p.positional)
        out += fmt::format("option\t{}\t{}{}\n", op.name, cli::long_option(p.name),
                           p.short_name.empty() ? "" : "\t-" + p.short_name);
      for (const auto& choice : p.choices)
        out += fmt::format("choice\t{}\t{}\n", op.name, choice);
    }
  }
  out += "command\tmcp\tserve this project to an MCP client on stdio\n";
  for (const char* option : {"--allow-accept", "--allow-unsandboxed"})
    out += fmt::format("option\tmcp\t{}\n", option);
  out += "command\thelp\tshow help for berth or a command\n";
  return out;
}

} // namespace

int run_main(int argc, char** argv) {
  // A closed stdout (`berth list | head -1`) must give EPIPE, not a silent death mid-write.
  ::signal(SIGPIPE, SIG_IGN);
  // `berth watch hook 2 TOKEN` is git's fsmonitor hook in each status berth makes in a workspace
  // (run by berth-fsmonitor, src/hook/, when the watcher must be started or waited for; by git
  // itself without berth-fsmonitor), and `berth watch serve DIR` is the watcher itself: both skip
  // the parser and the project lookup (the hook must cost no more than a process start).
  if (argc >= 3 && std::strcmp(argv[1], "watch") == 0) {
    if (std::strcmp(argv[2], "hook") == 0) return cli::watch_hook_main(argc, argv);
    if (std::strcmp(argv[2], "serve") == 0) return cli::watch_serve_main(argc, argv);
  }
  // `berth mcp`: stdout is the MCP protocol, so not the parser's rendering path. Global options
  // may come before it (`berth -C DIR mcp`), as before any command: mcp_main reads them all.
  int command_at = 0; // argv's index of the command word, 0 for none
  {
    std::vector<char*> rest{argv[0]};
    for (int i = 1; i < argc; ++i) {
      std::string_view arg = argv[i];
      bool global = command_at == 0 && !arg.empty() && arg[0] == '-';
      if (command_at == 0 && !global) {
        command_at = i;
        continue;
      }
      rest.push_back(argv[i]);
      // -C and -c take the next word as their value, whatever it looks like.
      if (global && (arg == "-C" || arg == "-c") && i + 1 < argc) rest.push_back(argv[++i]);
    }
    char mcp_word[] = "mcp", help_flag[] = "--help";
    if (command_at > 0 && std::strcmp(argv[command_at], "help") == 0 && command_at + 2 == argc &&
        std::strcmp(argv[command_at + 1], "mcp") == 0) {
      char* mcp_help[] = {argv[0], mcp_word, help_flag};
      return mcp::mcp_main(3, mcp_help);
    }
    if (command_at > 0 && std::strcmp(argv[command_at], "mcp") == 0) {
      rest.insert(rest.begin() + 1, mcp_word);
      return mcp::mcp_main(static_cast<int>(rest.size()), rest.data());
    }
  }
  struct {
    bool json = false;
    bool quiet = false;
    std::string dir;
    std::vector<std::string> config;
  } args;
  bool wants_json = false;
  for (int i = 1; i < argc && std::strcmp(argv[i], "--") != 0; ++i)
    if (std::strcmp(argv[i], "--json") == 0) wants_json = true;
  g_compact_json = command_shares_stdout(argc, argv);

  CLI::App app{"berth: a workspace per task", "berth"};
  app.set_help_flag(); // our own help, generated from the command table
  app.fallthrough();   // global options work before or after the command
  app.require_subcommand(0, 1);
  app.add_flag("--json", args.json, "machine-readable output");
  app.add_flag("--quiet,-q", args.quiet, "print only what the command produces");
  app.add_option("-C", args.dir, "run as if started in DIR");
  app.add_option("-c", args.config, "override a config value: KEY=VALUE")->allow_extra_args(false);
  bool show_version = false, show_help = false;
  app.add_flag("--version,-V", show_version, "print the version");
  app.add_flag("--help,-h", show_help, "show help");

  // The command named on the line alone when there is one (its options are all the parser
  // needs; the whole table costs ~0.3 ms of every start), else all of them (help, a mistyped
  // command).
  const berth::Operation* named_op =
      command_at > 0 ? berth::find_operation(argv[command_at]) : nullptr;
  std::deque<cli::CommandLine> commands;
  for (const auto& op : berth::operations())
    if (!named_op || &op == named_op) commands.emplace_back(app, op);
  std::string help_topic;
  CLI::App* help = app.add_subcommand("help", "show help");
  help->add_option("command", help_topic);
  bool completion_data = false;
  help->add_flag("--completion-data", completion_data,
                 "(internal) the table for scripts/completions")
      ->group("");

  // The operation named on the line and the words after it: to catch what the parser would
  // misread, and to say what to do about a parse error.
  std::vector<std::string> words;
  for (int i = command_at + 1; command_at > 0 && i < argc; ++i)
    words.emplace_back(argv[i]);
  if (named_op) {
    if (auto misread = cli::misread_value(*named_op, words)) {
      print_error(*misread, wants_json);
      return 2;
    }
    if (auto misplaced = cli::options_after_command(*named_op, words)) {
      // A --json among the command's words (`run x echo --json`) is the command's.
      size_t command = static_cast<size_t>(command_at) + 1 + cli::command_start(*named_op, words);
      bool json = false;
      for (size_t i = 1; i < command; ++i)
        json = json || std::strcmp(argv[i], "--json") == 0;
      print_error(*misplaced, json);
      return 2;
    }
  }
  // `run x ls -la`: without `--`, the command's options are taken for berth's.
  auto parse_hint = [&](const std::string& otherwise) {
    std::string line = named_op ? cli::dash_dash_suggestion(*named_op, words) : "";
    return line.empty() ? otherwise
                        : fmt::format("put the command after `--`, so that its options are not "
                                      "taken for berth's: `{}`",
                                      line);
  };

  // An operation with a `--NAME -- CMD...` parameter (compare --test): the words after `--` are
  // its value, kept from the parser (which would take them for the positional names).
  const berth::Param* dash_dash_param = nullptr;
  if (named_op)
    for (const auto& p : named_op->params)
      if (p.after_dash_dash) dash_dash_param = &p;
  int parsed_argc = argc;
  std::vector<std::string> after_dash_dash;
  for (int i = command_at + 1; dash_dash_param && i < argc; ++i)
    if (std::strcmp(argv[i], "--") == 0) {
      parsed_argc = i;
      after_dash_dash.assign(argv + i + 1, argv + argc);
      break;
    }

  try {
    app.parse(parsed_argc, argv);
  } catch (const CLI::CallForHelp&) {
    for (const auto& command : commands)
      if (command.app().parsed()) {
        if (wants_json)
          std::cout << json_text(help_document(&command.operation())) << "\n";
        else
          std::cout << command.app().help("berth");
        return 0;
      }
    std::cout << (wants_json ? json_text(help_document(nullptr)) + "\n" : help_text(app));
    return 0;
  } catch (const CLI::ExtrasError& e) {
    // Most often a mistyped command: say so in our words.
    std::string what = e.what();
    if (app.get_subcommands().empty() && argc > 1) {
      std::string first;
      for (int i = 1; i < argc; ++i)
        if (argv[i][0] != '-') {
          first = argv[i];
          break;
        }
      if (!first.empty()) what = fmt::format("unknown command '{}'", first);
    }
    print_error(berth::Error{berth::ErrorCode::usage,
                             what,
                             parse_hint("run `berth help` for the commands"),
                             std::nullopt,
                             {}},
                wants_json);
    return 2;
  } catch (const CLI::ParseError& e) {
    // A value refused (not a number, not one of the choices, missing): say which option and what
    // it takes; the `--` suggestion is for words taken for berth's options (above).
    if (named_op && (dynamic_cast<const CLI::ConversionError*>(&e) ||
                     dynamic_cast<const CLI::ValidationError*>(&e) ||
                     dynamic_cast<const CLI::RequiredError*>(&e))) {
      print_error(cli::option_value_error(*named_op, e.what()), wants_json);
      return 2;
    }
    print_error(berth::Error{berth::ErrorCode::usage,
                             e.what(),
                             parse_hint("run `berth help` for usage"),
                             std::nullopt,
                             {}},
                wants_json);
    return 2;
  }

  if (show_version) {
    if (args.json)
      std::cout << berth::version_document().dump() << "\n";
    else
      std::cout << "berth " << berth::version() << "\n";
    return 0;
  }
  if (help->parsed() && completion_data) {
    std::cout << completion_data_text();
    return 0;
  }
  if (help->parsed() || show_help || app.get_subcommands().empty()) {
    if (help_topic == "help") {
      std::cout << (args.json ? json_text(help_document(nullptr, "help")) + "\n"
                              : "usage: berth help [COMMAND]\n\n"
                                "show berth's commands and global options, or COMMAND's "
                                "options (as `berth COMMAND --help`); with --json, as JSON\n");
      return 0;
    }
    if (!help_topic.empty()) {
      for (const auto& command : commands)
        if (command.operation().name == help_topic) {
          if (args.json)
            std::cout << json_text(help_document(&command.operation())) << "\n";
          else
            std::cout << command.app().help("berth");
          return 0;
        }
      print_error({berth::ErrorCode::usage,
                   fmt::format("no command named '{}'", help_topic),
                   "run `berth help`",
                   std::nullopt,
                   {}},
                  args.json);
      return 2;
    }
    std::cout << (args.json ? json_text(help_document(nullptr)) + "\n" : help_text(app));
    return app.get_subcommands().empty() && !help->parsed() && !show_help ? 2 : 0;
  }

  const cli::CommandLine* command = nullptr;
  for (const auto& c : commands)
    if (c.app().parsed()) command = &c;
  const berth::Operation& op = command->operation();
  nlohmann::json params = command->params();
  if (dash_dash_param && &op == named_op) {
    const std::string option = cli::long_option(dash_dash_param->name);
    bool asked = params.value(dash_dash_param->name, false);
    if (asked != (parsed_argc < argc) || (asked && after_dash_dash.empty())) {
      print_error(berth::Error{berth::ErrorCode::usage,
                               fmt::format("{} takes a command after `--`", option),
                               fmt::format("e.g. `berth {} ... {} -- make check`", op.name, option),
                               std::nullopt,
                               {}},
                  args.json);
      return 2;
    }
    if (asked)
      params[dash_dash_param->name] = after_dash_dash;
    else
      params.erase(dash_dash_param->name);
  }
  if (args.json) {
    // Under --json every line berth writes on stderr is an event about this workspace (a fork's:
    // its TASK; the events about one attempt name the attempt).
    nlohmann::json workspace = nullptr;
    for (const char* key : {"as", "name", "task"})
      if (params.contains(key) && params[key].is_string() && op.name != "trust") {
        workspace = params[key];
        break;
      }
    cli::use_event_stream(std::move(workspace));
  }
  // run and shell share stdout with their command: their JSON result is one compact line,
  // always the last and on a line of its own, or it goes to --result-file (docs/run.md).
  const bool shares_stdout = op.name == "run" || op.name == "shell";
  std::string result_file;
  if (shares_stdout && params.contains("result_file") && params["result_file"].is_string())
    result_file = params["result_file"].get<std::string>();
  const bool captured = params.contains("capture") && params["capture"] == true;
  cli::StdoutTail tail;
  // The result (or the error) of run and shell: to the file, or as the last line of stdout.
  auto deliver = [&](const nlohmann::json& document) -> bool {
    if (!result_file.empty()) {
      if (auto written = write_result_file(result_file, json_line(document) + "\n"); !written) {
        print_error(written.error(), false);
        return false;
      }
      return true;
    }
    if (!args.json) return true;
    bool newline = tail.finish();
    std::cout << (newline ? "\n" : "") << json_line(document) << "\n";
    return true;
  };
  auto fail_with = [&](const berth::Error& e) {
    if (shares_stdout && (!result_file.empty() || args.json)) {
      if (!args.json)
        print_error(e, false);
      else
        cli::emit_event("error", berth::error_document(e)["error"]);
      if (!deliver(berth::error_document(e))) return 1;
      return berth::exit_status(e.code);
    }
    print_error(e, args.json);
    return berth::exit_status(e.code);
  };

  // accept and pick stop at safe points on Ctrl-C, SIGTERM and SIGHUP (their handlers arm the
  // watch through OperationContext::stop_requested): armed already here, a signal while the
  // project is opened (git's reads there run in their own process groups) is such a stop too,
  // before anything began, rather than a death without a word.
  if (op.name == "accept" || op.name == "pick") (void)cli::stop_requested();
  std::optional<berth::Project> project;
  if (op.needs_project) {
    berth::ProjectOptions options{args.dir, args.config};
    // Only `new` makes a plain folder's private repository (docs/plain.md).
    if (op.name == "new") {
      options.plain_create = true;
      options.plain_force = params.contains("plain") && params["plain"] == true;
      if (params.contains("name") && params["name"].is_string())
        options.plain_workspace_name = params["name"].get<std::string>();
    }
    auto opened = berth::Project::open(options);
    if (!opened) return fail_with(opened.error());
    project = std::move(*opened);
  }
  if (!args.quiet && project) {
    for (const auto& warning : project->config().warnings())
      cli::print_warning(warning);
    if (!op.reports_pending_accepts)
      for (const auto& note : berth::pending_accepts(*project))
        cli::print_warning(note);
  }

  // BERTH_TEST_FAIL_AT=throw:bad_alloc|throw:system_error (berth's own tests, docs/errors.md):
  // what escapes a command reaches the top-level catch below.
  if (const char* injected = std::getenv("BERTH_TEST_FAIL_AT")) {
    if (std::strcmp(injected, "throw:bad_alloc") == 0) throw std::bad_alloc();
    if (std::strcmp(injected, "throw:system_error") == 0)
      throw std::system_error(EAGAIN, std::generic_category(), "pthread_create");
  }
  if (auto filled = cli::fill_from_outside(op, params); !filled) return fail_with(filled.error());
  berth::OperationContext context;
  context.origin = {args.dir, args.config};
  context.on_setup = cli::setup_printer(args.json, args.quiet);
  // Under --json the post-merge hook after accept's and pick's landing is captured, an `output`
  // event like the post-checkout hook's: stderr is an event stream, and an orchestrator has no
  // terminal to answer on. In text it shares the terminal (it may ask the user something).
  if (args.json) context.on_hook_output = context.on_setup;
  context.prepare_run = [](berth::RunOptions& options) { cli::own_signals_and_terminal(options); };
  // fork's progress: NDJSON events under --json, one line per attempt redrawn in place on a
  // terminal, a line per start and end otherwise (cli/fork_progress.hpp).
  context.stop_requested = cli::stop_requested;
  cli::ForkProgress progress(args.quiet);
  context.on_event = [&progress](std::string_view type, const nlohmann::json& fields) {
    progress.on_event(type, fields);
  };
  const berth::Project* project_ptr = project ? &*project : nullptr;
  // What the command writes to stdout is watched (to start berth's line on a line of its own)
  // only when berth's line follows it there.
  if (shares_stdout && args.json && result_file.empty() && !captured) tail.start();
  auto outcome = op.run(project_ptr, params, context);
  progress.finish(); // (its last lines before the result)
  if (!outcome) return fail_with(outcome.error());
  // Text from the command's renderer; with --json (or for an operation without one) the document.
  cli::Renderer render = args.json ? nullptr : cli::find_renderer(op.name);
  if (shares_stdout && (args.json || !result_file.empty())) {
    if (!deliver(outcome->document)) return 1;
  } else if (render) {
    std::string text =
        render(outcome->document, cli::RenderContext{params, args.quiet, project_ptr});
    // A long diff on a terminal goes through git's pager, as `git diff` does; never into a pipe.
    std::string pager;
    if (cli::pages_output(op.name) && project && ::isatty(STDOUT_FILENO) && !text.empty() &&
        !params.value("no_pager", false))
      if (auto shown = berth::diff_presentation(*project, true, false, true)) pager = shown->pager;
    std::cout.flush();
    if (pager.empty() || !cli::page(text, pager)) std::cout << text;
  } else
    std::cout << json_text(outcome->document) << "\n";
  if (!args.quiet) {
    for (const auto& note : outcome->notes)
      if (cli::event_stream())
        cli::emit_event("note", {{"message", note}});
      else
        std::cerr << "berth: " << note << "\n";
    for (const auto& warning : outcome->warnings)
      cli::print_warning(warning);
  }
  std::cout.flush();
  if (!std::cout) return 1;
  return outcome->exit;
}

// The one top-level catch: whatever escaped (std::bad_alloc, a std::system_error from a thread
// or a lock, a JSON type error) ends as one clear line with a code and exit 1, never an abort
// (exit 134) with a core dump and nothing a script can read.
int main(int argc, char** argv) {
  bool json = false;
  for (int i = 1; i < argc && std::strcmp(argv[i], "--") != 0; ++i)
    if (std::strcmp(argv[i], "--json") == 0) json = true;
  std::string what;
  try {
    return run_main(argc, argv);
  } catch (const std::bad_alloc&) {
    what = "out of memory";
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
    what = "unknown exception";
  }
  try {
    print_error(berth::Error{berth::ErrorCode::internal,
                             fmt::format("internal error: {}", what),
                             "this is a bug in berth (or the machine ran out of memory); run "
                             "`berth doctor` to check that nothing was left half-done",
                             std::nullopt,
                             {}},
                json);
  } catch (...) {
    std::fputs("berth: internal error\n", stderr);
  }
  return 1;
}
