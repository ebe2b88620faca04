#include "core/git.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fmt/format.h>
#include <future>
#include <mutex>
#include <set>
#include <sys/statvfs.h>
#include <thread>
#include <unistd.h>
#include <utility>

namespace berth {
namespace {

// How many GitCallsOwnGroup live.
std::atomic<int> g_own_group_scopes{0};

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
  options.timeout = call.timeout;
  if (!options.timeout && bounded_by_default(call.args)) options.timeout = git_read_timeout();
  // Its own process group when bounded: a timeout kills git and whatever it started (a filter,
  // berth's fsmonitor hook) together. And while an operation stops at safe points on Ctrl-C
  // (GitCallsOwnGroup): the terminal's signal to berth's group must not kill git mid-write.
  // A call that may talk to the terminal stays in berth's group (GitCall::terminal).
  if (options.timeout || (g_own_group_scopes.load() > 0 && !call.terminal))
    options.group = util::ProcessGroup::own;
  // A git berth started dies with berth (kill -9): TERM, so that git removes its lock files
  // (index.lock, ref locks) on the way out instead of leaving them to block the next command.
  options.parent_death_signal = SIGTERM;
  return options;
}

Error timeout_error(const GitCall& call, const util::ProcessResult& result,
                    std::chrono::milliseconds limit) {
  std::vector<std::string> argv{"git"};
  argv.insert(argv.end(), call.args.begin(), call.args.end());
  std::string shown;
  for (const auto& a : argv)
    shown += (shown.empty() ? "" : " ") + a;
  return Error{ErrorCode::git_timeout,
               fmt::format("`{}` did not finish within {} s and was stopped", shown,
                           static_cast<double>(limit.count()) / 1000),
               "a file git reads there may be a FIFO or a device planted by a command: run `berth "
               "doctor` (`--repair` moves such files aside); on a very slow disk raise "
               "BERTH_GIT_TIMEOUT (seconds)",
               GitFailure{std::move(argv), result.status(), result.out, result.err},
               {}};
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

Error lock_error(const std::string& lock, const std::string& what) {
  return Error{ErrorCode::index_lock,
               fmt::format("{}: the lock file {} is in the way", what, lock),
               fmt::format("a git there is at work, or one died: if none runs, `berth doctor "
                           "--repair` removes it (or delete {})",
                           lock),
               std::nullopt,
               {lock}};
}

bool saw_half_made_worktree(const std::string& err) {
  return err.find("failed to read ") != std::string::npos &&
         err.find("/commondir") != std::string::npos;
}

void wait_for_half_made_worktree(int attempt) {
  // A few milliseconds, different for each process, so that racing adds draw apart.
  std::this_thread::sleep_for(std::chrono::milliseconds(5 + (::getpid() * 7 + attempt * 13) % 40));
}

bool ref_hook_refused(const std::string& err) {
  // git 2.39 says "ref updates aborted by hook", later ones "... aborted by the
  // reference-transaction hook".
  return err.find("aborted by hook") != std::string::npos ||
         err.find("aborted by the reference-transaction hook") != std::string::npos;
}

Error git_error(const GitCall& call, const util::ProcessResult& result, std::string message) {
  std::vector<std::string> argv{"git"};
  argv.insert(argv.end(), call.args.begin(), call.args.end());
  if (std::string lock = lock_in_the_way(result.err); !lock.empty()) {
    Error e =
        lock_error(lock, fmt::format("git {} failed", call.args.empty() ? "" : call.args.front()));
    e.git = GitFailure{std::move(argv), result.status(), result.out, result.err};
    return e;
  }
  std::string said = chomp(result.err);
  if (auto nl = said.rfind('\n'); nl != std::string::npos) said = said.substr(nl + 1);
  // What git's status says when git said nothing (killed by a signal, say): never a message that
  // ends in "failed: " and names no reason.
  std::string status = result.signal != 0
                           ? fmt::format("git was killed by signal {}", result.signal)
                           : fmt::format("git exited with status {}", result.exit_code);
  if (message.empty()) {
    message = fmt::format("git {} failed", call.args.empty() ? "" : call.args.front());
    message += ": " + (said.empty() ? status : said);
  } else if (message.size() >= 2 && message.compare(message.size() - 2, 2, ": ") == 0) {
    message += status;
  }
  Error e{ErrorCode::git_failed,
          std::move(message),
          {},
          GitFailure{std::move(argv), result.status(), result.out, result.err},
          {}};
  // A full disk, judged now: once the caller has rolled back what git half wrote, the room is
  // free again. git's "unable to write file" does not say why; the disk it wrote to does.
  auto wrote_to_full_disk = [&] {
    if (result.err.find("unable to write") == std::string::npos) return false;
    for (const auto& a : call.args)
      if (a.rfind("--work-tree=", 0) == 0) return disk_full(a.substr(12));
    return !call.cwd.empty() && disk_full(call.cwd);
  };
  if (ref_hook_refused(result.err)) {
    e.code = ErrorCode::hook_refused;
    if (e.message.find("reference-transaction hook") == std::string::npos)
      e.message += " (your reference-transaction hook refused the ref update)";
    e.hint = "see what your reference-transaction hook checks (core.hooksPath, or hooks/ in the "
             "git dir): it refused one of berth's refs; then run the command again";
  } else if (says_no_space(result.err) || wrote_to_full_disk()) {
    e.code = ErrorCode::no_space;
    e.message = "the disk is full: " + e.message;
    e.hint = "free some space, then run the command again";
  } else if (said.empty() && e.hint.empty()) {
    e.hint = result.signal != 0 ? "something stopped git (a Ctrl-C, the OOM killer?): run the "
                                  "command again"
                                : "git said nothing more: run the command again with "
                                  "GIT_TRACE=1 to see what it did";
  }
  return e;
}

namespace {

// git could not be started at all: the error still names the call, with status 127 (a shell's
// "command not found") and the reason as its stderr, so every git_failed carries a `git` object.
Error not_started(const GitCall& call, const std::string& why) {
  std::vector<std::string> argv{"git"};
  argv.insert(argv.end(), call.args.begin(), call.args.end());
  return Error{ErrorCode::git_failed,
               why,
               "is git (>= 2.38) installed and on PATH?",
               GitFailure{std::move(argv), 127, {}, why + "\n"},
               {}};
}

} // namespace

std::chrono::milliseconds git_read_timeout() {
  static const std::chrono::milliseconds limit = [] {
    const char* env = std::getenv("BERTH_GIT_TIMEOUT");
    char* end = nullptr;
    double seconds = env && *env ? std::strtod(env, &end) : 0;
    if (!env || !*env || *end != '\0' || !(seconds > 0)) seconds = 60;
    return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
  }();
  return limit;
}

bool bounded_by_default(const std::vector<std::string>& args) {
  // Reads of the work tree, the index, HEAD and the reflogs: what a planted FIFO can block.
  static const std::set<std::string> reads{
      "status",        "diff",       "diff-files",   "diff-index",   "diff-tree",    "rev-parse",
      "rev-list",      "ls-files",   "ls-tree",      "cat-file",     "log",          "show",
      "show-ref",      "merge-base", "for-each-ref", "symbolic-ref", "config",       "write-tree",
      "count-objects", "name-rev",   "describe",     "var",          "check-ignore", "check-attr"};
  // Skip git's own options to the subcommand ("-c k=v", "-C dir", "--git-dir=...").
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-c" || a == "-C") {
      ++i;
      continue;
    }
    if (!a.empty() && a[0] == '-') continue;
    if (a == "worktree") return i + 1 < args.size() && args[i + 1] == "list";
    return reads.count(a) != 0;
  }
  return false;
}

