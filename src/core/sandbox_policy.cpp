// The sandbox's paths beyond the workspace. Writable: the project's tool caches, so that
// `npm install` and `pip install` work by default without writing the user's own caches (which
// the user's unconfined builds trust), and what the user allowed (an agent's state in ~/.claude)
// — never git's own dir, hooks or config, which run code as the user. Hidden: where credentials
// live, so that a confined command with the network cannot send them away.
#include "core/sandbox_policy.hpp"

#include "core/git.hpp"
#include "core/workspace_git.hpp"
#include "util/paths.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace berth {
namespace {

// A path as the user means it: ~ expanded, relative to `base`, and symlinks resolved as far as it
// exists (Landlock rules and bind mounts apply to what a path names now; a hidden ~/.ssh that is
// a symlink hides its target).
std::string resolve(const std::string& text, const std::string& base) {
  std::string path = util::absolute(util::expand_home(text), base);
  std::string rest;
  for (std::string head = path;; head = util::dirname(head)) {
    if (auto real = util::real_path(head)) return rest.empty() ? *real : util::join(*real, rest);
    if (head == "/" || head.empty()) return path;
    rest = rest.empty() ? util::basename(head) : util::join(util::basename(head), rest);
  }
}

// The paths a writable one may neither be, lie in nor hold, each with what it is: git runs code
// from all of them (hooks; core.fsmonitor, core.pager, aliases in a config).
Result<std::vector<std::pair<std::string, std::string>>> protected_paths(const Project& project) {
  std::vector<std::pair<std::string, std::string>> paths = {
      {resolve(project.common_dir(), "/"), "the project's git dir"}};
  GitCall hooks{
      {"--git-dir=" + project.common_dir(), "config", "--type=path", "--get", "core.hooksPath"},
      project.common_dir(),
      {},
      {},
      util::Stream::pipe};
  auto hooks_path = BERTH_TRY(git_status_of(hooks));
  if (hooks_path.ok() && !chomp(hooks_path.out).empty())
    paths.emplace_back(resolve(chomp(hooks_path.out),
                               project.bare() ? project.common_dir() : project.main_worktree()),
                       "the project's git hooks (core.hooksPath)");
  // git's own config files beyond the repository's: the same code runs from them.
  const char* global = std::getenv("GIT_CONFIG_GLOBAL");
  if (global && *global) {
    paths.emplace_back(resolve(global, "/"), "git's global config");
  } else {
    paths.emplace_back(resolve("~/.gitconfig", "/"), "git's global config");
    paths.emplace_back(resolve(util::join(util::config_home(), "git"), "/"), "git's global config");
  }
  const char* system = std::getenv("GIT_CONFIG_SYSTEM");
  paths.emplace_back(resolve(system && *system ? system : "/etc/gitconfig", "/"),
                     "git's system config");
  // Every other file git reads its config from for this project (include.path, an includeIf
  // whose condition holds here), and every file an include names whether or not its condition
  // holds here (`includeIf "gitdir:~/work/"` is read in the user's other repositories).
  auto origin_files = [&](std::vector<std::string> args, bool include_targets) -> Result<void> {
    args.insert(args.begin(),
                {"--git-dir=" + project.common_dir(), "config", "-z", "--show-origin"});
    auto listed =
        BERTH_TRY(git_status_of(GitCall{args, project.common_dir(), {}, {}, util::Stream::pipe}));
    if (!listed.ok()) return {};
    auto fields = split_z(listed.out);
    for (size_t i = 0; i + 1 < fields.size(); i += 2) {
      if (fields[i].rfind("file:", 0) != 0) continue; // command line, blob, standard input
      std::string origin = resolve(fields[i].substr(5), project.common_dir());
      if (!include_targets) {
        paths.emplace_back(origin, "a git config file");
        continue;
      }
      auto newline = fields[i + 1].find('\n');
      if (newline == std::string::npos) continue;
      std::string target = fields[i + 1].substr(newline + 1);
      if (!target.empty())
        paths.emplace_back(resolve(target, util::dirname(origin)), "a git config file (included)");
    }
    return {};
  };
  BERTH_TRY(origin_files({"--list"}, false));
  BERTH_TRY(origin_files({"--type=path", "--get-regexp", "^include(if\\..*)?\\.path$"}, true));
  // berth's own: the user's config runs its setup.run without asking, the trust store says
  // which of a repository's commands run; the plain folders' repositories are git dirs.
  paths.emplace_back(resolve(util::join(util::config_home(), "berth"), "/"),
                     "berth's config and trust store");
  paths.emplace_back(resolve(util::join(util::data_home(), "berth/plain"), "/"),
                     "the store of the plain folders' git dirs");
  return paths;
}

bool is_env_name(const std::string& name) {
  return name == ".env" || name.rfind(".env.", 0) == 0;
}

// The main checkout's .env files (ignored or untracked: a tracked one is in every workspace
// anyway), at any depth: inside an ignored directory (config/local/.env) or a wholly untracked
// one too. A pathspec, not --directory: git then lists the files themselves. It still reads
// every untracked directory (node_modules/ included) to match the pattern: 10-30 ms for a
// 5,700-file node_modules on a loaded machine (against 0-10 ms with --directory).
Result<std::vector<std::string>> checkout_env_files(const Project& project) {
  std::vector<std::string> found;
  if (project.bare() || !util::is_directory(project.main_worktree())) return found;
  auto args = workspace_git_args(project.common_dir(), project.main_worktree());
  // --others without --exclude-standard: ignored and unignored untracked files alike.
  for (const char* arg : {"ls-files", "-z", "--others", "--", ":(glob)**/.env", ":(glob)**/.env.*"})
    args.emplace_back(arg);
  auto listed = BERTH_TRY(git(GitCall{args, project.main_worktree(), {}, {}, util::Stream::pipe}));
  for (const auto& path : split_z(listed.out))
    if (!path.empty() && is_env_name(util::basename(path)))
      found.push_back(resolve(path, project.main_worktree()));
  return found;
}

// The copies in the project's other work trees (workspaces, pool slots): set-up copies the
// checkout's .env files into each, and a run must not read another task's. The same relative
// paths, and any .env file at a work tree's top. The running workspace's own are dropped later
// (own_workspace_visible): set-up put them there for it.
Result<std::vector<std::string>>
other_worktree_env_files(const Project& project, const std::vector<std::string>& in_checkout) {
  std::vector<std::string> found;
  if (project.bare() || project.main_worktree().empty()) return found;
  std::string main = resolve(project.main_worktree(), "/");
  std::vector<std::string> relative;
  for (const auto& path : in_checkout)
    if (util::is_within(path, main) && path != main)
      relative.push_back(path.substr(main.size() + (main == "/" ? 0 : 1)));
  for (const auto& entry : BERTH_TRY(worktrees(project))) {
    if (entry.bare) continue;
    auto root = util::real_path(entry.path);
    if (!root || *root == main) continue; // prunable (gone), or the checkout (listed already)
    for (const auto& rel : relative)
      found.push_back(util::join(*root, rel));
    if (DIR* listing = ::opendir(root->c_str())) {
      while (const dirent* e = ::readdir(listing))
        if (is_env_name(e->d_name)) found.push_back(util::join(*root, e->d_name));
      ::closedir(listing);
    }
  }
  return found;
}

// The per-project tool caches: one directory per tool under berth's data dir, named like the
// default workspace root (the project's folder name and a hash of its git dir).
std::string cache_dir_of(const Project& project) {
  return util::join(util::data_home(),
                    fmt::format("berth/cache/{}-{:08x}", project.project_name(),
                                static_cast<uint32_t>(util::fnv1a(project.common_dir()))));
}

std::map<std::string, std::string> cache_environment(const std::string& dir) {
  return {
      {"npm_config_cache", util::join(dir, "npm")},
      // pnpm keeps its store in $PNPM_HOME/store and its cache by XDG_CACHE_HOME. (Not
      // npm_config_store_dir: npm warns "Unknown env config" on every run for it.)
      {"PNPM_HOME", util::join(dir, "pnpm")},
      {"YARN_CACHE_FOLDER", util::join(dir, "yarn/cache")},
      {"YARN_GLOBAL_FOLDER", util::join(dir, "yarn/global")},
      {"PIP_CACHE_DIR", util::join(dir, "pip")},
      {"UV_CACHE_DIR", util::join(dir, "uv")},
      // cargo keeps its registry and git checkouts only beneath CARGO_HOME; the user's
      // config.toml is linked in (make_sandbox_dirs), credentials are not.
      {"CARGO_HOME", util::join(dir, "cargo")},
      // `go install` writes to GOBIN, else GOPATH/bin (default ~/go/bin, read-only): both here,
      // so the user's own GOBIN is not used either.
      {"GOPATH", util::join(dir, "go")},
      {"GOBIN", util::join(dir, "go/bin")},
      {"GOMODCACHE", util::join(dir, "go/mod")},
      {"GOCACHE", util::join(dir, "go/build")},
      {"XDG_CACHE_HOME", util::join(dir, "xdg")},
  };
}

std::string shown(const std::string& path) {
  std::string home = util::home_dir();
  if (home != "/" && util::is_within(path, home))
    return path == home ? "~" : "~/" + path.substr(home.size() + 1);
  return path;
}

} // namespace

