// Workspace set-up: what a fresh checkout lacks compared with the user's own, brought over in the
// order later steps need it (files and hooks, caches, links, submodules, LFS), then the setup
// commands, which may rely on all of it.
//
// Everything copied comes from the user's main checkout and is only read there: set-up never
// writes to the user's tree (the one exception is .git/info/exclude, for a link that the
// project's ignore rules do not cover, as berth does for workspace folders).
#include "core/setup.hpp"

#include "core/lease.hpp"
#include "core/name.hpp"
#include "core/plain.hpp"
#include "core/registry.hpp"
#include "core/shadow.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/copy_tree.hpp"
#include "util/dir.hpp"
#include "util/paths.hpp"
#include "util/temp_dir.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <map>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace berth {

std::string setup_path(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/')
    p.pop_back();
  if (p.empty() || p.front() == '/' || p.front() == '~' || p == ".") return {};
  if (util::lexically_normal("/" + p) != "/" + p) return {}; // "..", "./", "//"
  if (p == ".git" || p.rfind(".git/", 0) == 0) return {};
  return p;
}

std::string include_patterns(const std::string& worktreeinclude,
                             const std::vector<std::string>& setup_copy) {
  std::string text = worktreeinclude;
  if (!text.empty() && text.back() != '\n') text += '\n';
  for (const auto& pattern : setup_copy)
    text += pattern + "\n";
  return text;
}

namespace {

// Trees that name their own absolute path inside them, by the file that marks each: a copy in the
// workspace still points at the user's (a venv's bin/pip and activate run the user's python and
// install into the user's site-packages; a conda env's scripts and prefix records likewise; a
// CMake or Meson build directory builds the user's checkout's sources, not the workspace's).
struct Marker {
  const char* file;
  bool directory;
  const char* what;
};
constexpr Marker kNotRelocatable[] = {
    {"pyvenv.cfg", false, "a Python virtual environment (pyvenv.cfg)"},
    {"conda-meta", true, "a conda environment (conda-meta/)"},
    {"CMakeCache.txt", false, "a CMake build directory (CMakeCache.txt)"},
    {"meson-private", true, "a Meson build directory (meson-private/)"},
};

const Marker* marker_in(const std::string& dir) {
  for (const auto& m : kNotRelocatable) {
    std::string at = util::join(dir, m.file);
    if (m.directory ? util::is_directory(at) : (util::exists(at) && !util::is_directory(at)))
      return &m;
  }
  return nullptr;
}

} // namespace

std::string not_relocatable(const std::string& main, const std::string& rel, std::string* where) {
  // A folder inside one (`.venv/bin`, `.venv/lib`): its scripts name the venv's path all the same.
  for (auto slash = rel.find('/'); slash != std::string::npos; slash = rel.find('/', slash + 1)) {
    std::string folder = rel.substr(0, slash);
    if (const Marker* m = marker_in(util::join(main, folder))) {
      if (where) *where = folder;
      return m->what;
    }
  }
  // The entry itself, then two levels inside it: .tox/py311 and .nox/tests hold venvs one level
  // down, a folder of environments (envs/<name>) two. Deeper is not looked at: a node_modules of
  // thousands of folders must stay cheap to clone.
  std::vector<std::pair<std::string, int>> todo{{rel, 0}};
  for (size_t i = 0; i < todo.size(); ++i) {
    auto [at, depth] = todo[i];
    std::string dir = util::join(main, at);
    if (!util::is_directory(dir)) continue;
    if (const Marker* m = marker_in(dir)) {
      if (where) *where = at;
      return m->what;
    }
    if (depth == 2) continue;
    for (const auto& e : util::DirEntries(dir))
      if (e.type == DT_DIR) todo.emplace_back(util::join(at, std::string(e.name)), depth + 1);
  }
  return {};
}

std::string not_relocatable_advice(const std::string& what) {
  if (what.rfind("a Python", 0) == 0)
    return "create it in each workspace instead, with a setup.run command such as `uv sync` or "
           "`python3 -m venv .venv && .venv/bin/pip install -r requirements.txt`";
  if (what.rfind("a conda", 0) == 0)
    return "create it in each workspace instead, with a setup.run command such as "
           "`conda env create -p ./.conda -f environment.yml`, or share it with setup.link";
  if (what.rfind("a Meson", 0) == 0)
    return "configure a build directory in each workspace instead, with a setup.run command such "
           "as `meson setup build`";
  return "configure a build directory in each workspace instead, with a setup.run command such "
         "as `cmake -B build`";
}

