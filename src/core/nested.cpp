#include "core/nested.hpp"

#include "core/capture.hpp"
#include "core/shadow.hpp"
#include "core/tree_edit.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/paths.hpp"

#include <algorithm>
#include <atomic>
#include <fcntl.h>
#include <fmt/format.h>
#include <map>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace berth {
namespace {

// A git call on a nested repository: its git dir named explicitly (its `.git` is never searched
// for) and no fsmonitor hook, whatever its own config says. Only commands that run nothing its
// config could name are used on it (no add, no checkout, no filters, commits unsigned).
GitCall nested_call(const std::string& git_dir, const std::string& work_tree,
                    std::vector<std::string> args) {
  std::vector<std::string> prefix{"--git-dir=" + git_dir};
  if (!work_tree.empty()) prefix.push_back("--work-tree=" + work_tree);
  prefix.insert(prefix.end(), {"-c", "core.fsmonitor=false"});
  args.insert(args.begin(), prefix.begin(), prefix.end());
  return GitCall{
      std::move(args), work_tree.empty() ? git_dir : work_tree, {}, {}, util::Stream::pipe};
}

// Fetch `oids` from the repository at `from` into the one `into` calls on, by object id (git's
// protocol v2 serves any object asked for), without touching FETCH_HEAD, tags, submodules or gc.
GitCall fetch_objects(GitCall into, const std::string& from, const std::vector<std::string>& oids) {
  std::vector<std::string> args{"-c",
                                "protocol.version=2",
                                "-c",
                                "protocol.file.allow=always",
                                "fetch",
                                "-q",
                                "--no-tags",
                                "--no-write-fetch-head",
                                "--no-recurse-submodules",
                                "--no-auto-gc",
                                from};
  args.insert(args.end(), oids.begin(), oids.end());
  auto at = std::find_if(into.args.begin(), into.args.end(),
                         [](const std::string& a) { return a == "core.fsmonitor=false"; });
  auto pos = at == into.args.end() ? into.args.begin() + 1 : at + 1;
  into.args.insert(pos, args.begin(), args.end());
  return into;
}

std::string scratch_path(const Project& project, const char* what) {
  static std::atomic<int> counter{0};
  std::string dir = util::join(project.berth_dir(), "tmp");
  (void)util::make_dirs(dir); // (a capture made it already; a failure shows where it is used)
  return util::join(dir, fmt::format("{}.{}.{}", what, ::getpid(), ++counter));
}

// A relative path that stays below where it is joined: no empty, "." or ".." component.
bool plain_relative(const std::string& path) {
  if (path.empty() || path.front() == '/') return false;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    std::string_view part(path.data() + start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

struct Scratch {
  std::string path;
  ~Scratch() {
    if (!path.empty()) ::unlink(path.c_str());
  }
};
struct ScratchRepo {
  std::string path;
  ~ScratchRepo() {
    if (!path.empty()) (void)util::remove_tree(path);
  }
};

// The contents of `oids` (blobs), read through one `cat-file --batch`.
Result<std::vector<std::string>> read_blobs(GitCall cat, const std::vector<std::string>& oids) {
  cat.args.insert(cat.args.end(), {"cat-file", "--batch"});
  for (const auto& oid : oids)
    cat.input += oid + "\n";
  auto read = BERTH_TRY(git(cat));
  const std::string& out = read.out;
  std::vector<std::string> blobs;
  size_t pos = 0;
  for (size_t i = 0; i < oids.size(); ++i) {
    auto nl = out.find('\n', pos);
    if (nl == std::string::npos) break;
    std::string header = out.substr(pos, nl - pos); // "<oid> blob <size>"
    auto space = header.rfind(' ');
    if (space == std::string::npos || header.find(" blob ") == std::string::npos)
      return tl::unexpected(git_error(cat, read, fmt::format("cannot read object {}", oids[i])));
    size_t size = std::strtoull(header.c_str() + space + 1, nullptr, 10);
    blobs.push_back(out.substr(nl + 1, size));
    pos = nl + 1 + size + 1;
  }
  if (blobs.size() != oids.size())
    return tl::unexpected(git_error(cat, read, "cannot read the saved files back"));
  return blobs;
}

struct FileEntry {
  std::string mode, oid, path;
};

// Whether `path` is already what an entry of `mode` with `content` would write (creating files
// costs far more than reading them, and a submodule's set-up checked most of them out).
bool holds(const std::string& path, const std::string& mode, const std::string& content) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return false;
  if (mode == "120000") {
    if (!S_ISLNK(st.st_mode) || static_cast<size_t>(st.st_size) != content.size()) return false;
    std::string target(content.size() + 1, '\0');
    return ::readlink(path.c_str(), target.data(), target.size()) ==
               static_cast<ssize_t>(content.size()) &&
           target.compare(0, content.size(), content) == 0;
  }
  if (!S_ISREG(st.st_mode) || static_cast<size_t>(st.st_size) != content.size() ||
      ((st.st_mode & S_IXUSR) != 0) != (mode == "100755"))
    return false;
  auto now = util::read_file(path);
  return now && *now == content;
}

// Write `entries` under `root` with the bytes stored, as regular files (executable or not) and
// symlinks; gitlinks become empty folders. What is in the way is replaced; nothing is followed
// out of `root` (the last component is never followed, and every folder on the way is made
// here or already was one).
Result<void> write_entries(GitCall cat, const std::string& root,
                           const std::vector<FileEntry>& entries) {
  std::vector<std::string> oids;
  for (const auto& e : entries)
    if (e.mode != "160000") oids.push_back(e.oid);
  auto blobs = BERTH_TRY(read_blobs(std::move(cat), oids));
  size_t next = 0;
  for (const auto& e : entries) {
    std::string path = util::join(root, e.path);
    if (!plain_relative(e.path)) continue;
    if (auto made = util::make_dirs(util::dirname(path)); !made)
      return fail(ErrorCode::io_error, made.error());
    if (e.mode == "160000") {
      (void)util::make_dirs(path);
      continue;
    }
    const std::string& content = blobs[next++];
    if (holds(path, e.mode, content)) continue; // a checkout wrote it already: leave it
    if (util::is_directory(path))
      (void)util::remove_tree(path);
    else
      ::unlink(path.c_str());
    if (e.mode == "120000") {
      if (::symlink(content.c_str(), path.c_str()) != 0)
        return fail(ErrorCode::io_error, fmt::format("cannot write {}", path));
      continue;
    }
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    e.mode == "100755" ? 0777 : 0666);
    if (fd < 0) return fail(ErrorCode::io_error, fmt::format("cannot write {}", path));
    size_t done = 0;
    while (done < content.size()) {
      ssize_t n = ::write(fd, content.data() + done, content.size() - done);
      if (n <= 0) {
        ::close(fd);
        return fail(ErrorCode::io_error, fmt::format("cannot write {}", path));
      }
      done += static_cast<size_t>(n);
    }
    if (::close(fd) != 0) return fail(ErrorCode::io_error, fmt::format("cannot write {}", path));
  }
  return {};
}

// `ls-tree -r` of `tree` as entries.
Result<std::vector<FileEntry>> tree_files(GitCall ls, const std::string& tree) {
  ls.args.insert(ls.args.end(), {"ls-tree", "-r", "-z", "--full-tree", tree});
  std::vector<FileEntry> files;
  for (const auto& record : split_z(BERTH_TRY(git(ls)).out)) {
    // "<mode> <type> <oid>\t<path>"
    auto tab = record.find('\t');
    auto s1 = record.find(' ');
    auto s2 = record.find(' ', s1 + 1);
    if (tab == std::string::npos || s2 == std::string::npos) continue;
    files.push_back(
        {record.substr(0, s1), record.substr(s2 + 1, tab - s2 - 1), record.substr(tab + 1)});
  }
  return files;
}

// The untracked files of a snapshot: in the work tree's tree, not in the staged one.
Result<std::vector<FileEntry>> untracked_files(const Project& project,
                                               const std::string& index_tree,
                                               const std::string& work_tree) {
  auto raw = BERTH_TRY(git(tree_diff_call(
      project, {"diff-tree", "-r", "-z", "--raw", "--no-renames", index_tree, work_tree})));
  std::vector<FileEntry> files;
  for (const auto& c : parse_diff_raw(raw.out))
    if (c.status == 'A' && (c.new_mode == "100644" || c.new_mode == "100755"))
      files.push_back({c.new_mode, c.new_oid, c.path});
  return files;
}

// The empty tree's name in the object format of the repository `base` calls into.
std::string empty_tree_in(const GitCall& base) {
  GitCall call = base;
  call.args.insert(call.args.end(), {"hash-object", "-t", "tree", "--stdin"});
  auto r = git_status_of(call);
  return r && r->ok() ? chomp(r->out) : std::string();
}

std::string rev(const GitCall& base, const std::string& what) {
  GitCall call = base;
  call.args.insert(call.args.end(), {"rev-parse", "--verify", "-q", what});
  auto r = git_status_of(call);
  return r && r->ok() ? chomp(r->out) : std::string();
}

// Where the nested repository keeps its history, relative to the workspace's admin dir when it is
// a submodule's module ("modules/<name>"), or "" when it is its own `.git` in the work tree.
std::string module_of(const Workspace& w, const std::string& git_dir) {
  auto admin = util::real_path(w.git_dir);
  if (!admin || !util::is_within(git_dir, *admin) || git_dir == *admin) return {};
  return git_dir.substr(admin->size() + 1);
}

// The work tree of a nested repository as it is on disk, every file hashed without filters into
// the project's object database; its gitlinks (repositories nested further) as recorded.
Result<std::string> nested_files_tree(const Project& project, const std::string& git_dir,
                                      const std::string& dir, std::vector<std::string>& warnings,
                                      const std::string& path) {
  std::vector<FileEntry> entries;
  std::set<std::string> seen;
  auto cached = BERTH_TRY(git(nested_call(git_dir, dir, {"ls-files", "-s", "-z"})));
  for (const auto& record : split_z(cached.out)) {
    auto tab = record.find('\t');
    auto s1 = record.find(' ');
    if (tab == std::string::npos || s1 == std::string::npos) continue;
    std::string p = record.substr(tab + 1);
    if (!seen.insert(p).second) continue; // a conflict's other stages
    if (record.compare(0, 6, "160000") == 0) {
      // "MODE OID STAGE\tPATH": the oid as wide as the repository's (sha1 or sha256).
      auto s2 = record.find(' ', s1 + 1);
      entries.push_back({"160000", record.substr(s1 + 1, s2 - s1 - 1), p});
      warnings.push_back(fmt::format(
          "{}/{}: a repository inside a nested repository is kept as a gitlink only", path, p));
      continue;
    }
    entries.push_back({"", "", p});
  }
  auto others = BERTH_TRY(
      git(nested_call(git_dir, dir, {"ls-files", "-z", "--others", "--exclude-standard"})));
  for (const auto& p : split_z(others.out)) {
    if (p.empty() || p.back() == '/') continue;
    if (seen.insert(p).second) entries.push_back({"", "", p});
  }
  // Regular files through one hash-object; symlinks (their target is the content) one by one.
  std::vector<FileEntry> kept;
  GitCall hash = repo_call(project, {"hash-object", "-w", "--no-filters", "--stdin-paths"});
  hash.cwd = dir;
  std::vector<size_t> hashed;
  for (auto& e : entries) {
    if (e.mode == "160000") {
      kept.push_back(e);
      continue;
    }
    struct stat st;
    std::string full = util::join(dir, e.path);
    if (::lstat(full.c_str(), &st) != 0) continue; // deleted
    if (S_ISLNK(st.st_mode)) {
      std::string target(static_cast<size_t>(st.st_size) + 1, '\0');
      ssize_t n = ::readlink(full.c_str(), target.data(), target.size());
      if (n < 0) continue;
      target.resize(static_cast<size_t>(n));
      GitCall link = repo_call(project, {"hash-object", "-w", "--stdin"});
      link.input = target;
      kept.push_back({"120000", chomp(BERTH_TRY(git(link)).out), e.path});
    } else if (S_ISREG(st.st_mode)) {
      if (e.path.find('\n') != std::string::npos) {
        warnings.push_back(fmt::format("{}: a file name with a newline is not kept", path));
        continue;
      }
      hash.input += e.path + "\n";
      hashed.push_back(kept.size());
      kept.push_back({(st.st_mode & S_IXUSR) ? "100755" : "100644", "", e.path});
    }
  }
  if (!hashed.empty()) {
    auto hashing = BERTH_TRY(git(hash));
    auto oids = split_lines(hashing.out);
    if (oids.size() != hashed.size())
      return tl::unexpected(
          git_error(hash, hashing, fmt::format("cannot hash the files of {}", path)));
    for (size_t i = 0; i < hashed.size(); ++i)
      kept[hashed[i]].oid = oids[i];
  }
  Scratch index{scratch_path(project, "nested-index")};
  GitCall info = repo_call(project, {"update-index", "--add", "-z", "--index-info"});
  info.env["GIT_INDEX_FILE"] = index.path;
  for (const auto& e : kept)
    info.input += fmt::format("{} {}\t{}", e.mode, e.oid, e.path) + '\0';
  if (kept.empty()) return project.empty_tree();
  BERTH_TRY(git(info));
  GitCall write = repo_call(project, {"write-tree"});
  write.env["GIT_INDEX_FILE"] = index.path;
  return chomp(BERTH_TRY(git(write)).out);
}

// One nested repository as a commit in the project's object database (see docs/decisions/0003).
// `recorded`: commits the workspace's history records for it (gitlinks), kept even when no ref
// of its own leads to them any more.
// `with_files` false: its work tree is gone (the workspace's directory was deleted), its module
// repository is all there is; the record's files are then HEAD's (Berth-Nested-Files: head).
Result<std::string> save_one(const Project& project, const Workspace& w, const std::string& path,
                             const std::string& git_dir, const std::vector<std::string>& recorded,
                             std::vector<std::string>& warnings, bool with_files = true) {
  // (Without its work tree, the git dir stands in for it: the module's core.worktree names a
  // folder that is gone, and git would refuse to start there.)
  std::string dir = with_files ? util::join(w.path, path) : git_dir;
  std::string no_tree = with_files ? std::string() : git_dir; // for calls that need no work tree
  GitCall in = nested_call(git_dir, dir, {});
  std::string head = rev(in, "HEAD^{commit}");
  GitCall sym = nested_call(git_dir, dir, {"symbolic-ref", "-q", "HEAD"});
  auto symbolic = BERTH_TRY(git_status_of(sym));
  std::string head_ref = symbolic.ok() ? chomp(symbolic.out) : "(detached)";

  // All its refs: branches, tags (peeled to their commit), remote-tracking branches, the stash,
  // anything else. A ref to something else than a commit (a tag of a tree) is not kept.
  auto listed = BERTH_TRY(git(nested_call(
      git_dir, dir,
      {"for-each-ref",
       "--format=%(objecttype) %(objectname) %(*objecttype) %(*objectname) %(refname)"})));
  std::vector<std::pair<std::string, std::string>> refs; // commit, name
  for (const auto& line : split_lines(listed.out)) {
    // "<type> <oid> <peeled type> <peeled oid> <name>": the peeled fields empty but for a tag.
    std::vector<std::string> f;
    size_t start = 0;
    for (int i = 0; i < 4; ++i) {
      size_t space = line.find(' ', start);
      if (space == std::string::npos) break;
      f.push_back(line.substr(start, space - start));
      start = space + 1;
    }
    if (f.size() != 4) continue;
    std::string name = line.substr(start);
    if (f[0] == "commit")
      refs.emplace_back(f[1], name);
    else if (f[2] == "commit")
      refs.emplace_back(f[3], name);
  }

  // The staged state, from a copy of its index, as a commit on its HEAD (in its own database:
  // git makes its trees from its own objects), unsigned whatever its config says.
  // (No commit yet: the empty tree, named in its own object format, which need not be ours.)
  std::string staged = head.empty() ? empty_tree_in(in) : rev(in, head + "^{tree}");
  if (with_files && util::exists(util::join(git_dir, "index"))) {
    Scratch copy{scratch_path(project, "nested-staged")};
    if (copy_index(util::join(git_dir, "index"), copy.path)) {
      GitCall write = nested_call(git_dir, no_tree, {"write-tree"});
      write.env["GIT_INDEX_FILE"] = copy.path;
      if (auto tree = git_status_of(write); tree && tree->ok()) staged = chomp(tree->out);
    }
  }
  GitCall index_commit = nested_call(git_dir, no_tree, {"commit-tree", "--no-gpg-sign", staged});
  if (!head.empty()) index_commit.args.insert(index_commit.args.end(), {"-p", head});
  index_commit.env = berth_identity();
  index_commit.input = fmt::format("berth index of {}\n", path);
  std::string index = chomp(BERTH_TRY(git(index_commit)).out);

  // Into the project's database: the staged commit brings HEAD's history along, the refs theirs.
  std::vector<std::string> wanted{index};
  for (const auto& [oid, name] : refs)
    if (std::find(wanted.begin(), wanted.end(), oid) == wanted.end()) wanted.push_back(oid);
  for (const auto& oid : recorded)
    if (std::find(wanted.begin(), wanted.end(), oid) == wanted.end() &&
        !rev(in, oid + "^{commit}").empty())
      wanted.push_back(oid);
  if (with_files) {
    BERTH_TRY(git(fetch_objects(repo_call(project, {}), git_dir, wanted)));
  } else {
    // Fetched through a scratch repository that borrows its objects: the git that serves a
    // fetch would start in the module's core.worktree, which is gone (and its config is not
    // changed: a refused discard leaves the module as it was).
    ScratchRepo borrow{scratch_path(project, "nested-module")};
    BERTH_TRY(git(GitCall{
        {"init", "-q", "--bare", "--object-format=" + project.object_format(), "--", borrow.path},
        project.common_dir(),
        {},
        {},
        util::Stream::pipe}));
    auto objects = util::real_path(util::join(git_dir, "objects"));
    if (!objects) return fail(ErrorCode::io_error, objects.error());
    if (auto linked = util::write_file_atomic(util::join(borrow.path, "objects/info/alternates"),
                                              *objects + "\n");
        !linked)
      return fail(ErrorCode::io_error, linked.error());
    BERTH_TRY(git(fetch_objects(repo_call(project, {}), borrow.path, wanted)));
  }

  std::string files =
      with_files ? BERTH_TRY(nested_files_tree(project, git_dir, dir, warnings, path)) : staged;
  std::string module = module_of(w, git_dir);
  std::string message =
      fmt::format("berth nested: {}\n\nBerth-Nested-Path: {}\nBerth-Nested-Kind: {}\n"
                  "Berth-Nested-Module: {}\nBerth-Nested-Head: {}\nBerth-Nested-Head-Ref: {}\n",
                  path, path, module.empty() ? "repository" : "submodule", module, head, head_ref);
  if (!with_files) message += "Berth-Nested-Files: head\n";
  for (const auto& [oid, name] : refs)
    message += fmt::format("Berth-Nested-Ref: {} {}\n", oid, name);
  // Where its remotes are and what its branches track (the rest of its config is not kept).
  auto config = BERTH_TRY(git_status_of(nested_call(
      git_dir, "", {"config", "--local", "-z", "--get-regexp", "^(remote|branch)\\."})));
  for (const auto& entry : split_z(config.out)) {
    auto nl = entry.find('\n');
    if (nl == std::string::npos || entry.find('\n', nl + 1) != std::string::npos) continue;
    message +=
        fmt::format("Berth-Nested-Config: {} {}\n", entry.substr(0, nl), entry.substr(nl + 1));
  }
  std::vector<std::string> args{"commit-tree", "--no-gpg-sign", files};
  for (const auto& p : wanted)
    args.insert(args.end(), {"-p", p});
  GitCall commit = repo_call(project, args);
  commit.env = berth_identity();
  commit.input = message;
  return chomp(BERTH_TRY(git(commit)).out);
}

std::vector<std::string> trailers(const std::string& message, const std::string& key) {
  std::vector<std::string> values;
  for (const auto& line : split_lines(message))
    if (line.rfind(key + ": ", 0) == 0) values.push_back(line.substr(key.size() + 2));
  return values;
}

std::string first(const std::vector<std::string>& values) {
  return values.empty() ? std::string() : values.front();
}

// Put one nested repository back from its commit.
Result<void> restore_one(const Project& project, const Workspace& w, const std::string& commit) {
  GitCall log = repo_call(project, {"log", "-1", "--format=%B", commit});
  auto logged = BERTH_TRY(git(log));
  const std::string& message = logged.out;
  std::string path = first(trailers(message, "Berth-Nested-Path"));
  std::string module = first(trailers(message, "Berth-Nested-Module"));
  std::string head = first(trailers(message, "Berth-Nested-Head"));
  std::string head_ref = first(trailers(message, "Berth-Nested-Head-Ref"));
  if (!plain_relative(path) || (!module.empty() && !plain_relative(module)))
    return tl::unexpected(
        git_error(log, logged, fmt::format("a nested record {} is malformed", commit)));
  std::string dir = util::join(w.path, path);
  if (auto made = util::make_dirs(dir); !made) return fail(ErrorCode::io_error, made.error());

  // Its git dir: where a submodule's module lives in this workspace (set up already when the
  // workspace's setup could clone it), or the folder's own `.git`.
  // Made again in the project's object format: the one it was saved in (save_nested keeps no
  // other).
  std::string git_dir = nested_git_dir(w, path);
  if (git_dir.empty()) {
    if (module.empty()) {
      git_dir = util::join(dir, ".git");
      BERTH_TRY(git(GitCall{{"init", "-q", "--object-format=" + project.object_format(), "--", dir},
                            dir,
                            {},
                            {},
                            util::Stream::pipe}));
    } else {
      git_dir = util::join(w.git_dir, module);
      BERTH_TRY(git(GitCall{{"init", "-q", "--separate-git-dir=" + git_dir,
                             "--object-format=" + project.object_format(), "--", dir},
                            dir,
                            {},
                            {},
                            util::Stream::pipe}));
    }
  }
  // What a checkout made there before (the submodule's set-up): files not kept go.
  auto before = git_status_of(nested_call(git_dir, dir, {"ls-files", "-z"}));

  std::vector<std::string> parents =
      split_lines(BERTH_TRY(git(repo_call(project, {"rev-parse", commit + "^@"}))).out);
  BERTH_TRY(git(fetch_objects(nested_call(git_dir, dir, {}), project.common_dir(), {commit})));
  for (const auto& ref : trailers(message, "Berth-Nested-Ref")) {
    auto space = ref.find(' ');
    if (space == std::string::npos) continue;
    BERTH_TRY(git(nested_call(
        git_dir, "",
        {"update-ref", "--create-reflog", ref.substr(space + 1), ref.substr(0, space)})));
  }
  for (const auto& entry : trailers(message, "Berth-Nested-Config")) {
    auto space = entry.find(' ');
    if (space == std::string::npos) continue;
    std::string key = entry.substr(0, space);
    if (key.rfind("remote.", 0) != 0 && key.rfind("branch.", 0) != 0) continue;
    (void)git_status_of(nested_call(git_dir, "", {"config", "--unset-all", key}));
  }
  for (const auto& entry : trailers(message, "Berth-Nested-Config")) {
    auto space = entry.find(' ');
    if (space == std::string::npos) continue;
    std::string key = entry.substr(0, space);
    if (key.rfind("remote.", 0) != 0 && key.rfind("branch.", 0) != 0) continue;
    BERTH_TRY(git(nested_call(git_dir, "", {"config", "--add", key, entry.substr(space + 1)})));
  }
  if (head_ref.rfind("refs/", 0) == 0)
    BERTH_TRY(git(nested_call(git_dir, "", {"symbolic-ref", "HEAD", head_ref})));
  else if (!head.empty())
    BERTH_TRY(git(nested_call(git_dir, "", {"update-ref", "--no-deref", "HEAD", head})));
  // The staged state (the first parent), then the files as they were.
  if (!parents.empty())
    BERTH_TRY(git(nested_call(git_dir, dir, {"read-tree", parents.front() + "^{tree}"})));
  auto files = BERTH_TRY(tree_files(nested_call(git_dir, "", {}), commit));
  std::set<std::string> kept;
  for (const auto& f : files)
    kept.insert(f.path);
  if (before && before->ok())
    for (const auto& old : split_z(before->out))
      if (!kept.count(old) && plain_relative(old)) ::unlink(util::join(dir, old).c_str());
  BERTH_TRY(write_entries(nested_call(git_dir, "", {}), dir, files));
  (void)git_status_of(nested_call(git_dir, dir, {"update-index", "-q", "--refresh"}));
  return {};
}

} // namespace

