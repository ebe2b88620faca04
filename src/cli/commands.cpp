#include "cli/commands.hpp"

#include "berth/json.hpp"
#include "cli/foreground.hpp"
#include "cli/render.hpp"
#include "util/try.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <set>

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
  app.add_flag("--no-pool", args.no_pool, "skip the warm pool: a fresh worktree and full checkout");
  app.add_flag("--carry", args.carry,
               "bring your uncommitted work (staged, unstaged, untracked) along; your checkout is "
               "untouched");
}

// Set-up progress goes to stderr (stdout is the path alone): text on a terminal, NDJSON with
// --json.
berth::SetupListener setup_printer(const Args& args) {
  if (args.quiet) return {};
  bool json = args.json;
  return [json](const berth::SetupEvent& e) {
    using Kind = berth::SetupEvent::Kind;
    if (json) {
      // A set-up command's output is bytes, not necessarily UTF-8: such bytes become U+FFFD
      // rather than an exception that would end `new` with its workspace made.
      nlohmann::json j = e;
      std::fprintf(stderr, "%s\n",
                   j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
      if (e.kind == Kind::warning) mark_warning_printed(e.detail);
      return;
    }
    switch (e.kind) {
    case Kind::copied:
      std::fprintf(stderr, "berth: copied %s (%s, %s)\n", e.subject.c_str(),
                   human_bytes(e.bytes).c_str(), e.detail.c_str());
      break;
    case Kind::linked:
      std::fprintf(stderr, "berth: linked %s\n", e.subject.c_str());
      break;
    case Kind::progress:
      std::fprintf(stderr, "berth: copying %s: %s\r", e.subject.c_str(),
                   human_bytes(e.bytes).c_str());
      break;
    case Kind::command_started:
      std::fprintf(stderr, "berth: setup: %s\n", e.subject.c_str());
      break;
    case Kind::output:
      std::fwrite(e.detail.data(), 1, e.detail.size(), stderr);
      break;
    case Kind::command_finished:
      if (e.exit_status != 0)
        std::fprintf(stderr, "berth: setup command failed (exit %d): %s\n", e.exit_status,
                     e.subject.c_str());
      break;
    case Kind::skipped:
      std::fprintf(stderr, "berth: skipped untrusted setup command: %s (%s)\n", e.subject.c_str(),
                   e.detail.c_str());
      break;
    case Kind::warning:
      print_warning(e.detail);
      break;
    }
  };
}

Result<Output> run_new(const Args& args, const berth::Project& project) {
  berth::NewOptions options;
  options.name = args.name;
  options.base = args.base;
  options.owner = args.owner;
  options.carry = args.carry;
  options.no_pool = args.no_pool;
  options.on_setup = setup_printer(args);
  auto created = BERTH_TRY(berth::create_workspace(project, options));
  // stdout is the path alone, so that `cd "$(berth new x)"` works.
  Output out{created, created.workspace.path + "\n", created.warnings, 0};
  for (const auto& w : created.setup.warnings)
    out.warnings.push_back(w);
  if (created.setup.failed)
    out.warnings.push_back(fmt::format("workspace {} was created, but its set-up failed: {}",
                                       created.workspace.name, created.workspace.setup_error));
  return out;
}

// ---- list -----------------------------------------------------------------------------------

void define_list(CLI::App& app, Args& args) {
  app.add_flag("--all,-a", args.all, "wide format: add branch, head and created columns");
  app.add_flag("--overlaps", args.overlaps,
               "also show which workspaces change the same files, and which would conflict");
}

std::string state_cell(const std::string& state) {
  if (state == "ready") return paint(state, "32");
  if (state == "missing" || state == "removed" || state == "invalid") return paint(state, "31");
  return paint(state, "33");
}

std::string changes_cell(const berth::WorkspaceStatus& s) {
  // No work tree to look at (gone, or not to be trusted): no changes to show.
  if (s.state == "missing" || s.state == "removed" || s.state == "unlinked" || s.state == "invalid")
    return "-";
  if (!s.counted || (s.dirty && s.head.empty())) return "?";
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
  Output out{berth::list_document(all), {}, {}, 0};
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
  for (const auto& s : all)
    if (!s.problem.empty())
      out.warnings.push_back(fmt::format(
          "workspace '{}': {}; `berth doctor --repair` moves it aside (`berth discard {}` too)",
          s.workspace.name, s.problem, s.workspace.name));
  if (args.overlaps) {
    auto overlaps = BERTH_TRY(berth::find_overlaps(project));
    out.json = berth::list_document(all, &overlaps);
    out.text += "\n";
    if (overlaps.empty()) out.text += "no overlaps: no two workspaces change the same file\n";
    for (const auto& o : overlaps) {
      out.text += fmt::format("{} and {} both change {} file(s): {}\n", o.a, o.b, o.paths.size(),
                              o.conflicts ? paint("they conflict", "31")
                                          : paint("they merge cleanly", "32"));
      for (const auto& p : o.paths) {
        bool c = std::find(o.conflict_paths.begin(), o.conflict_paths.end(), p) !=
                 o.conflict_paths.end();
        out.text += fmt::format("    {}{}\n", p, c ? paint(" (conflict)", "31") : "");
      }
    }
  }
  return out;
}

// ---- path / status --------------------------------------------------------------------------

Result<Output> run_path(const Args& args, const berth::Project& project) {
  auto w = BERTH_TRY(berth::open_workspace(project, args.name));
  return Output{berth::path_document(w), w.path + "\n", {}, 0};
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
  if (!s.problem.empty()) line("problem", s.problem);
  line("path", w.path);
  line("branch", s.head_branch.empty() || s.head_branch == w.branch
                     ? w.branch
                     : fmt::format("{} (checked out: {})", w.branch, s.head_branch));
  line("base", w.base);
  line("head", s.head.empty() ? "-" : s.head);
  line("commits", fmt::format("{} ahead of base{}", s.ahead,
                              s.behind ? fmt::format(", {} behind", s.behind) : ""));
  line("changes", s.counted ? fmt::format("{} staged, {} modified, {} untracked, {} conflicted",
                                          s.staged, s.modified, s.untracked, s.conflicted)
                            : std::string("unknown (git cannot look inside; see state)"));
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
  if (!d.ignored_counted && d.ignored_present)
    out.notes.push_back(fmt::format("ignored files (build output) are not saved; `berth restore "
                                    "--list {}` shows how many went",
                                    d.workspace.name));
  else if (d.ignored_files > 0)
    out.warnings.push_back(
        fmt::format("{} ignored file(s), {}, were deleted with it (ignored files are not saved)",
                    d.ignored_files, human_bytes(d.ignored_bytes)));
  return out;
}

void define_restore(CLI::App& app, Args& args) {
  app.add_option("name", args.name, "workspace name (with --list: optional filter)");
  app.add_option("--as", args.as, "restore under another name");
  app.add_option("--from", args.from,
                 "restore from this snapshot ref (one `restore --list` shows) instead of the "
                 "newest");
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
    std::vector<std::vector<std::string>> rows{
        {"NAME", "DISCARDED", "COMMIT", "IGNORED (NOT SAVED)", "REF"}};
    for (const auto& s : snaps) {
      // A snapshot that cannot be restored says why instead (berth doctor reports it too).
      if (s.state != "ok") {
        out.warnings.push_back(fmt::format("{}: {}: {}", s.ref, s.state, s.problem));
        rows.push_back(
            {s.name, age(s.time, now) + " ago", short_sha(s.commit), paint(s.state, "31"), s.ref});
        continue;
      }
      rows.push_back({s.name, age(s.time, now) + " ago", short_sha(s.commit),
                      s.ignored_files < 0
                          ? std::string("-")
                          : fmt::format("{} file(s), {}", s.ignored_files,
                                        human_bytes(static_cast<uint64_t>(s.ignored_bytes))),
                      s.ref});
    }
    out.text = table(rows);
    return out;
  }
  if (args.name.empty())
    return berth::fail(berth::ErrorCode::usage, "restore needs a workspace name",
                       "berth restore NAME, or berth restore --list");
  auto r = BERTH_TRY(berth::restore_workspace(project, args.name, args.as, args.from));
  return Output{r, r.workspace.path + "\n", r.warnings, 0};
}