const std::vector<std::string>& default_hidden_paths() {
  // Where the usual tools keep what logs in somewhere: keys, tokens, passwords. Not an agent's
  // own state (~/.claude, ~/.codex): the agent must log in to work.
  static const std::vector<std::string> paths = {
      "~/.ssh",                               // ssh keys
      "~/.gnupg",                             // gpg keys and agent
      "~/.aws",                               // AWS credentials
      "~/.azure",                             // Azure CLI tokens
      "~/.config/gcloud",                     // Google Cloud credentials
      "~/.kube",                              // Kubernetes cluster credentials
      "~/.docker/config.json",                // registry logins
      "~/.config/gh",                         // GitHub CLI token
      "~/.config/hub",                        // hub's GitHub token
      "~/.netrc",                             // passwords for curl, git, ftp
      "~/.git-credentials",                   // git credential-store
      "~/.config/git/credentials",            // git credential-store, XDG location
      "~/.npmrc",                             // npm registry tokens
      "~/.yarnrc.yml",                        // yarn registry tokens
      "~/.pypirc",                            // PyPI upload tokens
      "~/.cargo/credentials.toml",            // crates.io token
      "~/.cargo/credentials",                 // crates.io token, older cargo
      "~/.gem/credentials",                   // rubygems API key
      "~/.terraform.d/credentials.tfrc.json", // Terraform Cloud token
      "~/.vault-token",                       // HashiCorp Vault token
      "~/.pgpass",                            // PostgreSQL passwords
      "~/.password-store",                    // pass
      "~/.local/share/keyrings",              // GNOME keyring
  };
  return paths;
}