namespace {

using Kind = SetupEvent::Kind;

// One set-up run: the workspace, where its files come from, and what it reports.
struct Setup {
  const Project& project;
  const Workspace& w;
  const SetupListener& listener;
  bool rerun = false; ///< `berth setup`: what the workspace has already is done, not a warning
  std::set<std::string> prepared; ///< clones and links made in its pool slot ahead of time
  SetupReport report;
  /// Trees not relocatable (a venv) already refused, with what each is: said once, whether
  /// setup.copy, .worktreeinclude or setup.clone named them.
  std::map<std::string, std::string> refused;

  // The main checkout, or a plain folder (docs/plain.md): set-up comes from the folder itself.
  const std::string& main() const { return project.setup_source(); }

  void emit(const SetupEvent& event) const {
    if (listener) listener(event);
  }
  void warn(std::string message) {
    emit({Kind::warning, {}, message, 0, 0});
    report.warnings.push_back(std::move(message));
  }

  // In a plain folder, git sees it through its private repository: "ignored" is what its
  // .gitignore files and plain.ignore leave out of the snapshot.
  GitCall main_call(std::vector<std::string> args) const {
    if (project.plain()) return plain_folder_call(project, std::move(args));
    return GitCall{std::move(args), main(), {}, {}, util::Stream::pipe};
  }

  // Of `paths` (relative to the main checkout), those git ignores there. Tracked paths never
  // count: ignore rules do not apply to them.
  Result<std::set<std::string>> ignored_in_main(const std::vector<std::string>& paths) const {
    std::set<std::string> out;
    if (paths.empty()) return out;
    GitCall call = main_call({"check-ignore", "-z", "--stdin"});
    for (const auto& p : paths)
      call.input += p + '\0';
    auto r = BERTH_TRY(git_status_of(call));
    if (r.exit_code > 1) return tl::unexpected(git_error(call, r));
    for (auto& p : split_z(r.out))
      out.insert(std::move(p));
    return out;
  }

  // Copy one thing from the main checkout into the same place in the workspace.
  Result<util::CopyStats> copy(const std::string& rel, bool show_progress) {
    std::string from = util::join(main(), rel), to = util::join(w.path, rel);
    if (auto made = util::make_dirs(util::dirname(to)); !made)
      return fail(ErrorCode::io_error, made.error());
    util::CopyOptions options;
    if (show_progress)
      options.progress = [&](uint64_t bytes) { emit({Kind::progress, rel, {}, bytes, 0}); };
    auto copied = util::copy_tree(from, to, options);
    if (!copied) {
      // Half a cache is worse than none: a build would trust it.
      (void)util::remove_tree(to);
      return fail(ErrorCode::io_error, copied.error());
    }
    return *copied;
  }

  void record_copy(const std::string& rel, const char* kind, const util::CopyStats& stats) {
    std::string method(
        util::copy_method_name(stats.any_file ? stats.method : util::CopyMethod::copy));
    report.copies.push_back({rel, kind, method, stats.files, stats.bytes});
    emit({Kind::copied, rel, method, stats.bytes, 0, stats.files});
  }

  using Entries = std::vector<std::pair<std::string, std::vector<std::string>>>;

  // Files (relative paths) grouped by folder, each entry with its files: a folder holding several
  // of them is one entry ("config/"), a file alone in its folder is its own
  // ("config/local.yaml"). In order.
  static Entries by_folder(const std::vector<std::string>& files) {
    std::map<std::string, std::vector<std::string>> in_folder;
    for (const auto& f : files)
      in_folder[util::dirname("/" + f)].push_back(f);
    Entries entries;
    std::set<std::string> seen;
    for (const auto& f : files) {
      std::string folder = util::dirname("/" + f);
      bool grouped = folder != "/" && in_folder[folder].size() > 1;
      std::string entry = grouped ? folder.substr(1) + "/" : f;
      if (seen.insert(entry).second)
        entries.emplace_back(entry, grouped ? in_folder[folder] : std::vector<std::string>{f});
    }
    return entries;
  }