namespace {

std::mutex g_prestarted_mutex;
// The live set of PrestartedGits (one at a time: another made meanwhile starts nothing).
PrestartedGits::Set* g_prestarted = nullptr;

bool same_call(const GitCall& a, const GitCall& b) {
  return a.args == b.args && a.cwd == b.cwd && a.env == b.env;
}

} // namespace

struct PrestartedGits::Started {
  GitCall call;
  std::future<Result<util::Child>> child;
  bool taken = false;
};

struct PrestartedGits::Set {
  std::vector<Started> started;
  std::vector<GitCall> later; // (started at the first take)
};

namespace {

// Start `call` on a thread of its own: a Started entry of the set.
PrestartedGits::Started start_ahead(const GitCall& call) {
  return {call, std::async(std::launch::async, [call] { return git_start(call); }), false};
}

// The git started ahead for `call`, if one was and it started.
std::optional<util::Child> take_prestarted(const GitCall& call) {
  std::future<Result<util::Child>> child;
  {
    std::lock_guard<std::mutex> lock(g_prestarted_mutex);
    if (!g_prestarted) return std::nullopt;
    for (auto& p : g_prestarted->started)
      if (!p.taken && same_call(p.call, call)) {
        p.taken = true;
        child = std::move(p.child);
        break;
      }
    if (child.valid())
      for (auto& later : std::exchange(g_prestarted->later, {}))
        g_prestarted->started.push_back(start_ahead(later));
  }
  if (!child.valid()) return std::nullopt;
  auto started = child.get();
  if (!started) return std::nullopt;
  return std::move(*started);
}

} // namespace

Result<util::ProcessResult> git_status_of(const GitCall& call) {
  auto options = spawn_options(call);
  // A git started ahead for this very call (PrestartedGits) answers it: fed, read and waited for
  // within the same time limit as one started now.
  tl::expected<util::ProcessResult, std::string> result;
  if (auto ready = take_prestarted(call)) {
    std::optional<std::chrono::steady_clock::time_point> deadline;
    if (options.timeout) deadline = std::chrono::steady_clock::now() + *options.timeout;
    result = ready->communicate(call.input, {}, deadline, true);
  } else {
    result = util::run(options);
  }
  if (!result) return tl::unexpected(not_started(call, result.error()));
  // A git that hung is never taken for one that answered "no".
  if (result->timed_out) return tl::unexpected(timeout_error(call, *result, *options.timeout));
  return std::move(*result);
}

