#include "core/trash.hpp"

#include "core/admin_files.hpp"
#include "core/capture.hpp"
#include "core/name.hpp"
#include "core/nested.hpp"
#include "core/porcelain.hpp"
#include "core/setup.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/paths.hpp"
#include "util/process_info.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <functional>
#include <future>
#include <map>
#include <optional>
#include <sstream>
#include <sys/stat.h>
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

// A snapshot already in the trash that holds exactly what a new one would.
struct SameSnapshot {
  std::string ref, commit, index_commit;
  int64_t time = 0;
};

// The newest snapshot of `name`, when it holds exactly what the one about to be written would:
// the same work tree, message (every Berth-* trailer: HEAD, branch tip, nested...), HEAD and
// other parents, and a staged-state parent with the same tree on the same HEAD. That is what a
// discard killed after its snapshot but before its tree moved aside left (the workspace is as it
// was): the retried discard reuses it instead of adding a twin to the trash. Only one made since
// `made_since` (the workspace's creation): one taken before it was made (a discard, a restore,
// then a discard with nothing changed) keeps its time, and the trash would say it was discarded
// back then. Compared by content,
// not ids: the staged-state commit's id carries the time it was made.
// What newest_same reads of a snapshot: refname, commit, time, tree, parents, each ending in a
// NUL, then the message.
const char* const kNewestFormat =
    "--format=%(refname)%00%(objectname)%00%(committerdate:unix)%00%(tree)%00%(parent)%00"
    "%(contents)";

Result<std::optional<SameSnapshot>>
newest_same(const Project& project, std::string_view name, const std::string& work_tree,
            const std::string& index_tree, const std::string& head,
            const std::vector<std::string>& later_parents, const std::string& message,
            const std::optional<std::string>& newest, int64_t made_since) {
  std::string listed_out;
  if (newest) {
    listed_out = *newest;
  } else {
    auto listed =
        BERTH_TRY(git_status_of(repo_call(project, {"for-each-ref", "--sort=-refname", "--count=1",
                                                    kNewestFormat, trash_prefix(name)})));
    if (!listed.ok()) return std::nullopt;
    listed_out = std::move(listed.out);
  }
  if (listed_out.empty()) return std::nullopt;
  std::vector<std::string> fields;
  size_t from = 0;
  for (int i = 0; i < 5; ++i) {
    size_t nul = listed_out.find('\0', from);
    if (nul == std::string::npos) return std::nullopt;
    fields.push_back(listed_out.substr(from, nul - from));
    from = nul + 1;
  }
  if (fields[0].rfind(trash_prefix(name), 0) != 0) return std::nullopt;
  const int64_t time = std::strtoll(fields[2].c_str(), nullptr, 10);
  if (time < made_since) return std::nullopt; // before this workspace was: not its twin
  auto trimmed = [](std::string text) {
    while (!text.empty() && text.back() == '\n')
      text.pop_back();
    return text;
  };
  std::vector<std::string> parents;
  std::istringstream words(fields[4]);
  for (std::string parent; words >> parent;)
    parents.push_back(parent);
  if (fields[3] != work_tree || trimmed(listed_out.substr(from)) != trimmed(message) ||
      parents.size() != 2 + later_parents.size() || parents[0] != head ||
      !std::equal(later_parents.begin(), later_parents.end(), parents.begin() + 2))
    return std::nullopt;
  // The staged state: its tree, on HEAD alone.
  auto index = BERTH_TRY(
      git_status_of(repo_call(project, {"rev-parse", parents[1] + "^{tree}", parents[1] + "^@"})));
  if (!index.ok() || split_lines(index.out) != std::vector<std::string>{index_tree, head})
    return std::nullopt;
  SameSnapshot same{fields[0], fields[1], parents[1], time};
  return same;
}

} // namespace

std::string trash_blocker(const Project& project, std::string_view name) {
  std::vector<std::string> places{"refs/berth", "refs/berth/trash"};
  if (!name.empty()) places.push_back("refs/berth/trash/" + name_slug(name));
  // Sorted by name, a ref comes before the refs "under" it: the first one a pattern matches is
  // the blocking ref itself when there is one.
  for (const auto& ref : places) {
    auto first = git_status_of(
        repo_call(project, {"for-each-ref", "--count=1", "--format=%(refname)", ref}));
    if (first && first->ok() && chomp(first->out) == ref) return ref;
  }
  return {};
}

std::map<std::string, std::string> newest_in_trash(const Project& project,
                                                   const std::vector<std::string>& names) {
  std::map<std::string, std::string> newest;
  if (names.empty()) return newest; // (no pattern would list every ref)
  std::vector<std::string> args{"for-each-ref", "--sort=-refname",
                                std::string(kNewestFormat) + "%00"};
  for (const auto& name : names) {
    newest[name] = "";
    // (a name never discarded before, as the ref files tell: nothing to ask git)
    if (may_have_refs_under(project.common_dir(), trash_prefix(name)))
      args.push_back(trash_prefix(name));
  }
  if (args.size() == 3) return newest;
  auto listed = git_status_of(repo_call(project, args));
  if (!listed || !listed->ok()) return {};
  // Each snapshot: its six fields, each ending in a NUL, then the newline git ends it with.
  const std::string& out = listed->out;
  for (size_t at = 0; at < out.size();) {
    size_t end = at;
    for (int i = 0; i < 6 && end != std::string::npos; ++i) {
      end = out.find('\0', end);
      if (end != std::string::npos) ++end;
    }
    if (end == std::string::npos || end >= out.size() || out[end] != '\n') return {};
    std::string record = out.substr(at, end - 1 - at);
    for (const auto& name : names)
      if (record.rfind(trash_prefix(name), 0) == 0 && newest[name].empty()) newest[name] = record;
    at = end + 1;
  }
  return newest;
}