  // The entries copied files are reported and recorded under: files beneath a folder git ignores
  // as a whole in the main checkout are one entry, their deepest common folder there
  // ("node_modules/": one line for its thousands of files in hundreds of folders;
  // "node_modules/.bin/" when only those were named; a single file is its own); the others as
  // by_folder groups them.
  Result<Entries> entries_of(const std::vector<std::string>& files) const {
    std::set<std::string> folders;
    for (const auto& f : files)
      for (auto slash = f.find('/'); slash != std::string::npos; slash = f.find('/', slash + 1))
        folders.insert(f.substr(0, slash));
    auto ignored = BERTH_TRY(ignored_in_main({folders.begin(), folders.end()}));
    std::map<std::string, std::vector<std::string>> under; // the top ignored folder's files
    std::vector<std::string> rest;
    for (const auto& f : files) {
      std::string top;
      for (auto slash = f.find('/'); slash != std::string::npos && top.empty();
           slash = f.find('/', slash + 1))
        if (ignored.count(f.substr(0, slash))) top = f.substr(0, slash);
      (top.empty() ? rest : under[top]).push_back(f);
    }
    Entries entries = by_folder(rest);
    for (auto& [top, group] : under) {
      // The deepest folder holding all of the group's files ("a/b/" of a/b/x and a/b/c/y).
      std::string common = util::dirname("/" + group.front()).substr(1) + "/";
      for (const auto& f : group)
        while (f.compare(0, common.size(), common) != 0) {
          common.pop_back();
          common.erase(common.rfind('/') + 1);
        }
      entries.emplace_back(group.size() == 1 ? group.front() : common, std::move(group));
    }
    return entries;
  }

  // Copy each file, reported one line per entry (entries_of): the slowest method any file
  // needed, the files and bytes summed.
  Result<void> copy_grouped(const std::vector<std::string>& files, const char* kind) {
    for (const auto& [entry, group] : BERTH_TRY(entries_of(files))) {
      util::CopyStats sum;
      for (const auto& rel : group) {
        auto one = BERTH_TRY(copy(rel, false));
        if (one.any_file && (!sum.any_file || one.method > sum.method)) sum.method = one.method;
        sum.any_file = sum.any_file || one.any_file;
        sum.files += one.files;
        sum.bytes += one.bytes;
      }
      record_copy(entry, kind, sum);
    }
    return {};
  }

