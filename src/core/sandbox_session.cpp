// A confined session: how a sandboxed command can commit while the shared git dir stays
// read-only. Refs live in the common dir, so the workspace's HEAD (per-worktree, in its writable
// admin dir) is detached at the branch tip for the session; objects go to a quarantine directory
// with the shared store as an alternate, the way git's receive-pack quarantines a push. Outside
// the sandbox, berth then verifies and migrates the objects and moves the branch itself.
#include "core/name.hpp"
#include "core/sandbox.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/paths.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace berth {
namespace {

// The objects directory env that shows git the quarantine and, behind it, the shared store.
std::map<std::string, std::optional<std::string>> quarantine_env(const Project& project,
                                                                 const std::string& quarantine) {
  return {{"GIT_OBJECT_DIRECTORY", quarantine},
          {"GIT_ALTERNATE_OBJECT_DIRECTORIES", util::join(project.common_dir(), "objects")}};
}

Result<std::string> make_temp_dir(const std::string& parent, const std::string& prefix) {
  if (auto made = util::make_dirs(parent, 0700); !made)
    return fail(ErrorCode::io_error, made.error());
  std::string pattern = util::join(parent, prefix + "XXXXXX");
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr)
    return fail(ErrorCode::io_error,
                fmt::format("cannot create a directory in {}: {}", parent, std::strerror(errno)));
  return std::string(buf.data());
}

// The files git trusts to find the repository and its configuration, which sit in writable
// places (the work tree, the admin dir): a forged `commondir` or gitfile would point the user's
// next `git status` at a config the command wrote (core.fsmonitor runs a program).
std::vector<std::string> trusted_paths(const Workspace& workspace) {
  return {util::join(workspace.path, ".git"), util::join(workspace.git_dir, "commondir"),
          util::join(workspace.git_dir, "gitdir"),
          util::join(workspace.git_dir, "config.worktree")};
}

std::optional<std::string> regular_file_content(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  auto text = util::read_file(path);
  return text ? std::optional<std::string>(*text) : std::nullopt;
}

void restore_trusted_files(const ConfinedSession& session, std::vector<std::string>& warnings) {
  for (const auto& [path, saved] : session.trusted_files) {
    bool present = util::exists(path);
    auto now = regular_file_content(path);
    if (saved ? now == saved : !present) continue;
    warnings.push_back(fmt::format("the sandboxed command changed {}; berth put it back", path));
    // Never through a symlink, never into a directory planted there: remove, then write anew.
    if (present && util::is_directory(path))
      (void)util::remove_tree(path);
    else if (present)
      ::unlink(path.c_str());
    if (saved) {
      if (auto written = util::write_file_atomic(path, *saved); !written)
        warnings.push_back(fmt::format("cannot restore {}: {}", path, written.error()));
    }
  }
}

// Move every object the session wrote into the shared store. Not file by file: the quarantine's
// content is the command's, so each object is re-hashed and checked by `git index-pack --strict`
// (git's own check for a received push) before one pack appears in the store, .idx last so that
// no reader sees a pack without its index.
Result<int> migrate_objects(const Project& project, const std::string& quarantine) {
  // An alternates file the command planted would make its objects look like ours.
  ::unlink(util::join(quarantine, "info/alternates").c_str());
  std::map<std::string, std::optional<std::string>> only_quarantine = {
      {"GIT_OBJECT_DIRECTORY", quarantine}, {"GIT_ALTERNATE_OBJECT_DIRECTORIES", std::nullopt}};

  GitCall list =
      repo_call(project, {"cat-file", "--batch-all-objects", "--batch-check=%(objectname)"});
  list.env = only_quarantine;
  auto listed = BERTH_TRY(git(list));
  if (listed.out.empty()) return 0;
  int count = static_cast<int>(split_lines(listed.out).size());

  std::string base = util::join(quarantine, "migrate");
  GitCall pack = repo_call(project, {"pack-objects", "--quiet", base});
  pack.env = only_quarantine;
  pack.input = listed.out;
  std::string hash = chomp(BERTH_TRY(git(pack)).out);
  std::string stem = base + "-" + hash;
  // index-pack writes the index itself, from what it verified.
  ::unlink((stem + ".idx").c_str());
  ::unlink((stem + ".rev").c_str());
  BERTH_TRY(git(repo_call(project, {"index-pack", "--strict", stem + ".pack"})));

  std::string pack_dir = util::join(project.common_dir(), "objects/pack");
  if (auto made = util::make_dirs(pack_dir); !made) return fail(ErrorCode::io_error, made.error());
  std::string target = util::join(pack_dir, "pack-" + hash);
  for (const char* ext : {".pack", ".rev", ".idx"}) {
    std::string from = stem + ext, to = target + ext;
    if (!util::exists(from)) continue;
    // The same name is the same content (it is the pack's checksum): keep the one in place.
    if (util::exists(to)) continue;
    if (::rename(from.c_str(), to.c_str()) != 0)
      return fail(ErrorCode::io_error,
                  fmt::format("cannot move {} to {}: {}", from, to, std::strerror(errno)));
  }
  return count;
}