namespace {

// What HEAD names in a workspace: "refs/heads/..." (or another ref), "(detached)". Read from
// its admin dir's HEAD file as git reads it (make_saveable checked the admin files); asked of
// git when the file says something else (an old-style symlink, say).
Result<std::string> head_ref_of(const Workspace& w) {
  if (auto head = util::read_file(util::join(w.git_dir, "HEAD"))) {
    std::string text = chomp(*head);
    if (text.rfind("ref: refs/", 0) == 0 && text.find_first_of(" \t\n", 5) == std::string::npos)
      return text.substr(5);
    if ((text.size() == 40 || text.size() == 64) &&
        text.find_first_not_of("0123456789abcdef") == std::string::npos)
      return std::string("(detached)");
  }
  auto symbolic = BERTH_TRY(git_status_of(workspace_call(w, {"symbolic-ref", "-q", "HEAD"})));
  return symbolic.ok() ? chomp(symbolic.out) : std::string("(detached)");
}

// Commits written as objects with berth's identity, what `git commit-tree` would write with it
// (the same ids), in one hash-object conversation instead of one process per commit: the first
// commits, then those `then` makes of their ids (commits on those), each answered as it is sent.
struct CommitAsked {
  std::string tree;
  std::vector<std::string> parents;
  std::string message;
};
using ThenCommits = std::function<std::vector<CommitAsked>(const std::vector<std::string>&)>;
Result<std::pair<std::vector<std::string>, std::vector<std::string>>>
write_commits(const Project& project, const std::vector<CommitAsked>& first,
              const ThenCommits& then) {
  std::pair<std::vector<std::string>, std::vector<std::string>> written;
  if (first.empty()) return written;
  auto identity = berth_identity();
  const std::string who = fmt::format("{} <{}> {} +0000", *identity["GIT_COMMITTER_NAME"],
                                      *identity["GIT_COMMITTER_EMAIL"], unix_now());
  std::string tmp_dir = util::join(project.berth_dir(), "tmp");
  if (auto made = util::make_dirs(tmp_dir); !made) return fail(ErrorCode::io_error, made.error());
  static std::atomic<int> counter{0};
  int batch = ++counter;
  struct Scratch {
    std::vector<std::string> paths;
    ~Scratch() {
      for (const auto& p : paths)
        ::unlink(p.c_str());
    }
  } files;
  GitConversation writer(commit_writer(project));
  // Each commit to a file of its own, its path sent; then one id read per commit.
  auto write = [&](const std::vector<CommitAsked>& commits,
                   std::vector<std::string>& oids) -> Result<void> {
    std::string paths;
    for (const CommitAsked& c : commits) {
      std::string raw = "tree " + c.tree + "\n";
      for (const auto& parent : c.parents)
        raw += "parent " + parent + "\n";
      raw += "author " + who + "\ncommitter " + who + "\n\n" + c.message;
      std::string file = util::join(
          tmp_dir, fmt::format("commit.{}.{}.{}", ::getpid(), batch, files.paths.size()));
      files.paths.push_back(file);
      if (auto w = util::write_file(file, raw); !w) return fail(ErrorCode::io_error, w.error());
      paths += file + "\n";
    }
    oids = BERTH_TRY(writer.ask(paths, commits.size()));
    return {};
  };
  BERTH_TRY(write(first, written.first));
  std::vector<CommitAsked> second;
  if (written.first.size() == first.size() && then) second = then(written.first);
  if (!second.empty()) BERTH_TRY(write(second, written.second));
  BERTH_TRY(writer.finish()); // (says why git stopped, when it did)
  if (written.first.size() != first.size() || written.second.size() != second.size())
    return fail(ErrorCode::git_failed, "git hash-object did not name every commit it wrote");
  return written;
}

} // namespace

GitCall commit_writer(const Project& project) {
  return repo_call(project, {"hash-object", "-w", "-t", "commit", "--stdin-paths"});
}

namespace {

// A snapshot on its way through make_snapshots.
struct Snapping {
  Snapshot s;
  std::string head_tree, index_tree, work_tree, message;
  std::vector<std::string> later_parents;
  std::optional<std::vector<TreeEntry>> added;
  std::vector<NestedChange> nested; // as the capture's status named them
};

} // namespace

Result<Snapshot> make_snapshot(const Project& project, const Workspace& w, Content content,
                               const SnapshotHints& hints) {
  return make_snapshots(project, {SnapshotAsked{&w, content, hints}}).front();
}

std::vector<Result<Snapshot>> make_snapshots(const Project& project,
                                             const std::vector<SnapshotAsked>& asked) {
  const size_t n = asked.size();
  std::vector<Result<Snapshot>> results(n);
  std::vector<Snapping> all(n);
  std::vector<char> live(n, 1);
  auto give_up = [&](size_t i, Error e) {
    results[i] = tl::unexpected(std::move(e));
    live[i] = 0;
  };
  for (size_t i = 0; i < n; ++i) {
    const Workspace& w = *asked[i].workspace;
    Snapshot& s = all[i].s;
    s.name = w.name;
    s.branch = w.branch;
    s.base = w.base;
    s.owner = w.owner;
    if (asked[i].hints.branch_tip) {
      s.branch_tip = *asked[i].hints.branch_tip;
    } else if (auto tip = rev(project, "refs/heads/" + w.branch + "^{commit}")) {
      s.branch_tip = *tip;
    } else {
      give_up(i, tip.error());
    }
  }

  // The work trees captured together (a discard has no use for the commit counts: its
  // workspace goes).
  std::vector<size_t> capturing;
  std::vector<const Workspace*> trees;
  for (size_t i = 0; i < n; ++i)
    if (live[i] && asked[i].content == Content::work_tree) {
      capturing.push_back(i);
      trees.push_back(asked[i].workspace);
    }
  auto captured = capture_many(project, trees, Counts::skip);
  for (size_t k = 0; k < capturing.size(); ++k) {
    size_t i = capturing[k];
    if (!captured[k]) {
      give_up(i, captured[k].error());
      continue;
    }
    Captured& now = *captured[k];
    Snapping& one = all[i];
    for (const auto& p : now.unrecordable)
      one.s.warnings.push_back(
          fmt::format("{} is a FIFO, a socket or a device: not saved (it holds no content)", p));
    one.s.head = now.head;
    one.head_tree = now.head_tree;
    one.index_tree = now.index_tree;
    one.work_tree = now.work_tree;
    one.added = std::move(now.added);
    one.nested = std::move(now.nested);
  }
  // Untracked files as they are on disk, for all in one call (docs/decisions/0003, "Nested
  // repositories": neither they nor the repositories inside the workspace are what `git add -A`
  // would record).
  std::vector<UntrackedAsked> untracked;
  std::vector<size_t> as_is;
  for (size_t i : capturing)
    if (live[i]) {
      untracked.push_back(UntrackedAsked{asked[i].workspace, all[i].index_tree, all[i].work_tree,
                                         std::move(all[i].added)});
      as_is.push_back(i);
    }
  if (!untracked.empty()) {
    auto kept = untracked_as_is_many(project, untracked);
    for (size_t k = 0; k < as_is.size(); ++k) {
      size_t i = as_is[k];
      if (!kept) {
        give_up(i, kept.error());
        continue;
      }
      all[i].work_tree = (*kept)[k];
      all[i].s.untracked_as_is = true;
    }
  }

  // The gitlinks each one's commits changed (their commits may exist only in its modules), in
  // one diff-tree for all.
  std::vector<std::pair<std::string, std::string>> base_head(n);
  for (size_t i : capturing)
    if (live[i]) base_head[i] = {asked[i].workspace->base, all[i].s.head};
  auto committed = gitlinks_committed(project, base_head);

  for (size_t i = 0; i < n; ++i) {
    if (!live[i]) continue;
    const Workspace& w = *asked[i].workspace;
    Snapping& one = all[i];
    Snapshot& s = one.s;
    auto rest = [&]() -> Result<void> {
      if (asked[i].content == Content::work_tree) {
        s.nested = BERTH_TRY(save_nested(project, w, one.nested, s.head, s.warnings,
                                         committed ? &(*committed)[i] : nullptr));
        // The branch the agent had checked out (its own, maybe not berth's), to check it out
        // again.
        s.head_ref = BERTH_TRY(head_ref_of(w));
      } else {
        s.head = s.branch_tip.empty() ? w.base : s.branch_tip;
        one.head_tree =
            chomp(BERTH_TRY(git(repo_call(project, {"rev-parse", s.head + "^{tree}"}))).out);
        one.index_tree = one.work_tree = one.head_tree;
        // Its submodules' module repositories live in its admin dir and go with it: commits
        // made in them may exist nowhere else.
        s.nested = BERTH_TRY(save_module_commits(project, w, s.head, s.warnings));
      }
      std::string trailers =
          fmt::format("Berth-Name: {}\nBerth-Branch: {}\nBerth-Base: {}\nBerth-Head: {}\n"
                      "Berth-Branch-Tip: {}\nBerth-Owner: {}\n",
                      w.name, w.branch, w.base, s.head, s.branch_tip, w.owner);
      if (!s.head_ref.empty()) trailers += fmt::format("Berth-Head-Ref: {}\n", s.head_ref);
      if (s.untracked_as_is) trailers += "Berth-Untracked: as-is\n";
      if (!s.nested.empty()) trailers += fmt::format("Berth-Nested: {}\n", s.nested);
      // What its set-up made (node_modules), for the deleter's count of what is not lost work.
      for (const auto& rel : w.setup_made)
        trailers += fmt::format("Berth-Setup-Path: {}\n", rel);
      one.message = fmt::format("berth trash: {}\n\n{}", w.name, trailers);
      // After HEAD and the staged state: the branch tip, when HEAD is elsewhere; last, the
      // nested repositories, reachable from the snapshot's ref like everything else.
      if (!s.branch_tip.empty() && s.branch_tip != s.head)
        one.later_parents.push_back(s.branch_tip);
      if (!s.nested.empty()) one.later_parents.push_back(s.nested);
      if (auto same = BERTH_TRY(newest_same(
              project, w.name, one.work_tree, one.index_tree, s.head, one.later_parents,
              one.message,
              asked[i].hints.newest ? std::optional(asked[i].hints.newest()) : std::nullopt,
              w.created))) {
        s.ref = same->ref;
        s.commit = same->commit;
        s.index_commit = same->index_commit;
        s.time = same->time;
      }
      return {};
    };
    if (auto done = rest(); !done) give_up(i, done.error());
  }

  // The commits: every staged state's in one call, then every snapshot's (on its staged state).
  std::vector<size_t> writing;
  std::vector<CommitAsked> index_commits;
  for (size_t i = 0; i < n; ++i)
    if (live[i] && all[i].s.ref.empty()) {
      writing.push_back(i);
      index_commits.push_back(CommitAsked{
          all[i].index_tree, {all[i].s.head}, fmt::format("berth index of {}\n", all[i].s.name)});
    }
  auto written = write_commits(project, index_commits, [&](const std::vector<std::string>& index) {
    std::vector<CommitAsked> snapshot_commits;
    for (size_t k = 0; k < writing.size(); ++k) {
      const Snapping& one = all[writing[k]];
      CommitAsked c{one.work_tree, {one.s.head, index[k]}, one.message};
      c.parents.insert(c.parents.end(), one.later_parents.begin(), one.later_parents.end());
      snapshot_commits.push_back(std::move(c));
    }
    return snapshot_commits;
  });
  for (size_t k = 0; k < writing.size(); ++k) {
    if (!written) {
      give_up(writing[k], written.error());
      continue;
    }
    all[writing[k]].s.index_commit = written->first[k];
    all[writing[k]].s.commit = written->second[k];
  }
  for (size_t i = 0; i < n; ++i)
    if (live[i]) results[i] = std::move(all[i].s);
  return results;
}