  Result<void> included_files();
  Result<void> hooks();
  Result<void> clones();
  Result<void> links();
  Result<void> submodules();
  Result<void> lfs();
  Result<void> commands();
};

// Ignored files the project names (.worktreeinclude, setup.copy): .env and the like. Only files
// that are both named and ignored are copied — the convention other worktree tools follow, so a
// project's .worktreeinclude means the same everywhere: tracked files come with the checkout
// anyway, and untracked-but-not-ignored ones are the user's work in progress, not set-up.
Result<void> Setup::included_files() {
  std::string file = util::join(main(), ".worktreeinclude");
  std::string worktreeinclude = util::is_symlink(file) ? "" : util::read_file(file).value_or("");
  std::string patterns = include_patterns(worktreeinclude, project.config().get_list("setup.copy"));
  if (patterns.find_first_not_of(" \t\r\n") == std::string::npos) return {};

  auto dir = util::TempDir::create("berth-include-");
  if (!dir) return fail(ErrorCode::io_error, dir.error());
  std::string list = util::join(dir->path(), "patterns");
  if (auto written = util::write_file_atomic(list, patterns); !written)
    return fail(ErrorCode::io_error, written.error());
  // Untracked files matching the patterns (ls-files applies them like an ignore file), then of
  // those, the ones the project's own ignore rules ignore.
  auto named = BERTH_TRY(
      git(main_call({"ls-files", "-z", "--others", "--ignored", "--exclude-from=" + list})));
  std::vector<std::string> candidates;
  for (auto& p : split_z(named.out)) {
    while (!p.empty() && p.back() == '/') // a nested repository is listed as a folder
      p.pop_back();
    if (!p.empty()) candidates.push_back(std::move(p));
  }
  auto ignored = BERTH_TRY(ignored_in_main(candidates));
  // A folder that is not relocatable (a venv named by `.venv/` or `.venv/**`): refused once.
  auto inside_refused = [&](const std::string& rel) -> bool {
    for (auto slash = rel.find('/'); slash != std::string::npos; slash = rel.find('/', slash + 1)) {
      std::string folder = rel.substr(0, slash);
      if (refused.count(folder)) return true;
      if (const Marker* m = marker_in(util::join(main(), folder))) {
        refused[folder] = m->what;
        warn(fmt::format("{}/ not copied: it is {}, which is not relocatable (a copy keeps "
                         "pointing at your checkout's); {}",
                         folder, m->what, not_relocatable_advice(m->what)));
        return true;
      }
    }
    return false;
  };
  std::vector<std::string> copied, unignored;
  for (const auto& rel : candidates) {
    if (!ignored.count(rel)) {
      // Named, but git does not ignore it: the user's work in progress, never set-up. Said, so
      // that a .worktreeinclude entry that never copies anything is not a mystery.
      unignored.push_back(rel);
      continue;
    }
    if (inside_refused(rel)) continue;
    if (util::exists(util::join(w.path, rel))) {
      if (!rerun) warn(fmt::format("{} not copied: the workspace already has it", rel));
      continue;
    }
    copied.push_back(rel);
  }
  for (const auto& [entry, files] : by_folder(unignored))
    warn(fmt::format("{} not copied: named by .worktreeinclude or setup.copy, but git does not "
                     "ignore {} (only ignored files are copied: add {} to .gitignore if it is "
                     "generated)",
                     entry, files.size() == 1 ? "it" : fmt::format("its {} files", files.size()),
                     entry));
  // One line per folder, not one per file (husky's .husky/_ holds a dozen hooks).
  return copy_grouped(copied, "include");
}

// A relative core.hooksPath (husky: .husky/_) is resolved in each worktree, and the hooks there
// are often generated and ignored: the checkout lacks them and every hook silently stops firing.
// The ignored files of that folder come from the main checkout, as the user has them.
Result<void> Setup::hooks() {
  auto configured =
      BERTH_TRY(git_status_of(workspace_call(w, {"config", "--get", "core.hooksPath"})));
  if (!configured.ok()) return {};
  std::string rel = setup_path(chomp(configured.out));
  if (rel.empty() || !util::is_directory(util::join(main(), rel))) return {};
  auto listed = BERTH_TRY(git(main_call({"ls-files", "-z", "--others", "--ignored",
                                         "--exclude-standard", "--", ":(literal)" + rel})));
  std::vector<std::string> files;
  for (const auto& path : split_z(listed.out))
    if (!path.empty() && path.back() != '/' && !util::exists(util::join(w.path, path)))
      files.push_back(path);
  return copy_grouped(files, "hooks");
}

// The (ignored) paths of a setup.clone or setup.link list that exist in the main checkout.
Result<std::vector<std::string>> cache_paths(Setup& s, const char* key) {
  std::vector<std::string> wanted;
  for (const auto& raw : s.project.config().get_list(key)) {
    std::string rel = setup_path(raw);
    if (rel.empty()) {
      s.warn(fmt::format("{}: '{}' ignored: name a folder inside the project", key, raw));
      continue;
    }
    // Nothing there yet (the cache was never built): nothing to bring.
    if (util::exists(util::join(s.main(), rel))) wanted.push_back(rel);
  }
  auto ignored = BERTH_TRY(s.ignored_in_main(wanted));
  std::vector<std::string> out;
  for (const auto& rel : wanted) {
    if (!ignored.count(rel)) {
      // A tracked or untracked-not-ignored path is the project's content or the user's work, not a
      // cache: copying it would make the new workspace look changed.
      s.warn(fmt::format("{}: '{}' skipped: git does not ignore it", key, rel));
      continue;
    }
    if (s.prepared.count(rel) &&
        (util::exists(util::join(s.w.path, rel)) || util::is_symlink(util::join(s.w.path, rel)))) {
      // Made in the pool slot this workspace came from, with today's inputs: done.
      std::string_view kind(key);
      s.report.copies.push_back({rel, kind == "setup.clone" ? "clone" : "link", "pool", 0, 0});
      s.emit({Kind::copied, rel, "pool", 0, 0, 0});
      continue;
    }
    if (util::exists(util::join(s.w.path, rel)) || util::is_symlink(util::join(s.w.path, rel))) {
      if (!s.rerun) s.warn(fmt::format("{}: '{}' skipped: the workspace already has it", key, rel));
      continue;
    }
    // A copy of a venv (or a conda env, a CMake build dir) is the user's in disguise: its pip
    // installs into the user's site-packages. A link shares it on purpose and is left alone.
    std::string where;
    if (std::string what = not_relocatable(s.main(), rel, &where);
        !what.empty() && std::string_view(key) == "setup.clone") {
      if (!s.refused.emplace(where, what).second) continue; // (said already: setup.copy named it)
      s.warn(fmt::format("setup.clone: '{}' not copied: {} is {}, which is not relocatable (the "
                         "copy keeps pointing at your checkout's, and installs there would change "
                         "yours); {}",
                         rel, where == rel ? "it" : "'" + where + "'", what,
                         not_relocatable_advice(what)));
      continue;
    }
    out.push_back(rel);
  }
  return out;
}

// Caches (node_modules, target) are copied, copy-on-write where the filesystem can: the
// workspace gets its own, which it may rebuild or break without touching the user's.
Result<void> Setup::clones() {
  for (const auto& rel : BERTH_TRY(cache_paths(*this, "setup.clone"))) {
    auto copied = copy(rel, true);
    if (!copied) {
      warn(fmt::format("setup.clone: '{}' not copied: {}", rel, copied.error().message));
      continue;
    }
    record_copy(rel, "clone", *copied);
  }
  return {};
}

// Shared caches are symlinked to the main checkout's. A pattern like "node_modules/" matches
// folders only, not a symlink of that name: when the project's rules do not cover the link, it is
// added to .git/info/exclude so that the workspace does not look changed.
Result<void> Setup::links() {
  std::vector<std::string> linked;
  for (const auto& rel : BERTH_TRY(cache_paths(*this, "setup.link"))) {
    std::string to = util::join(w.path, rel);
    if (auto made = util::make_dirs(util::dirname(to)); !made)
      return fail(ErrorCode::io_error, made.error());
    if (::symlink(util::join(main(), rel).c_str(), to.c_str()) != 0)
      return fail(ErrorCode::io_error,
                  fmt::format("cannot create the link {}: {}", to, std::strerror(errno)));
    report.copies.push_back({rel, "link", "symlink", 0, 0});
    emit({Kind::linked, rel, util::join(main(), rel), 0, 0});
    linked.push_back(rel);
  }
  if (linked.empty()) return {};

  GitCall check = workspace_call(w, {"check-ignore", "-z", "--stdin"});
  for (const auto& rel : linked)
    check.input += rel + '\0';
  auto r = BERTH_TRY(git_status_of(check));
  if (r.exit_code > 1) return tl::unexpected(git_error(check, r));
  std::set<std::string> covered;
  for (auto& p : split_z(r.out))
    covered.insert(std::move(p));
  std::vector<std::string> missing;
  for (const auto& rel : linked)
    if (!covered.count(rel)) missing.push_back(rel);
  if (missing.empty()) return {};

  auto lock = BERTH_TRY(Registry(project.berth_dir()).lock());
  std::string info = util::join(project.common_dir(), "info");
  std::string file = util::join(info, "exclude");
  std::string content = util::read_file(file).value_or("");
  std::set<std::string> lines;
  for (auto& line : split_lines(content))
    lines.insert(std::move(line));
  std::string added;
  for (const auto& rel : missing)
    if (!lines.count("/" + rel)) added += "/" + rel + "\n";
  if (added.empty()) return {};
  if (!content.empty() && content.back() != '\n') content += '\n';
  content += "# berth: setup.link\n" + added;
  if (auto made = util::make_dirs(info); !made) return fail(ErrorCode::io_error, made.error());
  if (auto written = util::write_file_atomic(file, content); !written)
    return fail(ErrorCode::io_error, written.error());
  return {};
}

// Submodules the user has in their checkout are cloned from the main checkout's module
// repositories (<common>/modules/<name>): a local clone hard-links the objects, so nothing comes
// over the network and little disk is used. The clone's remote is then pointed back at the
// project's real URL, so that fetching in the workspace behaves as in the main checkout.
Result<void> Setup::submodules() {
  if (!util::exists(util::join(w.path, ".gitmodules"))) return {};
  auto listed = BERTH_TRY(git_status_of(workspace_call(
      w, {"config", "-z", "-f", ".gitmodules", "--get-regexp", "^submodule\\..*\\.path$"})));
  if (!listed.ok()) return {};
  std::vector<std::pair<std::string, std::string>> modules; // name, path
  for (const auto& record : split_z(listed.out)) {
    auto nl = record.find('\n');
    if (nl == std::string::npos) continue;
    std::string key = record.substr(0, nl); // submodule.<name>.path
    std::string name = key.substr(10, key.size() - 10 - 5);
    modules.emplace_back(name, record.substr(nl + 1));
  }
  for (const auto& [name, path] : modules) {
    // Only gitlinks are submodules; .gitmodules may name paths the commit does not have.
    auto staged = BERTH_TRY(git(workspace_call(w, {"ls-files", "-s", "--", ":(literal)" + path})));
    if (staged.out.rfind("160000 ", 0) != 0) continue;
    // The module's repository: absorbed into the project's git dir (what `git submodule` makes),
    // or, for one cloned by hand, inside the main checkout's submodule folder.
    std::string local = util::join(project.common_dir(), "modules/" + name);
    bool have_local = util::is_directory(local);
    if (!have_local && !main().empty()) {
      std::string own = util::join(main(), path + "/.git");
      if (util::is_directory(own)) {
        local = own;
        have_local = true;
      }
    }
    auto url_set = BERTH_TRY(
        git_status_of(repo_call(project, {"config", "--get", "submodule." + name + ".url"})));
    if (!have_local && !url_set.ok()) continue; // not initialised in the user's checkout either

    std::vector<std::string> args{"-c", "protocol.file.allow=always"};
    if (have_local) {
      // Command-line config wins over the repository's and is never written to it.
      args.insert(args.end(), {"-c", "submodule." + name + ".url=" + local});
    }
    args.insert(args.end(), {"submodule", "update", "--init", "--", path});
    GitCall update = workspace_call(w, args);
    auto updated = BERTH_TRY(git_status_of(update));
    if (!updated.ok() && have_local) {
      // The main checkout's module lacks the commit this workspace needs: fetch as usual.
      update = workspace_call(w, {"submodule", "update", "--init", "--", path});
      updated = BERTH_TRY(git_status_of(update));
    }
    if (!updated.ok()) {
      warn(fmt::format("submodule {} not set up: {}", path,
                       chomp(updated.err).empty() ? "git submodule update failed"
                                                  : split_lines(chomp(updated.err)).back()));
      continue;
    }
    if (have_local) {
      std::string real = chomp(BERTH_TRY(git_status_of(GitCall{{"--git-dir=" + local, "config",
                                                                "--get", "remote.origin.url"},
                                                               local,
                                                               {},
                                                               {},
                                                               util::Stream::pipe}))
                                   .out);
      if (real.empty()) {
        auto declared = BERTH_TRY(git_status_of(workspace_call(
            w, {"config", "-f", ".gitmodules", "--get", "submodule." + name + ".url"})));
        real = chomp(declared.out);
      }
      if (!real.empty())
        BERTH_TRY(git(GitCall{{"config", "remote.origin.url", real},
                              util::join(w.path, path),
                              {},
                              {},
                              util::Stream::pipe}));
    }
    report.submodules.push_back(path);
  }
  return {};
}

// LFS: the checkout's smudge filter normally makes the files real already; what is left here is
// to notice when it could not (git-lfs missing, filter not configured) and to fetch what the
// checkout left as pointers.
Result<void> Setup::lfs() {
  std::string mode = project.config().get_string("setup.lfs");
  if (mode == "skip") return {};
  if (mode != "auto") warn(fmt::format("setup.lfs: unknown value '{}', using auto", mode));
  auto attributes = util::read_file(util::join(w.path, ".gitattributes"));
  if (!attributes || attributes->find("filter=lfs") == std::string::npos) return {};
  if (util::find_in_path("git-lfs").empty()) {
    warn("this project uses Git LFS, but git-lfs is not installed: LFS files in the workspace "
         "are pointers (install git-lfs, then run `git lfs pull` in the workspace)");
    return {};
  }
  auto filter = BERTH_TRY(git_status_of(
      workspace_call(w, {"config", "--get-regexp", "^filter\\.lfs\\.(process|smudge)$"})));
  if (!filter.ok()) {
    warn("this project uses Git LFS, but its filter is not configured (run `git lfs install`): "
         "LFS files in the workspace are pointers");
    return {};
  }
  auto files = BERTH_TRY(git_status_of(workspace_call(w, {"lfs", "ls-files"})));
  // "<oid> - <path>": still a pointer; "<oid> * <path>": the real file.
  bool pointers = false;
  for (const auto& line : split_lines(files.out))
    if (line.find(" - ") != std::string::npos) pointers = true;
  if (!files.ok() || !pointers) return {};
  auto pulled = BERTH_TRY(git_status_of(workspace_call(w, {"lfs", "pull"})));
  if (!pulled.ok())
    warn(fmt::format("git lfs pull failed in the workspace: LFS files may be pointers: {}",
                     chomp(pulled.err)));
  return {};
}

// Setup commands run last, in the workspace, with its environment. A repository's list runs only
// once the user trusted exactly that list; the user's own config needs no trust.
Result<void> Setup::commands() {
  auto listed = setup_commands(project);
  const auto& list = listed.commands;
  if (list.empty()) return {};
  bool trusted = true;
  if (listed.needs_trust) trusted = BERTH_TRY(trust_status(project)).trusted;
  if (!trusted) {
    std::string how = fmt::format("not trusted yet: review the setup commands in {}, then run "
                                  "`berth trust` and `berth setup {}`",
                                  listed.source, w.name);
    for (const auto& command : list) {
      report.commands.push_back({command, false, false, 0, {}});
      emit({Kind::skipped, command, how, 0, 0});
    }
    return {};
  }

  // What the commands make that git ignores (a venv, generated files) is set-up's, as a clone
  // is: a discard counts it as recreated by set-up, not as lost work. Ignored folders are one
  // entry each (`--directory`), so the two looks cost little.
  auto ignored_now = [&]() -> std::optional<std::set<std::string>> {
    auto ls = git_status_of(workspace_call(
        w, {"ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"}));
    if (!ls || !ls->ok()) return std::nullopt;
    std::set<std::string> entries;
    for (auto& p : split_z(ls->out)) {
      while (!p.empty() && p.back() == '/')
        p.pop_back();
      if (!p.empty()) entries.insert(std::move(p));
    }
    return entries;
  };
  auto before = ignored_now();

  util::SpawnOptions options;
  options.cwd = w.path;
  options.in = util::Stream::null;
  options.group = util::ProcessGroup::own;
  for (const auto& [key, value] : workspace_environment(project, w))
    options.env[key] = value;
  // What Cursor's and Conductor's set-up scripts expect (their files are read as set-up too):
  // where the user's checkout is, and the new workspace.
  options.env["ROOT_WORKTREE_PATH"] = main();
  options.env["CONDUCTOR_ROOT_PATH"] = main();
  options.env["CONDUCTOR_WORKSPACE_PATH"] = w.path;
  options.env["CONDUCTOR_WORKSPACE_NAME"] = w.name;
  for (const auto& command : list) {
    SetupReport::Command ran{command, true, false, 0, {}};
    if (report.failed) { // an earlier command failed: later ones likely depend on it
      report.commands.push_back(std::move(ran));
      continue;
    }
    emit({Kind::command_started, command, {}, 0, 0});
    options.argv = {"/bin/sh", "-c", command};
    ran.ran = true;
    auto child = util::spawn(options);
    if (!child) {
      ran.exit_status = 127;
      ran.output = child.error() + "\n";
      emit({Kind::output, command, ran.output, 0, 0});
    } else {
      auto done = child->communicate({}, [&](int, std::string_view chunk) {
        ran.output.append(chunk);
        emit({Kind::output, command, std::string(chunk), 0, 0});
      });
      if (!done) {
        ran.exit_status = 127;
        ran.output += done.error() + "\n";
      } else {
        ran.exit_status = done->status();
      }
    }
    emit({Kind::command_finished, command, {}, 0, ran.exit_status});
    if (ran.exit_status != 0) report.failed = true;
    report.commands.push_back(std::move(ran));
  }
  if (auto after = before ? ignored_now() : std::nullopt)
    for (const auto& entry : *after)
      if (!before->count(entry)) report.made.push_back(entry);
  return {};
}

} // namespace

