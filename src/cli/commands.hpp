// The command table: every `berth` command is one row, a handler that returns a structured
// result which the front end renders as text or JSON. `berth help` is generated from this table.
#pragma once

#include "berth/berth.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace cli {

/// Every option of every command, filled by the parser.
struct Args {
  // global
  bool json = false;
  bool quiet = false;
  std::string dir;
  std::vector<std::string> config;
  // per command
  std::string name;
  std::optional<std::string> base;
  std::string owner;
  bool force = false;
  bool no_trash = false;
  bool all = false;
  bool list = false;
  std::optional<std::string> as;
  std::optional<std::string> from; // restore: a snapshot ref
  bool stat = false;
  bool name_only = false;
  std::optional<std::string> against;
  std::optional<std::string> message;
  std::optional<std::string> strategy;
  std::optional<std::string> into;
  bool dry_run = false;
  bool keep = false;
  bool allow_gitlink = false;
  std::optional<std::string> onto;
  bool rebase = false;
  bool overlaps = false;
  bool repair = false;
  std::vector<std::string> command;
  std::vector<std::string> env;
  std::optional<double> timeout;
  std::optional<std::string> sandbox;
  std::string net = "on";
  bool ephemeral = false;
  bool carry = false;
  bool revoke = false;
  bool no_pool = false;
  std::string pool_action = "status";
  std::string watch_action = "status";
  std::optional<int64_t> count;
  bool background = false;
  // hook / integrate (issue 13)
  std::string agent;      // "claude"
  std::string hook_event; // "worktree-create" or "worktree-remove"
  bool user_scope = false, project_scope = false, local_scope = false;
  bool remove = false;
};

/// What a command produced: the JSON document, the text for a person, and notes for stderr.
struct Output {
  Output() = default;
  Output(nlohmann::json json_, std::string text_ = {}, std::vector<std::string> warnings_ = {},
         int exit_ = 0)
      : json(std::move(json_)), text(std::move(text_)), warnings(std::move(warnings_)),
        exit(exit_) {}

  nlohmann::json json;
  std::string text;                  ///< printed to stdout as is (may be empty)
  std::vector<std::string> warnings; ///< printed to stderr unless --quiet
  int exit = 0;
  std::vector<std::string> notes; ///< plain news for stderr (not warnings), unless --quiet
};

using Handler = berth::Result<Output> (*)(const Args&, const berth::Project&);
/// A command that finds its own project, or needs none (`hook` anchors itself at the directory
/// Claude Code names; `integrate --user` edits a file in $HOME): run without the lookup.
using AloneHandler = berth::Result<Output> (*)(const Args&);

struct Command {
  const char* name;
  const char* summary;
  void (*define)(CLI::App&, Args&);
  Handler run;
  AloneHandler run_alone = nullptr; ///< set instead of `run`: no project lookup first
};

const std::vector<Command>& commands();

/// `berth watch hook VERSION TOKEN` (git's fsmonitor hook) and `berth watch serve DIR` (the
/// watcher): internal entry points that bypass the parser and the project lookup.
int watch_hook_main(int argc, char** argv);
int watch_serve_main(int argc, char** argv);

} // namespace cli