Result<void> keep_snapshot(const Project& project, const Workspace& w, Snapshot& s,
                           RefTransactions* through) {
  if (!s.ref.empty()) return {};
  // Create-only ref update: two discards in the same second get distinct refs.
  s.time = unix_now();
  std::optional<Error> failed;
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string ref = trash_prefix(w.name) + std::to_string(s.time) +
                      (attempt == 0 ? std::string() : fmt::format("-{}", attempt));
    GitCall update = repo_call(
        project, {"update-ref", "-m", "berth: trash " + w.name, ref, s.commit, project.null_oid()});
    if (through) update = through->call();
    auto made = through ? BERTH_TRY(through->send(fmt::format("create {} {}\n", ref, s.commit)))
                        : BERTH_TRY(git_status_of(update));
    if (made.ok()) {
      s.ref = ref;
      return {};
    }
    // The user's hook said no (to every name alike): the discard stops here, nothing removed.
    if (ref_hook_refused(made.err))
      return tl::unexpected(git_error(
          update, made,
          fmt::format("cannot save '{}' in the trash: your reference-transaction hook refused {}",
                      w.name, ref)));
    failed = git_error(
        update, made,
        fmt::format("cannot create a trash ref for '{}': {}", w.name, last_line(made.err)));
  }
  // What git said stays with it (the `git` object), under berth's own reading.
  if (auto blocked = trash_blocker(project, w.name); !blocked.empty()) {
    failed->code = ErrorCode::trash_blocked;
    failed->message = fmt::format("cannot keep '{}' in the trash: the ref {} is in the way (the "
                                  "trash needs a folder of refs there)",
                                  w.name, blocked);
    failed->hint = fmt::format("`berth doctor --repair` moves it to refs/berth/invalid/ (nothing "
                               "is lost), then discard again; or `git update-ref -d {}` if it is "
                               "worthless",
                               blocked);
    return tl::unexpected(std::move(*failed));
  }
  failed->hint = "run `git for-each-ref refs/berth/trash/` to inspect the trash";
  return tl::unexpected(std::move(*failed));
}

Result<Snapshot> take_snapshot(const Project& project, const Workspace& w, Content content,
                               const SnapshotHints& hints) {
  Snapshot s = BERTH_TRY(make_snapshot(project, w, content, hints));
  BERTH_TRY(keep_snapshot(project, w, s, hints.refs));
  return s;
}

std::vector<Result<void>> keep_snapshots(const Project& project,
                                         const std::vector<const Workspace*>& workspaces,
                                         const std::vector<Snapshot*>& snapshots) {
  std::vector<Result<void>> kept(snapshots.size());
  // One transaction for all: each ref created (create-only) or none. A name taken (two
  // discards of a name in one second), a hook's refusal or any other failure: each on its own,
  // as keep_snapshot does it (another name, the hook's answer for that ref).
  int64_t now = unix_now();
  std::string input;
  for (const Snapshot* s : snapshots)
    if (s->ref.empty())
      input += fmt::format("create {}{} {}\n", trash_prefix(s->name), now, s->commit);
  if (!input.empty()) {
    GitCall update = repo_call(project, {"update-ref", "-m", "berth: trash", "--stdin"});
    update.input = input;
    auto made = git_status_of(update);
    bool all = made && made->ok();
    for (size_t i = 0; i < snapshots.size(); ++i) {
      Snapshot& s = *snapshots[i];
      if (!s.ref.empty()) continue;
      if (all) {
        s.time = now;
        s.ref = trash_prefix(s.name) + std::to_string(now);
      } else {
        kept[i] = keep_snapshot(project, *workspaces[i], s);
      }
    }
  }
  return kept;
}