Result<SetupReport> set_up_workspace(const Project& project, const Workspace& workspace,
                                     const SetupListener& listener, bool rerun,
                                     const std::vector<std::string>& prepared) {
  Setup setup{
      project, workspace, listener, rerun, std::set<std::string>(prepared.begin(), prepared.end()),
      {},      {}};
  // Copies come from the main checkout (or the plain folder); a bare repository has none.
  if (!project.setup_source().empty() && util::is_directory(project.setup_source())) {
    BERTH_TRY(setup.included_files());
    BERTH_TRY(setup.hooks());
    BERTH_TRY(setup.clones());
    BERTH_TRY(setup.links());
  }
  BERTH_TRY(setup.submodules());
  BERTH_TRY(setup.lfs());
  BERTH_TRY(setup.commands());
  return std::move(setup.report);
}

void note_setup_outcome(const SetupReport& report, Workspace& w) {
  w.setup_error.clear();
  for (const auto& c : report.commands)
    if (c.ran && c.exit_status != 0) {
      w.setup_error = fmt::format("setup command failed (exit {}): {}", c.exit_status, c.command);
      break;
    }
  w.setup_untrusted = false;
  for (const auto& c : report.commands)
    w.setup_untrusted = w.setup_untrusted || !c.trusted;
  // Added to (`berth setup` leaves what the workspace has alone, and does not report it again).
  // Clones and links whole; the files copied (.env, node_modules/ by .worktreeinclude) as
  // reported: a file, or a folder's entry ("node_modules/", its trailing '/' kept), which stands
  // for the files copied into it while they are still the copies, not for all it will hold
  // (count_ignored_apart compares each with its twin in the main checkout).
  auto add = [&](const std::string& path) {
    if (path.find('\n') == std::string::npos &&
        std::find(w.setup_made.begin(), w.setup_made.end(), path) == w.setup_made.end())
      w.setup_made.push_back(path);
  };
  for (const auto& c : report.copies) {
    bool whole = c.kind == "clone" || c.kind == "link";
    if (whole || (c.kind == "include" && !c.path.empty())) add(c.path);
  }
  // And what its commands made (a venv).
  for (const auto& path : report.made)
    add(path);
}

