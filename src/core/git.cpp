#include "core/git.hpp"

#include <csignal>
#include <fmt/format.h>

namespace berth {
namespace {

util::SpawnOptions spawn_options(const GitCall& call) {
  util::SpawnOptions options;
  options.argv.reserve(call.args.size() + 1);
  options.argv.push_back("git");
  options.argv.insert(options.argv.end(), call.args.begin(), call.args.end());
  options.cwd = call.cwd;
  // A stable language for parsing, never a prompt for credentials, and none of the variables a
  // hook or an outer git may have exported to point git elsewhere.
  options.env = {{"LC_ALL", "C"},
                 {"LANGUAGE", std::nullopt},
                 {"GIT_TERMINAL_PROMPT", "0"},
                 {"GIT_DIR", std::nullopt},
                 {"GIT_WORK_TREE", std::nullopt},
                 {"GIT_INDEX_FILE", std::nullopt},
                 {"GIT_COMMON_DIR", std::nullopt},
                 {"GIT_OBJECT_DIRECTORY", std::nullopt},
                 {"GIT_ALTERNATE_OBJECT_DIRECTORIES", std::nullopt},
                 {"GIT_PREFIX", std::nullopt},
                 {"GIT_NAMESPACE", std::nullopt}};
  for (const auto& [key, value] : call.env)
    options.env[key] = value;
  options.in = call.input.empty() ? util::Stream::null : util::Stream::pipe;
  options.input = call.input;
  options.err = call.err;
  // A git berth started dies with berth (kill -9): TERM, so that git removes its lock files
  // (index.lock, ref locks) on the way out instead of leaving them to block the next command.
  options.parent_death_signal = SIGTERM;
  return options;
}

} // namespace

namespace {

// git's "Unable to create '/path/index.lock': File exists." names the file on its first line and
// ends with "remove the file manually to continue": the file, or "" when git said no such thing.
std::string lock_in_the_way(const std::string& err) {
  const std::string opening = "Unable to create '";
  auto at = err.find(opening);
  if (at == std::string::npos) return {};
  at += opening.size();
  auto end = err.find("': File exists", at);
  if (end == std::string::npos) return {};
  return err.substr(at, end - at);
}

} // namespace

Error git_error(const GitCall& call, const util::ProcessResult& result, std::string message) {
  std::vector<std::string> argv{"git"};
  argv.insert(argv.end(), call.args.begin(), call.args.end());
  if (std::string lock = lock_in_the_way(result.err); !lock.empty())
    return Error{ErrorCode::index_lock,
                 fmt::format("git {} failed: the lock file {} is in the way",
                             call.args.empty() ? "" : call.args.front(), lock),
                 fmt::format("a git there is at work, or one died: if none runs, `berth doctor "
                             "--repair` removes it (or delete {})",
                             lock),
                 GitFailure{std::move(argv), result.status(), result.out, result.err},
                 {lock}};
  std::string said = chomp(result.err);
  if (auto nl = said.rfind('\n'); nl != std::string::npos) said = said.substr(nl + 1);
  if (message.empty()) {
    message = fmt::format("git {} failed", call.args.empty() ? "" : call.args.front());
    if (!said.empty()) message += ": " + said;
  }
  return Error{ErrorCode::git_failed,
               std::move(message),
               {},
               GitFailure{std::move(argv), result.status(), result.out, result.err},
               {}};
}

Result<util::ProcessResult> git_status_of(const GitCall& call) {
  auto result = util::run(spawn_options(call));
  if (!result)
    return fail(ErrorCode::git_failed, result.error(), "is git (>= 2.38) installed and on PATH?");
  return std::move(*result);
}

Result<util::Child> git_start(const GitCall& call) {
  util::SpawnOptions options = spawn_options(call);
  options.in = util::Stream::pipe;
  options.input.clear();
  // Its own process group: a signal meant for berth's (Ctrl-C, a kill of the group) must not kill
  // it half-way; it sees berth go as the end of its input and finishes cleanly.
  options.group = util::ProcessGroup::own;
  options.parent_death_signal = 0;
  auto child = util::spawn(options);
  if (!child)
    return fail(ErrorCode::git_failed, child.error(), "is git (>= 2.38) installed and on PATH?");
  return std::move(*child);
}

Result<util::ProcessResult> git(const GitCall& call) {
  auto result = BERTH_TRY(git_status_of(call));
  if (!result.ok()) return tl::unexpected(git_error(call, result));
  return result;
}

Result<std::string> git_out(const std::string& cwd, std::vector<std::string> args) {
  auto result = BERTH_TRY(git(GitCall{std::move(args), cwd, {}, {}, util::Stream::pipe}));
  return chomp(std::move(result.out));
}

std::vector<std::string> workspace_git_args(const std::string& git_dir,
                                            const std::string& work_tree) {
  return {"--git-dir=" + git_dir, "--work-tree=" + work_tree, "-c", "core.fsmonitor=false"};
}

std::string chomp(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r'))
    s.pop_back();
  return s;
}

std::string last_line(const std::string& s) {
  std::string text = chomp(s);
  auto nl = text.rfind('\n');
  return nl == std::string::npos ? text : text.substr(nl + 1);
}

std::vector<std::string> split_z(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find('\0', start);
    if (end == std::string::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find('\n', start);
    if (end == std::string::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

} // namespace berth