// ---- diff / commit ---------------------------------------------------------------------------

void define_diff(CLI::App& app, Args& args) {
  add_name(app, args);
  auto* stat = app.add_flag("--stat", args.stat, "a summary: lines added and removed per file");
  app.add_flag("--name-only", args.name_only, "only the names of changed files")->excludes(stat);
  app.add_option("--against", args.against,
                 "diff from where REV and the workspace meet, instead of its base");
}

std::string stat_text(const std::vector<berth::FileChange>& files) {
  std::vector<std::vector<std::string>> rows;
  int64_t adds = 0, dels = 0;
  for (const auto& f : files) {
    std::string path = f.old_path.empty() ? f.path : f.old_path + " => " + f.path;
    if (!f.old_mode.empty() && !f.new_mode.empty() && f.old_mode != f.new_mode)
      path += fmt::format(" (mode {} => {})", f.old_mode, f.new_mode);
    rows.push_back({std::string(1, f.status),
                    f.binary ? "bin" : paint(fmt::format("+{}", f.additions), "32"),
                    f.binary ? "" : paint(fmt::format("-{}", f.deletions), "31"), path});
    adds += f.additions;
    dels += f.deletions;
  }
  std::string text = table(rows);
  text += fmt::format("{} file(s) changed, {} insertion(s), {} deletion(s)\n", files.size(), adds,
                      dels);
  return text;
}

