#include "core/shadow.hpp"

#include "core/name.hpp"
#include "core/watch.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/child_process.hpp"
#include "util/paths.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

// Where the installed fsmonitor hook lies from the installed CLI (cmake/install.cmake sets it).
#ifndef BERTH_FSMONITOR_FROM_BINDIR
#define BERTH_FSMONITOR_FROM_BINDIR "../libexec/berth/berth-fsmonitor"
#endif

namespace berth {
namespace {

std::string shadow_dir(const Project& project) {
  return util::join(project.berth_dir(), "shadow");
}

// What identifies one version of the real index: git replaces it by a rename on every write, so
// a new version is a new inode (and mostly a new mtime and size too).
std::string index_key(const Workspace& w, const struct stat& st) {
  return fmt::format("{} {} {} {} {}.{} {}.{}\n{}\n", st.st_dev, st.st_ino, st.st_size,
                     static_cast<unsigned>(st.st_mode), st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                     st.st_ctim.tv_sec, st.st_ctim.tv_nsec, w.git_dir);
}

// berth's own fsmonitor hook (src/hook/fsmonitor.cpp): beside the helper (a build tree), else
// where it is installed relative to it; "" when there is none.
std::string quick_hook(const std::string& helper) {
  auto executable = [](const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
           ::access(path.c_str(), X_OK) == 0;
  };
  std::string dir = util::dirname(helper);
  for (const std::string& path :
       {util::join(dir, "berth-fsmonitor"),
        util::lexically_normal(util::join(dir, BERTH_FSMONITOR_FROM_BINDIR))})
    if (executable(path)) return path;
  return {};
}

// The hook command git runs ("" when there is no helper: then berth does without the watcher).
// berth-fsmonitor when there is one, by its path alone: git then runs it without a shell (it
// runs a command with any of these characters through sh), and its start costs a tenth of
// berth's. Else the helper (this very binary in the CLI) as `berth watch hook`, through sh.
std::string hook_command(const Project& project) {
  if (project.helper().empty()) return {};
  if (std::string quick = quick_hook(project.helper());
      !quick.empty() && quick.find_first_of("|&;<>()$`\\\"' \t\n*?[#~=%") == std::string::npos)
    return quick;
  std::string quoted = "'";
  for (char c : project.helper())
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "' watch hook";
}

} // namespace

Result<void> copy_index(const std::string& from, const std::string& to) {
  // Never a blocking open: the index is in a directory the agent can write, and may be a FIFO.
  int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (in < 0) return fail(ErrorCode::io_error, fmt::format("{}: {}", from, std::strerror(errno)));
  if (struct stat first; ::fstat(in, &first) != 0 || !S_ISREG(first.st_mode)) {
    ::close(in);
    return fail(ErrorCode::hostile_file, fmt::format("{} is not a regular file", from));
  }
  ::fcntl(in, F_SETFL, ::fcntl(in, F_GETFL) & ~O_NONBLOCK);
  std::string tmp = fmt::format("{}.{}.tmp", to, ::getpid());
  int out = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) {
    int e = errno;
    ::close(in);
    return fail(ErrorCode::io_error, fmt::format("{}: {}", tmp, std::strerror(e)));
  }
  struct stat st;
  bool ok = ::fstat(in, &st) == 0;
  // copy_file_range shares blocks where the filesystem can; read/write otherwise.
  for (off_t left = st.st_size; ok && left > 0;) {
    ssize_t n = ::copy_file_range(in, nullptr, out, nullptr, static_cast<size_t>(left), 0);
    if (n > 0) {
      left -= n;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) break;
    char buf[1 << 16];
    ssize_t r;
    while (ok && (r = ::read(in, buf, sizeof buf)) != 0) {
      if (r < 0 && errno == EINTR) continue;
      ok = r > 0 && ::write(out, buf, static_cast<size_t>(r)) == r;
    }
    break;
  }
  struct timespec times[2] = {st.st_atim, st.st_mtim};
  ok = ok && ::futimens(out, times) == 0;
  ok = (::close(out) == 0) && ok;
  ::close(in);
  if (!ok || ::rename(tmp.c_str(), to.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    return fail(ErrorCode::io_error, fmt::format("cannot copy {}: {}", from, std::strerror(e)));
  }
  return {};
}

std::optional<Shadow> open_shadow(const Project& project, const Workspace& w) {
  if (!project.config().get_bool("watch.enabled") || hook_command(project).empty())
    return std::nullopt;
  if (util::exists(util::join(w.path, ".gitmodules"))) return std::nullopt;
  std::string dir = shadow_dir(project);
  if (!util::make_dirs(dir)) return std::nullopt;
  std::string base = util::join(dir, name_slug(w.name));
  // Not "*.lock": that is git's name for its own (O_EXCL) lock files.
  auto lock = util::FileLock::acquire(base + ".guard");
  if (!lock) return std::nullopt;
  std::string real = util::join(w.git_dir, "index");
  struct stat st;
  if (::stat(real.c_str(), &st) != 0) return std::nullopt;
  std::string key = index_key(w, st);
  Shadow shadow{base + ".index", std::move(*lock), key};
  auto known = util::read_file(base + ".key");
  if (known && *known == key && util::exists(shadow.index)) return shadow;
  // The real index changed since (or never seen): start again from a copy of it. The key goes
  // last, so a crash between the two leaves a shadow that is not trusted.
  ::unlink((base + ".key").c_str());
  if (!copy_index(real, shadow.index)) return std::nullopt;
  // The real index may have been replaced while it was copied: then the key would lie.
  struct stat again;
  if (::stat(real.c_str(), &again) != 0 || index_key(w, again) != key) return std::nullopt;
  if (!util::write_file_atomic(base + ".key", key)) return std::nullopt;
  return shadow;
}

namespace {

std::string stat_key(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return "-\n";
  return fmt::format("{} {} {} {}.{}\n", st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec,
                     st.st_mtim.tv_nsec);
}

// The user's global configuration files, as git finds them.
// git's per-user folder: $XDG_CONFIG_HOME/git, else ~/.config/git ("" without either).
std::string git_config_dir() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  if (xdg && *xdg) return util::join(xdg, "git");
  if (home && *home) return util::join(home, ".config/git");
  return {};
}

std::vector<std::string> global_config_files() {
  std::vector<std::string> files;
  const char* global = std::getenv("GIT_CONFIG_GLOBAL");
  const char* home = std::getenv("HOME");
  if (global && *global) {
    files.push_back(global);
  } else {
    if (home && *home) files.push_back(util::join(home, ".gitconfig"));
    if (!git_config_dir().empty()) files.push_back(util::join(git_config_dir(), "config"));
  }
  const char* system = std::getenv("GIT_CONFIG_SYSTEM");
  files.push_back(system && *system ? system : "/etc/gitconfig");
  return files;
}

} // namespace