Result<std::string> orphan_ref(const Project& project, const Workspace& workspace,
                               const std::string& commit) {
  std::string prefix = "refs/berth/orphaned/" + name_slug(workspace.name) + "/";
  int64_t now = unix_now();
  for (int n = 0;; ++n) {
    std::string ref = prefix + std::to_string(now) + (n ? "-" + std::to_string(n) : "");
    // Create only: the all-zero old value makes update-ref refuse an existing ref.
    auto made = BERTH_TRY(git_status_of(
        repo_call(project, {"update-ref", "-m", "berth: sandboxed run, not a fast-forward", ref,
                            commit, kNullOid})));
    if (made.ok()) return ref;
    if (n > 100) return tl::unexpected(git_error(repo_call(project, {"update-ref", ref}), made));
  }
}

} // namespace

Result<ConfinedSession> begin_confined_session(const Project& project, const Workspace& workspace) {
  // The session starts from an attached HEAD: a detached one means a previous session did not
  // end (or the user detached it), and its state must not be guessed.
  std::string branch_ref = "refs/heads/" + workspace.branch;
  auto head = BERTH_TRY(git_status_of(workspace_call(workspace, {"symbolic-ref", "-q", "HEAD"})));
  if (!head.ok() || chomp(head.out) != branch_ref)
    return fail(
        ErrorCode::interrupted,
        fmt::format("workspace {} is not on its branch {}", workspace.name, workspace.branch),
        fmt::format("a sandboxed run may have been interrupted: check `git -C {} log -1 "
                    "HEAD`, then `git -C {} symbolic-ref HEAD {}`",
                    workspace.path, workspace.path, branch_ref));
  ConfinedSession session;
  session.branch_tip = chomp(
      BERTH_TRY(git(repo_call(project, {"rev-parse", "--verify", "-q", branch_ref + "^{commit}"})))
          .out);
  for (const auto& path : trusted_paths(workspace))
    session.trusted_files.emplace_back(path, regular_file_content(path));

  std::string slug = name_slug(workspace.name);
  std::string prefix = fmt::format("{}.{}.", slug, ::getpid());
  session.quarantine =
      BERTH_TRY(make_temp_dir(util::join(project.berth_dir(), "quarantine"), prefix));
  const char* tmp = ::getenv("TMPDIR");
  auto tmpdir = make_temp_dir(tmp && *tmp ? tmp : "/tmp", "berth-" + slug + "-");
  if (!tmpdir) {
    (void)util::remove_tree(session.quarantine);
    return tl::unexpected(tmpdir.error());
  }
  session.tmpdir = *tmpdir;
  auto undo = [&](Error error) -> Result<ConfinedSession> {
    (void)util::remove_tree(session.quarantine);
    (void)util::remove_tree(session.tmpdir);
    return tl::unexpected(std::move(error));
  };
  for (const char* sub : {"pack", "info"})
    if (auto made = util::make_dirs(util::join(session.quarantine, sub)); !made)
      return undo(Error{ErrorCode::io_error, made.error(), {}, std::nullopt, {}});

  // Detach: a commit inside then moves only the per-worktree HEAD, in the writable admin dir.
  auto detached =
      git(workspace_call(workspace, {"update-ref", "--no-deref", "-m",
                                     "berth: sandboxed run begins", "HEAD", session.branch_tip}));
  if (!detached) return undo(detached.error());

  for (const auto& [key, value] : quarantine_env(project, session.quarantine))
    session.env[key] = *value;
  session.env["TMPDIR"] = session.tmpdir;
  // Automatic gc and maintenance would write into the read-only common dir (gc.pid, packs) and
  // fail noisily; berth migrates the objects afterwards anyway.
  session.env["GIT_CONFIG_COUNT"] = "2";
  session.env["GIT_CONFIG_KEY_0"] = "gc.auto";
  session.env["GIT_CONFIG_VALUE_0"] = "0";
  session.env["GIT_CONFIG_KEY_1"] = "maintenance.auto";
  session.env["GIT_CONFIG_VALUE_1"] = "false";
  return session;
}