Result<Output> run_diff(const Args& args, const berth::Project& project) {
  berth::DiffOptions options;
  options.format = args.stat        ? berth::DiffFormat::stat
                   : args.name_only ? berth::DiffFormat::name_only
                                    : berth::DiffFormat::patch;
  options.against = args.against;
  auto d = BERTH_TRY(berth::diff_workspace(project, args.name, options));
  // Submodules and nested repositories with work in them: named in every format (their files
  // are not in the diff), so that nothing inside them goes unseen.
  std::vector<std::string> warnings;
  std::string nested_text;
  for (const auto& n : d.nested) {
    std::vector<std::string> what;
    if (n.new_commit) what.push_back("new commits");
    if (n.modified) what.push_back("uncommitted changes");
    if (n.untracked) what.push_back("untracked files");
    std::string says = fmt::format("{} {}: {}", n.submodule ? "submodule" : "nested repository",
                                   n.path, fmt::join(what, ", "));
    nested_text += says + "\n";
    warnings.push_back(says + " (its files are not in this diff)");
  }
  std::string text;
  if (args.stat) {
    text = d.files.empty() ? std::string() : stat_text(d.files);
    text += nested_text;
    warnings.clear();
  } else if (args.name_only) {
    std::set<std::string> named;
    for (const auto& f : d.files) {
      text += f.path + "\n";
      named.insert(f.path);
    }
    for (const auto& n : d.nested)
      if (!named.count(n.path)) text += n.path + "\n";
  } else {
    text = d.patch;
  }
  return Output{d, text, warnings, 0};
}

void define_commit(CLI::App& app, Args& args) {
  add_name(app, args);
  app.add_option("-m,--message", args.message, "the commit message")->required();
}

Result<Output> run_commit(const Args& args, const berth::Project& project) {
  auto c = BERTH_TRY(berth::commit_workspace(project, args.name, args.message.value_or("")));
  Output out{c, {}, {}, 0};
  if (!args.quiet)
    out.text = c.commit.empty() ? fmt::format("nothing to commit in {}\n", c.name)
                                : fmt::format("committed {} file(s) in {} as {}\n", c.files.size(),
                                              c.name, short_sha(c.commit));
  return out;
}

