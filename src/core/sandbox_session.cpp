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
#include "util/process_info.hpp"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/stat.h>
#include <thread>
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
  // Gone: a recovery after the objects were migrated and the quarantine removed.
  if (!util::is_directory(quarantine)) return 0;
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
                            commit, project.null_oid()})));
    if (made.ok()) return ref;
    if (n > 100) return tl::unexpected(git_error(repo_call(project, {"update-ref", ref}), made));
  }
}

// The session record: what end_confined_session needs, so that the next berth command can finish
// a session whose berth was killed. It lives in the common dir, which the sandbox cannot write.
// File contents are kept as hex: a trusted file need not be UTF-8.
std::string session_record_path(const Project& project, const Workspace& workspace) {
  return util::join(project.berth_dir(), "sessions/" + name_slug(workspace.name) + ".json");
}

std::string to_hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    hex.push_back(digits[c >> 4]);
    hex.push_back(digits[c & 15]);
  }
  return hex;
}

std::optional<std::string> from_hex(const std::string& hex) {
  if (hex.size() % 2) return std::nullopt;
  std::string bytes;
  for (size_t i = 0; i < hex.size(); i += 2) {
    auto nibble = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      return -1;
    };
    int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    bytes.push_back(static_cast<char>(hi * 16 + lo));
  }
  return bytes;
}

Result<void> write_session_record(const Project& project, const Workspace& workspace,
                                  const ConfinedSession& session) {
  nlohmann::json files = nlohmann::json::array();
  for (const auto& [path, content] : session.trusted_files)
    files.push_back(
        {{"path", path}, {"content_hex", content ? nlohmann::json(to_hex(*content)) : nullptr}});
  std::string text;
  try {
    text = nlohmann::json{{"version", 1},
                          {"name", workspace.name},
                          {"berth_pid", ::getpid()},
                          {"quarantine", session.quarantine},
                          {"tmpdir", session.tmpdir},
                          {"branch_tip", session.branch_tip},
                          {"trusted_files", files},
                          {"command_pid", session.command_pid},
                          {"command_start", session.command_start}}
               .dump(2) +
           "\n";
  } catch (const nlohmann::json::exception& e) {
    return fail(ErrorCode::io_error,
                fmt::format("cannot record the sandboxed session: {}", e.what()));
  }
  std::string path = session_record_path(project, workspace);
  if (auto made = util::make_dirs(util::dirname(path), 0700); !made)
    return fail(ErrorCode::io_error, made.error());
  if (auto written = util::write_file_atomic(path, text); !written)
    return fail(ErrorCode::io_error, written.error());
  return {};
}

Result<std::optional<ConfinedSession>> read_session_record(const Project& project,
                                                           const Workspace& workspace) {
  std::string path = session_record_path(project, workspace);
  if (!util::exists(path)) return std::optional<ConfinedSession>();
  auto text = util::read_file(path);
  auto bad = [&](const std::string& why) {
    return fail(
        ErrorCode::interrupted,
        fmt::format("the record of an interrupted sandboxed run is unreadable: {}", why),
        fmt::format("inspect {}, re-attach HEAD (`git -C {} symbolic-ref HEAD refs/heads/{}`) "
                    "and remove the record",
                    path, workspace.path, workspace.branch));
  };
  if (!text) return bad(text.error());
  try {
    auto j = nlohmann::json::parse(*text);
    ConfinedSession session;
    session.quarantine = j.at("quarantine").get<std::string>();
    session.tmpdir = j.at("tmpdir").get<std::string>();
    session.branch_tip = j.at("branch_tip").get<std::string>();
    session.command_pid = j.value("command_pid", 0);
    session.command_start = j.value("command_start", int64_t{0});
    for (const auto& file : j.at("trusted_files")) {
      std::optional<std::string> content;
      if (!file.at("content_hex").is_null()) {
        content = from_hex(file.at("content_hex").get<std::string>());
        if (!content) return bad("a saved file is not hex");
      }
      session.trusted_files.emplace_back(file.at("path").get<std::string>(), content);
    }
    // Only the files berth itself records: a record never names anything else to rewrite.
    auto expected = trusted_paths(workspace);
    if (session.trusted_files.size() != expected.size()) return bad("unexpected trusted files");
    for (size_t i = 0; i < expected.size(); ++i)
      if (session.trusted_files[i].first != expected[i]) return bad("unexpected trusted files");
    return std::optional<ConfinedSession>(std::move(session));
  } catch (const nlohmann::json::exception& e) {
    return bad(e.what());
  }
}