namespace {

constexpr const char* kCorePathsMagic = "berth-core-paths 1\n";

// What git's answers for core.excludesFile and core.hooksPath depend on: the state of every
// configuration file it reads for the repository (their paths and stat) and what names them; ""
// when configuration comes from the environment.
std::string core_paths_key(const std::vector<std::string>& files) {
  for (const char* var : {"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG"})
    if (const char* v = std::getenv(var); v && *v) return {};
  // (`~` in the value, and git's default, are found from these)
  const char* home = std::getenv("HOME");
  const char* no_system = std::getenv("GIT_CONFIG_NOSYSTEM");
  std::string key = fmt::format("{}{}\n{}\n{}\n", kCorePathsMagic, home ? home : "",
                                git_config_dir(), no_system ? no_system : "");
  for (const auto& file : files)
    key += file + "\n" + stat_key(file);
  return key;
}

// Whether one of `files` includes another (include.path, includeIf): a change there would leave
// their state as it was.
bool includes_another(const std::vector<std::string>& files) {
  for (const auto& file : files)
    if (auto text = util::read_file(file)) {
      std::string lower = *text;
      std::transform(lower.begin(), lower.end(), lower.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (lower.find("include") != std::string::npos) return true;
    }
  return false;
}

// Where the user's global ignore file and hooks are, as git's configuration says
// (core.excludesFile, or git's default; core.hooksPath, "" when not set), `~` expanded. Asked of
// git only when its configuration files changed since the last answer (core_paths_key), which is
// remembered in this process (list asks for every workspace, from several threads) and, when no
// file includes another, in the shadow folder for the next ones: a git process less in every
// discard, list or status.
struct CorePaths {
  std::string excludes_file;
  std::string hooks_path;
};
CorePaths core_paths(const Project& project) {
  static std::mutex mutex;
  static std::map<std::string, std::pair<std::string, CorePaths>> known; // common dir: key, paths
  std::lock_guard<std::mutex> guard(mutex);
  std::vector<std::string> files = global_config_files();
  files.push_back(util::join(project.common_dir(), "config"));
  files.push_back(util::join(project.common_dir(), "config.worktree"));
  std::string key = core_paths_key(files);
  // (a key that cannot be told, or files that include others: asked once per process, as
  // before the memo)
  auto it = known.find(project.common_dir());
  if (it != known.end() && it->second.first == key) return it->second.second;
  bool memo_ok = !key.empty() && !includes_another(files);
  std::string memo = util::join(shadow_dir(project), "core-paths");
  if (auto kept = util::read_file(memo);
      kept && memo_ok && kept->size() > key.size() && kept->compare(0, key.size(), key) == 0) {
    auto fields = split_z(kept->substr(key.size()));
    if (fields.size() == 3 && fields[0].empty()) {
      CorePaths paths{fields[1], fields[2]};
      known[project.common_dir()] = {key, paths};
      return paths;
    }
  }
  CorePaths paths;
  auto r = git_status_of(repo_call(project, {"config", "-z", "--type=path", "--get-regexp",
                                             "^core\\.(excludesfile|hookspath)$"}));
  // "<key>\n<value>" NUL each; the last of a key wins, as git reads it.
  if (r && r->ok())
    for (const auto& record : split_z(r->out)) {
      auto nl = record.find('\n');
      if (nl == std::string::npos) continue;
      std::string name = record.substr(0, nl);
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      (name == "core.excludesfile" ? paths.excludes_file : paths.hooks_path) =
          record.substr(nl + 1);
    }
  if (paths.excludes_file.empty() && !git_config_dir().empty())
    paths.excludes_file = util::join(git_config_dir(), "ignore");
  // git's answer (found, or none: exit 1) under the key taken before it was asked: a change
  // meanwhile is seen by the next process.
  bool answered = r && (r->ok() || (r->signal == 0 && r->exit_code == 1));
  // (a memo: lost with the machine, it is asked again)
  if (answered && memo_ok && util::make_dirs(shadow_dir(project)))
    (void)util::write_file_atomic(
        memo, key + '\0' + paths.excludes_file + '\0' + paths.hooks_path + '\0', util::Fsync::no);
  known[project.common_dir()] = {key, paths};
  return paths;
}

} // namespace

std::string global_excludes(const Project& project) {
  return core_paths(project).excludes_file;
}

std::string hooks_path_setting(const Project& project) {
  return core_paths(project).hooks_path;
}

namespace {

// Everything besides the work tree that a status or the commit counts depend on.
std::string state_key(const Project& project, const Workspace& w, const std::string& index) {
  std::string key = w.path + "\n" + w.base + "\n" + w.synced + "\n" + index;
  auto head = util::read_file(util::join(w.git_dir, "HEAD"));
  key += head ? *head : std::string("-\n");
  if (head && head->rfind("ref: ", 0) == 0) {
    std::string ref = head->substr(5);
    while (!ref.empty() && (ref.back() == '\n' || ref.back() == '\r'))
      ref.pop_back();
    key += stat_key(util::join(project.common_dir(), ref));
  }
  key += stat_key(util::join(project.common_dir(), "packed-refs"));
  // Configuration can change what status says of the same files (core.fileMode, core.autocrlf,
  // attributes).
  key += stat_key(util::join(project.common_dir(), "config"));
  key += stat_key(util::join(w.git_dir, "config.worktree"));
  key += stat_key(util::join(project.common_dir(), "info/attributes"));
  for (const auto& file : global_config_files())
    key += stat_key(file);
  key += stat_key(util::join(project.common_dir(), "info/exclude"));
  key += stat_key(global_excludes(project));
  return key;
}

} // namespace

std::string git_setup_key(const Project& project) {
  // (the git run is the first on PATH, as the runner's posix_spawnp finds it)
  std::string key = stat_key(util::find_in_path("git"));
  key += stat_key(util::join(project.common_dir(), "config"));
  key += stat_key(util::join(project.common_dir(), "info/attributes"));
  // A call on the repository runs in the git dir, which git then takes for the work tree.
  key += stat_key(util::join(project.common_dir(), ".gitattributes"));
  for (const auto& file : global_config_files())
    key += stat_key(file);
  if (!git_config_dir().empty()) key += stat_key(util::join(git_config_dir(), "attributes"));
  return key;
}

namespace {

void put_field(std::string& out, const std::string& field) {
  out += std::to_string(field.size());
  out += '\n';
  out += field;
}

bool get_field(const std::string& in, size_t& pos, std::string& field) {
  size_t nl = in.find('\n', pos);
  if (nl == std::string::npos) return false;
  char* end = nullptr;
  unsigned long long n = std::strtoull(in.c_str() + pos, &end, 10);
  if (end != in.c_str() + nl || n > in.size() - nl - 1) return false;
  field = in.substr(nl + 1, n);
  pos = nl + 1 + n;
  return true;
}

constexpr const char* kVerdictMagic = "berth-verdict 1\n";

} // namespace

namespace {

// The cached verdict (if any) and what the watcher saw change in the tree since its token; with
// `fresh` the token and key to save with a new one (taken now, before the caller looks; left
// empty when the index changed since the shadow was opened, so nothing is saved). Nullopt when
// there is nothing to ask (the index is not the shadow's, the tree is gone, no watcher answer).
struct Since {
  std::optional<Verdict> old;
  bool everything = true;         ///< the watcher cannot name what changed
  std::vector<std::string> paths; ///< else what it saw change (folders with a trailing '/')
};
std::optional<Since> changes_since_verdict(const Project& project, const Workspace& w,
                                           const Shadow& shadow, Verdict& fresh) {
  fresh = Verdict{};
  // The index must still be the one the shadow mirrors: the status about to be taken through
  // the shadow describes that one.
  struct stat st;
  if (::stat(util::join(w.git_dir, "index").c_str(), &st) != 0 || index_key(w, st) != shadow.key)
    return std::nullopt;
  fresh.key = state_key(project, w, shadow.key);
  std::string base = util::join(shadow_dir(project), name_slug(w.name));
  Verdict old;
  auto data = util::read_file(base + ".verdict");
  size_t pos = std::string_view(kVerdictMagic).size();
  bool read = data && data->rfind(kVerdictMagic, 0) == 0 && get_field(*data, pos, old.token) &&
              get_field(*data, pos, old.key) && get_field(*data, pos, old.status) &&
              get_field(*data, pos, old.counts);
  // (optional: a verdict saved by `list` or by an older berth has no capture)
  if (read && !get_field(*data, pos, old.capture)) old.capture.clear();
  auto root = util::real_path(w.path);
  if (!root) return std::nullopt;
  // The watcher's answer since the old token: a new token, then the paths that changed. (A
  // watcher not running is started, as git's hook would start it for the status that follows:
  // the verdict then has a token to be reused by.)
  auto answer = watch_hook(project.common_dir(), *root, read ? old.token : std::string());
  if (!answer) return std::nullopt;
  size_t nul = answer->find('\0');
  if (nul == std::string::npos) return std::nullopt;
  fresh.token = answer->substr(0, nul);
  Since since;
  if (read) since.old = std::move(old);
  since.everything = false;
  for (size_t at = nul + 1; at < answer->size();) {
    size_t end = answer->find('\0', at);
    if (end == std::string::npos) end = answer->size();
    std::string path = answer->substr(at, end - at);
    if (path == "/") since.everything = true;
    if (!path.empty()) since.paths.push_back(std::move(path));
    at = end + 1;
  }
  return since;
}

// Whether `rel` (a path in the tree at `root`) lies in a folder holding a `.git`: a nested
// repository, which status takes as one entry, never file by file. `clean` remembers the
// folders found without one.
bool in_nested_repository(const std::string& root, const std::string& rel,
                          std::set<std::string>& clean) {
  for (size_t slash = rel.find('/'); slash != std::string::npos; slash = rel.find('/', slash + 1)) {
    std::string dir = rel.substr(0, slash);
    if (clean.contains(dir)) continue;
    struct stat st;
    if (::lstat(util::join(root, dir + "/.git").c_str(), &st) == 0) return true;
    clean.insert(std::move(dir));
  }
  return false;
}

} // namespace

std::optional<Verdict> reuse_verdict(const Project& project, const Workspace& w,
                                     const Shadow& shadow, Verdict& fresh) {
  auto since = changes_since_verdict(project, w, shadow, fresh);
  if (since && since->old && !since->everything && since->paths.empty() &&
      since->old->key == fresh.key)
    return std::move(since->old);
  return std::nullopt;
}

std::optional<WatchedLook> look_by_watcher(const Project& project, const Workspace& w,
                                           const Shadow& shadow) {
  Verdict fresh;
  auto since = changes_since_verdict(project, w, shadow, fresh);
  // The same HEAD, branch, index, configuration and ignore files as the verdict's (its key), and
  // paths the watcher can name.
  if (!since || !since->old || since->everything || since->old->key != fresh.key)
    return std::nullopt;
  WatchedLook seen;
  seen.summary = parse_status_v2(since->old->status);
  if (seen.summary.head.empty() || !seen.summary.nested.empty()) return std::nullopt;
  // A folder made, moved or removed (and the marker paths the watcher adds for one), an ignore
  // or attributes file or the tree's `.git` changed, or more paths than a look by path is worth:
  // git's own walk decides.
  constexpr size_t kMaxPaths = 256;
  if (since->paths.size() > kMaxPaths) return std::nullopt;
  std::set<std::string> clean;
  for (const auto& path : since->paths) {
    std::string_view name = path;
    if (auto slash = name.rfind('/'); slash != std::string_view::npos)
      name.remove_prefix(slash + 1);
    if (name.empty() || name == ".berth-watch" || name == ".gitignore" ||
        name == ".gitattributes" || name == ".gitmodules" || path == ".git" ||
        path.rfind(".git/", 0) == 0 || path.find('\n') != std::string::npos ||
        in_nested_repository(w.path, path, clean))
      return std::nullopt;
  }
  seen.since = std::move(since->paths);
  seen.verdict = std::move(*since->old);
  seen.token = std::move(fresh.token);
  return seen;
}

void save_verdict(const Project& project, const Workspace& w, const Verdict& verdict) {
  if (verdict.token.empty()) return;
  std::string out = kVerdictMagic;
  put_field(out, verdict.token);
  put_field(out, verdict.key);
  put_field(out, verdict.status);
  put_field(out, verdict.counts);
  if (!verdict.capture.empty()) put_field(out, verdict.capture);
  std::string base = util::join(shadow_dir(project), name_slug(w.name));
  (void)util::write_file_atomic(base + ".verdict", out);
}

namespace {

// Status and commit counts, taken now; `through` names the shadow to take them through (else a
// read-only query: GIT_OPTIONAL_LOCKS=0 keeps status from taking index.lock under an agent).
// `complete` says whether the counts were taken too (a verdict worth keeping).
std::optional<Verdict> fresh_look(const Project& project, const Workspace& w,
                                  const std::string& through, bool& complete,
                                  Counts counts = Counts::take) {
  GitCall status = workspace_call(w, {"status", "--porcelain=v2", "-z", "--branch",
                                      "--untracked-files=all", "--ignore-submodules=none"});
  status.env["GIT_OPTIONAL_LOCKS"] = "0";
  if (!through.empty()) use_watcher(project, status, through);
  // A look without counts is a discard's (its workspace goes): the shadow is not written back
  // (its new token and untracked cache, 1 MB per 10k files hashed and written, for nobody). A
  // shadow left with its old token stays right: git then asks the watcher since that one.
  if (!through.empty() && counts == Counts::skip) status.env["GIT_OPTIONAL_LOCKS"] = "0";
  auto r = git_status_of(status);
  if (!r || !r->ok()) return std::nullopt;
  Verdict v;
  v.status = r->out;
  complete = counts == Counts::take;
  std::string head = parse_status_v2(v.status).head;
  if (!head.empty() && counts == Counts::take && head == w.base) {
    // Still at its base (an attempt whose work is uncommitted): nothing ahead, nothing behind.
    v.counts = "0\t0\n";
  } else if (!head.empty() && counts == Counts::take) {
    auto counted = git_status_of(
        workspace_call(w, {"rev-list", "--left-right", "--count", w.base + "..." + head}));
    complete = counted && counted->ok();
    if (complete) v.counts = counted->out;
    // Synced: the target's commits it merged in are not the agent's (nor is sync's merge).
    if (complete && !w.synced.empty()) {
      auto own = git_status_of(workspace_call(w, agent_commits_args(w, head)));
      complete = own && own->ok();
      if (complete) {
        auto tab = v.counts.find('\t');
        v.counts = v.counts.substr(0, tab == std::string::npos ? 0 : tab) + "\t" + own->out;
      }
    }
  }
  return v;
}

} // namespace

std::optional<Verdict> look(const Project& project, const Workspace& w, const Shadow& shadow,
                            Counts counts) {
  Verdict fresh;
  if (auto cached = reuse_verdict(project, w, shadow, fresh)) return cached;
  bool complete = false;
  auto seen = fresh_look(project, w, shadow.index, complete, counts);
  if (!seen) return std::nullopt;
  seen->token = fresh.token;
  seen->key = fresh.key;
  if (complete) save_verdict(project, w, *seen);
  return seen;
}

std::optional<Verdict> look_plain(const Project& project, const Workspace& w) {
  bool complete = false;
  return fresh_look(project, w, {}, complete);
}

std::optional<std::string> index_tree(const Project& project, const Workspace& w,
                                      const Shadow& shadow) {
  std::string file = util::join(shadow_dir(project), name_slug(w.name)) + ".tree";
  auto known = util::read_file(file);
  if (known && known->size() > shadow.key.size() &&
      known->compare(0, shadow.key.size(), shadow.key) == 0)
    return known->substr(shadow.key.size());
  // With the watcher configured, as every git call on the shadow: one without it would drop the
  // watcher's token from the shadow and leave the untracked cache to trust folder times.
  GitCall write = workspace_call(w, {"write-tree"});
  use_watcher(project, write, shadow.index);
  auto tree = git_status_of(write);
  if (!tree || !tree->ok()) return std::nullopt;
  std::string oid = chomp(tree->out);
  (void)util::write_file_atomic(file, shadow.key + oid);
  return oid;
}

void discard_shadow(const Project& project, const Workspace& w) {
  std::string base = util::join(shadow_dir(project), name_slug(w.name));
  for (std::string_view suffix : kShadowSuffixes)
    if (suffix != ".guard") ::unlink((base + std::string(suffix)).c_str());
}

void note_birth(const Project& project, const Workspace& w, const TreeBirth& birth) {
  if (birth.token.empty() || birth.commit.empty() || !util::make_dirs(shadow_dir(project))) return;
  nlohmann::json j = {
      {"token", birth.token}, {"commit", birth.commit}, {"setup_paths", birth.setup_paths}};
  if (!birth.tree.empty()) j["tree"] = birth.tree;
  (void)util::write_file_atomic(util::join(shadow_dir(project), name_slug(w.name) + ".birth"),
                                j.dump() + "\n");
}

std::optional<TreeBirth> birth_of(const Project& project, const Workspace& w) {
  auto text = util::read_file(util::join(shadow_dir(project), name_slug(w.name) + ".birth"));
  if (!text) return std::nullopt;
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  TreeBirth birth;
  birth.token = j.value("token", std::string());
  birth.commit = j.value("commit", std::string());
  birth.tree = j.value("tree", std::string());
  auto paths = j.find("setup_paths");
  if (birth.token.empty() || birth.commit.empty() || paths == j.end() || !paths->is_array())
    return std::nullopt;
  for (const auto& path : *paths) {
    if (!path.is_string()) return std::nullopt;
    birth.setup_paths.push_back(path.get<std::string>());
  }
  return birth;
}

bool prime_shadow(const Project& project, const Workspace& w) {
  auto shadow = open_shadow(project, w);
  if (!shadow) return false;
  GitCall status = workspace_call(
      w, {"status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignore-submodules=none"});
  use_watcher(project, status, shadow->index);
  auto r = git_status_of(status);
  if (r && r->ok()) return true;
  discard_shadow(project, w);
  return false;
}

void hand_over_shadow(const Project& project, const Workspace& from, const Workspace& to) {
  std::string dir = shadow_dir(project);
  std::string source = util::join(dir, name_slug(from.name));
  std::string target = util::join(dir, name_slug(to.name));
  auto from_guard = util::FileLock::acquire(source + ".guard");
  auto to_guard = util::FileLock::acquire(target + ".guard");
  auto key = util::read_file(source + ".key");
  struct stat st;
  // Only a shadow of this very index (git_dir and index file unchanged by the rename), whole.
  bool good = from_guard && to_guard && key && from.git_dir == to.git_dir &&
              ::stat(util::join(to.git_dir, "index").c_str(), &st) == 0 &&
              *key == index_key(to, st) && util::exists(source + ".index");
  // What a previous workspace of that name left goes first (discard removes it; a crash may not
  // have); the key last, so a crash half-way leaves a shadow that is not trusted.
  discard_shadow(project, to);
  // The birth holds whatever became of the index: it names the tree (by the watcher's root).
  (void)::rename((source + ".birth").c_str(), (target + ".birth").c_str());
  if (good && ::rename((source + ".index").c_str(), (target + ".index").c_str()) == 0) {
    (void)::rename((source + ".tree").c_str(), (target + ".tree").c_str());
    (void)util::write_file_atomic(target + ".key", *key);
  }
  discard_shadow(project, from);
  ::unlink((source + ".guard").c_str());
}

void use_watcher(const Project& project, GitCall& call, const std::string& index) {
  // After workspace_git_args' "-c core.fsmonitor=false": the later -c wins.
  std::vector<std::string> options{
      "-c", "core.fsmonitor=" + hook_command(project), "-c", "core.fsmonitorHookVersion=2", "-c",
      "core.untrackedCache=true",
      // The untracked cache serves `-uall` only when configured so: berth's status and
      // snapshots always ask with -uall.
      "-c", "status.showUntrackedFiles=all",
      // A split shadow would write shared index files into the workspace's git dir.
      "-c", "core.splitIndex=false"};
  size_t at = 0;
  for (size_t i = 0; i < call.args.size(); ++i)
    if (call.args[i] == "core.fsmonitor=false") at = i + 1;
  call.args.insert(call.args.begin() + static_cast<std::ptrdiff_t>(at), options.begin(),
                   options.end());
  call.env["GIT_INDEX_FILE"] = index;
  call.env["BERTH_WATCH_DIR"] = project.common_dir();
  // (berth-fsmonitor hands anything but a quick answer to `berth watch hook`)
  call.env["BERTH_WATCH_HELPER"] = project.helper();
  call.env["GIT_OPTIONAL_LOCKS"] = std::nullopt;
}

} // namespace berth