// ---- accept / sync --------------------------------------------------------------------------

void define_accept(CLI::App& app, Args& args) {
  add_name(app, args);
  app.add_option("--strategy,-s", args.strategy,
                 "apply (stage in your checkout), merge, squash, ff or rebase")
      ->check(CLI::IsMember({"apply", "merge", "squash", "ff", "rebase"}));
  app.add_option("--into", args.into, "target branch (default: the branch of the main checkout)");
  app.add_option("-m,--message", args.message, "commit message (merge, squash)");
  app.add_flag("--dry-run,-n", args.dry_run, "say what would happen; change nothing");
  app.add_flag("--keep", args.keep, "keep the workspace after landing");
  app.add_flag("--allow-gitlink", args.allow_gitlink,
               "land nested repositories and unreachable submodule commits as gitlinks anyway");
}

Result<Output> run_accept(const Args& args, const berth::Project& project) {
  berth::AcceptOptions options;
  if (args.strategy) options.strategy = berth::parse_strategy(*args.strategy);
  options.into = args.into;
  options.message = args.message;
  options.dry_run = args.dry_run;
  options.keep = args.keep;
  options.allow_gitlink = args.allow_gitlink;
  auto a = BERTH_TRY(berth::accept_workspace(project, args.name, options));
  Output out{a, {}, a.warnings, 0};
  if (a.empty) {
    out.warnings.clear();
    out.text =
        fmt::format("nothing to accept: workspace '{}' has no change for {}\n", a.name, a.target);
    return out;
  }
  std::string where =
      a.target_worktree.empty() ? a.target : fmt::format("{} ({})", a.target, a.target_worktree);
  if (a.dry_run) {
    out.text = fmt::format("would {} {} file(s) of '{}' into {}:\n",
                           a.strategy == berth::Strategy::apply ? "stage" : "land", a.files.size(),
                           a.name, where) +
               stat_text(a.files);
    return out;
  }
  if (a.strategy == berth::Strategy::apply)
    out.text = fmt::format(
        "staged {} file(s) of '{}' in {}; review with `git diff --cached`, then commit\n",
        a.files.size(), a.name, a.target_worktree);
  else
    out.text = fmt::format("{} {} -> {}: {} file(s) of '{}' landed ({})\n", a.target,
                           short_sha(a.old_commit), short_sha(a.new_commit), a.files.size(), a.name,
                           berth::strategy_name(a.strategy));
  if (a.discarded && a.discarded->snapshot)
    out.text +=
        fmt::format("workspace '{}' discarded (saved as {})\n", a.name, a.discarded->snapshot->ref);
  if (args.quiet) out.text.clear();
  return out;
}

void define_sync(CLI::App& app, Args& args) {
  add_name(app, args);
  app.add_option("--onto", args.onto, "what to bring in (default: the main checkout's branch)");
  app.add_flag("--rebase", args.rebase, "rebase the workspace's commits instead of merging");
}

Result<Output> run_sync(const Args& args, const berth::Project& project) {
  auto s = BERTH_TRY(
      berth::sync_workspace(project, args.name, args.onto,
                            args.rebase ? berth::SyncMode::rebase : berth::SyncMode::merge));
  std::string text =
      s.up_to_date
          ? fmt::format("{} is up to date with {}\n", s.name, short_sha(s.onto))
          : fmt::format("{}: {} -> {}\n", s.name, short_sha(s.old_head), short_sha(s.new_head));
  return Output{s, args.quiet ? std::string() : text, {}, 0};
}

// ---- run / shell ---------------------------------------------------------------------------

