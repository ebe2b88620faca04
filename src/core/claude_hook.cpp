// berth as Claude Code's worktree provider: its WorktreeCreate and WorktreeRemove hooks.
//
// Claude Code runs a configured WorktreeCreate hook instead of its own `git worktree add` (for
// `claude --worktree`, subagents with `isolation: worktree` and background sessions), hands it a
// JSON object on stdin and takes the last line of its stdout as the worktree's path; any non-zero
// exit fails the creation. WorktreeRemove gets the `worktree_path` when Claude Code is done with
// it. Input fields: https://code.claude.com/docs/en/hooks (WorktreeCreate, WorktreeRemove).
#include "berth/claude.hpp"
#include "berth/json.hpp"
#include "core/name.hpp"
#include "core/registry.hpp"
#include "util/paths.hpp"
#include "util/try.hpp"

#include <chrono>
#include <fmt/format.h>
#include <thread>

namespace berth {
namespace {

using nlohmann::json;

constexpr std::string_view kCreate = "WorktreeCreate";
constexpr std::string_view kRemove = "WorktreeRemove";
// How long create waits for another berth making (or removing) the same workspace: well within
// the 600 s the hook is given.
constexpr auto kWaitForOther = std::chrono::seconds(300);

Error bad_input(std::string_view event, std::string message) {
  return Error{ErrorCode::invalid_hook_input,
               fmt::format("{} hook input: {}", event, message),
               "Claude Code sends a JSON object on stdin (docs/integrations.md shows one); nothing "
               "was changed",
               std::nullopt,
               {}};
}

// The hook's JSON object; unknown fields are ignored (Claude Code adds fields over time).
Result<json> parse_input(std::string_view event, std::string_view input) {
  json j = json::parse(input, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    return tl::unexpected(bad_input(event, input.find_first_not_of(" \t\r\n") == std::string::npos
                                               ? "stdin is empty, expected a JSON object"
                                               : "stdin is not valid JSON"));
  if (!j.is_object()) return tl::unexpected(bad_input(event, "expected a JSON object"));
  // Fed to the wrong hook (worktree-remove registered for WorktreeCreate, say): refused before
  // anything is made or removed.
  if (auto it = j.find("hook_event_name"); it != j.end()) {
    if (!it->is_string() || it->get<std::string>() != event)
      return tl::unexpected(bad_input(
          event, fmt::format("hook_event_name is {}, expected \"{}\"",
                             it->dump(-1, ' ', false, json::error_handler_t::replace), event)));
  }
  return j;
}

// A string field: absent is nullopt; present but not a string is an error.
Result<std::optional<std::string>> string_field(std::string_view event, const json& j,
                                                std::string_view key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::optional<std::string>{};
  if (!it->is_string())
    return tl::unexpected(bad_input(event, fmt::format("field \"{}\" is not a string", key)));
  return std::optional<std::string>(it->get<std::string>());
}

// Where the hook works: $CLAUDE_PROJECT_DIR (where Claude Code was started), else the input's
// `cwd`.
Result<std::string> anchor_of(std::string_view event, const json& j,
                              const ClaudeHookOptions& options) {
  if (!options.project_dir.empty()) return options.project_dir;
  auto cwd = BERTH_TRY(string_field(event, j, "cwd"));
  if (!cwd || cwd->empty())
    return tl::unexpected(
        bad_input(event, "field \"cwd\" is missing and CLAUDE_PROJECT_DIR is not set"));
  if ((*cwd)[0] != '/')
    return tl::unexpected(bad_input(event, fmt::format("cwd \"{}\" is not absolute", *cwd)));
  return *cwd;
}

// Who made it: the Claude Code session, for `berth list` and the trash.
std::string owner_of(const std::optional<std::string>& session) {
  if (!session || session->empty()) return "claude";
  std::string owner = "claude:" + *session;
  return validate_owner(owner) ? owner : std::string("claude");
}

bool allowed(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

// One part of a name (between slashes) made acceptable: no leading '.' or '-', no trailing '.',
// no "..", no ".lock" ending.
std::string mend_part(std::string part) {
  for (size_t at; (at = part.find("..")) != std::string::npos;)
    part.replace(at, 2, "-");
  size_t start = part.find_first_not_of(".-");
  part = start == std::string::npos ? std::string() : part.substr(start);
  while (!part.empty() && part.back() == '.')
    part.pop_back();
  if (part.size() >= 5 && part.compare(part.size() - 5, 5, ".lock") == 0)
    part.replace(part.size() - 5, 1, "-");
  return part;
}

} // namespace

std::string claude_workspace_name(std::string_view requested) {
  if (!requested.empty() && validate_name(requested)) return std::string(requested);
  // Bytes outside the accepted set become '-', then each part is mended; empty parts go.
  std::vector<std::string> parts;
  std::string current;
  auto flush = [&] {
    if (auto part = mend_part(current); !part.empty()) parts.push_back(std::move(part));
    current.clear();
  };
  for (char c : requested) {
    if (c == '/')
      flush();
    else
      current += allowed(c) ? c : '-';
  }
  flush();
  static constexpr std::string_view kReserved[] = {"refs", "heads", "tags", "remotes", "HEAD"};
  if (!parts.empty())
    for (auto r : kReserved)
      if (parts.front() == r) parts.front() = "claude-" + parts.front();
  std::string base;
  for (const auto& p : parts)
    base += (base.empty() ? "" : "/") + p;
  if (base.empty()) base = "claude";
  // The hash of the original keeps two names that mend alike ("a b", "a:b") apart.
  std::string suffix = fmt::format("-{:08x}", static_cast<uint32_t>(util::fnv1a(requested)));
  if (base.size() + suffix.size() > kMaxNameLength) base.resize(kMaxNameLength - suffix.size());
  // A cut may end a part in '/', '.' or '-': trim, so the suffix joins a proper part.
  while (!base.empty() && (base.back() == '/' || base.back() == '.' || base.back() == '-'))
    base.pop_back();
  std::string name = (base.empty() ? std::string("claude") : base) + suffix;
  if (!validate_name(name)) name = "claude" + suffix; // cannot happen; never fail on a name
  return name;
}

Result<ClaudeWorktree> claude_worktree_create(std::string_view input,
                                              const ClaudeHookOptions& options) {
  // Read and check everything first: a bad input creates nothing.
  json j = BERTH_TRY(parse_input(kCreate, input));
  // The documented field is `name`; `worktree_name`, which another provider reports from some
  // Claude Code builds, is taken when `name` is absent.
  auto requested = BERTH_TRY(string_field(kCreate, j, "name"));
  if (!requested) requested = BERTH_TRY(string_field(kCreate, j, "worktree_name"));
  if (!requested) return tl::unexpected(bad_input(kCreate, "field \"name\" is missing"));
  std::string anchor = BERTH_TRY(anchor_of(kCreate, j, options));
  auto session = BERTH_TRY(string_field(kCreate, j, "session_id"));

  ClaudeWorktree out;
  out.event = kCreate;
  out.requested = *requested;
  out.name = claude_workspace_name(*requested);
  out.owner = owner_of(session);
  Project project = BERTH_TRY(Project::open({anchor, options.config_flags, options.helper_path}));

  // A live workspace of that name is handed over as it is (Claude Code resuming a session, or the
  // same name asked for again); only a name berth has no workspace of is created.
  auto reuse = [&](const Workspace& w) -> Result<ClaudeWorktree> {
    auto real = util::real_path(w.path);
    if (!real) return fail(ErrorCode::io_error, real.error());
    out.outcome = "reused";
    out.owner = w.owner;
    out.workspace = w;
    out.path = *real;
    return out;
  };
  auto live = [&]() -> Result<std::optional<Workspace>> {
    auto w = open_workspace(project, out.name);
    // Being created (or discarded) by another berth that is alive: another hook with the same
    // name, at the same moment. Wait for it, within the hook's own time, and take what it leaves.
    for (auto deadline = std::chrono::steady_clock::now() + kWaitForOther;
         !w && w.error().code == ErrorCode::busy && std::chrono::steady_clock::now() < deadline;
         w = open_workspace(project, out.name))
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!w) {
      if (w.error().code == ErrorCode::not_found) return std::optional<Workspace>{};
      return tl::unexpected(w.error());
    }
    if (!util::is_directory(w->path))
      return fail(ErrorCode::name_taken,
                  fmt::format("workspace '{}' exists but its folder {} is gone", w->name, w->path),
                  fmt::format("`berth discard {}` (its snapshot is kept) or `berth doctor "
                              "--repair`, then try again",
                              w->name));
    return std::optional<Workspace>(*w);
  };
  // A name no workspace has may still be unusable for a new one: its folder is another
  // workspace's (`feat/x` lives in feat-x), a branch berth/NAME is left over, a stray folder
  // sits at its path. Claude Code must still get a worktree: a derived name is tried then,
  // the same one each time, so that asking again finds it.
  Result<Created> created = fail(ErrorCode::internal, "no name tried");
  std::string primary = out.name;
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (attempt > 0)
      out.name = claude_workspace_name(fmt::format("{}#{}", *requested, attempt + 1));
    if (auto found = BERTH_TRY(live())) return reuse(*found);
    NewOptions create;
    create.name = out.name;
    create.owner = out.owner;
    create.on_setup = options.on_setup;
    created = create_workspace(project, create);
    // Two hooks asked for the same name at once: the other one made it; hand that one over.
    if (!created && created.error().code == ErrorCode::name_taken)
      if (auto found = BERTH_TRY(live())) return reuse(*found);
    if (created || (created.error().code != ErrorCode::name_taken &&
                    created.error().code != ErrorCode::branch_exists))
      break;
  }
  if (!created) return tl::unexpected(created.error());
  if (out.name != primary)
    out.warnings.push_back(fmt::format("'{}' could not be used ({}); made workspace '{}' instead",
                                       primary, "its name, branch or folder is taken", out.name));
  auto real = util::real_path(created->workspace.path);
  if (!real) return fail(ErrorCode::io_error, real.error());
  out.outcome = "created";
  out.path = *real;
  out.workspace = created->workspace;
  out.setup = created->setup;
  out.warnings = created->warnings;
  for (const auto& w : created->setup.warnings)
    out.warnings.push_back(w);
  if (created->setup.failed)
    out.warnings.push_back(fmt::format("workspace {} was created, but its set-up failed: {}",
                                       created->workspace.name, created->workspace.setup_error));
  return out;
}

Result<ClaudeWorktree> claude_worktree_remove(std::string_view input,
                                              const ClaudeHookOptions& options) {
  json j = BERTH_TRY(parse_input(kRemove, input));
  auto given = BERTH_TRY(string_field(kRemove, j, "worktree_path"));
  if (!given) return tl::unexpected(bad_input(kRemove, "field \"worktree_path\" is missing"));
  // Present but empty is a caller's bug, not a folder that is gone: say which.
  if (given->empty())
    return tl::unexpected(bad_input(kRemove, "field \"worktree_path\" is empty: expected the "
                                             "absolute path of the worktree to remove"));
  if ((*given)[0] != '/')
    return tl::unexpected(
        bad_input(kRemove, fmt::format("worktree_path \"{}\" is not absolute", *given)));

  ClaudeWorktree out;
  out.event = kRemove;
  out.path = *given;
  // Nothing there: Claude Code, or the user, removed it already. If a berth record (found from
  // the hook's anchor) still names that folder, it is cleaned up the way `berth discard` cleans a
  // missing workspace — its branch's commits kept in the trash — so that no record lingers as
  // "missing". Anything else: nothing to do.
  auto real = util::real_path(*given);
  if (!real || !util::is_directory(*real)) {
    out.outcome = "gone";
    if (util::exists(*given)) return out; // a file, not a folder: never berth's
    auto anchor = anchor_of(kRemove, j, options);
    auto project = anchor ? Project::open({*anchor, options.config_flags, options.helper_path})
                          : Result<Project>(tl::unexpected(anchor.error()));
    if (!project) return out;
    auto records = BERTH_TRY(Registry(project->berth_dir()).load_all());
    std::string wanted = util::lexically_normal(*given);
    for (const auto& w : records) {
      if (util::lexically_normal(w.path) != wanted || util::is_directory(w.path)) continue;
      out.name = w.name;
      auto d = BERTH_TRY(discard_workspace(*project, w.name, Force::no, Trash::yes));
      out.outcome = "discarded";
      out.warnings = d.warnings;
      out.discarded = std::move(d);
      break;
    }
    return out;
  }
  // The project is the one the path belongs to (not CLAUDE_PROJECT_DIR or Claude Code's cwd): a
  // folder outside any repository is not a berth workspace.
  auto project = Project::open({*real, options.config_flags, options.helper_path});
  if (!project) {
    if (project.error().code == ErrorCode::not_a_repository) {
      out.outcome = "not_berth";
      return out;
    }
    return tl::unexpected(project.error());
  }
  // Only a path berth's registry names as a workspace's is discarded: never the user's checkout,
  // another worktree or a folder inside a workspace.
  auto records = BERTH_TRY(Registry(project->berth_dir()).load_all());
  for (const auto& w : records) {
    auto at = util::real_path(w.path);
    if (!at || *at != *real) continue;
    out.name = w.name;
    // Snapshot first, then remove: a workspace with unsaved work is never deleted without it. A
    // busy one (a `berth run` in it) is refused as discard refuses it.
    auto d = BERTH_TRY(discard_workspace(*project, w.name, Force::no, Trash::yes));
    out.outcome = "discarded";
    out.warnings = d.warnings;
    out.discarded = std::move(d);
    return out;
  }
  out.outcome = "not_berth";
  return out;
}

void to_json(nlohmann::json& j, const ClaudeWorktree& w) {
  j = json{{"event", w.event}, {"outcome", w.outcome}, {"path", w.path}, {"name", w.name}};
  if (w.event == kCreate) {
    j["requested"] = w.requested;
    j["owner"] = w.owner;
    j["workspace"] = w.workspace ? json(*w.workspace) : json(nullptr);
    j["setup"] = w.setup ? json(*w.setup) : json(nullptr);
  } else {
    j["discarded"] = w.discarded ? json(*w.discarded) : json(nullptr);
  }
  j["warnings"] = w.warnings;
}

} // namespace berth