Result<void> finish_restore(const Project& project, const Workspace& w, const Snapshot& snap,
                            const std::string& staged, std::vector<std::string>& warnings,
                            std::string& made_branch) {
  if (snap.untracked_as_is) BERTH_TRY(write_untracked_as_is(project, w, staged, snap.commit));
  // "" (an older snapshot) or berth's own branch: the new workspace is on it already.
  if (snap.head_ref.empty() || snap.head_ref == "refs/heads/" + snap.branch) return {};
  auto detach = [&] {
    return git(
        workspace_call(w, {"update-ref", "--no-deref", "-m", "berth: restore", "HEAD", snap.head}));
  };
  if (snap.head_ref.rfind("refs/heads/", 0) != 0) {
    BERTH_TRY(detach());
    return {};
  }
  const std::string& branch = snap.head_ref;
  std::string short_name = branch.substr(std::string_view("refs/heads/").size());
  std::string now = BERTH_TRY(rev(project, branch));
  bool elsewhere = false;
  // (A tree discard moved aside, waiting for the background deleter, does not count: it goes.)
  for (const auto& entry : BERTH_TRY(worktrees(project)))
    if (entry.branch == branch && entry.path != w.path &&
        util::basename(util::dirname(entry.path)) != ".trash")
      elsewhere = true;
  if (now.empty()) {
    // Gone with the workspace (or deleted since): made again where the workspace had it.
    BERTH_TRY(git(repo_call(
        project, {"update-ref", "-m", "berth: restore", branch, snap.head, project.null_oid()})));
    made_branch = branch;
  } else if (now != snap.head || elsewhere) {
    warnings.push_back(fmt::format(
        "branch {} {} since the discard: the workspace is restored with HEAD detached at {}",
        short_name, elsewhere ? "is checked out elsewhere" : "has moved", snap.head.substr(0, 12)));
    BERTH_TRY(detach());
    return {};
  }
  auto moved = git(workspace_call(w, {"symbolic-ref", "-m", "berth: restore", "HEAD", branch}));
  if (!moved) {
    // A failed restore leaves no branch behind: the one made here goes again.
    if (now.empty()) {
      (void)git_status_of(repo_call(project, {"update-ref", "-d", branch, snap.head}));
      made_branch.clear();
    }
    return tl::unexpected(moved.error());
  }
  return {};
}

namespace {

std::string notes_dir(const Project& project) {
  return util::join(project.berth_dir(), "trash-notes");
}

// refs/berth/trash/<slug>/<leaf> -> <berth>/trash-notes/<slug>.<leaf>
std::string note_path(const Project& project, const std::string& ref) {
  std::string rest = ref.substr(std::string_view("refs/berth/trash/").size());
  std::replace(rest.begin(), rest.end(), '/', '.');
  return util::join(notes_dir(project), rest);
}

} // namespace

std::pair<uint64_t, uint64_t> count_ignored(const std::string& git_dir,
                                            const std::string& work_tree) {
  auto found = count_ignored_apart(git_dir, work_tree, {}, {});
  return {found.files, found.bytes};
}

namespace {

// Where `path` lies among set-up's paths: beneath one it made whole (a clone, a link, the hooks
// folder), beneath a folder it copied file by file (ending in '/': the file is set-up's while it
// is still the copy), or outside them all.
enum class SetupPlace { none, whole, copied };
SetupPlace setup_place(std::string_view path, const std::vector<std::string>& setup_paths) {
  SetupPlace place = SetupPlace::none;
  for (const auto& p : setup_paths) {
    if (!p.empty() && p.back() == '/') {
      if (path.size() >= p.size() && path.compare(0, p.size(), p) == 0) place = SetupPlace::copied;
      continue;
    }
    if (path == p ||
        (path.size() > p.size() && path.compare(0, p.size(), p) == 0 && path[p.size()] == '/'))
      return SetupPlace::whole;
  }
  return place;
}

// A file of a copied folder is still set-up's copy: its twin in the main checkout is the same
// kind of file with the same size and mtime (a copy keeps the mtime; an agent's edit changes it).
bool still_the_copy(const struct stat& st, const std::string& source, const std::string& rel) {
  struct stat twin;
  if (source.empty() || ::lstat(util::join(source, rel).c_str(), &twin) != 0) return false;
  return (twin.st_mode & S_IFMT) == (st.st_mode & S_IFMT) && twin.st_size == st.st_size &&
         twin.st_mtim.tv_sec == st.st_mtim.tv_sec && twin.st_mtim.tv_nsec == st.st_mtim.tv_nsec;
}

} // namespace

bool made_whole_by_setup(std::string_view path, const std::vector<std::string>& setup_paths) {
  return setup_place(path, setup_paths) == SetupPlace::whole;
}

bool made_by_setup(const std::string& path, const struct stat* st,
                   const std::vector<std::string>& setup_paths, const std::string& source) {
  SetupPlace place = setup_place(path, setup_paths);
  return place == SetupPlace::whole ||
         (place == SetupPlace::copied && st && still_the_copy(*st, source, path));
}

IgnoredCount count_ignored_apart(const std::string& git_dir, const std::string& work_tree,
                                 const std::vector<std::string>& setup_paths,
                                 const std::string& source) {
  IgnoredCount found;
  auto args = workspace_git_args(git_dir, work_tree);
  for (const char* a : {"ls-files", "-z", "--others", "--ignored", "--exclude-standard"})
    args.push_back(a);
  auto listed = git_status_of(GitCall{args, work_tree, {}, {}, util::Stream::pipe});
  if (!listed || !listed->ok()) return found;
  for (const auto& file : split_z(listed->out)) {
    struct stat st;
    bool present = ::lstat(util::join(work_tree, file).c_str(), &st) == 0;
    uint64_t size = present ? static_cast<uint64_t>(st.st_size) : 0;
    bool made = made_by_setup(file, present ? &st : nullptr, setup_paths, source);
    (made ? found.setup_files : found.files) += 1;
    (made ? found.setup_bytes : found.bytes) += size;
  }
  return found;
}

std::optional<bool> any_untracked(const std::string& git_dir, const std::string& work_tree,
                                  const std::function<std::vector<std::string>()>& setup_paths_of,
                                  const std::string& source, const UntrackedQuery& query) {
  auto args = workspace_git_args(git_dir, work_tree);
  for (const char* a : {"ls-files", "-z", "--others"})
    args.push_back(a);
  if (query.ignored_only) args.insert(args.end(), {"--ignored", "--exclude-standard"});
  // A whole tree: an untracked folder is one entry, not walked. At given paths, each file that is
  // one: git 2.39's --directory dies ("directory entry not superset of prefix") when the paths
  // share a prefix inside an ignored folder (node_modules/new/a.js, node_modules/new/b.js).
  if (!query.paths) {
    args.insert(args.end(), {"--directory", "--no-empty-directory"});
  } else {
    if (query.paths->empty()) return false;
    // git walks only the folders on the way to them.
    args.push_back("--");
    for (const auto& path : *query.paths)
      args.push_back(":(literal)" + path);
  }
  GitCall call{args, work_tree, {}, {}, util::Stream::pipe};
  call.env["GIT_OPTIONAL_LOCKS"] = "0";
  auto listed = git_status_of(call);
  if (!listed || !listed->ok()) return std::nullopt;
  if (listed->out.empty()) return false;
  const std::vector<std::string> setup_paths = setup_paths_of();
  // An entry is a file or the highest untracked (ignored) folder ("node_modules/"): one at or
  // beneath a set-up path is set-up's; one above it (a folder holding more) still counts. One in
  // a folder set-up copied file by file is set-up's only if its files are still the copies: those
  // are compared one by one, once.
  bool in_copied = false;
  for (const auto& entry : split_z(listed->out)) {
    switch (setup_place(entry, setup_paths)) {
    case SetupPlace::whole:
      break;
    case SetupPlace::copied:
      in_copied = true;
      break;
    case SetupPlace::none: {
      // A folder entry ("node_modules/") holding a copied folder ("node_modules/a/"): its files
      // decide.
      bool holds_copied =
          !entry.empty() && entry.back() == '/' &&
          std::any_of(setup_paths.begin(), setup_paths.end(), [&](const auto& p) {
            return !p.empty() && p.back() == '/' && p.compare(0, entry.size(), entry) == 0;
          });
      if (!holds_copied) return true;
      in_copied = true;
      break;
    }
    }
  }
  // (count_ignored_apart compares the copies among the ignored files only.)
  if (in_copied && !query.ignored_only) return std::nullopt;
  return in_copied && count_ignored_apart(git_dir, work_tree, setup_paths, source).files > 0;
}

