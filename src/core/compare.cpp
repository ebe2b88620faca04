// compare: a fork's attempts (or any workspaces) side by side. Each attempt's numbers come from
// the review core (diff_workspace: the same diff `berth diff` shows, uncommitted work included)
// and one merge preview against the target (merge-tree, as accept's); the attempts are looked at
// in parallel, bounded by the cores. Both are kept in the diff cache (diff_cache.hpp) by the
// objects they were made of. Nothing is written to any workspace or ref: the only object made is
// the commit holding an attempt's uncommitted work, which merge-tree needs. docs/compare.md.
#include "core/compare.hpp"

#include "berth/fork.hpp"
#include "berth/json.hpp"
#include "core/accept_steps.hpp"
#include "core/capture.hpp"
#include "core/diff_cache.hpp"
#include "core/git.hpp"
#include "core/porcelain.hpp"
#include "core/registry.hpp"
#include "core/review.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/parallel.hpp"
#include "util/paths.hpp"
#include "util/try.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <set>

namespace berth {

namespace {

// What compare is asked about: the names, in order, and the fork whose runs they are.
struct Resolved {
  std::optional<std::string> task;
  std::optional<ForkGroup> fork;
  std::vector<std::string> names;
  std::vector<int> attempts; // attempt number per name (0: not an attempt)
  /// Per name: why it cannot be looked at (a recorded workspace whose directory is gone...);
  /// that attempt gets the error in its row and the others are compared.
  std::vector<std::optional<Error>> errors;
};

// "TASK-<digits>": the digits as a number, else -1.
long attempt_suffix(std::string_view name, std::string_view task) {
  if (name.size() <= task.size() + 1 || name.substr(0, task.size()) != task ||
      name[task.size()] != '-')
    return -1;
  auto digits = name.substr(task.size() + 1);
  if (digits.size() > 9 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return -1;
  return std::stol(std::string(digits));
}

Result<Resolved> resolve(const Project& project, const std::vector<std::string>& names) {
  Resolved r;
  if (names.empty())
    return fail(ErrorCode::usage, "compare needs a fork's task or two or more workspaces",
                "give two or more names or a fork's task");
  if (names.size() >= 2) {
    std::set<std::string> seen;
    std::string fork_of;
    bool one_fork = true;
    std::optional<std::vector<Workspace>> records;
    for (const auto& name : names) {
      if (!seen.insert(name).second)
        return fail(ErrorCode::usage, fmt::format("'{}' is named twice", name),
                    "name each workspace once");
      auto found = find_workspace(project, name);
      std::optional<Error> error;
      if (!found) {
        // A name nobody recorded is a typo (refused); a recorded workspace that cannot be
        // looked at (its directory gone...) gets its error in its row.
        if (!records) records = BERTH_TRY(Registry(project.berth_dir()).load_all());
        auto record = std::find_if(records->begin(), records->end(),
                                   [&](const Workspace& w) { return w.name == name; });
        if (record == records->end()) return tl::unexpected(found.error());
        error = found.error();
        found = *record;
      }
      const Workspace& w = *found;
      if (w.fork.empty() || (!fork_of.empty() && w.fork != fork_of)) one_fork = false;
      fork_of = w.fork;
      r.names.push_back(name);
      r.attempts.push_back(w.attempt);
      r.errors.push_back(std::move(error));
    }
    // Attempts of one fork: their runs are in its record.
    if (one_fork && !fork_of.empty()) r.fork = BERTH_TRY(load_fork(project, fork_of));
    return r;
  }
  const std::string& task = names.front();
  // The records alone (no git call per workspace: `list` would look at every one).
  auto all = BERTH_TRY(Registry(project.berth_dir()).load_all());
  auto exists = [&](const std::string& name) {
    return std::any_of(all.begin(), all.end(),
                       [&](const Workspace& w) { return w.name == name && w.invalid.empty(); });
  };
  // A recorded fork: its attempts that are still workspaces (pick and discard remove some).
  r.fork = BERTH_TRY(load_fork(project, task));
  std::vector<std::pair<long, std::string>> found;
  if (r.fork) {
    for (int i = 1; i <= r.fork->attempts; ++i)
      if (exists(attempt_name(task, i))) found.emplace_back(i, attempt_name(task, i));
    if (found.empty())
      return fail(ErrorCode::not_found, fmt::format("fork '{}' has no attempts left", task),
                  fmt::format("they were accepted or discarded: `berth restore --list` shows "
                              "those in the trash (`berth restore {}-1` brings one back)",
                              task));
  } else {
    // No record (made by hand, or by an orchestrator): the workspaces that say they are its
    // attempts, else those named TASK-<digits>.
    for (const auto& w : all)
      if (w.fork == task && w.invalid.empty()) found.emplace_back(w.attempt, w.name);
    if (found.empty())
      for (const auto& w : all)
        if (long i = attempt_suffix(w.name, task); i >= 0 && w.invalid.empty())
          found.emplace_back(i, w.name);
    if (found.empty()) {
      if (exists(task))
        return fail(ErrorCode::usage,
                    fmt::format("'{}' is one workspace: compare needs two or more", task),
                    "give two or more names or a fork's task");
      return fail(ErrorCode::not_found, fmt::format("no fork or workspace named '{}'", task),
                  "`berth list` shows the workspaces");
    }
  }
  std::sort(found.begin(), found.end());
  r.task = task;
  for (auto& [i, name] : found) {
    r.names.push_back(std::move(name));
    r.attempts.push_back(static_cast<int>(i));
    r.errors.emplace_back();
  }
  return r;
}

// Where the page goes, checked before anything is looked at: its folder must exist.
Result<std::string> html_target(const Project& project, const std::string& file) {
  if (file.empty())
    return fail(ErrorCode::usage, "--html needs a file name", "e.g. --html compare.html");
  std::string path = file.front() == '/' ? file : util::join(project.cwd(), file);
  std::string dir = util::dirname(path);
  if (!util::is_directory(dir))
    return fail(ErrorCode::io_error,
                fmt::format("cannot write {}: the folder {} does not exist", file, dir),
                "create the folder first or name a file in an existing one");
  if (util::is_directory(path))
    return fail(ErrorCode::io_error, fmt::format("cannot write {}: it is a folder", file),
                "name a file, e.g. " + util::join(file, "compare.html"));
  return path;
}

struct Attempt {
  std::string name;
  int attempt = 0;
  Diff diff;
  std::vector<FilePatch> patches;
  int commits = 0;
  bool merges_cleanly = false;
  std::vector<std::string> conflicts;
  std::optional<Error> error;
  nlohmann::json test = nullptr;
};

// Where one attempt stands: its state captured (no git call when the watcher says nothing
// changed since the last capture) and where its change starts. Its files come after, for all
// attempts at once (fill_diffs).
Result<void> look_at(const Project& project, Attempt& a) {
  a.diff = BERTH_TRY(diff_ends(project, a.name, DiffOptions{}));
  return {};
}

// Its commits and the merge preview accept makes: the attempt's whole state (uncommitted work as
// a commit on top of its HEAD) merged with the target, as objects only. Every git call here
// reads; none writes a ref or a workspace.
Result<void> preview_merge(const Project& project, const std::string& target_commit, Attempt& a) {
  if (a.diff.from == target_commit && a.diff.head == target_commit) {
    // Not one commit, and its work (if any) on top of the target itself: a clean merge.
    a.merges_cleanly = true;
    return {};
  }
  if (a.diff.from == target_commit) {
    // The target has not moved since the attempt began (a fresh fork): one call counts its
    // commits and says whether the target is an ancestor of its HEAD, when the merge is a
    // fast-forward and clean without asking merge-tree.
    auto counts = BERTH_TRY(git(repo_call(
        project, {"rev-list", "--left-right", "--count", target_commit + "..." + a.diff.head})));
    auto tab = counts.out.find('\t');
    if (tab == std::string::npos)
      return fail(ErrorCode::git_failed, "rev-list --left-right --count: " + counts.out);
    a.commits = std::atoi(counts.out.c_str() + tab + 1);
    if (std::atoi(counts.out.c_str()) == 0) {
      a.merges_cleanly = true;
      return {};
    }
  } else if (a.diff.from != a.diff.head) {
    auto count = BERTH_TRY(
        git(repo_call(project, {"rev-list", "--count", a.diff.from + ".." + a.diff.head})));
    a.commits = std::atoi(count.out.c_str());
  }
  std::string source = a.diff.head;
  // (a probe nobody sees: berth's identity, so git is not asked for the user's)
  if (a.diff.uncommitted)
    source =
        BERTH_TRY(make_commit(project, a.diff.to_tree, {a.diff.head},
                              fmt::format("berth: compare probe of {}", a.name), berth_identity()));
  GitCall preview = repo_call(project, {"merge-tree", "--write-tree", "--name-only", "-z",
                                        "--no-messages", target_commit, source});
  auto merged = BERTH_TRY(git_status_of(preview));
  if (merged.exit_code == 1) {
    a.conflicts = parse_merge_tree(merged.out).conflicts;
    return {};
  }
  if (!merged.ok()) return tl::unexpected(git_error(preview, merged));
  a.merges_cleanly = true;
  return {};
}

// What a preview learns depends on objects only (the target, where the attempt's change starts,
// its HEAD, its tree) and on git's setup, so it is kept in the diff cache: a compare of attempts
// nobody changed since the last, against a target that did not move since either, asks git
// nothing per attempt.
std::string preview_key(const std::string& target_commit, const Attempt& a) {
  return fmt::format("merge {} {} {} {}", target_commit, a.diff.from, a.diff.head,
                     a.diff.uncommitted ? a.diff.to_tree : "-");
}

// "COMMITS clean|conflicts" then each conflicted path, NUL-terminated.
std::string preview_record(const Attempt& a) {
  std::string out = fmt::format("{} {}\n", a.commits, a.merges_cleanly ? "clean" : "conflicts");
  for (const auto& path : a.conflicts)
    out += path + '\0';
  return out;
}

bool read_preview(const std::string& record, Attempt& a) {
  size_t space = record.find(' '), nl = record.find('\n');
  if (space == std::string::npos || nl == std::string::npos || space > nl || space == 0 ||
      space > 9)
    return false;
  std::string count = record.substr(0, space), verdict = record.substr(space + 1, nl - space - 1);
  if (!std::all_of(count.begin(), count.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      (verdict != "clean" && verdict != "conflicts"))
    return false;
  std::string rest = record.substr(nl + 1);
  if (!rest.empty() && rest.back() != '\0') return false;
  auto conflicts = split_z(rest);
  if (std::any_of(conflicts.begin(), conflicts.end(), [](auto& p) { return p.empty(); }) ||
      (verdict == "clean") != conflicts.empty())
    return false;
  a.commits = std::stoi(count);
  a.merges_cleanly = verdict == "clean";
  a.conflicts = std::move(conflicts);
  return true;
}

Result<void> preview_kept(const Project& project, const DiffCache& cache,
                          const std::string& target_commit, Attempt& a,
                          std::atomic<bool>& kept_any) {
  if (a.diff.from == target_commit && a.diff.head == target_commit)
    return preview_merge(project, target_commit, a); // (no git call to save)
  std::string key = preview_key(target_commit, a);
  if (auto kept = cache.find_preview(key); kept && read_preview(*kept, a)) return {};
  BERTH_TRY(preview_merge(project, target_commit, a));
  if (cache.keep_preview(key, preview_record(a))) kept_any = true;
  return {};
}

// --test: CMD in one attempt, its output kept (its tail) rather than interleaved on the terminal.
// An attempt of a fork is tested as its command ran (from the fork's record): in the fork's
// sandbox mechanism unless --sandbox names another, with its network setting and its --env and
// BERTH_ATTEMPT variables. Any other workspace is tested as `run` would run it (config
// run.sandbox).
nlohmann::json run_test(const Project& project, const CompareOptions& options,
                        const std::optional<ForkGroup>& fork, const std::string& name,
                        int attempt) {
  constexpr size_t kTail = 4096;
  RunOptions run;
  run.name = name;
  run.command = options.test;
  run.timeout = options.test_timeout;
  run.sandbox = options.sandbox;
  if (fork && attempt > 0) {
    if (!run.sandbox) run.sandbox = fork->sandbox;
    run.network = fork->network || !run.sandbox || *run.sandbox == "off";
    run.env = fork->env;
    run.env.push_back(fmt::format("BERTH_ATTEMPT={}", attempt));
    run.env.push_back(fmt::format("BERTH_ATTEMPTS={}", fork->attempts));
    run.env.push_back("BERTH_FORK=" + fork->task);
  }
  run.cancelled = options.cancelled;
  std::mutex mutex;
  std::string tail;
  size_t total = 0;
  run.on_output = [&](std::string_view chunk, int) {
    std::lock_guard lock(mutex);
    total += chunk.size();
    tail.append(chunk);
    if (tail.size() > kTail) tail.erase(0, tail.size() - kTail);
  };
  auto started = std::chrono::steady_clock::now();
  auto r = run_in_workspace(project, run);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                  started)
                .count();
  std::lock_guard lock(mutex);
  // The mechanism asked for (null: none); `sandboxed` says whether it confined the command.
  nlohmann::json mechanism =
      run.sandbox && *run.sandbox != "off" ? nlohmann::json(*run.sandbox) : nlohmann::json(nullptr);
  if (!r)
    return {{"exit_code", nullptr},  {"timed_out", false},        {"duration_ms", ms},
            {"sandboxed", false},    {"sandbox", mechanism},      {"output", tail},
            {"output_bytes", total}, {"error", r.error().message}};
  if (!run.sandbox && !r->sandbox_layers.empty()) mechanism = "landlock"; // config run.sandbox
  return {{"exit_code", r->exit_status}, {"timed_out", r->timed_out},
          {"duration_ms", ms},           {"sandboxed", !r->sandbox_layers.empty()},
          {"sandbox", mechanism},        {"output", tail},
          {"output_bytes", total}};
}

nlohmann::json run_document(const std::optional<ForkGroup>& fork, const std::string& name) {
  if (!fork) return nullptr;
  for (const auto& run : fork->runs)
    if (run.name == name)
      return {{"state", run.state},
              {"exit_code", run.exit_code >= 0 ? nlohmann::json(run.exit_code) : nullptr},
              {"signal", run.signal > 0 ? nlohmann::json(run.signal) : nullptr},
              {"duration_ms", run.duration_ms},
              {"log", run.log}};
  return nullptr;
}

} // namespace

std::vector<FilePatch> split_patch(std::string_view patch) {
  std::vector<FilePatch> files;
  bool in_hunk = false;
  size_t at = 0;
  while (at < patch.size()) {
    size_t end = patch.find('\n', at);
    size_t next = end == std::string_view::npos ? patch.size() : end + 1;
    std::string_view line =
        patch.substr(at, (end == std::string_view::npos ? patch.size() : end) - at);
    if (line.rfind("diff --git ", 0) == 0) {
      files.emplace_back();
      in_hunk = false;
    }
    if (!files.empty()) {
      FilePatch& f = files.back();
      f.text.append(patch.substr(at, next - at));
      if (!in_hunk) {
        if (line.rfind("index ", 0) == 0) {
          // "index OLD..NEW[ MODE]"
          auto dots = line.find("..");
          if (dots != std::string_view::npos) {
            auto stop = line.find(' ', dots);
            f.new_oid = std::string(line.substr(dots + 2, stop == std::string_view::npos
                                                              ? std::string_view::npos
                                                              : stop - dots - 2));
            if (stop != std::string_view::npos) f.new_mode = std::string(line.substr(stop + 1));
          }
        } else if (line.rfind("new file mode ", 0) == 0) {
          f.new_mode = std::string(line.substr(14));
        } else if (line.rfind("new mode ", 0) == 0) {
          f.new_mode = std::string(line.substr(9));
        } else if (line.rfind("GIT binary patch", 0) == 0 || line.rfind("Binary files ", 0) == 0) {
          f.binary = true;
        } else if (line.rfind("@@", 0) == 0) {
          in_hunk = true;
        }
      } else if (!f.binary && !line.empty()) {
        if (line.front() == '+')
          f.added.emplace_back(line.substr(1));
        else if (line.front() == '-')
          f.removed.emplace_back(line.substr(1));
      }
    }
    at = next;
  }
  return files;
}

ChangeSet change_set(const std::vector<FileChange>& files, const std::vector<FilePatch>& patches) {
  ChangeSet set;
  // The patch has one section per changed file, in the same order as the file list (both come
  // from diff-tree with the same rename detection); without it only the files are compared.
  bool paired = patches.size() == files.size();
  for (size_t i = 0; i < files.size(); ++i) {
    const FileChange& f = files[i];
    const FilePatch* p = paired ? &patches[i] : nullptr;
    std::string outcome = fmt::format("{} {} {}", f.status, f.new_mode, p ? p->new_oid : "?");
    if (!f.old_path.empty()) outcome += " from " + f.old_path;
    set.files.emplace_back(f.path, outcome);
    // A rename changes two paths: the old one is gone. (Renaming x while another attempt deletes
    // or edits x is no disjoint pair: both touched x.)
    if (f.status == 'R' && !f.old_path.empty())
      set.files.emplace_back(f.old_path, "R to " + f.path);
    if (!p) continue;
    if (p->binary) {
      set.lines.push_back(f.path + std::string("\0b\0", 3) + p->new_oid);
      continue;
    }
    // A line repeated n times counts n times: "x" added twice is two changed lines.
    std::map<std::string, int> seen;
    for (const auto* side : {&p->added, &p->removed}) {
      char sign = side == &p->added ? '+' : '-';
      for (const auto& text : *side) {
        std::string key = f.path + '\0' + sign + text;
        set.lines.push_back(key + '\0' + std::to_string(seen[key]++));
      }
    }
  }
  std::sort(set.files.begin(), set.files.end());
  std::sort(set.lines.begin(), set.lines.end());
  set.lines.erase(std::unique(set.lines.begin(), set.lines.end()), set.lines.end());
  return set;
}

namespace {

template <class T> double jaccard(const std::vector<T>& a, const std::vector<T>& b, size_t common) {
  size_t all = a.size() + b.size() - common;
  return all == 0 ? 1.0 : static_cast<double>(common) / static_cast<double>(all);
}

} // namespace

Similarity similarity(const ChangeSet& a, const ChangeSet& b) {
  Similarity s;
  std::vector<std::string> pa, pb;
  for (const auto& f : a.files)
    pa.push_back(f.first);
  for (const auto& f : b.files)
    pb.push_back(f.first);
  std::set_intersection(pa.begin(), pa.end(), pb.begin(), pb.end(),
                        std::back_inserter(s.shared_files));
  std::vector<std::string> shared_lines;
  std::set_intersection(a.lines.begin(), a.lines.end(), b.lines.begin(), b.lines.end(),
                        std::back_inserter(shared_lines));
  s.files = jaccard(pa, pb, s.shared_files.size());
  s.lines = jaccard(a.lines, b.lines, shared_lines.size());
  s.relation = a.files == b.files       ? "identical"
               : s.shared_files.empty() ? "disjoint"
                                        : "overlapping";
  return s;
}

Result<void> prepare_comparison(const Project& project, const std::string& name) {
  Workspace w = BERTH_TRY(find_workspace(project, name));
  Target target = BERTH_TRY(find_target(project, w, std::nullopt));
  Attempt a;
  a.name = name;
  BERTH_TRY(look_at(project, a));
  BERTH_TRY(fill_diffs(project, {&a.diff}));
  DiffCache cache(project);
  std::atomic<bool> kept{false};
  BERTH_TRY(preview_kept(project, cache, target.commit, a, kept));
  if (kept) cache.prune();
  return {};
}

Result<nlohmann::json> compare_attempts(const Project& project, const CompareOptions& options) {
  // 1. What is compared, and where the page goes: both refused before anything is looked at.
  Resolved resolved = BERTH_TRY(resolve(project, options.names));
  std::optional<std::string> html_path;
  if (options.html) html_path = BERTH_TRY(html_target(project, *options.html));

  // 2. The target every attempt's merge is previewed against: accept's default (from the first
  // attempt that can be looked at), or --into.
  std::vector<Attempt> attempts(resolved.names.size());
  std::optional<Workspace> first;
  for (size_t i = 0; i < attempts.size(); ++i) {
    attempts[i].name = resolved.names[i];
    attempts[i].attempt = resolved.attempts[i];
    attempts[i].error = resolved.errors[i];
    if (attempts[i].error) continue;
    auto found = find_workspace(project, attempts[i].name);
    if (!found)
      attempts[i].error = found.error();
    else if (!first)
      first = *found;
  }
  // Nothing can be looked at: there is no comparison to make.
  if (!first) return tl::unexpected(*attempts.front().error);
  Target target = BERTH_TRY(find_target(project, *first, options.into));

  // 3. Each attempt's numbers, side by side (each is a scan of its work tree and a few git
  // calls). One that cannot be read (its branch deleted, a file it cannot open) keeps its error
  // in its row; the others are compared.
  // Their states captured together (capture_many: the statuses side by side, then one
  // cat-file and one hash-object per folder depth for all), then where each change starts.
  std::vector<std::optional<Workspace>> usable(attempts.size());
  std::vector<const Workspace*> capturing;
  std::vector<size_t> captured_for;
  for (size_t i = 0; i < attempts.size(); ++i) {
    if (attempts[i].error) continue;
    auto w = usable_workspace(project, attempts[i].name);
    if (!w) {
      attempts[i].error = w.error();
      continue;
    }
    usable[i] = std::move(*w);
    capturing.push_back(&*usable[i]);
    captured_for.push_back(i);
  }
  auto captured = capture_many(project, capturing);
  util::parallel_for(captured_for.size(), [&](size_t k) {
    Attempt& a = attempts[captured_for[k]];
    auto ends = captured[k]
                    ? diff_ends_of(project, *usable[captured_for[k]], *captured[k], DiffOptions{})
                    : Result<Diff>(tl::unexpected(captured[k].error()));
    if (ends)
      a.diff = std::move(*ends);
    else
      a.error = ends.error();
  });
  // Their files and patches: three diff-tree calls for all (docs/performance.md). When those
  // fail (an attempt's objects cannot be read), one attempt at a time: the one that cannot be
  // read keeps its error, the others are compared.
  std::vector<Diff*> diffs;
  for (auto& a : attempts)
    if (!a.error) diffs.push_back(&a.diff);
  if (!diffs.empty() && !fill_diffs(project, diffs))
    for (auto& a : attempts)
      if (!a.error)
        if (auto done = fill_diffs(project, {&a.diff}); !done) a.error = done.error();
  DiffCache cache(project);
  std::atomic<bool> kept{false};
  util::parallel_for(attempts.size(), [&](size_t i) {
    if (attempts[i].error) return;
    attempts[i].patches = split_patch(attempts[i].diff.patch);
    if (auto done = preview_kept(project, cache, target.commit, attempts[i], kept); !done)
      attempts[i].error = done.error();
  });
  if (kept) cache.prune();
  // A row that cannot be read shows nothing half-read.
  for (auto& a : attempts)
    if (a.error) a = Attempt{a.name, a.attempt, {}, {}, 0, false, {}, a.error, nullptr};

  if (std::all_of(attempts.begin(), attempts.end(), [](const Attempt& a) { return a.error; }))
    return tl::unexpected(*attempts.front().error);

  // 4. --test: after the numbers, so that what the test writes (build output) is not counted.
  if (!options.test.empty())
    util::parallel_for(attempts.size(), [&](size_t i) {
      if (attempts[i].error) return;
      attempts[i].test =
          run_test(project, options, resolved.fork, attempts[i].name, attempts[i].attempt);
    });

  // 5. Across attempts: who touched what, pairwise similarity, and where they all agree.
  // (An attempt that could not be read is in none of these.)
  std::vector<ChangeSet> sets;
  sets.reserve(attempts.size());
  size_t readable = 0;
  for (const auto& a : attempts) {
    sets.push_back(change_set(a.diff.files, a.patches));
    readable += a.error ? 0 : 1;
  }
  nlohmann::json pairs = nlohmann::json::array();
  for (size_t i = 0; i < attempts.size(); ++i)
    for (size_t j = i + 1; j < attempts.size(); ++j) {
      if (attempts[i].error || attempts[j].error) continue;
      Similarity s = similarity(sets[i], sets[j]);
      // Work inside a submodule or nested repository is in no file compared here: two attempts
      // alike in everything else but with such work are not known to be identical.
      auto inside = [](const Attempt& a) {
        return std::any_of(a.diff.nested.begin(), a.diff.nested.end(), [](const NestedWork& n) {
          return n.modified || n.untracked || !n.submodule;
        });
      };
      if (s.relation == "identical" && (inside(attempts[i]) || inside(attempts[j])))
        s.relation = "overlapping";
      pairs.push_back({{"a", attempts[i].name},
                       {"b", attempts[j].name},
                       {"relation", s.relation},
                       {"files_jaccard", s.files},
                       {"lines_jaccard", s.lines},
                       {"shared_files", s.shared_files}});
    }
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> touched; // path -> who
  for (size_t i = 0; i < attempts.size(); ++i)
    for (const auto& [path, outcome] : sets[i].files)
      touched[path].emplace_back(attempts[i].name, outcome);
  nlohmann::json files = nlohmann::json::array();
  nlohmann::json agree = nlohmann::json::array();
  for (const auto& [path, who] : touched) {
    const auto& sample = who.front().second; // (a lambda may not capture a structured binding)
    bool same = who.size() == readable && readable >= 2 &&
                std::all_of(who.begin(), who.end(),
                            [&sample](const auto& w) { return w.second == sample; });
    nlohmann::json names = nlohmann::json::array();
    for (const auto& w : who)
      names.push_back(w.first);
    files.push_back({{"path", path}, {"attempts", names}, {"agree", same}});
    if (same) agree.push_back(path);
  }

  nlohmann::json list = nlohmann::json::array();
  for (const auto& a : attempts) {
    int64_t additions = 0, deletions = 0;
    for (const auto& f : a.diff.files) {
      additions += f.additions;
      deletions += f.deletions;
    }
    auto oid = [&](const std::string& o) { return a.error ? nlohmann::json() : nlohmann::json(o); };
    list.push_back({{"name", a.name},
                    {"attempt", a.attempt > 0 ? nlohmann::json(a.attempt) : nullptr},
                    {"error", a.error ? nlohmann::json(*a.error) : nullptr},
                    {"from", oid(a.diff.from)},
                    {"head", oid(a.diff.head)},
                    {"tree", oid(a.diff.to_tree)},
                    {"run", run_document(resolved.fork, a.name)},
                    {"files_changed", a.diff.files.size()},
                    {"additions", additions},
                    {"deletions", deletions},
                    {"commits", a.commits},
                    {"uncommitted", a.diff.uncommitted},
                    {"merges_cleanly", a.merges_cleanly},
                    {"conflicts", a.conflicts},
                    {"test", a.test},
                    {"files", a.diff.files},
                    {"nested", a.diff.nested}});
  }
  nlohmann::json doc = {{"task", resolved.task ? nlohmann::json(*resolved.task) : nullptr},
                        {"target", target.branch},
                        {"target_commit", target.commit},
                        {"test_command", options.test.empty() ? nlohmann::json(nullptr)
                                                              : nlohmann::json(options.test)},
                        {"attempts", list},
                        {"pairs", pairs},
                        {"files", files},
                        {"agree", agree},
                        {"html", html_path ? nlohmann::json(*html_path) : nullptr}};

  // 6. --html: the review page, written whole or not at all.
  if (html_path) {
    std::vector<std::vector<FilePatch>> patches;
    patches.reserve(attempts.size());
    for (auto& a : attempts)
      patches.push_back(std::move(a.patches));
    auto written = util::write_file_atomic(*html_path, compare_html(doc, patches));
    if (!written) return fail(ErrorCode::io_error, written.error());
  }
  return doc;
}

} // namespace berth