void define_run_options(CLI::App& app, Args& args) {
  // One value per --env: a vector option would otherwise swallow NAME, or the `--` before CMD.
  app.add_option("--env,-e", args.env, "set KEY=VALUE in the command's environment (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--timeout", args.timeout,
                 "kill the command's whole process group after SECONDS (exit 124)");
  // A flag that takes its mode only as --sandbox=MODE, so that it never swallows NAME or `--`.
  app.add_flag("--sandbox{landlock}", args.sandbox,
               "confine writes to the workspace: --sandbox (landlock), --sandbox=bwrap or "
               "--sandbox=best-effort");
  app.add_option("--net", args.net, "network in the sandbox: on or off")
      ->check(CLI::IsMember({"on", "off"}));
}

void define_run(CLI::App& app, Args& args) {
  add_name(app, args);
  app.add_option("command", args.command, "the command and its arguments, after --")->required();
  define_run_options(app, args);
  app.add_flag("--ephemeral", args.ephemeral,
               "create NAME first; afterwards remove it if it has no changes, keep it if it has");
}

void define_shell(CLI::App& app, Args& args) {
  add_name(app, args);
  define_run_options(app, args);
}

Result<Output> run_run(const Args& args, const berth::Project& project) {
  berth::RunOptions options;
  options.name = args.name;
  options.command = args.command;
  options.env = args.env;
  options.timeout = args.timeout;
  if (args.sandbox)
    options.sandbox = args.sandbox->empty() ? std::string("landlock") : *args.sandbox;
  options.network = args.net != "off";
  options.ephemeral = args.ephemeral;
  own_signals_and_terminal(options);
  auto r = BERTH_TRY(berth::run_in_workspace(project, options));
  Output out{r, {}, r.warnings, r.exit_status};
  // stdout belongs to the command; berth's own notes go to stderr.
  if (r.timed_out)
    out.warnings.push_back(fmt::format("timed out: stopped the command after {}s", *args.timeout));
  if (args.ephemeral)
    out.notes.push_back(r.kept
                            ? fmt::format("kept workspace {} (it has changes): {}", r.name, r.path)
                            : fmt::format("removed workspace {} (no changes)", r.name));
  return out;
}

Result<Output> run_shell(const Args& args, const berth::Project& project) {
  Args with_shell = args;
  with_shell.command.clear();
  with_shell.ephemeral = false;
  return run_run(with_shell, project);
}

// ---- pool ----------------------------------------------------------------------------------

void define_pool(CLI::App& app, Args& args) {
  app.add_option("action", args.pool_action, "status (default), fill [N] or drain")
      ->check(CLI::IsMember({"status", "fill", "drain"}));
  app.add_option("count", args.count, "with fill: how many ready slots (default: pool.size)");
  app.add_flag("--background", args.background, "(internal) the detached low-priority filler")
      ->group("");
}

Result<Output> run_pool(const Args& args, const berth::Project& project) {
  berth::PoolStatus s;
  if (args.pool_action == "fill" && args.background)
    s = BERTH_TRY(berth::pool_fill_background(project));
  else if (args.pool_action == "fill" && args.count &&
           (*args.count < 0 || *args.count > berth::kMaxPoolSize))
    return berth::fail(berth::ErrorCode::usage,
                       fmt::format("pool fill {}: the count must be from 0 to {}", *args.count,
                                   berth::kMaxPoolSize),
                       "run `berth pool fill N` with N ready slots wanted");
  else if (args.pool_action == "fill")
    s = BERTH_TRY(
        berth::pool_fill(project, args.count.value_or(project.config().get_int("pool.size"))));
  else if (args.pool_action == "drain")
    s = BERTH_TRY(berth::pool_drain(project));
  else
    s = BERTH_TRY(berth::pool_status(project));
  auto ready = std::count_if(s.slots.begin(), s.slots.end(),
                             [](const berth::PoolSlot& slot) { return slot.state == "ready"; });
  std::string text = fmt::format("pool: {} ready of {} (pool.size) in {}\n", ready, s.size, s.dir);
  int64_t now = static_cast<int64_t>(::time(nullptr));
  for (const auto& slot : s.slots)
    text += fmt::format("  {}  {}  {}  {} old\n", slot.id, slot.state, short_sha(slot.commit),
                        age(slot.created, now));
  if (s.trash > 0) text += fmt::format("{} discarded tree(s) waiting to be deleted\n", s.trash);
  return Output{s, args.quiet ? std::string() : text, {}, 0};
}