bool has_ignored(const std::string& git_dir, const std::string& work_tree,
                 const std::function<std::vector<std::string>()>& setup_paths_of,
                 const std::string& source) {
  return any_untracked(git_dir, work_tree, setup_paths_of, source, {}).value_or(true);
}

std::string aside_name(std::string_view name, const std::string& snapshot_ref) {
  return fmt::format("{}.{}.{}", name_slug(name), util::basename(snapshot_ref), ::getpid());
}

std::string aside_snapshot_ref(const std::string& aside_path) {
  // <slug>.<leaf>.<pid>: the slug may hold dots, the leaf and the pid do not.
  std::string name = util::basename(aside_path);
  auto pid_dot = name.rfind('.');
  if (pid_dot == std::string::npos || pid_dot == 0) return {};
  auto leaf_dot = name.rfind('.', pid_dot - 1);
  if (leaf_dot == std::string::npos) return {};
  return "refs/berth/trash/" + name.substr(0, leaf_dot) + "/" +
         name.substr(leaf_dot + 1, pid_dot - leaf_dot - 1);
}

void wait_for_running_gc(const Project& project) {
  std::string file = util::join(project.common_dir(), "gc.pid");
  char host[256] = {};
  (void)::gethostname(host, sizeof host - 1);
  auto running = [&](std::string* seen) {
    auto text = util::read_file(file);
    if (!text) return false;
    unsigned long pid = 0;
    char owner[256] = {};
    if (std::sscanf(text->c_str(), "%lu %255s", &pid, owner) != 2 || std::string(owner) != host)
      return false;
    if (seen->empty()) *seen = *text;
    return *text == *seen && util::process_alive(static_cast<pid_t>(pid), 0);
  };
  std::string first;
  for (int waited_ms = 0; running(&first) && waited_ms < 30000; waited_ms += 20)
    ::usleep(20 * 1000);
}

bool snapshot_complete(const Project& project, const std::string& commit,
                       std::optional<Error>* why) {
  auto incomplete = [&](const GitCall& call, const Result<util::ProcessResult>& result) {
    if (why) *why = result ? git_error(call, *result) : result.error();
    return false;
  };
  wait_for_running_gc(project);
  // Its parents (HEAD, the staged state, the branch tip): reading them reads the commit.
  GitCall parents_call = repo_call(project, {"rev-parse", commit + "^@"});
  auto parents = git_status_of(parents_call);
  if (commit.empty() || !parents || !parents->ok()) return incomplete(parents_call, parents);
  auto heads = split_lines(parents->out);
  if (heads.empty()) return false;
  // What the snapshot added to HEAD: every tree on a changed path is read on the way (a missing
  // one fails the diff), every new blob is named. What it shares with HEAD is HEAD's, reachable
  // from the user's history. O(changed paths), where `rev-list --objects` would walk all of
  // HEAD's tree to exclude it.
  std::string wanted = commit + "\n";
  for (const auto& head : heads)
    wanted += head + "\n";
  for (size_t i = 1; i <= heads.size() && i <= 2; ++i) {
    std::string side = i == 1 ? commit : heads[1];
    GitCall diff_call =
        tree_diff_call(project, {"diff-tree", "-r", "-z", "--no-renames", "--raw", heads[0], side});
    auto diff = git_status_of(diff_call);
    if (!diff || !diff->ok()) return incomplete(diff_call, diff);
    // ":<mode> <mode> <oid> <oid> <status>" NUL <path> NUL
    for (const auto& field : split_z(diff->out)) {
      if (field.empty() || field.front() != ':') continue;
      std::vector<std::string> words;
      for (size_t at = 1, space; at <= field.size(); at = space + 1) {
        space = std::min(field.find(' ', at), field.size());
        words.push_back(field.substr(at, space - at));
      }
      // A gitlink names a commit of another repository: not this store's to hold.
      if (words.size() >= 5 && words[1] != "160000" && words[4] != "D") wanted += words[3] + "\n";
    }
  }
  GitCall check = repo_call(project, {"cat-file", "--batch-check=%(objectname)", "--buffer"});
  check.input = wanted;
  auto checked = git_status_of(check);
  if (checked && checked->ok() && checked->out.find(" missing") == std::string::npos) return true;
  return incomplete(check, checked);
}

