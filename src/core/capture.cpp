#include "core/capture.hpp"

#include "core/porcelain.hpp"
#include "core/shadow.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/paths.hpp"

#include <atomic>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace berth {
namespace {

struct ScratchFile {
  std::string path;
  ~ScratchFile() {
    if (!path.empty()) ::unlink(path.c_str());
  }
};

} // namespace

namespace {

// The work tree's tree without looking at unchanged files: the scratch index (a copy of the
// shadow, which the watcher keeps informed) is asked what differs in the work tree, and only
// those paths are staged. Nullopt when any step fails: the caller then stages everything.
std::optional<std::string> stage_changes(const Project& project, const Workspace& w,
                                         const std::string& scratch) {
  GitCall status = workspace_call(
      w, {"status", "--porcelain=v2", "-z", "--untracked-files=all", "--no-renames"});
  use_watcher(project, status, scratch);
  auto listed = git_status_of(status);
  if (!listed || !listed->ok()) return std::nullopt;
  auto paths = parse_status_v2(listed->out).unstaged_paths;
  if (!paths.empty()) {
    // --replace: a file that became a folder (or the reverse) swaps places in the index.
    GitCall update =
        workspace_call(w, {"update-index", "--add", "--remove", "--replace", "-z", "--stdin"});
    update.env["GIT_INDEX_FILE"] = scratch;
    for (const auto& p : paths) {
      update.input += p;
      update.input += '\0';
    }
    auto updated = git_status_of(update);
    if (!updated || !updated->ok()) return std::nullopt;
  }
  GitCall write = workspace_call(w, {"write-tree"});
  write.env["GIT_INDEX_FILE"] = scratch;
  auto tree = git_status_of(write);
  if (!tree || !tree->ok()) return std::nullopt;
  return chomp(tree->out);
}

} // namespace

Result<Captured> capture(const Project& project, const Workspace& w) {
  Captured c;
  c.head = chomp(BERTH_TRY(git(workspace_call(w, {"rev-parse", "--verify", "HEAD^{commit}"}))).out);
  c.head_tree = chomp(BERTH_TRY(git(repo_call(project, {"rev-parse", c.head + "^{tree}"}))).out);

  std::string tmp_dir = util::join(project.berth_dir(), "tmp");
  if (auto made = util::make_dirs(tmp_dir); !made) return fail(ErrorCode::io_error, made.error());
  // Captures run side by side (overlaps): each needs its own scratch index.
  static std::atomic<int> counter{0};
  ScratchFile scratch{util::join(tmp_dir, fmt::format("index.{}.{}", ::getpid(), ++counter))};
  // The shadow when the watcher can help: the same entries as the real index, plus what the
  // watcher told git last time. The copy keeps the source's mtime: git decides whether an entry
  // whose stat data matches may still hide a change ("racily clean") by comparing it with the
  // index file's own mtime, so a same-size edit made in the same second is not missed.
  auto shadow = open_shadow(project, w);
  std::string real_index = util::join(w.git_dir, "index");
  std::string source = shadow ? shadow->index : real_index;
  if (util::exists(source)) BERTH_TRY(copy_index(source, scratch.path));
  auto with_scratch = [&](std::vector<std::string> args) {
    GitCall call = workspace_call(w, std::move(args));
    call.env["GIT_INDEX_FILE"] = scratch.path;
    return call;
  };
  // The staged state; an index with unresolved conflicts has none, so HEAD's tree stands in.
  auto staged = BERTH_TRY(git_status_of(with_scratch({"write-tree"})));
  c.index_tree = staged.ok() ? chomp(staged.out) : c.head_tree;
  if (shadow) {
    if (auto tree = stage_changes(project, w, scratch.path)) {
      c.work_tree = *tree;
      return c;
    }
    // Something went wrong with the fast way (a shadow git cannot read, say): start again from
    // the real index and let git look at everything.
    discard_shadow(project, w);
    if (util::exists(real_index)) BERTH_TRY(copy_index(real_index, scratch.path));
  }
  BERTH_TRY(git(with_scratch({"add", "-A", "--", "."})));
  c.work_tree = chomp(BERTH_TRY(git(with_scratch({"write-tree"}))).out);
  return c;
}

bool has_identity(const Project& project) {
  auto r = git_status_of(repo_call(project, {"var", "GIT_COMMITTER_IDENT"}));
  auto a = git_status_of(repo_call(project, {"var", "GIT_AUTHOR_IDENT"}));
  return r && r->ok() && a && a->ok();
}

Result<std::string> make_commit(const Project& project, const std::string& tree,
                                const std::vector<std::string>& parents,
                                const std::string& message) {
  std::vector<std::string> args{"commit-tree", tree};
  for (const auto& p : parents) {
    args.push_back("-p");
    args.push_back(p);
  }
  GitCall call = repo_call(project, args);
  if (!has_identity(project)) call.env = berth_identity();
  call.input = message.empty() || message.back() == '\n' ? message : message + "\n";
  return chomp(BERTH_TRY(git(call)).out);
}

} // namespace berth