GitCallsOwnGroup::GitCallsOwnGroup() {
  ++g_own_group_scopes;
}
GitCallsOwnGroup::~GitCallsOwnGroup() {
  --g_own_group_scopes;
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
  if (!child) return tl::unexpected(not_started(call, child.error()));
  return std::move(*child);
}

PrestartedGits::PrestartedGits(const std::vector<GitCall>& calls,
                               const std::vector<GitCall>& later) {
  std::lock_guard<std::mutex> lock(g_prestarted_mutex);
  if (g_prestarted) return;
  set_ = std::make_unique<Set>();
  for (const auto& call : calls)
    set_->started.push_back(start_ahead(call));
  set_->later = later;
  g_prestarted = set_.get();
}

PrestartedGits::~PrestartedGits() {
  if (!set_) return;
  {
    std::lock_guard<std::mutex> lock(g_prestarted_mutex);
    g_prestarted = nullptr;
  }
  // Those not taken: killed and reaped as a Child not waited for is. They were sent nothing and
  // hold nothing; at the end of their input some would act (`update-ref --stdin` commits).
  for (auto& p : set_->started)
    if (p.child.valid()) (void)p.child.get();
}

Result<std::vector<std::string>> GitConversation::ask(const std::string& lines, size_t count) {
  if (!child_)
    if (auto ready = take_prestarted(call_)) child_.emplace(std::move(*ready));
  if (!child_) child_.emplace(BERTH_TRY(git_start(call_)));
  std::vector<std::string> answers;
  bool sent = child_->send(lines);
  while (sent && answers.size() < count) {
    auto line = child_->read_line();
    if (!line) break;
    answers.push_back(std::move(*line));
  }
  return answers;
}

Result<std::vector<std::string>> GitConversation::ask_in_rounds(const std::string& lines) {
  constexpr size_t kRound = 256; // answers of ~41 bytes: far below a pipe's 64 KiB
  std::vector<std::string> answers;
  size_t at = 0;
  while (at < lines.size()) {
    size_t end = at, n = 0;
    while (end < lines.size() && n < kRound) {
      size_t nl = lines.find('\n', end);
      end = nl == std::string::npos ? lines.size() : nl + 1;
      ++n;
    }
    auto got = BERTH_TRY(ask(lines.substr(at, end - at), n));
    bool short_round = got.size() < n;
    answers.insert(answers.end(), std::make_move_iterator(got.begin()),
                   std::make_move_iterator(got.end()));
    if (short_round) break;
    at = end;
  }
  return answers;
}

Result<void> GitConversation::finish() {
  if (!child_) return {};
  auto ended = child_->communicate();
  child_.reset();
  if (!ended) {
    // (Named by its command: the first word that is no option.)
    auto command = std::find_if(call_.args.begin(), call_.args.end(),
                                [](const std::string& a) { return a.rfind('-', 0) != 0; });
    return fail(
        ErrorCode::git_failed,
        fmt::format("git {}: {}", command == call_.args.end() ? "" : *command, ended.error()));
  }
  if (!ended->ok()) return tl::unexpected(git_error(call_, *ended));
  return {};
}

RefTransactions::~RefTransactions() {
  // (Only a git that was sent a transaction is here: at the end of its input it ends. A git
  // started ahead for this and never taken is killed by its PrestartedGits.)
  if (child_) (void)child_->communicate();
}

Result<util::ProcessResult> RefTransactions::send(const std::string& lines) {
  if (!child_)
    if (auto ready = take_prestarted(call_)) child_.emplace(std::move(*ready));
  if (!child_) child_.emplace(BERTH_TRY(git_start(call_)));
  // One write: git never holds a transaction begun waiting for the rest of it.
  bool sent = child_->send("start\n" + lines + "prepare\ncommit\n");
  int answered = 0;
  for (const char* want : {"start: ok", "prepare: ok", "commit: ok"}) {
    auto line = sent ? child_->read_line() : std::nullopt;
    if (line != want) break;
    ++answered;
  }
  if (answered == 3) return util::ProcessResult{0, 0, {}, {}, false};
  auto ended = child_->communicate();
  child_.reset();
  if (!ended) return fail(ErrorCode::git_failed, fmt::format("git update-ref: {}", ended.error()));
  if (ended->ok()) ended->exit_code = 1; // (it stopped answering, yet said it succeeded)
  return std::move(*ended);
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

bool says_no_space(const std::string& text) {
  return text.find("No space left on device") != std::string::npos ||
         text.find("ENOSPC") != std::string::npos;
}

bool disk_full(const std::string& path) {
  struct statvfs fs;
  if (::statvfs(path.c_str(), &fs) != 0) return false;
  return static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize < 1024ULL * 1024ULL;
}

Error blame_full_disk(Error e, const std::string& again) {
  if (e.code != ErrorCode::git_failed && e.code != ErrorCode::io_error) return e;
  if (!says_no_space(e.message) && !(e.git && says_no_space(e.git->err))) return e;
  e.code = ErrorCode::no_space;
  e.message = "the disk is full: " + e.message;
  e.hint = "free some space, then " + again;
  return e;
}

} // namespace berth