std::optional<std::vector<SnapshotTrees>>
snapshots_complete(const Project& project, const std::vector<const Snapshot*>& snapshots) {
  wait_for_running_gc(project);
  // What each added to HEAD, as snapshot_complete reads it: its work tree and its staged state
  // against HEAD's, the commits named as they are (diff-tree reads each commit, then every tree
  // on a changed path: a missing one fails the diff). A line of commits is read as a commit and
  // the parent to compare it with, as `git log --parents` writes them.
  std::string pairs, peeled, wanted;
  for (const Snapshot* s : snapshots) {
    if (s->commit.empty() || s->head.empty() || s->index_commit.empty()) return std::nullopt;
    pairs += fmt::format("{} {}\n{} {}\n", s->commit, s->head, s->index_commit, s->head);
    // Each one's trees, and its base's, in SnapshotTrees' order (HEAD, the work tree, the staged
    // state, the base): asked of the cat-file below, which reads the commits to name them.
    for (const auto* commit : {&s->head, &s->commit, &s->index_commit, &s->base})
      peeled += *commit + "^{tree}\n";
    if (!s->branch_tip.empty() && s->branch_tip != s->head) wanted += s->branch_tip + "\n";
    if (!s->nested.empty()) wanted += s->nested + "\n";
  }
  GitCall diff =
      tree_diff_call(project, {"diff-tree", "--stdin", "-r", "-z", "--no-renames", "--raw"});
  diff.input = pairs;
  // The check's cat-file started now, on a thread of its own beside the diff (after the gc
  // waited for, as the diff), and told what to look for once the diff named the blobs: its start
  // is off the way, and the diff's is not behind it.
  GitCall check = repo_call(project, {"cat-file", "--batch-check=%(objectname)", "--buffer"});
  auto starting = std::async(std::launch::async, [&check] { return git_start(check); });
  auto diffed = git_status_of(diff);
  auto checker = starting.get();
  if (!diffed || !diffed->ok()) return std::nullopt;
  // The commit (NUL-ended) before each pair's entries (":<mode> <mode> <oid> <oid> <status>"
  // NUL <path> NUL); a path never follows it. (A pair of trees would come as "TREE TREE\n"
  // ahead of the entry's field.)
  bool path_next = false;
  for (const auto& field : split_z(diffed->out)) {
    if (path_next) {
      path_next = false;
      continue;
    }
    std::string_view entry = field;
    size_t nl = entry.rfind('\n');
    if (nl != std::string_view::npos) entry.remove_prefix(nl + 1);
    if (entry.empty() || entry.front() != ':') continue;
    path_next = true;
    std::vector<std::string_view> words;
    for (size_t at = 1, space; at <= entry.size(); at = space + 1) {
      space = std::min(entry.find(' ', at), entry.size());
      words.push_back(entry.substr(at, space - at));
    }
    // A gitlink names a commit of another repository: not this store's to hold.
    if (words.size() >= 5 && words[1] != "160000" && words[4] != "D")
      wanted += std::string(words[3]) + "\n";
  }
  if (!checker) return std::nullopt;
  auto checked = checker->communicate(peeled + wanted, {},
                                      std::chrono::steady_clock::now() + git_read_timeout(), true);
  if (!checked || !checked->ok() || checked->out.find(" missing") != std::string::npos)
    return std::nullopt;
  auto lines = split_lines(checked->out);
  if (lines.size() < 4 * snapshots.size()) return std::nullopt;
  std::vector<SnapshotTrees> trees;
  for (size_t i = 0; i < snapshots.size(); ++i)
    trees.push_back(
        SnapshotTrees{lines[4 * i], lines[4 * i + 1], lines[4 * i + 2], lines[4 * i + 3]});
  return trees;
}

namespace {

std::vector<std::string> split_words(const std::string& line) {
  std::vector<std::string> words;
  for (size_t at = 0; at < line.size();) {
    auto space = line.find(' ', at);
    if (space == std::string::npos) space = line.size();
    if (space > at) words.push_back(line.substr(at, space - at));
    at = space + 1;
  }
  return words;
}

// One object as `git cat-file --batch` gave it: its type ("missing" when it is not in the store)
// and content.
struct CatObject {
  std::string type;
  std::string content;
};

// Read many objects in one git call. A missing one is "missing", never an error: a trash ref whose
// objects were pruned must not hide the others.
Result<std::vector<CatObject>> cat_objects(const Project& project,
                                           const std::vector<std::string>& oids) {
  std::vector<CatObject> objects;
  if (oids.empty()) return objects;
  GitCall call = repo_call(project, {"cat-file", "--batch"});
  for (const auto& oid : oids)
    call.input += oid + "\n";
  auto out = BERTH_TRY(git(call)).out;
  size_t at = 0;
  for (size_t i = 0; i < oids.size(); ++i) {
    auto eol = out.find('\n', at);
    if (eol == std::string::npos) return fail(ErrorCode::git_failed, "short cat-file output");
    auto words = split_words(out.substr(at, eol - at));
    at = eol + 1;
    if (words.size() < 3) {
      objects.push_back({"missing", {}});
      continue;
    }
    size_t size = std::strtoull(words[2].c_str(), nullptr, 10);
    if (at + size > out.size()) return fail(ErrorCode::git_failed, "short cat-file output");
    objects.push_back({words[1], out.substr(at, size)});
    at += size + 1;
  }
  return objects;
}

// Every file of `tree` and the trees under it, read one depth at a time (one git call per
// level), as `git ls-tree -r -z --full-tree` lists them ("<mode> <type> <oid>\t<path>"), and
// the folders whose tree is missing from the object store ("<path>/"; "./" for the top one).
// `git ls-tree -r` fails at the first missing tree, and what is around it is still worth
// keeping.
Result<void> read_tree_deep(const Project& project, const std::string& tree,
                            std::vector<std::string>& entries, std::vector<std::string>& lost) {
  size_t raw = project.null_oid().size() / 2; // 20 or 32 (sha256) bytes in a tree entry
  std::vector<std::pair<std::string, std::string>> level{{tree, ""}}; // oid, path
  while (!level.empty()) {
    std::vector<std::string> oids;
    oids.reserve(level.size());
    for (const auto& t : level)
      oids.push_back(t.first);
    auto trees = BERTH_TRY(cat_objects(project, oids));
    std::vector<std::pair<std::string, std::string>> next;
    for (size_t i = 0; i < level.size(); ++i) {
      const std::string& dir = level[i].second;
      if (trees[i].type != "tree") {
        lost.push_back(dir.empty() ? "./" : dir + "/");
        continue;
      }
      // "<mode> <name>\0<raw oid>" one after another.
      const std::string& c = trees[i].content;
      for (size_t at = 0; at < c.size();) {
        auto space = c.find(' ', at);
        auto nul = c.find('\0', at);
        if (space == std::string::npos || nul == std::string::npos || nul + raw > c.size()) break;
        std::string mode = c.substr(at, space - at);
        std::string path = (dir.empty() ? "" : dir + "/") + c.substr(space + 1, nul - space - 1);
        std::string oid;
        for (size_t b = nul + 1; b < nul + 1 + raw; ++b)
          oid += fmt::format("{:02x}", static_cast<unsigned char>(c[b]));
        at = nul + 1 + raw;
        if (mode == "40000") {
          next.emplace_back(oid, path);
          continue;
        }
        std::string type = mode == "160000" ? "commit" : "blob";
        entries.push_back(fmt::format("{:0>6} {} {}\t{}", mode, type, oid, path));
      }
    }
    level = std::move(next);
  }
  return {};
}

} // namespace

