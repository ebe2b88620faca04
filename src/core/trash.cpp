#include "core/trash.hpp"

#include "core/name.hpp"
#include "core/porcelain.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/paths.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <unistd.h>

namespace berth {

std::string trash_prefix(std::string_view name) {
  return "refs/berth/trash/" + name_slug(name) + "/";
}

namespace {

Result<std::string> rev(const Project& project, const std::string& what) {
  auto result = BERTH_TRY(git_status_of(repo_call(project, {"rev-parse", "--verify", "-q", what})));
  return result.ok() ? chomp(result.out) : std::string();
}

// Write a tree from a scratch copy of the workspace's index, so that the user's (agent's) index
// is never touched. The copy keeps the stat data, so `add -A` hashes only files that changed.
struct ScratchIndex {
  std::string path;
  ~ScratchIndex() {
    if (!path.empty()) ::unlink(path.c_str());
  }
};

} // namespace

Result<Snapshot> take_snapshot(const Project& project, const Workspace& w, Content content) {
  Snapshot s;
  s.name = w.name;
  s.branch = w.branch;
  s.base = w.base;
  s.owner = w.owner;
  s.branch_tip = BERTH_TRY(rev(project, "refs/heads/" + w.branch + "^{commit}"));

  std::string tree_commit_parents;
  if (content == Content::work_tree) {
    s.head =
        chomp(BERTH_TRY(git(workspace_call(w, {"rev-parse", "--verify", "HEAD^{commit}"}))).out);
  } else {
    s.head = s.branch_tip.empty() ? w.base : s.branch_tip;
  }
  std::string head_tree =
      chomp(BERTH_TRY(git(repo_call(project, {"rev-parse", s.head + "^{tree}"}))).out);

  std::string index_tree = head_tree, work_tree = head_tree;
  if (content == Content::work_tree) {
    ScratchIndex scratch;
    auto tmp_dir = util::join(project.berth_dir(), "tmp");
    if (auto made = util::make_dirs(tmp_dir); !made) return fail(ErrorCode::io_error, made.error());
    scratch.path = util::join(tmp_dir, fmt::format("index.{}", ::getpid()));
    std::string real_index = util::join(w.git_dir, "index");
    if (util::exists(real_index)) {
      auto data = util::read_file(real_index);
      if (!data) return fail(ErrorCode::io_error, data.error());
      auto written = util::write_file_atomic(scratch.path, *data);
      if (!written) return fail(ErrorCode::io_error, written.error());
    }
    std::map<std::string, std::optional<std::string>> env{{"GIT_INDEX_FILE", scratch.path}};
    // The staged state; an index with unresolved conflicts has none, so HEAD's tree stands in.
    GitCall staged = workspace_call(w, {"write-tree"});
    staged.env = env;
    auto staged_result = BERTH_TRY(git_status_of(staged));
    if (staged_result.ok()) index_tree = chomp(staged_result.out);
    // The work tree: everything tracked or untracked, as `git add -A` sees it.
    GitCall add = workspace_call(w, {"add", "-A", "--", "."});
    add.env = env;
    BERTH_TRY(git(add));
    GitCall write = workspace_call(w, {"write-tree"});
    write.env = env;
    work_tree = chomp(BERTH_TRY(git(write)).out);
  }

  std::string trailers =
      fmt::format("Berth-Name: {}\nBerth-Branch: {}\nBerth-Base: {}\nBerth-Head: {}\n"
                  "Berth-Branch-Tip: {}\nBerth-Owner: {}\n",
                  w.name, w.branch, w.base, s.head, s.branch_tip, w.owner);
  GitCall index_commit = repo_call(project, {"commit-tree", index_tree, "-p", s.head});
  index_commit.env = berth_identity();
  index_commit.input = fmt::format("berth index of {}\n", w.name);
  s.index_commit = chomp(BERTH_TRY(git(index_commit)).out);

  std::vector<std::string> args{"commit-tree", work_tree, "-p", s.head, "-p", s.index_commit};
  if (!s.branch_tip.empty() && s.branch_tip != s.head) {
    args.push_back("-p");
    args.push_back(s.branch_tip);
  }
  GitCall commit = repo_call(project, args);
  commit.env = berth_identity();
  commit.input = fmt::format("berth trash: {}\n\n{}", w.name, trailers);
  s.commit = chomp(BERTH_TRY(git(commit)).out);

  // Create-only ref update: two discards in the same second get distinct refs.
  s.time = unix_now();
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string ref = trash_prefix(w.name) + std::to_string(s.time) +
                      (attempt == 0 ? std::string() : fmt::format("-{}", attempt));
    auto made = BERTH_TRY(git_status_of(repo_call(
        project, {"update-ref", "-m", "berth: trash " + w.name, ref, s.commit, kNullOid})));
    if (made.ok()) {
      s.ref = ref;
      return s;
    }
  }
  return fail(ErrorCode::git_failed, fmt::format("cannot create a trash ref for '{}'", w.name),
              "run `git for-each-ref refs/berth/trash/` to inspect the trash");
}

Result<std::vector<Snapshot>> list_snapshots(const Project& project,
                                             std::optional<std::string_view> name) {
  std::string pattern = name ? trash_prefix(*name) : std::string("refs/berth/trash/");
  auto out = BERTH_TRY(git(repo_call(
      project, {"for-each-ref", "--format=%(refname)%00%(objectname)%00%(contents)%00", pattern})));
  auto fields = split_z(out.out);
  std::vector<Snapshot> list;
  for (size_t i = 0; i + 2 < fields.size(); i += 3) {
    std::string ref = fields[i];
    while (!ref.empty() && ref.front() == '\n')
      ref.erase(0, 1);
    const std::string& message = fields[i + 2];
    Snapshot s;
    s.ref = ref;
    s.commit = fields[i + 1];
    s.name = trailer_value(message, "Berth-Name");
    if (s.name.empty()) continue;          // not one of ours
    if (name && s.name != *name) continue; // another name with the same slug
    s.branch = trailer_value(message, "Berth-Branch");
    s.base = trailer_value(message, "Berth-Base");
    s.head = trailer_value(message, "Berth-Head");
    s.branch_tip = trailer_value(message, "Berth-Branch-Tip");
    s.owner = trailer_value(message, "Berth-Owner");
    std::string stamp = util::basename(ref);
    s.time = std::strtoll(stamp.c_str(), nullptr, 10);
    auto parents =
        split_lines(BERTH_TRY(git(repo_call(project, {"rev-parse", s.commit + "^@"}))).out);
    if (parents.size() >= 2) s.index_commit = parents[1];
    list.push_back(std::move(s));
  }
  std::sort(list.begin(), list.end(), [](const Snapshot& a, const Snapshot& b) {
    return a.time != b.time ? a.time > b.time : a.ref > b.ref;
  });
  return list;
}

} // namespace berth