Result<SandboxPaths> sandbox_paths(const Project& project,
                                   const std::vector<std::string>& allow_write,
                                   const std::vector<std::string>& allow_read) {
  SandboxPaths paths;
  const std::string& cwd = project.cwd();

  // Hidden: the defaults (also under $XDG_CONFIG_HOME where that is elsewhere), the user's
  // sandbox.hidden, the checkout's .env files; less what --allow-read shows.
  std::vector<std::string> hidden;
  auto hide = [&](const std::string& path) {
    for (const auto& known : hidden)
      if (known == path) return;
    hidden.push_back(path);
  };
  for (const auto& path : default_hidden_paths()) {
    hide(resolve(path, "/"));
    if (path.rfind("~/.config/", 0) == 0)
      hide(resolve(util::join(util::config_home(), path.substr(10)), "/"));
  }
  for (const auto& path : project.config().get_list("sandbox.hidden")) {
    std::string expanded = util::expand_home(path);
    if (expanded.empty() || expanded.front() != '/')
      return fail(ErrorCode::config_invalid,
                  fmt::format("sandbox.hidden: '{}' is not an absolute path", path),
                  "write it from / or ~/");
    hide(resolve(expanded, "/"));
  }
  auto env_files = BERTH_TRY(checkout_env_files(project));
  for (const auto& path : env_files)
    hide(path);
  for (const auto& path : BERTH_TRY(other_worktree_env_files(project, env_files)))
    hide(path);

  for (const auto& text : allow_read) {
    std::string path = resolve(text, cwd);
    size_t before = hidden.size();
    std::erase_if(hidden, [&](const std::string& h) { return util::is_within(h, path); });
    if (hidden.size() != before) continue;
    for (const auto& h : hidden)
      if (util::is_within(path, h))
        return fail(ErrorCode::usage,
                    fmt::format("--allow-read {}: it lies inside the hidden {}; a hidden path is "
                                "shown whole or not at all",
                                text, shown(h)),
                    fmt::format("--allow-read {}", shown(h)));
    return fail(ErrorCode::usage, fmt::format("--allow-read {}: nothing hidden is there", text),
                "the sandbox hides the paths docs/sandbox.md lists, sandbox.hidden and the "
                "checkout's .env files; everything else is readable already");
  }
  paths.hidden = std::move(hidden);

  // Writable: what the user allowed, checked against git's files and the hidden ones.
  auto protect = BERTH_TRY(protected_paths(project));
  auto configured = project.config().get_list("sandbox.writable");
  std::vector<std::pair<std::string, std::string>> asked; // (as given, where from)
  asked.reserve(allow_write.size() + configured.size());
  for (const auto& text : allow_write)
    asked.emplace_back(text, "--allow-write");
  for (const auto& text : configured)
    asked.emplace_back(text, "sandbox.writable");
  for (const auto& [text, origin] : asked) {
    std::string expanded = util::expand_home(text);
    if (origin != "--allow-write" && (expanded.empty() || expanded.front() != '/'))
      return fail(ErrorCode::config_invalid,
                  fmt::format("sandbox.writable: '{}' is not an absolute path", text),
                  "write it from / or ~/");
    std::string path = resolve(expanded, cwd);
    for (const auto& [forbidden, what] : protect)
      if (util::is_within(path, forbidden) || util::is_within(forbidden, path))
        return fail(
            ErrorCode::sandbox_path_refused,
            fmt::format("{} {}: {} {} {}", origin, text,
                        path == forbidden                  ? "this is"
                        : util::is_within(path, forbidden) ? "this lies inside"
                                                           : "this holds",
                        what, shown(forbidden)),
            "the sandbox never writes git's or berth's own files (they run code as you); allow a "
            "narrower path");
    for (const auto& h : paths.hidden)
      if (util::is_within(path, h) || util::is_within(h, path))
        return fail(
            ErrorCode::sandbox_path_refused,
            fmt::format("{} {}: it overlaps the hidden {} (credentials)", origin, text, shown(h)),
            fmt::format("allow a narrower path, or show it with --allow-read {}", shown(h)));
    if (!util::exists(path))
      return fail(
          ErrorCode::usage, fmt::format("{} {}: no such file or directory", origin, text),
          fmt::format("create it first: `mkdir -p {0}` for a folder, `touch {0}` for a file "
                      "(an agent's ~/.claude.json is a file)",
                      path));
    paths.writable.push_back(path);
  }

  paths.cache_dir = cache_dir_of(project);
  paths.cache_env = cache_environment(paths.cache_dir);
  paths.stub_dir = util::join(util::data_home(), "berth/sandbox-stub");
  return paths;
}