// ---- watch ---------------------------------------------------------------------------------

void define_watch(CLI::App& app, Args& args) {
  app.add_option("action", args.watch_action, "status (default) or stop")
      ->check(CLI::IsMember({"status", "stop"}));
}

Result<Output> run_watch(const Args& args, const berth::Project& project) {
  bool stopped = args.watch_action == "stop" && berth::watch_stop(project);
  berth::WatchStatus s = berth::watch_status(project);
  nlohmann::json j = berth::watch_document(
      s, args.watch_action == "stop" ? std::optional<bool>(stopped) : std::nullopt);
  std::vector<std::string> warnings;
  if (s.blind > 0)
    warnings.push_back(fmt::format(
        "{} work tree(s) have more folders than inotify lets it watch: they are looked at in "
        "full; raise fs.inotify.max_user_watches (sysctl) to watch them",
        s.blind));
  std::string text =
      s.running
          ? fmt::format("watcher: running (pid {}), following {} work tree(s), {} folder(s)\n",
                        s.pid, s.roots, s.watches)
      : stopped ? "watcher: stopped\n"
                : "watcher: not running (it starts with the next workspace query)\n";
  return Output{j, args.quiet ? std::string() : text, warnings, 0};
}

// ---- doctor ---------------------------------------------------------------------------------

void define_doctor(CLI::App& app, Args& args) {
  app.add_flag("--repair", args.repair,
               "finish or roll back interrupted accepts, remove leftovers");
}

Result<Output> run_doctor(const Args& args, const berth::Project& project) {
  auto r = BERTH_TRY(berth::doctor(project, args.repair ? berth::Repair::yes : berth::Repair::no));
  std::string text;
  for (const auto& x : r.pending)
    text += "pending: " + x + "\n";
  for (const auto& x : r.repaired)
    text += "repaired: " + x + "\n";
  for (const auto& p : r.problems) {
    text += "problem: " + p.message + "\n";
    if (!p.repair.empty()) text += "  fix: " + p.repair + "\n";
  }
  if (r.problems.empty() && r.repaired.empty()) text += "all good\n";
  return Output{r, text, {}, r.problems.empty() ? 0 : 1};
}

// ---- config ---------------------------------------------------------------------------------

Result<Output> run_config(const Args&, const berth::Project& project) {
  std::vector<std::vector<std::string>> rows{{"KEY", "VALUE", "FROM"}};
  for (const auto& key : berth::config_keys()) {
    const auto& entry = project.config().entry(key.name);
    std::string from = std::string(berth::layer_name(entry.source.layer));
    if (entry.source.layer != berth::ConfigSource::Layer::built_in)
      from += " (" + entry.source.where + ")";
    std::string shown = berth::to_string(entry.value);
    if (std::string(key.name) == "workspace_root" && shown.empty())
      shown = "(default) " + project.workspace_root();
    rows.push_back({key.name, shown.empty() ? "\"\"" : shown, from});
  }
  return Output{project.config(), table(rows), {}, 0};
}

// ---- trust ----------------------------------------------------------------------------------

void define_trust(CLI::App& app, Args& args) {
  app.add_flag("--list", args.list, "list every project whose setup commands you trusted");
  app.add_flag("--revoke", args.revoke, "forget your trust in this project's setup commands");
}

