// Accept's record of intent (<common>/berth/intents/<target>.json), written before the first file
// of the user's checkout is, and what brings exactly its paths to one side or the other: the
// landing's undo of a failed write, and `berth doctor --repair`'s finish or roll back of an
// accept that died. accept_steps.hpp declares them.
#include "berth/berth.hpp"
#include "core/accept_steps.hpp"
#include "core/git.hpp"
#include "core/name.hpp"
#include "core/porcelain.hpp"
#include "core/registry.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/dir.hpp"
#include "util/paths.hpp"
#include "util/process_info.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace berth {

// ---- the intent record ------------------------------------------------------------------------

std::string intents_dir(const Project& project) {
  return util::join(project.berth_dir(), "intents");
}

std::string intent_path(const Project& project, const std::string& target) {
  return util::join(intents_dir(project), name_slug(target) + ".json");
}

Result<void> save_intent(const Project& project, const Intent& in) {
  nlohmann::json paths = nlohmann::json::array();
  for (const auto& p : in.paths)
    paths.push_back({{"path", p.path},
                     {"old_mode", p.old_mode},
                     {"old_oid", p.old_oid},
                     {"new_mode", p.new_mode},
                     {"new_oid", p.new_oid}});
  nlohmann::json j = {{"version", 1},
                      {"workspace", in.workspace},
                      {"strategy", in.strategy},
                      {"target", in.target},
                      {"worktree", in.worktree},
                      {"old_commit", in.old_commit},
                      {"new_commit", in.new_commit},
                      {"new_tree", in.new_tree},
                      {"moves_head", in.moves_head},
                      {"time", in.time},
                      {"pid", in.pid},
                      {"pid_start", in.pid_start},
                      {"paths", paths}};
  if (auto made = util::make_dirs(intents_dir(project)); !made)
    return fail(ErrorCode::io_error, made.error());
  if (auto written = util::write_file_atomic(intent_path(project, in.target), j.dump(1) + "\n");
      !written)
    return fail(ErrorCode::io_error, written.error());
  return {};
}

Result<Intent> load_intent(const std::string& file) {
  auto text = util::read_file(file);
  if (!text) return fail(ErrorCode::io_error, text.error());
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded())
    return fail(ErrorCode::io_error, fmt::format("corrupt accept record {}", file));
  try {
    Intent in;
    in.workspace = j.at("workspace");
    in.strategy = j.at("strategy");
    in.target = j.at("target");
    in.worktree = j.at("worktree");
    in.old_commit = j.at("old_commit");
    in.new_commit = j.at("new_commit");
    in.new_tree = j.at("new_tree");
    in.moves_head = j.at("moves_head");
    in.time = j.at("time");
    in.pid = j.at("pid");
    in.pid_start = j.at("pid_start");
    for (const auto& p : j.at("paths"))
      in.paths.push_back(
          {p.at("path"), p.at("old_mode"), p.at("old_oid"), p.at("new_mode"), p.at("new_oid")});
    return in;
  } catch (const nlohmann::json::exception& e) {
    return fail(ErrorCode::io_error, fmt::format("corrupt accept record {}: {}", file, e.what()));
  }
}

