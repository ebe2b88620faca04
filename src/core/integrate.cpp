// `berth integrate claude`: register berth as Claude Code's worktree provider by merging its two
// hooks into a Claude Code settings file, or take exactly them out again.
//
// The file is the user's: every other setting stays as it is (key order too), the previous
// content is kept beside it, and a file berth cannot read as a JSON object is left untouched.
// Hook configuration format: https://code.claude.com/docs/en/hooks (Configuration; exec form:
// `command` plus an `args` array, spawned without a shell).
#include "berth/claude.hpp"
#include "core/registry.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/paths.hpp"
#include "util/try.hpp"

#include <cstdlib>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>

namespace berth {
namespace {

using ojson = nlohmann::ordered_json;

struct HookEvent {
  const char* event;
  const char* subcommand;
};
constexpr HookEvent kEvents[] = {{"WorktreeCreate", "worktree-create"},
                                 {"WorktreeRemove", "worktree-remove"}};

// Generous: a worktree from a cold checkout of a large repository plus set-up commands.
constexpr int kTimeoutSeconds = 600;

ojson handler(const char* subcommand) {
  return ojson{{"type", "command"},
               {"command", "berth"},
               {"args", ojson::array({"hook", "claude", subcommand})},
               {"timeout", kTimeoutSeconds}};
}

// Whether a hook handler is berth's for that subcommand: the exec form berth writes (any path to
// a `berth` executable), or the same as one shell command.
bool is_berth_handler(const ojson& h, const char* subcommand) {
  if (!h.is_object()) return false;
  auto command = h.find("command");
  if (command == h.end() || !command->is_string()) return false;
  std::string cmd = command->get<std::string>();
  auto args = h.find("args");
  if (args != h.end())
    return util::basename(cmd) == "berth" && *args == ojson::array({"hook", "claude", subcommand});
  while (!cmd.empty() && (cmd.back() == ' ' || cmd.back() == '\t'))
    cmd.pop_back();
  std::string tail = fmt::format("berth hook claude {}", subcommand);
  if (cmd.size() < tail.size() || cmd.compare(cmd.size() - tail.size(), tail.size(), tail) != 0)
    return false;
  return cmd.size() == tail.size() || cmd[cmd.size() - tail.size() - 1] == '/' ||
         cmd[cmd.size() - tail.size() - 1] == ' ' || cmd[cmd.size() - tail.size() - 1] == '"';
}

std::string describe_handler(const ojson& h) {
  if (!h.is_object()) return h.dump();
  std::string text;
  if (auto c = h.find("command"); c != h.end() && c->is_string()) text = c->get<std::string>();
  if (auto a = h.find("args"); a != h.end() && a->is_array())
    for (const auto& arg : *a)
      text += " " + (arg.is_string() ? arg.get<std::string>() : arg.dump());
  if (auto u = h.find("url"); text.empty() && u != h.end() && u->is_string())
    text = u->get<std::string>();
  return text.empty() ? h.dump() : text;
}

Error invalid(const std::string& path, const std::string& why) {
  return Error{ErrorCode::settings_invalid,
               fmt::format("Claude Code settings {}: {}", path, why),
               "fix the file (it was left untouched), then run `berth integrate claude` again",
               std::nullopt,
               {}};
}

struct Settings {
  std::string path;   ///< as named
  std::string target; ///< the file written (a symlink's target: dotfile managers link it)
  bool existed = false;
  std::string text;
  ojson doc = ojson::object();
  mode_t mode = 0644;
};

Result<Settings> read_settings(const std::string& path) {
  Settings s;
  s.path = s.target = path;
  if (!util::exists(path)) return s;
  if (util::is_symlink(path)) {
    auto real = util::real_path(path);
    if (!real)
      return fail(ErrorCode::io_error,
                  fmt::format("{} is a symlink to a file that does not exist", path),
                  "make the file it points to, or remove the link");
    s.target = *real;
  }
  auto text = util::read_file(s.target);
  if (!text) return fail(ErrorCode::io_error, text.error());
  s.existed = true;
  s.text = *text;
  struct stat st;
  if (::stat(s.target.c_str(), &st) == 0) s.mode = st.st_mode & 07777;
  if (s.text.find_first_not_of(" \t\r\n") == std::string::npos) return s;
  try {
    s.doc = ojson::parse(s.text);
  } catch (const ojson::out_of_range& e) {
    // Valid JSON nlohmann cannot hold (a number past a double's range, 1e400): refused, not an
    // internal error, and never rewritten lossily.
    return tl::unexpected(
        invalid(path, fmt::format("a value berth cannot keep exactly ({})", e.what())));
  } catch (const ojson::parse_error& e) {
    // Where it broke, as an editor shows it.
    size_t line = 1, column = 1;
    for (size_t i = 0; i + 1 < e.byte && i < s.text.size(); ++i, ++column)
      if (s.text[i] == '\n') line++, column = 0;
    return tl::unexpected(
        invalid(path, fmt::format("not valid JSON (line {}, column {})", line, column)));
  }
  if (!s.doc.is_object()) return tl::unexpected(invalid(path, "not a JSON object"));
  if (auto hooks = s.doc.find("hooks"); hooks != s.doc.end()) {
    if (!hooks->is_object()) return tl::unexpected(invalid(path, "\"hooks\" is not an object"));
    for (const auto& e : kEvents)
      if (auto list = hooks->find(e.event); list != hooks->end() && !list->is_array())
        return tl::unexpected(invalid(path, fmt::format("\"hooks.{}\" is not an array", e.event)));
  }
  return s;
}

// Add berth's handler to one event unless it is there: whether the document changed.
bool add_hook(ojson& doc, const HookEvent& e) {
  ojson& list = doc["hooks"][e.event];
  if (list.is_null()) list = ojson::array();
  for (const auto& group : list)
    if (group.is_object() && group.contains("hooks") && group["hooks"].is_array())
      for (const auto& h : group["hooks"])
        if (is_berth_handler(h, e.subcommand)) return false;
  // Worktree events take no matcher: a group with the handler alone.
  list.push_back(ojson{{"hooks", ojson::array({handler(e.subcommand)})}});
  return true;
}

// Take berth's handlers out of one event, and the containers that held only them.
bool remove_hook(ojson& doc, const HookEvent& e) {
  auto hooks = doc.find("hooks");
  if (hooks == doc.end()) return false;
  auto list = hooks->find(e.event);
  if (list == hooks->end()) return false;
  bool changed = false;
  for (auto group = list->begin(); group != list->end();) {
    bool removed = false;
    if (group->is_object() && group->contains("hooks") && (*group)["hooks"].is_array()) {
      ojson& handlers = (*group)["hooks"];
      for (auto h = handlers.begin(); h != handlers.end();)
        if (is_berth_handler(*h, e.subcommand)) {
          h = handlers.erase(h);
          removed = true;
        } else {
          ++h;
        }
      if (removed && handlers.empty()) {
        group = list->erase(group);
        changed = true;
        continue;
      }
    }
    changed = changed || removed;
    ++group;
  }
  if (changed && list->empty()) hooks->erase(e.event);
  if (changed && hooks->empty()) doc.erase("hooks");
  return changed;
}

// The WorktreeCreate handlers of a settings document that are not berth's.
std::vector<std::string> other_create_hooks(const ojson& doc, const std::string& label) {
  std::vector<std::string> others;
  if (!doc.is_object() || !doc.contains("hooks") || !doc["hooks"].is_object()) return others;
  const ojson& hooks = doc["hooks"];
  if (!hooks.contains("WorktreeCreate") || !hooks["WorktreeCreate"].is_array()) return others;
  for (const auto& group : hooks["WorktreeCreate"])
    if (group.is_object() && group.contains("hooks") && group["hooks"].is_array())
      for (const auto& h : group["hooks"])
        if (!is_berth_handler(h, "worktree-create"))
          others.push_back(fmt::format("{}: {}", label, describe_handler(h)));
  return others;
}

std::string user_settings() {
  if (const char* dir = std::getenv("CLAUDE_CONFIG_DIR"); dir && *dir)
    return util::join(dir, "settings.json");
  return util::join(util::home_dir(), ".claude/settings.json");
}

} // namespace

std::string_view scope_name(ClaudeScope scope) {
  switch (scope) {
  case ClaudeScope::user:
    return "user";
  case ClaudeScope::project:
    return "project";
  case ClaudeScope::local:
    return "local";
  }
  return "project";
}

nlohmann::json claude_hooks() {
  ojson hooks = ojson::object();
  for (const auto& e : kEvents)
    hooks[e.event] = ojson::array({ojson{{"hooks", ojson::array({handler(e.subcommand)})}}});
  return nlohmann::json::parse(hooks.dump());
}

Result<Integrated> integrate_claude(const IntegrateOptions& options) {
  Integrated out;
  out.scope = scope_name(options.scope);
  // The settings files Claude Code reads for this place: the one to edit, and the others that
  // may hold a competing WorktreeCreate hook.
  std::string checkout;
  auto project = Project::open({options.dir, options.config_flags});
  if (project)
    checkout = project->current_worktree().empty() ? project->main_worktree()
                                                   : project->current_worktree();
  if (options.scope != ClaudeScope::user) {
    if (!project) return tl::unexpected(project.error());
    if (checkout.empty())
      return fail(ErrorCode::usage,
                  "a bare repository has no checkout to hold .claude/settings.json",
                  "run it in a checkout, or use --user");
  }
  std::vector<std::pair<std::string, std::string>> files{{"user", user_settings()}};
  if (!checkout.empty()) {
    files.emplace_back("project", util::join(checkout, ".claude/settings.json"));
    files.emplace_back("local", util::join(checkout, ".claude/settings.local.json"));
  }
  for (const auto& [label, path] : files)
    if (label == out.scope) out.settings = path;

  Settings s = BERTH_TRY(read_settings(out.settings));
  bool changed = false;
  for (const auto& e : kEvents)
    changed = (options.remove ? remove_hook(s.doc, e) : add_hook(s.doc, e)) || changed;
  out.changed = changed;
  out.action = !changed ? "unchanged" : options.remove ? "removed" : "added";

  // A settings file its owner made read-only is theirs to keep as it is: the atomic write below
  // (a rename over it) would not be stopped by its mode, so berth stops itself.
  if (changed && s.existed && !(s.mode & S_IWUSR))
    return fail(
        ErrorCode::read_only_file,
        fmt::format("{} is read-only (mode {:o}): berth leaves it as it is", s.target, s.mode),
        "make it writable (chmod u+w) if the hooks are to go in, then run this again; "
        "nothing was changed");
  if (changed) {
    if (s.existed) {
      out.backup = s.target + ".berth-backup";
      if (auto kept = util::write_file_atomic(out.backup, s.text); !kept)
        return fail(ErrorCode::io_error, kept.error(), "nothing was changed");
      (void)::chmod(out.backup.c_str(), s.mode);
    }
    if (auto made = util::make_dirs(util::dirname(s.target)); !made)
      return fail(ErrorCode::io_error, made.error(), "nothing was changed");
    std::string text = s.doc.dump(2, ' ', false, ojson::error_handler_t::replace) + "\n";
    if (auto written = util::write_file_atomic(s.target, text); !written)
      return fail(ErrorCode::io_error, written.error(), "nothing was changed");
    (void)::chmod(s.target.c_str(), s.mode);
    // Files berth made inside the checkout stay out of `git status` (.git/info/exclude, never
    // the user's .gitignore): the backup, and a settings.local.json, which is not to be committed.
    if (project && !checkout.empty()) {
      std::vector<std::string> ours;
      if (!out.backup.empty()) ours.push_back(out.backup);
      if (options.scope == ClaudeScope::local && !s.existed) ours.push_back(s.target);
      auto lock = Registry(project->berth_dir()).lock();
      for (const auto& file : ours)
        if (lock && util::is_within(file, checkout) && file != checkout)
          (void)exclude_in_checkouts(*project, file.substr(checkout.size()),
                                     "berth integrate claude");
    }
  }

  // Claude Code runs every WorktreeCreate hook of every settings file, in parallel, and takes one
  // path: a second hook makes a worktree nobody uses (and never removes).
  for (const auto& [label, path] : files) {
    if (path == out.settings) {
      auto others = other_create_hooks(s.doc, path);
      out.other_hooks.insert(out.other_hooks.end(), others.begin(), others.end());
      continue;
    }
    auto other = read_settings(path);
    if (!other) continue; // not berth's file to judge; Claude Code reports it
    auto others = other_create_hooks(other->doc, path);
    out.other_hooks.insert(out.other_hooks.end(), others.begin(), others.end());
  }
  if (!options.remove && !out.other_hooks.empty())
    out.warnings.push_back(fmt::format(
        "{} other WorktreeCreate hook(s) configured ({}): Claude Code runs them all in parallel "
        "and uses one worktree, so the others are orphaned; remove them",
        out.other_hooks.size(), fmt::join(out.other_hooks, "; ")));
  return out;
}

void to_json(nlohmann::json& j, const Integrated& i) {
  j = nlohmann::json{{"agent", i.agent},
                     {"scope", i.scope},
                     {"settings", i.settings},
                     {"action", i.action},
                     {"changed", i.changed},
                     {"backup", i.backup},
                     {"other_hooks", i.other_hooks},
                     {"warnings", i.warnings}};
}

} // namespace berth