Result<Created> set_up_again(const Project& project, std::string_view name,
                             const SetupListener& listener) {
  // Busy while it runs: a discard or another set-up must not pull the tree from under it.
  Lease lease = BERTH_TRY(Lease::take(project, name, "setup"));
  Workspace w = lease.workspace();
  Created again;
  again.setup = BERTH_TRY(set_up_workspace(project, w, listener, true));
  {
    Registry registry(project.berth_dir());
    auto lock = BERTH_TRY(registry.lock());
    auto record = BERTH_TRY(registry.load(name_slug(w.name)));
    if (!record) return fail(ErrorCode::not_found, fmt::format("workspace '{}' is gone", w.name));
    note_setup_outcome(again.setup, *record);
    BERTH_TRY(registry.save(*record));
  }
  lease.release();
  auto record = BERTH_TRY(Registry(project.berth_dir()).load(name_slug(w.name)));
  if (!record) return fail(ErrorCode::not_found, fmt::format("workspace '{}' is gone", w.name));
  again.workspace = *record;
  return again;
}

std::vector<std::string> setup_made_paths(const Project& project) {
  std::vector<std::string> paths;
  for (const char* key : {"setup.clone", "setup.link"})
    for (const auto& raw : project.config().get_list(key))
      if (std::string rel = setup_path(raw); !rel.empty()) paths.push_back(rel);
  if (std::string rel = setup_path(hooks_path_setting(project)); !rel.empty()) paths.push_back(rel);
  return paths;
}