namespace {

// What is left of `tree`: its files whose content is in the object store, as a new tree ("" when
// it cannot be made). The files and folders left out are appended to `trailers` as
// `Berth-Missing:` lines and counted in `missing`.
std::string salvage_tree(const Project& project, const std::string& tree, std::string& trailers,
                         size_t& missing) {
  std::vector<std::string> listed, lost;
  if (!read_tree_deep(project, tree, listed, lost)) return {};
  for (const auto& folder : lost)
    trailers += "Berth-Missing: " + folder + "\n";
  missing += lost.size();
  // "<mode> <type> <oid>\t<path>"
  std::vector<std::string> entries;
  GitCall check = repo_call(project, {"cat-file", "--batch-check=%(objectname)", "--buffer"});
  for (auto& e : listed) {
    auto tab = e.find('\t');
    size_t hex = project.null_oid().size(); // 40 or 64 (sha256)
    if (e.empty() || tab == std::string::npos || tab <= hex) continue;
    check.input += e.substr(tab - hex, hex) + "\n";
    entries.push_back(std::move(e));
  }
  std::string info;
  if (!entries.empty()) {
    auto checked = git_status_of(check);
    if (!checked || !checked->ok()) return {};
    auto lines = split_lines(checked->out);
    if (lines.size() != entries.size()) return {};
    for (size_t i = 0; i < entries.size(); ++i) {
      const std::string& e = entries[i];
      bool blob = e.find(" blob ") != std::string::npos && e.find(" blob ") < e.find('\t');
      if (blob && lines[i].find(" missing") != std::string::npos) {
        ++missing;
        trailers += "Berth-Missing: " + e.substr(e.find('\t') + 1) + "\n";
        continue;
      }
      info += e + '\0';
    }
  }
  std::string dir = util::join(project.berth_dir(), "tmp");
  (void)util::make_dirs(dir);
  std::string index = util::join(dir, fmt::format("salvage-index.{}", ::getpid()));
  GitCall fill = repo_call(project, {"update-index", "--add", "-z", "--index-info"});
  fill.env["GIT_INDEX_FILE"] = index;
  fill.input = info;
  GitCall write = repo_call(project, {"write-tree"});
  write.env["GIT_INDEX_FILE"] = index;
  auto filled = git_status_of(fill);
  auto made = filled && filled->ok() ? git_status_of(write) : filled;
  ::unlink(index.c_str());
  return made && made->ok() ? chomp(made->out) : std::string();
}

// Whether commit `p`'s own part of history (what no branch, tag or remote keeps) is all there.
bool history_intact(const Project& project, const std::string& p) {
  auto walk = git_status_of(repo_call(project, {"rev-list", "--objects", "--missing=print", p,
                                                "--not", "--branches", "--tags", "--remotes"}));
  return walk && walk->ok() && walk->out.find("\n?") == std::string::npos &&
         walk->out.rfind('?', 0) != 0;
}

} // namespace

std::string salvage_snapshot(const Project& project, const std::string& commit,
                             size_t* missing_files) {
  // Its tree named by the commit (read even when the tree itself is gone).
  auto top = git_status_of(repo_call(project, {"rev-parse", "--verify", "-q", commit + "^{tree}"}));
  if (!top || !top->ok()) return {};
  std::string trailers;
  size_t missing = 0;
  std::string tree = salvage_tree(project, chomp(top->out), trailers, missing);
  if (tree.empty()) return {};
  auto message = git_status_of(repo_call(project, {"log", "-1", "--format=%B", commit}));
  auto parents = git_status_of(repo_call(project, {"rev-parse", commit + "^@"}));
  if (!message || !message->ok() || !parents || !parents->ok()) return {};
  auto heads = split_lines(parents->out);
  std::vector<std::string> args{"commit-tree", tree};
  for (size_t i = 0; i < heads.size(); ++i) {
    std::string p = heads[i];
    if (!history_intact(project, p)) {
      // The staged state (its second parent, a commit on HEAD) shares the lost files: what is
      // left of it is kept the same way, so a restore gives back what was staged.
      auto subject = git_status_of(repo_call(project, {"log", "-1", "--format=%s", p}));
      if (i != 1 || !subject || !subject->ok() || chomp(subject->out).rfind("berth index of ", 0))
        continue;
      std::string ignored;
      size_t none = 0;
      auto index_tree =
          git_status_of(repo_call(project, {"rev-parse", "--verify", "-q", p + "^{tree}"}));
      std::string left = index_tree && index_tree->ok()
                             ? salvage_tree(project, chomp(index_tree->out), ignored, none)
                             : std::string();
      if (left.empty()) continue;
      std::vector<std::string> index_args{"commit-tree", left};
      if (history_intact(project, heads[0])) index_args.insert(index_args.end(), {"-p", heads[0]});
      GitCall index_commit = repo_call(project, index_args);
      index_commit.env = berth_identity();
      index_commit.input = chomp(subject->out) + "\n";
      auto made = git_status_of(index_commit);
      if (!made || !made->ok()) continue;
      p = chomp(made->out);
    }
    args.push_back("-p");
    args.push_back(p);
  }
  GitCall made = repo_call(project, args);
  made.env = berth_identity();
  std::string text = message->out;
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  made.input = text + "\nBerth-Salvaged-From: " + commit + "\n" + trailers;
  auto out = git_status_of(made);
  if (!out || !out->ok()) return {};
  if (missing_files) *missing_files = missing;
  return chomp(out->out);
}

bool settle_aside(const Project& project, const std::string& aside_path, bool count_ignored_files,
                  const KnownSnapshot* known_snapshot, bool* unchanged) {
  if (unchanged) *unchanged = false;
  std::string ref = aside_snapshot_ref(aside_path);
  if (ref.empty()) return false;
  if (known_snapshot && known_snapshot->ref != ref) known_snapshot = nullptr;
  std::string snapshot;
  if (known_snapshot) {
    snapshot = known_snapshot->commit;
  } else {
    auto known = git_status_of(repo_call(project, {"rev-parse", "--verify", "-q", ref}));
    if (!known || !known->ok()) return false;
    snapshot = chomp(known->out);
  }
  std::string git_dir = read_gitfile(aside_path);
  if (git_dir.empty()) return false;
  Workspace w;
  w.path = aside_path;
  w.git_dir = git_dir;
  // The snapshot commit's tree is the work tree: when the full look finds another one, a new
  // commit with the same parents and message takes the ref's place (compare-and-swap: only if
  // the ref still holds the snapshot checked).
  // A discard cut short before it fixed the submodules' links for the deeper place (and trees
  // aside from before it did so).
  (void)repair_submodule_links(w);
  auto full = capture_work_tree_fully(project, w);
  auto saved = known_snapshot ? Result<std::string>(known_snapshot->work_tree)
                              : rev(project, snapshot + "^{tree}");
  // Taken as the snapshot was: its untracked files as they are on disk.
  if (auto staged = known_snapshot ? Result<std::string>(known_snapshot->index_tree)
                                   : rev(project, snapshot + "^2^{tree}");
      full && staged && !staged->empty())
    full = untracked_as_is(project, w, *staged, *full);
  bool verified = full && saved && !saved->empty() && *full == *saved;
  if (unchanged) *unchanged = verified;
  if (full && saved && !saved->empty() && *full != *saved) {
    auto parents = git_status_of(repo_call(project, {"rev-parse", snapshot + "^@"}));
    auto message = git_status_of(repo_call(project, {"log", "-1", "--format=%B", snapshot}));
    if (parents && parents->ok() && message && message->ok()) {
      std::vector<std::string> args{"commit-tree", *full};
      for (const auto& p : split_lines(parents->out)) {
        args.push_back("-p");
        args.push_back(p);
      }
      GitCall commit = repo_call(project, args);
      commit.env = berth_identity();
      commit.input = message->out;
      if (auto made = git_status_of(commit); made && made->ok()) {
        const char* why = "berth: trash completed by a full look before deletion";
        auto swapped = git_status_of(
            repo_call(project, {"update-ref", "-m", why, ref, chomp(made->out), snapshot}));
        verified = swapped && swapped->ok();
      }
    }
  }
  if (!count_ignored_files) return verified;
  // Set-up's own files (today's configuration's, and what the workspace's set-up recorded it
  // made: its snapshot's trailers) are recreated by set-up, not lost.
  std::vector<std::string> recorded;
  if (auto body = git_status_of(repo_call(project, {"cat-file", "commit", snapshot}));
      body && body->ok())
    for (const auto& line : split_lines(body->out))
      if (line.rfind("Berth-Setup-Path: ", 0) == 0) recorded.push_back(line.substr(18));
  note_ignored(project, ref,
               count_ignored_apart(git_dir, aside_path,
                                   with_setup_made(setup_made_paths(project), recorded),
                                   project.setup_source()));
  return verified;
}