std::string nested_git_dir(const Workspace& w, const std::string& path) {
  std::string dir = util::join(w.path, path);
  std::string dot = util::join(dir, ".git");
  if (util::is_directory(dot)) return util::real_path(dot).value_or("");
  return read_gitfile(dir);
}

std::vector<std::string> repair_submodule_links(const Workspace& w) {
  std::vector<std::string> fixed;
  std::string gitmodules = util::join(w.path, ".gitmodules");
  struct stat st;
  if (::lstat(gitmodules.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return fixed;
  auto root = util::real_path(w.path);
  auto admin = util::real_path(w.git_dir);
  if (!root || !admin) return fixed;
  // Run from "/": in a module dir git would look at its config first, and a broken relative
  // core.worktree there stops it. The file is the agent's: only read (no includes, nothing it names
  // is run), every name and path checked before it is joined to anything.
  auto listed = git_status_of(GitCall{{"config", "-z", "--no-includes", "--file", gitmodules,
                                       "--get-regexp", "^submodule\\..*\\.path$"},
                                      "/",
                                      {},
                                      {},
                                      util::Stream::pipe});
  if (!listed || !listed->ok()) return fixed;
  for (const auto& entry : split_z(listed->out)) {
    size_t nl = entry.find('\n');
    if (nl == std::string::npos) continue;
    std::string key = entry.substr(0, nl), path = entry.substr(nl + 1);
    constexpr std::string_view prefix = "submodule.", suffix = ".path";
    if (key.size() <= prefix.size() + suffix.size()) continue;
    std::string name = key.substr(prefix.size(), key.size() - prefix.size() - suffix.size());
    while (!path.empty() && path.back() == '/')
      path.pop_back();
    if (!plain_relative(name) || !plain_relative(path)) continue;
    // No symlink on the way: the real path is the joined one, inside the workspace.
    std::string dir = util::join(*root, path);
    if (util::real_path(dir).value_or("") != dir || !util::is_within(dir, *root) || dir == *root)
      continue;
    std::string module = util::join(util::join(*admin, "modules"), name);
    if (!util::is_directory(module) || util::real_path(module).value_or("") != module) continue;
    std::string gitfile = util::join(dir, ".git");
    if (::lstat(gitfile.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    std::string config = util::join(module, "config");
    auto worktree = git_status_of(
        GitCall{{"config", "--file", config, "core.worktree"}, "/", {}, {}, util::Stream::pipe});
    std::string named_tree =
        worktree && worktree->ok()
            ? util::real_path(util::absolute(chomp(worktree->out), module)).value_or("")
            : std::string();
    if (read_gitfile(dir) == module && named_tree == dir) continue;
    if (!util::write_file_atomic(gitfile, "gitdir: " + module + "\n")) continue;
    auto set = git_status_of(GitCall{
        {"config", "--file", config, "core.worktree", dir}, "/", {}, {}, util::Stream::pipe});
    if (set && set->ok()) fixed.push_back(path);
  }
  return fixed;
}

std::vector<std::string> stageable_paths(const Workspace& w, const StatusSummary& summary) {
  std::vector<std::string> paths = summary.unstaged_paths;
  for (const auto& n : summary.nested) {
    if (n.gitlink) continue;
    std::string git_dir = nested_git_dir(w, n.path);
    bool has_commit =
        !git_dir.empty() && !rev(nested_call(git_dir, "", {}), "HEAD^{commit}").empty();
    if (!has_commit) paths.erase(std::remove(paths.begin(), paths.end(), n.path), paths.end());
  }
  return paths;
}

namespace {

bool has_commit(const Workspace& w, const std::string& path) {
  std::string git_dir = nested_git_dir(w, path);
  return !git_dir.empty() && !rev(nested_call(git_dir, "", {}), "HEAD^{commit}").empty();
}

// Whether a ref of `refs` in the repository `git_dir` contains `commit`.
bool contained(const std::string& git_dir, const std::string& commit, const char* refs) {
  auto r = git_status_of(nested_call(
      git_dir, "", {"for-each-ref", "--count=1", "--format=x", "--contains", commit, refs}));
  return r && r->ok() && !r->out.empty();
}

} // namespace

Result<GitlinkCheck> check_gitlinks(const Project& project, const Workspace& w, const Captured& now,
                                    bool allow_gitlink) {
  GitlinkCheck check;
  auto& warnings = check.warnings;
  for (const auto& n : now.nested) {
    if (n.gitlink) {
      if (n.modified || n.untracked)
        warnings.push_back(fmt::format("submodule {} has uncommitted or untracked work that does "
                                       "not land (commit it in the submodule to land it)",
                                       n.path));
      continue;
    }
    if (has_commit(w, n.path)) continue; // a gitlink in the tree: checked below
    if (!allow_gitlink)
      return fail(ErrorCode::nested_repository,
                  fmt::format("{} in workspace '{}' is a repository without a commit: its files "
                              "cannot land",
                              n.path, w.name),
                  fmt::format("to land its files, remove its .git (rm -rf {}/.git in the "
                              "workspace); or pass --allow-gitlink to land the rest without it",
                              n.path));
    warnings.push_back(fmt::format("nested repository {} has no commit: it does not land", n.path));
  }
  auto raw = BERTH_TRY(
      git(tree_diff_call(project, {"diff-tree", "-r", "-z", "--raw", w.base, now.work_tree})));
  auto changes = parse_diff_raw(raw.out);
  if (std::none_of(changes.begin(), changes.end(),
                   [](const RawChange& c) { return c.new_mode == "160000"; }))
    return check;
  std::map<std::string, std::string> modules; // path -> submodule name
  auto listed = BERTH_TRY(
      git_status_of(repo_call(project, {"config", "-z", "--blob", now.work_tree + ":.gitmodules",
                                        "--get-regexp", "^submodule\\..*\\.path$"})));
  for (const auto& record : split_z(listed.out)) {
    auto nl = record.find('\n');
    if (nl == std::string::npos || nl < 15) continue;
    modules[record.substr(nl + 1)] = record.substr(10, nl - 10 - 5); // submodule.<name>.path
  }
  for (const auto& c : changes) {
    if (c.new_mode != "160000") continue;
    auto module = modules.find(c.path);
    if (module == modules.end()) {
      if (!allow_gitlink)
        return fail(ErrorCode::nested_repository,
                    fmt::format("{} in workspace '{}' is a repository of its own, not a submodule: "
                                "accept would land a gitlink to it, not its files",
                                c.path, w.name),
                    fmt::format("make it a submodule (git submodule add URL {} in the "
                                "workspace), or remove its .git to land its files, or pass "
                                "--allow-gitlink to land the gitlink",
                                c.path));
      warnings.push_back(fmt::format("{} lands as a gitlink (not a submodule)", c.path));
      continue;
    }
    std::string here = nested_git_dir(w, c.path);
    // Its remote has it (as of the workspace's last fetch): `git submodule update` finds it.
    if (!here.empty() && contained(here, c.new_oid, "refs/remotes")) continue;
    std::string mine = util::join(project.common_dir(), "modules/" + module->second);
    if (util::is_directory(mine)) {
      if (contained(mine, c.new_oid, "refs")) continue;
      if (!here.empty() && !rev(nested_call(here, "", {}), c.new_oid + "^{commit}").empty()) {
        std::string ref = "refs/berth/landed/" + c.new_oid;
        check.keep.push_back({mine, here, c.new_oid, ref});
        warnings.push_back(fmt::format("the submodule commit {} of {} is only in the workspace: "
                                       "accept keeps it in {} as {} (push it to the "
                                       "submodule's remote too)",
                                       c.new_oid.substr(0, 12), c.path, mine, ref));
        continue;
      }
    }
    if (allow_gitlink) {
      warnings.push_back(fmt::format("{} lands as a gitlink to {}, which this repository cannot "
                                     "reach",
                                     c.path, c.new_oid.substr(0, 12)));
      continue;
    }
    return fail(ErrorCode::unreachable_gitlink,
                fmt::format("the submodule commit {} of {} is only in workspace '{}': after the "
                            "accept nothing could check it out",
                            c.new_oid.substr(0, 12), c.path, w.name),
                fmt::format("push it first (git -C {} push origin HEAD:BRANCH), or pass "
                            "--allow-gitlink",
                            util::join(w.path, c.path)));
  }
  return check;
}

Result<void> keep_gitlink_commits(const std::vector<KeptGitlink>& keep) {
  for (const auto& k : keep)
    BERTH_TRY(git(fetch_objects(nested_call(k.module, "", {}), k.from, {k.oid + ":" + k.ref})));
  return {};
}

namespace {

// The commit that holds the nested records `kept` as its parents, or "" when there is none.
Result<std::string> join_nested(const Project& project, const Workspace& w,
                                const std::vector<std::string>& kept) {
  if (kept.empty()) return std::string();
  std::vector<std::string> args{"commit-tree", project.empty_tree()};
  for (const auto& k : kept)
    args.insert(args.end(), {"-p", k});
  GitCall commit = repo_call(project, args);
  commit.env = berth_identity();
  commit.input = fmt::format("berth nested of {}\n", w.name);
  return chomp(BERTH_TRY(git(commit)).out);
}

} // namespace

std::vector<NestedWork> nested_work(const std::vector<NestedChange>& seen) {
  std::vector<NestedWork> list;
  list.reserve(seen.size());
  for (const auto& n : seen)
    list.push_back({n.path, n.gitlink, n.new_commit, n.modified, n.untracked || !n.gitlink});
  return list;
}

std::optional<std::vector<Gitlinks>>
gitlinks_committed(const Project& project,
                   const std::vector<std::pair<std::string, std::string>>& base_head) {
  std::vector<Gitlinks> found(base_head.size());
  // "HEAD BASE" (a commit and the parent to diff it against): git writes HEAD back, then the
  // entries, only when the two differ; so each pair is known by its HEAD.
  std::map<std::string, std::string> base_of;
  std::string input;
  for (const auto& [base, head] : base_head) {
    if (head.empty() || head == base) continue;
    auto [it, fresh] = base_of.emplace(head, base);
    if (!fresh && it->second != base) return std::nullopt;
    if (fresh) input += head + " " + base + "\n";
  }
  if (input.empty()) return found;
  GitCall diff = tree_diff_call(project, {"diff-tree", "--stdin", "-r", "-z", "--raw"});
  diff.input = input;
  auto diffed = git_status_of(diff);
  if (!diffed || !diffed->ok()) return std::nullopt;
  std::map<std::string, Gitlinks> by_head;
  std::string current;
  bool path_next = false;
  std::string mode;
  std::string oid;
  for (const auto& field : split_z(diffed->out)) {
    if (path_next) {
      path_next = false;
      if (mode == "160000") by_head[current].emplace_back(field, oid);
      continue;
    }
    if (field.empty()) continue;
    if (field.front() != ':') {
      if (!base_of.contains(field)) return std::nullopt; // not a header of ours
      current = field;
      continue;
    }
    // ":<old mode> <new mode> <old oid> <new oid> <status>", then the path
    std::vector<std::string> words;
    for (size_t at = 1, space; at <= field.size(); at = space + 1) {
      space = std::min(field.find(' ', at), field.size());
      words.push_back(field.substr(at, space - at));
    }
    if (words.size() < 5 || current.empty()) return std::nullopt;
    mode = words[1];
    oid = words[3];
    path_next = true;
  }
  for (size_t k = 0; k < base_head.size(); ++k)
    if (auto it = by_head.find(base_head[k].second);
        it != by_head.end() && base_head[k].second != base_head[k].first)
      found[k] = it->second;
  return found;
}

Result<std::string> save_nested(const Project& project, const Workspace& w,
                                const std::vector<NestedChange>& seen, const std::string& head,
                                std::vector<std::string>& warnings, const Gitlinks* committed) {
  std::vector<std::string> paths;
  paths.reserve(seen.size());
  std::map<std::string, std::vector<std::string>> recorded; // path -> gitlink commits
  for (const auto& n : seen)
    paths.push_back(n.path);
  // Gitlinks the workspace's commits changed: their commits may exist only in its modules.
  if (committed) {
    for (const auto& [path, commit] : *committed) {
      paths.push_back(path);
      recorded[path].push_back(commit);
    }
  } else if (!head.empty() && head != w.base) {
    auto raw =
        BERTH_TRY(git(tree_diff_call(project, {"diff-tree", "-r", "-z", "--raw", w.base, head})));
    for (const auto& c : parse_diff_raw(raw.out))
      if (c.new_mode == "160000") {
        paths.push_back(c.path);
        recorded[c.path].push_back(c.new_oid);
      }
  }
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  std::vector<std::string> kept;
  auto admin = util::real_path(w.git_dir).value_or(w.git_dir);
  auto root = util::real_path(w.path).value_or(w.path);
  for (const auto& path : paths) {
    if (path.find('\n') != std::string::npos) {
      warnings.push_back("a nested repository whose path holds a newline is not kept");
      continue;
    }
    std::string git_dir = nested_git_dir(w, path);
    if (git_dir.empty()) continue; // a submodule not checked out: nothing but its gitlink
    // Only a repository that goes with the workspace: its own `.git` or a module of its admin
    // dir. One whose `.git` file points elsewhere is not deleted by discard (nor written to).
    if (!util::is_within(git_dir, root) && !util::is_within(git_dir, admin)) {
      warnings.push_back(fmt::format("{}: its git dir {} is outside the workspace; its files "
                                     "are not kept (its history stays where it is)",
                                     path, git_dir));
      continue;
    }
    // Its objects go into the project's database: one of another object format (a sha1
    // repository inside a sha256 project) cannot be kept there, and deleting it would lose it.
    auto format = git_status_of(nested_call(git_dir, {}, {"rev-parse", "--show-object-format"}));
    if (format && format->ok() && chomp(format->out) != project.object_format())
      return fail(ErrorCode::nested_repository,
                  fmt::format("the nested repository {} uses {} object names, this project {}: "
                              "the trash cannot keep it; nothing was deleted",
                              path, chomp(format->out), project.object_format()),
                  fmt::format("move {} out of the workspace first", path));
    kept.push_back(BERTH_TRY(save_one(project, w, path, git_dir, recorded[path], warnings)));
  }
  return join_nested(project, w, kept);
}

namespace {

struct OwnModule {
  std::string path, git_dir;
};

// The submodules of a workspace whose directory is gone that hold commits of their own: their
// module repositories (in its admin dir, deleted with it) have commits their remotes do not
// (as of their last fetch). One that holds nothing of its own is checked out again from its
// remote by a restore's set-up. Which submodules the workspace had, and where: its .gitmodules
// as of `head` (the work tree, and any uncommitted change to .gitmodules, is gone).
std::vector<OwnModule> modules_with_own_commits(const Project& project, const Workspace& w,
                                                const std::string& head) {
  std::vector<OwnModule> found;
  if (head.empty()) return found;
  auto listed = git_status_of(repo_call(project, {"config", "-z", "--blob", head + ":.gitmodules",
                                                  "--get-regexp", "^submodule\\..*\\.path$"}));
  if (!listed || !listed->ok()) return found;
  for (const auto& record : split_z(listed->out)) {
    auto nl = record.find('\n');
    if (nl == std::string::npos || nl < 15) continue;
    std::string name = record.substr(10, nl - 10 - 5); // submodule.<name>.path
    std::string path = record.substr(nl + 1);
    if (!plain_relative(name) || !plain_relative(path) || path.find('\n') != std::string::npos)
      continue;
    std::string git_dir = util::join(w.git_dir, "modules/" + name);
    if (!util::is_directory(git_dir)) continue; // never checked out in the workspace
    git_dir = util::real_path(git_dir).value_or(git_dir);
    // (Its git dir as the work tree: its core.worktree names a folder that is gone.)
    auto own = git_status_of(nested_call(
        git_dir, git_dir, {"rev-list", "--count", "HEAD", "--all", "--not", "--remotes"}));
    if (own && own->ok() && chomp(own->out) == "0") continue;
    found.push_back({path, git_dir});
  }
  return found;
}

} // namespace

bool modules_hold_own_commits(const Project& project, const Workspace& w, const std::string& head) {
  return !modules_with_own_commits(project, w, head).empty();
}

Result<std::string> save_module_commits(const Project& project, const Workspace& w,
                                        const std::string& head,
                                        std::vector<std::string>& warnings) {
  std::vector<std::string> kept;
  for (const auto& [path, git_dir] : modules_with_own_commits(project, w, head)) {
    // The commit HEAD's gitlink records, kept even when no ref of the module leads to it.
    auto recorded =
        git_status_of(repo_call(project, {"rev-parse", "--verify", "-q", head + ":" + path}));
    std::vector<std::string> gitlink;
    if (recorded && recorded->ok()) gitlink.push_back(chomp(recorded->out));
    // A module that cannot be kept refuses the discard: it may hold the only copy.
    kept.push_back(BERTH_TRY(save_one(project, w, path, git_dir, gitlink, warnings, false)));
  }
  return join_nested(project, w, kept);
}

std::vector<std::string> restore_nested(const Project& project, const Workspace& w,
                                        const std::string& nested) {
  std::vector<std::string> warnings;
  if (nested.empty()) return warnings;
  auto parents = git(repo_call(project, {"rev-parse", nested + "^@"}));
  if (!parents)
    return {"the nested repositories of the snapshot cannot be read: " + parents.error().message};
  for (const auto& commit : split_lines(parents->out))
    if (auto done = restore_one(project, w, commit); !done)
      warnings.push_back(fmt::format("a nested repository ({}) was not restored: {}; it is kept "
                                     "in commit {}",
                                     commit.substr(0, 12), done.error().message, commit));
  return warnings;
}

Result<std::string> untracked_as_is(const Project& project, const Workspace& w,
                                    const std::string& index_tree, const std::string& work_tree) {
  auto trees =
      BERTH_TRY(untracked_as_is_many(project, {UntrackedAsked{&w, index_tree, work_tree, {}}}));
  return trees.front();
}

GitCall untracked_hasher(const Project& project) {
  return repo_call(project, {"hash-object", "-w", "--no-filters", "--stdin-paths"});
}

Result<std::vector<std::string>> untracked_as_is_many(const Project& project,
                                                      const std::vector<UntrackedAsked>& asked) {
  std::vector<std::string> trees;
  // Every work tree's untracked files, hashed in one git by their paths (absolute: it runs in
  // the repository; no filter applies, so no work tree's attributes are needed).
  std::string paths;
  std::vector<std::vector<FileEntry>> hashed(asked.size());
  for (size_t k = 0; k < asked.size(); ++k) {
    const UntrackedAsked& a = asked[k];
    trees.push_back(a.work_tree);
    std::vector<FileEntry> files;
    if (a.known)
      for (const auto& e : *a.known)
        files.push_back({e.mode, e.oid, e.name});
    else
      files = BERTH_TRY(untracked_files(project, a.index_tree, a.work_tree));
    for (auto& f : files) {
      if (f.path.find('\n') != std::string::npos) continue; // --stdin-paths reads lines
      paths += util::join(a.workspace->path, f.path) + "\n";
      hashed[k].push_back(std::move(f));
    }
  }
  if (paths.empty()) return trees;
  size_t count = 0;
  for (const auto& files : hashed)
    count += files.size();
  GitConversation hasher(untracked_hasher(project));
  auto oids = BERTH_TRY(hasher.ask_in_rounds(paths));
  BERTH_TRY(hasher.finish());
  if (oids.size() != count) return trees;
  std::vector<TreeEdit> edits;
  std::vector<size_t> edited;
  size_t next = 0;
  for (size_t k = 0; k < asked.size(); ++k) {
    PathChanges changes;
    for (const auto& f : hashed[k]) {
      const std::string& oid = oids[next++];
      if (oid != f.oid) changes[f.path] = TreeEntry{f.mode, {}, oid};
    }
    if (changes.empty()) continue;
    edits.push_back(TreeEdit{asked[k].work_tree, std::move(changes), {}});
    edited.push_back(k);
  }
  if (edits.empty()) return trees;
  std::string tmp_dir = util::join(project.berth_dir(), "tmp");
  auto made = BERTH_TRY(edit_trees(project.common_dir(), edits, tmp_dir));
  for (size_t k = 0; k < edited.size(); ++k)
    if (made[k]) trees[edited[k]] = *made[k];
  return trees;
}

Result<void> write_untracked_as_is(const Project& project, const Workspace& w,
                                   const std::string& index_tree, const std::string& work_tree) {
  auto files = BERTH_TRY(untracked_files(project, index_tree, work_tree));
  if (files.empty()) return {};
  return write_entries(repo_call(project, {}), w.path, files);
}

} // namespace berth
