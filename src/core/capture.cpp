#include "core/capture.hpp"

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

Result<Captured> capture(const Project& project, const Workspace& w) {
  Captured c;
  c.head = chomp(BERTH_TRY(git(workspace_call(w, {"rev-parse", "--verify", "HEAD^{commit}"}))).out);
  c.head_tree = chomp(BERTH_TRY(git(repo_call(project, {"rev-parse", c.head + "^{tree}"}))).out);

  std::string tmp_dir = util::join(project.berth_dir(), "tmp");
  if (auto made = util::make_dirs(tmp_dir); !made) return fail(ErrorCode::io_error, made.error());
  // Captures run side by side (overlaps): each needs its own scratch index.
  static std::atomic<int> counter{0};
  ScratchFile scratch{util::join(tmp_dir, fmt::format("index.{}.{}", ::getpid(), ++counter))};
  std::string real_index = util::join(w.git_dir, "index");
  if (util::exists(real_index)) {
    auto data = util::read_file(real_index);
    if (!data) return fail(ErrorCode::io_error, data.error());
    if (auto written = util::write_file_atomic(scratch.path, *data); !written)
      return fail(ErrorCode::io_error, written.error());
    // git decides whether an entry whose stat data matches may still hide a change ("racily
    // clean") by comparing it with the index file's own mtime: the copy must keep the original's,
    // or a same-size edit made in the same second as the last index write would go unseen.
    struct stat st;
    if (::stat(real_index.c_str(), &st) == 0) {
      struct timespec times[2] = {st.st_atim, st.st_mtim};
      ::utimensat(AT_FDCWD, scratch.path.c_str(), times, 0);
    }
  }
  auto with_scratch = [&](std::vector<std::string> args) {
    GitCall call = workspace_call(w, std::move(args));
    call.env["GIT_INDEX_FILE"] = scratch.path;
    return call;
  };
  // The staged state; an index with unresolved conflicts has none, so HEAD's tree stands in.
  auto staged = BERTH_TRY(git_status_of(with_scratch({"write-tree"})));
  c.index_tree = staged.ok() ? chomp(staged.out) : c.head_tree;
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