void note_ignored(const Project& project, const std::string& ref, const IgnoredCount& found) {
  if (ref.empty() || !util::make_dirs(notes_dir(project))) return;
  (void)util::write_file_atomic(
      note_path(project, ref),
      fmt::format("{} {} {} {}\n", found.files, found.bytes, found.setup_files, found.setup_bytes));
}

Result<std::vector<Snapshot>> list_snapshots(const Project& project,
                                             std::optional<std::string_view> name) {
  // What `doctor --repair` kept of damaged snapshots (refs/berth/damaged/<slug>/<time>) is listed
  // with them: it can be restored, without what it lost.
  std::string folder = name ? name_slug(*name) + "/" : std::string();
  // Names and ids only: asking for-each-ref for a commit's content fails the whole listing when
  // one ref's commit is missing.
  auto out = BERTH_TRY(
      git(repo_call(project, {"for-each-ref", "--format=%(refname)%00%(objectname)",
                              "refs/berth/trash/" + folder, std::string(kSalvagedRefs) + folder})));
  std::vector<std::pair<std::string, std::string>> refs;
  for (const auto& line : split_lines(out.out)) {
    auto nul = line.find('\0');
    if (nul != std::string::npos) refs.emplace_back(line.substr(0, nul), line.substr(nul + 1));
  }
  std::vector<std::string> oids;
  oids.reserve(refs.size());
  for (const auto& r : refs)
    oids.push_back(r.second);
  auto commits = BERTH_TRY(cat_objects(project, oids));
  // What each snapshot needs besides its commit (its tree, its parents: HEAD, the staged state,
  // the branch tip, the nested repositories), checked in one more call. Objects deeper down are
  // checked before a restore and by `berth doctor` (snapshot_complete).
  std::vector<std::string> needed;
  std::vector<size_t> needed_by;
  std::vector<Snapshot> list;
  std::vector<std::vector<std::string>> parents_of(refs.size());
  for (size_t i = 0; i < refs.size(); ++i) {
    Snapshot s;
    s.ref = refs[i].first;
    s.commit = refs[i].second;
    s.time = std::strtoll(util::basename(s.ref).c_str(), nullptr, 10);
    // refs/berth/{trash,damaged}/<slug>/<time>: what the name is when the commit cannot say.
    bool salvaged = s.ref.rfind(kSalvagedRefs, 0) == 0;
    std::string rest = s.ref.substr(std::min(
        s.ref.size(), std::string_view(salvaged ? kSalvagedRefs : "refs/berth/trash/").size()));
    std::string slug = rest.substr(0, rest.rfind('/'));
    const CatObject& c = commits[i];
    if (c.type == "missing") {
      s.name = name ? std::string(*name) : slug;
      s.state = "damaged";
      s.problem = fmt::format("its commit {} is missing from the object store", s.commit);
      list.push_back(std::move(s));
      continue;
    }
    auto blank = c.content.find("\n\n");
    std::string header = c.content.substr(0, blank);
    std::string message = blank == std::string::npos ? std::string() : c.content.substr(blank + 2);
    s.name = c.type == "commit" ? trailer_value(message, "Berth-Name") : std::string();
    if (s.name.empty()) {
      s.name = name ? std::string(*name) : slug;
      s.state = "invalid";
      s.problem = c.type == "commit" ? "its commit is not a berth snapshot (no Berth-Name)"
                                     : fmt::format("it names a {}, not a commit", c.type);
      list.push_back(std::move(s));
      continue;
    }
    if (name && s.name != *name) continue; // another name with the same slug
    s.branch = trailer_value(message, "Berth-Branch");
    s.base = trailer_value(message, "Berth-Base");
    s.head = trailer_value(message, "Berth-Head");
    s.branch_tip = trailer_value(message, "Berth-Branch-Tip");
    s.owner = trailer_value(message, "Berth-Owner");
    s.head_ref = trailer_value(message, "Berth-Head-Ref");
    s.nested = trailer_value(message, "Berth-Nested");
    s.untracked_as_is = trailer_value(message, "Berth-Untracked") == "as-is";
    std::vector<std::string> parents;
    for (const auto& line : split_lines(header)) {
      if (line.rfind("tree ", 0) == 0 || line.rfind("parent ", 0) == 0) {
        needed.push_back(line.substr(line.find(' ') + 1));
        needed_by.push_back(list.size());
      }
      if (line.rfind("parent ", 0) == 0) parents.push_back(line.substr(7));
    }
    if (parents.size() >= 2) s.index_commit = parents[1];
    if (salvaged) {
      // Its parents are those of the damaged snapshot that were whole (HEAD may be missing
      // among them): the staged state is found by its message when restored.
      s.index_commit.clear();
      s.state = "salvaged";
      for (const auto& line : split_lines(message))
        if (line.rfind("Berth-Missing: ", 0) == 0) s.missing.push_back(line.substr(15));
      std::string shown;
      for (size_t k = 0; k < s.missing.size() && k < 5; ++k)
        shown += (k ? ", " : "") + s.missing[k];
      if (s.missing.size() > 5) shown += fmt::format(" and {} more", s.missing.size() - 5);
      s.problem = fmt::format("what `berth doctor --repair` kept of a damaged snapshot: {}",
                              s.missing.empty() ? std::string("nothing is missing")
                                                : "lost (missing from the object store): " + shown);
    }
    if (auto note = util::read_file(note_path(project, s.ref))) {
      long long files = -1, bytes = -1, setup_files = 0, setup_bytes = 0;
      // "files bytes" (older berth), then "setup_files setup_bytes".
      if (std::sscanf(note->c_str(), "%lld %lld %lld %lld", &files, &bytes, &setup_files,
                      &setup_bytes) >= 2) {
        s.ignored_files = files;
        s.ignored_bytes = bytes;
        s.setup_files = setup_files;
        s.setup_bytes = setup_bytes;
      }
    }
    list.push_back(std::move(s));
  }
  GitCall check = repo_call(project, {"cat-file", "--batch-check=%(objectname)", "--buffer"});
  for (const auto& oid : needed)
    check.input += oid + "\n";
  if (!needed.empty()) {
    auto lines = split_lines(BERTH_TRY(git(check)).out);
    for (size_t i = 0; i < lines.size() && i < needed.size(); ++i) {
      Snapshot& s = list[needed_by[i]];
      if (lines[i].find(" missing") == std::string::npos || s.state == "damaged" ||
          s.state == "invalid")
        continue;
      s.state = "damaged";
      s.problem = fmt::format("object {} it needs is missing from the object store", needed[i]);
    }
  }
  std::sort(list.begin(), list.end(), [](const Snapshot& a, const Snapshot& b) {
    return a.time != b.time ? a.time > b.time : a.ref > b.ref;
  });
  return list;
}

} // namespace berth