Result<Output> run_trust(const Args& args, const berth::Project& project) {
  if (args.list && args.revoke)
    return berth::fail(berth::ErrorCode::usage, "--list and --revoke do not go together");
  if (args.list) {
    auto trusted = BERTH_TRY(berth::list_trust());
    std::string text;
    for (const auto& [dir, hash] : trusted)
      text += fmt::format("{}  {}\n", short_sha(hash), dir);
    return Output{berth::trust_list_document(trusted), text, {}, 0};
  }
  if (args.revoke) {
    auto s = BERTH_TRY(berth::revoke_trust(project));
    return Output{berth::revoke_document(s),
                  s.revoked ? "this project's setup commands are no longer trusted\n"
                            : "this project's setup commands were not trusted: nothing to revoke\n",
                  {},
                  0};
  }
  // Trusting shows exactly what is trusted: the list a later `berth new` will run.
  auto s = BERTH_TRY(berth::trust_project(project));
  std::string text = "trusted these setup commands of .berth.toml:\n";
  for (const auto& c : s.commands)
    text += "  " + c + "\n";
  return Output{s, text, {}, 0};
}

void define_name_only(CLI::App& app, Args& args) {
  add_name(app, args);
}
void define_nothing(CLI::App&, Args&) {}

} // namespace

int watch_hook_main(int argc, char** argv) {
  // git asks with protocol version 2 (berth configures it); anything else: "not supported".
  if (argc < 4 || std::string_view(argv[3]) != "2") return 1;
  const char* common_dir = std::getenv("BERTH_WATCH_DIR");
  char* root = ::realpath(".", nullptr);
  if (!common_dir || !*common_dir || !root) {
    std::free(root);
    return 1;
  }
  auto answer = berth::watch_hook(common_dir, root, argc > 4 ? argv[4] : "");
  std::free(root);
  // Failing makes git look at everything itself: slower, never wrong.
  if (!answer) return 1;
  return std::fwrite(answer->data(), 1, answer->size(), stdout) == answer->size() &&
                 std::fflush(stdout) == 0
             ? 0
             : 1;
}

int watch_serve_main(int argc, char** argv) {
  if (argc < 4) return 2;
  int idle = 1800;
  if (const char* v = std::getenv("BERTH_WATCH_IDLE"); v && std::atoi(v) > 0) idle = std::atoi(v);
  return berth::watch_serve(argv[3], idle) ? 0 : 1;
}

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"new", "create a workspace and print its path", define_new, run_new},
      {"list", "list the workspaces: state, base, commits ahead, changes, owner", define_list,
       run_list},
      {"path", "print a workspace's path (cd \"$(berth path NAME)\")", define_name_only, run_path},
      {"status", "show one workspace in detail", define_name_only, run_status},
      {"run", "run a command in a workspace (-- CMD...); exits with its status", define_run,
       run_run},
      {"shell", "your $SHELL inside a workspace", define_shell, run_shell},
      {"diff", "what a workspace changed: commits, staged, unstaged, untracked", define_diff,
       run_diff},
      {"commit", "record a workspace's uncommitted work as a commit on its branch", define_commit,
       run_commit},
      {"accept", "land a workspace's change on your branch or in your checkout", define_accept,
       run_accept},
      {"sync", "bring the target branch's new commits into a workspace", define_sync, run_sync},
      {"discard", "remove a workspace, keeping a snapshot in the trash", define_discard,
       run_discard},
      {"restore", "bring a discarded workspace back from the trash", define_restore, run_restore},
      {"pool", "the warm pool of ready worktrees: status, fill [N], drain", define_pool, run_pool},
      {"watch", "the watcher that keeps workspace queries fast: status, stop", define_watch,
       run_watch},
      {"doctor", "check berth's records against git and the disk (--repair fixes)", define_doctor,
       run_doctor},
      {"config", "show the effective configuration and where each value came from", define_nothing,
       run_config},
      {"trust", "trust this repository's setup commands (--list, --revoke)", define_trust,
       run_trust},
  };
  return table;
}

} // namespace cli