std::vector<std::string> intent_files(const Project& project) {
  std::vector<std::string> files;
  for (const auto& e : util::DirEntries(intents_dir(project))) {
    std::string name(e.name);
    if (name.size() > 5 && name.substr(name.size() - 5) == ".json")
      files.push_back(util::join(intents_dir(project), name));
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Another accept into `branch` still running (two agents accepting at once): wait for it — an
// accept takes seconds — so that they land one after the other, the second planned on top of the
// first, instead of the second being refused. Never under the registry lock; after
// kAcceptWaitSeconds the check that follows refuses `busy` as before.
void wait_for_running_accept(const Project& project, const std::string& branch) {
  constexpr int kAcceptWaitSeconds = 30;
  std::string file = intent_path(project, branch);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kAcceptWaitSeconds);
  while (std::chrono::steady_clock::now() < deadline) {
    auto in = load_intent(file); // gone (finished) or unreadable: nothing to wait for
    if (!in || !util::process_alive(in->pid, in->pid_start)) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// An earlier accept into `branch` that has not finished: still running (busy) or interrupted.
Result<void> check_no_accept_pending(const Project& project, const std::string& branch) {
  std::string file = intent_path(project, branch);
  if (!util::exists(file)) return {};
  auto in = load_intent(file);
  if (in && util::process_alive(in->pid, in->pid_start))
    return fail(ErrorCode::busy,
                fmt::format("another accept into {} is running (pid {})", branch, in->pid),
                "wait for it to finish, then accept again");
  return fail(ErrorCode::interrupted,
              fmt::format("an earlier accept into {} was interrupted", branch),
              "run `berth doctor --repair` first");
}

// The content of `path` in `worktree` as a blob id ("" when absent), with the user's filters, the
// way `git add` would store it.
std::string current_oid(const std::string& worktree, const std::string& path) {
  std::string full = util::join(worktree, path);
  struct stat st;
  if (::lstat(full.c_str(), &st) != 0) return {};
  if (S_ISLNK(st.st_mode)) {
    char buf[4096];
    ssize_t n = ::readlink(full.c_str(), buf, sizeof buf);
    if (n < 0) return "?";
    auto r = git_status_of(GitCall{{"hash-object", "--stdin"},
                                   worktree,
                                   {},
                                   std::string(buf, static_cast<size_t>(n)),
                                   util::Stream::pipe});
    return r && r->ok() ? chomp(r->out) : "?";
  }
  if (!S_ISREG(st.st_mode)) return "?";
  auto r = git_status_of(
      GitCall{{"hash-object", "--path=" + path, "--", path}, worktree, {}, {}, util::Stream::pipe});
  return r && r->ok() ? chomp(r->out) : "?";
}

// `git ls-files -s -z` output as path -> blob id (stage 0 and conflict stages alike).
std::map<std::string, std::string> staged_oids(const std::string& listed) {
  std::map<std::string, std::string> staged;
  for (const auto& entry : split_z(listed)) {
    // "<mode> <oid> <stage>\t<path>"
    auto tab = entry.find('\t');
    auto first = entry.find(' ');
    auto second = first == std::string::npos ? first : entry.find(' ', first + 1);
    if (tab == std::string::npos || second == std::string::npos || second > tab) continue;
    staged[entry.substr(tab + 1)] = entry.substr(first + 1, second - first - 1);
  }
  return staged;
}

namespace {

// Whether `path` holds only the beginning of blob `oid`: what a write cut short (a full disk, a
// crash) leaves behind. Such a file is a torn write of ours, not an edit of the user's.
bool cut_short(const std::string& worktree, const std::string& path, const std::string& oid) {
  if (oid.empty()) return false;
  std::string full = util::join(worktree, path);
  struct stat st;
  if (::lstat(full.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  auto blob =
      git_status_of(GitCall{{"cat-file", "blob", oid}, worktree, {}, {}, util::Stream::pipe});
  if (!blob || !blob->ok() || static_cast<size_t>(st.st_size) >= blob->out.size()) return false;
  auto text = util::read_file(full);
  return text && blob->out.compare(0, text->size(), *text) == 0;
}

} // namespace

// Bring exactly `paths` of `worktree` (index and files) to one side of an intent.
//
// A path is left alone (and listed in `left_alone`) when it is the user's now: its file holds
// neither side (edited since), or HEAD is neither of the intent's commits and holds something else
// there than the side we would write (the user committed it since: rolling it back would stage a
// deletion or a revert of their commit). `index_file` (GIT_INDEX_FILE) is the index to bring
// along: "" for the checkout's own; accept's copy while it holds index.lock (IndexGuard).
Result<std::vector<std::string>> settle_paths(const Intent& in, bool forward,
                                              std::vector<std::string>* left_alone,
                                              const std::string& index_file) {
  std::map<std::string, std::optional<std::string>> index_env;
  if (!index_file.empty()) index_env["GIT_INDEX_FILE"] = index_file;
  std::vector<std::string> moved;
  std::string index_info;
  std::vector<std::string> to_write, to_delete;
  std::vector<const PathChange*> kept;
  auto head = git_status_of(
      GitCall{{"rev-parse", "-q", "--verify", "HEAD"}, in.worktree, {}, {}, util::Stream::pipe});
  std::string head_commit = head && head->ok() ? chomp(head->out) : "";
  bool head_is_ours =
      !head_commit.empty() && (head_commit == in.old_commit || head_commit == in.new_commit);
  std::map<std::string, std::string> at_head; // path -> oid, when HEAD is not ours
  if (!head_is_ours && !head_commit.empty()) {
    auto listed = BERTH_TRY(git(GitCall{{"ls-tree", "-r", "-z", "--full-tree", head_commit},
                                        in.worktree,
                                        {},
                                        {},
                                        util::Stream::pipe}));
    for (const auto& entry : split_z(listed.out)) {
      // "<mode> <type> <oid>\t<path>"
      auto tab = entry.find('\t');
      auto last_space = entry.rfind(' ', tab);
      if (tab == std::string::npos || last_space == std::string::npos) continue;
      at_head[entry.substr(tab + 1)] = entry.substr(last_space + 1, tab - last_space - 1);
    }
  }
  for (const auto& p : in.paths) {
    const std::string& want = forward ? p.new_oid : p.old_oid;
    const std::string& want_mode = forward ? p.new_mode : p.old_mode;
    const std::string& other = forward ? p.old_oid : p.new_oid;
    if (!head_is_ours && !head_commit.empty()) {
      auto it = at_head.find(p.path);
      if ((it == at_head.end() ? std::string() : it->second) != want) {
        left_alone->push_back(p.path);
        continue;
      }
    }
    std::string have = current_oid(in.worktree, p.path);
    // git removes a file before it writes the new version: a crash in between leaves the path
    // missing although both sides have it, and a full disk leaves a file cut short. Nothing of the
    // user's is there to lose.
    bool torn = (have.empty() && !p.old_oid.empty() && !p.new_oid.empty()) ||
                (have != want && have != other &&
                 (cut_short(in.worktree, p.path, want) || cut_short(in.worktree, p.path, other)));
    if (have != want && have != other && !torn) {
      // Neither side: the user edited it after the crash. Theirs now; not ours to touch.
      left_alone->push_back(p.path);
      kept.push_back(&p);
      continue;
    }
    if (want.empty())
      index_info += fmt::format("0 {}\t{}", std::string(other.size(), '0'), p.path) + '\0';
    else
      index_info += fmt::format("{} {}\t{}", want_mode, want, p.path) + '\0';
    if (have == want) continue;
    moved.push_back(p.path);
    // A torn file is removed first, so checkout-index writes it afresh.
    if (want.empty() || torn) to_delete.push_back(p.path);
    if (!want.empty()) to_write.push_back(p.path);
  }
  // A file left alone keeps its content, but an index entry still on the other side would make
  // the user's next commit undo that path's change silently: it follows the rest, unless the user
  // staged something of their own there.
  if (!kept.empty()) {
    std::vector<std::string> args{"ls-files", "-s", "-z", "--"};
    for (const auto* p : kept)
      args.push_back(p->path);
    auto env = index_env;
    env["GIT_LITERAL_PATHSPECS"] = "1";
    auto listed = BERTH_TRY(git(GitCall{args, in.worktree, env, {}, util::Stream::pipe}));
    std::map<std::string, std::string> staged = staged_oids(listed.out);
    for (const auto* p : kept) {
      const std::string& want = forward ? p->new_oid : p->old_oid;
      const std::string& other = forward ? p->old_oid : p->new_oid;
      auto it = staged.find(p->path);
      std::string in_index = it == staged.end() ? std::string() : it->second;
      if (in_index != other || in_index == want) continue;
      if (want.empty())
        index_info += fmt::format("0 {}\t{}", std::string(other.size(), '0'), p->path) + '\0';
      else
        index_info +=
            fmt::format("{} {}\t{}", forward ? p->new_mode : p->old_mode, want, p->path) + '\0';
    }
  }
  // Deletions first: on a full disk they make the room the index and the other files need.
  for (const auto& path : to_delete)
    ::unlink(util::join(in.worktree, path).c_str());
  if (!index_info.empty())
    BERTH_TRY(git(GitCall{{"update-index", "-z", "--index-info"},
                          in.worktree,
                          index_env,
                          index_info,
                          util::Stream::pipe}));
  if (!to_write.empty()) {
    std::vector<std::string> args{"checkout-index", "-f", "-q", "--"};
    args.insert(args.end(), to_write.begin(), to_write.end());
    BERTH_TRY(git(GitCall{args, in.worktree, index_env, {}, util::Stream::pipe}));
  }
  return moved;
}

} // namespace berth