Result<SessionOutcome> end_confined_session(const Project& project, const Workspace& workspace,
                                            const ConfinedSession& session) {
  SessionOutcome outcome;
  // First put back what git trusts, so that no git call below reads what the command wrote.
  restore_trusted_files(session, outcome.warnings);
  std::string branch_ref = "refs/heads/" + workspace.branch;

  GitCall read_head = workspace_call(workspace, {"rev-parse", "--verify", "-q", "HEAD^{commit}"});
  read_head.env = quarantine_env(project, session.quarantine);
  auto head = BERTH_TRY(git_status_of(read_head));
  outcome.new_head = head.ok() ? chomp(head.out) : session.branch_tip;
  if (!head.ok())
    outcome.warnings.push_back("the sandboxed command left HEAD pointing at no commit; the branch "
                               "stays where it was");

  auto reattach = [&]() -> Result<void> {
    BERTH_TRY(git(workspace_call(
        workspace, {"symbolic-ref", "-m", "berth: sandboxed run ends", "HEAD", branch_ref})));
    return {};
  };

  // Objects: verified and moved into the shared store. On failure they stay in the quarantine,
  // which is kept for inspection; the branch is untouched.
  auto migrated = migrate_objects(project, session.quarantine);
  if (!migrated) {
    (void)reattach();
    Error error = migrated.error();
    error.message = "cannot migrate the objects of the sandboxed run: " + error.message;
    error.hint = fmt::format("the branch {} is unchanged; the run's objects are kept in {}",
                             workspace.branch, session.quarantine);
    return tl::unexpected(std::move(error));
  }

  // Whatever happens to the branch, HEAD is re-attached to it: a failure here must not leave the
  // workspace detached.
  auto moved_branch = [&]() -> Result<void> {
    if (outcome.new_head != session.branch_tip) {
      // Connected from the shared store alone, now that the quarantine is not consulted.
      BERTH_TRY(git(repo_call(project, {"rev-list", "--objects", "--quiet", outcome.new_head,
                                        "--not", session.branch_tip})));
      auto ancestor = BERTH_TRY(git_status_of(repo_call(
          project, {"merge-base", "--is-ancestor", session.branch_tip, outcome.new_head})));
      bool moved = false;
      if (ancestor.ok()) {
        // Compare-and-swap: if the branch moved meanwhile, nothing is overwritten.
        auto updated = BERTH_TRY(
            git_status_of(repo_call(project, {"update-ref", "-m", "berth: sandboxed run",
                                              branch_ref, outcome.new_head, session.branch_tip})));
        moved = updated.ok();
        if (moved) {
          auto count = BERTH_TRY(git(repo_call(
              project, {"rev-list", "--count", outcome.new_head, "--not", session.branch_tip})));
          outcome.commits = std::atoi(chomp(count.out).c_str());
        }
      }
      if (!moved) {
        std::string ref = BERTH_TRY(orphan_ref(project, workspace, outcome.new_head));
        outcome.warnings.push_back(fmt::format(
            "the sandboxed run left HEAD at {}, which does not extend {}; the branch is unchanged "
            "and the commit is kept as {}",
            outcome.new_head.substr(0, 12), workspace.branch, ref));
      }
    }
    return {};
  }();
  BERTH_TRY(reattach());
  if (!moved_branch) return tl::unexpected(moved_branch.error());

  if (auto removed = util::remove_tree(session.quarantine); !removed)
    outcome.warnings.push_back(removed.error());
  if (auto removed = util::remove_tree(session.tmpdir); !removed)
    outcome.warnings.push_back(removed.error());
  return outcome;
}

} // namespace berth