std::vector<std::string> with_setup_made(std::vector<std::string> paths,
                                         const std::vector<std::string>& made) {
  for (const auto& rel : made)
    if (std::find(paths.begin(), paths.end(), rel) == paths.end()) paths.push_back(rel);
  return paths;
}

Result<std::vector<std::string>> prepare_pool_slot(const Project& project, const Workspace& slot) {
  std::vector<std::string> made;
  if (project.setup_source().empty() || !util::is_directory(project.setup_source())) return made;
  static const SetupListener quiet;
  Setup setup{project, slot, quiet, false, {}, {}, {}};
  BERTH_TRY(setup.clones());
  BERTH_TRY(setup.links());
  for (const auto& c : setup.report.copies)
    made.push_back(c.path);
  return made;
}

namespace {

// Every entry beneath `path` and its lstat identity (inode, mode, size, mtime; ctime too: an edit
// that puts the mtime back, by tar, `touch -d` or cp -p, still changes it). Symlinks are not
// followed. Each entry is hashed with its relative name and the hashes are summed: no text is
// built and nothing sorted (readdir's order is not stable), about 1 us per entry.
uint64_t tree_identity(const std::string& path, const std::string& rel) {
  util::DirEntries dir(path);
  uint64_t sum = dir.is_open() ? 0 : util::fnv1a(rel + "\tunreadable");
  for (const auto& e : dir) {
    struct stat st;
    if (::fstatat(dir.fd(), std::string(e.name).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    std::string child = rel;
    child += '/';
    child += e.name;
    const int64_t fields[] = {static_cast<int64_t>(st.st_ino),
                              st.st_mode,
                              st.st_size,
                              st.st_mtim.tv_sec,
                              st.st_mtim.tv_nsec,
                              st.st_ctim.tv_sec,
                              st.st_ctim.tv_nsec};
    std::string key = child;
    key.append(reinterpret_cast<const char*>(fields), sizeof fields);
    sum += util::fnv1a(key);
    if (S_ISDIR(st.st_mode)) sum += tree_identity(util::join(path, std::string(e.name)), child);
  }
  return sum;
}

} // namespace

std::string setup_inputs_key(const Project& project) {
  const auto& clones = project.config().get_list("setup.clone");
  const auto& links = project.config().get_list("setup.link");
  if (clones.empty() && links.empty()) return {};
  std::string text = trust_text(clones) + trust_text(links);
  const std::string& main = project.setup_source();
  // The whole tree, not its top: a file edited in place deep inside (node_modules/x/lib/a.js) or
  // a package added under node_modules/@scope/ must make the slot stale. One lstat per entry:
  // measured in docs/config.md (pool).
  for (const auto& raw : clones) {
    std::string rel = setup_path(raw);
    if (rel.empty() || main.empty()) continue;
    std::string from = util::join(main, rel);
    struct stat st;
    if (::lstat(from.c_str(), &st) != 0) continue;
    text += fmt::format("{}\t{} {} {} {}.{}\n", rel, st.st_ino, st.st_mode, st.st_size,
                        st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    if (S_ISDIR(st.st_mode)) text += fmt::format("{:016x}\n", tree_identity(from, rel));
  }
  return fmt::format("{:016x}", util::fnv1a(text));
}

} // namespace berth