// Stop the command a dead berth left running: the leader of its own session (Landlock mode;
// under bwrap the tree died with berth already). SIGKILL to its process group, then wait a
// moment for it to go.
void stop_session_command(const ConfinedSession& session) {
  if (session.command_pid <= 0 || !util::process_alive(session.command_pid, session.command_start))
    return;
  ::kill(-session.command_pid, SIGKILL);
  ::kill(session.command_pid, SIGKILL);
  for (int i = 0; i < 100 && util::process_alive(session.command_pid, session.command_start); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
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

  // The record first: from here on a berth killed mid-run leaves what the next one needs.
  if (auto recorded = write_session_record(project, workspace, session); !recorded)
    return undo(recorded.error());
  // Detach: a commit inside then moves only the per-worktree HEAD, in the writable admin dir.
  auto detached =
      git(workspace_call(workspace, {"update-ref", "--no-deref", "-m",
                                     "berth: sandboxed run begins", "HEAD", session.branch_tip}));
  if (!detached) {
    ::unlink(session_record_path(project, workspace).c_str());
    return undo(detached.error());
  }

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
  if (util::is_directory(session.quarantine))
    read_head.env = quarantine_env(project, session.quarantine);
  auto head = BERTH_TRY(git_status_of(read_head));
  outcome.new_head = head.ok() ? chomp(head.out) : session.branch_tip;
  if (!head.ok())
    outcome.warnings.push_back("the sandboxed command left HEAD pointing at no commit; the branch "
                               "stays where it was");

  // Once HEAD is on its branch again the session is over: its record goes.
  auto reattach = [&]() -> Result<void> {
    BERTH_TRY(git(workspace_call(
        workspace, {"symbolic-ref", "-m", "berth: sandboxed run ends", "HEAD", branch_ref})));
    ::unlink(session_record_path(project, workspace).c_str());
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
      auto current = BERTH_TRY(git_status_of(
          repo_call(project, {"rev-parse", "--verify", "-q", branch_ref + "^{commit}"})));
      // Already there: a recovery of a session whose berth died after moving the branch.
      bool moved = current.ok() && chomp(current.out) == outcome.new_head;
      if (!moved && ancestor.ok()) {
        // Compare-and-swap: if the branch moved meanwhile, nothing is overwritten.
        auto updated = BERTH_TRY(
            git_status_of(repo_call(project, {"update-ref", "-m", "berth: sandboxed run",
                                              branch_ref, outcome.new_head, session.branch_tip})));
        moved = updated.ok();
      }
      if (moved) {
        auto count = BERTH_TRY(git(repo_call(
            project, {"rev-list", "--count", outcome.new_head, "--not", session.branch_tip})));
        outcome.commits = std::atoi(chomp(count.out).c_str());
      } else {
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

void record_session_command(const Project& project, const Workspace& workspace,
                            ConfinedSession& session, int pid) {
  session.command_pid = pid;
  session.command_start = util::process_start_time(pid);
  // Without it, recovery still finishes the session; it just cannot stop a left-over tree.
  (void)write_session_record(project, workspace, session);
}

Result<std::optional<SessionOutcome>> recover_confined_session(const Project& project,
                                                               const Workspace& workspace) {
  auto session = BERTH_TRY(read_session_record(project, workspace));
  if (!session) return std::optional<SessionOutcome>();
  stop_session_command(*session);
  auto outcome = BERTH_TRY(end_confined_session(project, workspace, *session));
  outcome.warnings.insert(
      outcome.warnings.begin(),
      fmt::format("finished the sandboxed run in {} that was interrupted", workspace.name));
  return std::optional<SessionOutcome>(std::move(outcome));
}

} // namespace berth
