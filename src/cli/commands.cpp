#include "cli/commands.hpp"

#include "berth/json.hpp"
#include "cli/render.hpp"

#include <ctime>
#include <fmt/format.h>

namespace cli {
namespace {

using berth::Result;

std::string short_sha(const std::string& sha) {
  return sha.substr(0, 10);
}

void add_name(CLI::App& app, Args& args) {
  app.add_option("name", args.name, "workspace name")->required();
}

// ---- new ------------------------------------------------------------------------------------

void define_new(CLI::App& app, Args& args) {
  add_name(app, args);
  app.add_option("--base", args.base, "commit to start from (default: HEAD of this worktree)");
  app.add_option("--owner", args.owner, "a label for who works there (agent, ticket, person)");
}

Result<Output> run_new(const Args& args, const berth::Project& project) {
  auto created = BERTH_TRY(berth::create_workspace(project, {args.name, args.base, args.owner}));
  // stdout is the path alone, so that `cd "$(berth new x)"` works.
  return Output{created, created.workspace.path + "\n", created.warnings, 0};
}

// ---- list -----------------------------------------------------------------------------------

void define_list(CLI::App& app, Args& args) {
  app.add_flag("--all,-a", args.all, "wide format: add branch, head and created columns");
}

std::string state_cell(const std::string& state) {
  if (state == "ready") return paint(state, "32");
  if (state == "missing") return paint(state, "31");
  return paint(state, "33");
}

std::string changes_cell(const berth::WorkspaceStatus& s) {
  if (s.state == "missing") return "-";
  if (!s.dirty) return "clean";
  std::vector<std::string> parts;
  if (s.staged) parts.push_back(fmt::format("+{}", s.staged));
  if (s.modified) parts.push_back(fmt::format("~{}", s.modified));
  if (s.untracked) parts.push_back(fmt::format("?{}", s.untracked));
  if (s.conflicted) parts.push_back(fmt::format("!{}", s.conflicted));
  return fmt::format("{}", fmt::join(parts, " "));
}

Result<Output> run_list(const Args& args, const berth::Project& project) {
  auto all = BERTH_TRY(berth::list_workspaces(project));
  Output out{all, {}, {}, 0};
  if (all.empty()) {
    if (!args.quiet) out.text = "no workspaces (create one with `berth new NAME`)\n";
    return out;
  }
  int64_t now = static_cast<int64_t>(::time(nullptr));
  std::vector<std::vector<std::string>> rows;
  if (args.all)
    rows.push_back({"NAME", "STATE", "BRANCH", "BASE", "HEAD", "AHEAD", "CHANGES", "OWNER",
                    "CREATED", "USED", "PATH"});
  else
    rows.push_back({"NAME", "STATE", "BASE", "AHEAD", "CHANGES", "OWNER", "USED", "PATH"});
  for (const auto& s : all) {
    const auto& w = s.workspace;
    std::string owner = w.owner.empty() ? "-" : w.owner;
    if (args.all)
      rows.push_back({w.name, state_cell(s.state), w.branch, short_sha(w.base),
                      s.head.empty() ? "-" : short_sha(s.head), std::to_string(s.ahead),
                      changes_cell(s), owner, age(w.created, now), age(s.last_used, now), w.path});
    else
      rows.push_back({w.name, state_cell(s.state), short_sha(w.base), std::to_string(s.ahead),
                      changes_cell(s), owner, age(s.last_used, now), w.path});
  }
  out.text = table(rows);
  return out;
}

// ---- path / status --------------------------------------------------------------------------

Result<Output> run_path(const Args& args, const berth::Project& project) {
  auto w = BERTH_TRY(berth::find_workspace(project, args.name));
  return Output{{{"name", w.name}, {"path", w.path}}, w.path + "\n", {}, 0};
}

Result<Output> run_status(const Args& args, const berth::Project& project) {
  auto s = BERTH_TRY(berth::workspace_status(project, args.name));
  const auto& w = s.workspace;
  int64_t now = static_cast<int64_t>(::time(nullptr));
  std::string text;
  auto line = [&](const char* key, const std::string& value) {
    text += fmt::format("{:<10} {}\n", key, value);
  };
  line("name", w.name);
  line("state", state_cell(s.state));
  line("path", w.path);
  line("branch", s.head_branch.empty() || s.head_branch == w.branch
                     ? w.branch
                     : fmt::format("{} (checked out: {})", w.branch, s.head_branch));
  line("base", w.base);
  line("head", s.head.empty() ? "-" : s.head);
  line("commits", fmt::format("{} ahead of base{}", s.ahead,
                              s.behind ? fmt::format(", {} behind", s.behind) : ""));
  line("changes", fmt::format("{} staged, {} modified, {} untracked, {} conflicted", s.staged,
                              s.modified, s.untracked, s.conflicted));
  line("owner", w.owner.empty() ? "-" : w.owner);
  line("created", fmt::format("{} ({} ago)", berth::iso_time(w.created), age(w.created, now)));
  line("last used",
       fmt::format("{} ({} ago)", berth::iso_time(s.last_used), age(s.last_used, now)));
  return Output{s, text, {}, 0};
}

// ---- discard / restore ----------------------------------------------------------------------

void define_discard(CLI::App& app, Args& args) {
  add_name(app, args);
  app.add_flag("--force,-f", args.force,
               "discard even if busy, or with --no-trash even with unsaved work");
  app.add_flag("--no-trash", args.no_trash,
               "do not keep a snapshot (needs --force if there is unsaved work)");
}

Result<Output> run_discard(const Args& args, const berth::Project& project) {
  auto d = BERTH_TRY(berth::discard_workspace(
      project, args.name, args.force ? berth::Force::yes : berth::Force::no,
      args.no_trash ? berth::Trash::no : berth::Trash::yes));
  Output out{d, {}, d.warnings, 0};
  if (!args.quiet) {
    out.text = fmt::format("discarded {}", d.workspace.name);
    if (d.snapshot)
      out.text += fmt::format(" (saved as {}; `berth restore {}` brings it back)", d.snapshot->ref,
                              d.workspace.name);
    out.text += "\n";
  }
  if (d.ignored_files > 0)
    out.warnings.push_back(
        fmt::format("{} ignored file(s), {}, were deleted with it (ignored files are not saved)",
                    d.ignored_files, human_bytes(d.ignored_bytes)));
  return out;
}

void define_restore(CLI::App& app, Args& args) {
  app.add_option("name", args.name, "workspace name (with --list: optional filter)");
  app.add_option("--as", args.as, "restore under another name");
  app.add_flag("--list,-l", args.list, "list the snapshots in the trash instead");
}

Result<Output> run_restore(const Args& args, const berth::Project& project) {
  if (args.list) {
    std::optional<std::string_view> filter;
    if (!args.name.empty()) filter = args.name;
    auto snaps = BERTH_TRY(berth::list_snapshots(project, filter));
    Output out{snaps, {}, {}, 0};
    if (snaps.empty()) {
      if (!args.quiet) out.text = "the trash is empty\n";
      return out;
    }
    int64_t now = static_cast<int64_t>(::time(nullptr));
    std::vector<std::vector<std::string>> rows{{"NAME", "DISCARDED", "COMMIT", "REF"}};
    for (const auto& s : snaps)
      rows.push_back({s.name, age(s.time, now) + " ago", short_sha(s.commit), s.ref});
    out.text = table(rows);
    return out;
  }
  if (args.name.empty())
    return berth::fail(berth::ErrorCode::usage, "restore needs a workspace name",
                       "berth restore NAME, or berth restore --list");
  auto r = BERTH_TRY(berth::restore_workspace(project, args.name, args.as));
  return Output{r, r.workspace.path + "\n", r.warnings, 0};
}

// ---- config ---------------------------------------------------------------------------------

Result<Output> run_config(const Args&, const berth::Project& project) {
  nlohmann::json j = nlohmann::json::object();
  std::vector<std::vector<std::string>> rows{{"KEY", "VALUE", "FROM"}};
  for (const auto& key : berth::config_keys()) {
    const auto& entry = project.config().entry(key.name);
    std::string from = std::string(berth::layer_name(entry.source.layer));
    if (entry.source.layer != berth::ConfigSource::Layer::built_in)
      from += " (" + entry.source.where + ")";
    nlohmann::json value;
    std::visit([&](const auto& v) { value = v; }, entry.value);
    j[key.name] = {{"value", value},
                   {"source", berth::layer_name(entry.source.layer)},
                   {"where", entry.source.where}};
    std::string shown = berth::to_string(entry.value);
    if (std::string(key.name) == "workspace_root" && shown.empty())
      shown = "(default) " + project.workspace_root();
    rows.push_back({key.name, shown.empty() ? "\"\"" : shown, from});
  }
  return Output{j, table(rows), {}, 0};
}

void define_name_only(CLI::App& app, Args& args) {
  add_name(app, args);
}
void define_nothing(CLI::App&, Args&) {}

} // namespace

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"new", "create a workspace and print its path", define_new, run_new},
      {"list", "list the workspaces: state, base, commits ahead, changes, owner", define_list,
       run_list},
      {"path", "print a workspace's path (cd \"$(berth path NAME)\")", define_name_only, run_path},
      {"status", "show one workspace in detail", define_name_only, run_status},
      {"discard", "remove a workspace, keeping a snapshot in the trash", define_discard,
       run_discard},
      {"restore", "bring a discarded workspace back from the trash", define_restore, run_restore},
      {"config", "show the effective configuration and where each value came from", define_nothing,
       run_config},
  };
  return table;
}

} // namespace cli