Result<void> make_sandbox_dirs(const SandboxPaths& paths) {
  for (const auto& [key, dir] : paths.cache_env)
    if (auto made = util::make_dirs(dir, 0700); !made)
      return fail(ErrorCode::io_error, made.error());
  // The user's cargo settings (registry mirrors, linkers) still apply: CARGO_HOME's config is a
  // link to theirs, which stays read-only to the sandbox.
  const char* cargo_home = std::getenv("CARGO_HOME");
  std::string user_cargo = cargo_home && *cargo_home ? cargo_home : util::expand_home("~/.cargo");
  for (const char* name : {"config.toml", "config"}) {
    std::string theirs = util::join(user_cargo, name);
    std::string ours = util::join(paths.cache_env.at("CARGO_HOME"), name);
    if (util::exists(theirs) && !util::exists(ours)) (void)::symlink(theirs.c_str(), ours.c_str());
  }

  // The stubs bwrap mounts over hidden paths: empty, and of mode 000 so that nothing inside
  // (without capabilities) lists or reads them.
  if (auto made = util::make_dirs(paths.stub_dir, 0755); !made)
    return fail(ErrorCode::io_error, made.error());
  std::string dir = util::join(paths.stub_dir, "dir");
  std::string file = util::join(paths.stub_dir, "file");
  if (::mkdir(dir.c_str(), 0) != 0 && errno != EEXIST)
    return fail(ErrorCode::io_error,
                fmt::format("cannot create {}: {}", dir, std::strerror(errno)));
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0);
  if (fd >= 0) ::close(fd);
  struct stat st {};
  if (!util::is_directory(dir) || ::lstat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
      st.st_size != 0 || ::chmod(dir.c_str(), 0) != 0 || ::chmod(file.c_str(), 0) != 0)
    return fail(ErrorCode::io_error,
                fmt::format("the sandbox's stand-ins in {} are not an empty directory and an "
                            "empty file",
                            paths.stub_dir),
                fmt::format("remove {} (berth makes it again)", paths.stub_dir));
  return {};
}

} // namespace berth
