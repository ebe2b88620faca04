// A program that embeds berth as any user of the installed package would: only <berth/...>
// headers, linked against libberth found by find_package(berth) or pkg-config. It walks the
// lifecycle on the repository it is given and checks every result.
//
//   consumer REPO                        the lifecycle, and run leaving the host's signals alone
//   consumer REPO helper PATH|- found|missing
//                                        the pool filler's helper executable: PATH given (- for
//                                        none), found or missing (then create says so)
#include <berth/berth.hpp>
#include <berth/json.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <signal.h>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <thread>

namespace {

int checks = 0;

void check(bool ok, const char* what, int line) {
  ++checks;
  if (ok) return;
  std::fprintf(stderr, "consumer: line %d: check failed: %s\n", line, what);
  std::exit(1);
}
#define CHECK(cond) check(static_cast<bool>(cond), #cond, __LINE__)

template <class T> T must(berth::Result<T> result, const char* what) {
  if (!result) {
    std::fprintf(stderr, "consumer: %s failed: %s: %s (hint: %s)\n", what,
                 std::string(berth::code_name(result.error().code)).c_str(),
                 result.error().message.c_str(), result.error().hint.c_str());
    std::exit(1);
  }
  return std::move(*result);
}

bool exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

volatile sig_atomic_t got_sigint = 0;
void on_sigint(int) {
  got_sigint = 1;
}

bool has_warning(const std::vector<std::string>& warnings, const std::string& part) {
  for (const auto& w : warnings)
    if (w.find(part) != std::string::npos) return true;
  return false;
}

// The pool is refilled by the helper executable, in the background: found, it fills a slot;
// missing, create says so in its warnings.
int check_helper(const std::string& repo, const std::string& path, bool found) {
  berth::ProjectOptions options;
  options.dir = repo;
  if (path != "-") options.helper_path = path;
  berth::Project project = must(berth::Project::open(options), "Project::open");
  berth::NewOptions make;
  make.name = "pooled";
  berth::Created created = must(berth::create_workspace(project, make), "create_workspace");
  CHECK(has_warning(created.warnings, "no berth executable") == !found);
  CHECK(project.helper().empty() == !found);
  if (found) {
    bool ready = false;
    for (int i = 0; i < 300 && !ready; ++i) {
      auto pool = must(berth::pool_status(project), "pool_status");
      for (const auto& slot : pool.slots)
        ready = ready || slot.state == "ready";
      if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    CHECK(ready);
  }
  auto discarded =
      must(berth::discard_workspace(project, "pooled", berth::Force::yes, berth::Trash::no),
           "discard_workspace");
  CHECK(has_warning(discarded.warnings, "no berth executable") == !found);
  must(berth::pool_drain(project), "pool_drain");
  std::printf("consumer: helper %s; %d checks passed\n", project.helper().c_str(), checks);
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc == 5 && std::string(argv[2]) == "helper")
    return check_helper(argv[1], argv[3], std::string(argv[4]) == "found");
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer REPO [helper PATH|- found|missing]\n");
    return 2;
  }
  CHECK(!berth::version().empty());

  berth::ProjectOptions options;
  options.dir = argv[1];
  berth::Project project = must(berth::Project::open(options), "Project::open");
  CHECK(project.main_worktree() == argv[1]);

  // A workspace, a file written in it, its diff.
  berth::NewOptions make;
  make.name = "from-host";
  make.owner = "consumer";
  berth::Created created = must(berth::create_workspace(project, make), "create_workspace");
  const berth::Workspace& ws = created.workspace;
  CHECK(ws.branch == "berth/from-host");
  CHECK(ws.owner == "consumer");
  CHECK(ws.state == berth::State::ready);
  CHECK(exists(ws.path + "/README.md"));
  CHECK(!exists(project.main_worktree() + "/hello.txt"));
  std::ofstream(ws.path + "/hello.txt") << "hello from a host program\n";

  berth::Diff diff = must(berth::diff_workspace(project, "from-host", {}), "diff_workspace");
  CHECK(diff.files.size() == 1);
  CHECK(diff.files[0].path == "hello.txt");
  CHECK(diff.files[0].status == 'A');
  CHECK(diff.files[0].additions == 1);
  CHECK(diff.patch.find("+hello from a host program") != std::string::npos);

  // Commit it on the workspace's branch, then land it on main as one commit.
  berth::Committed committed =
      must(berth::commit_workspace(project, "from-host", "Add hello"), "commit_workspace");
  CHECK(committed.commit.size() == 40);
  CHECK(committed.files.size() == 1);

  berth::AcceptOptions accept;
  accept.strategy = berth::Strategy::squash;
  accept.message = "Land hello";
  berth::Accepted accepted =
      must(berth::accept_workspace(project, "from-host", accept), "accept_workspace");
  CHECK(accepted.target == "main");
  CHECK(accepted.new_commit.size() == 40 && accepted.new_commit != accepted.old_commit);
  CHECK(accepted.discarded.has_value()); // accepted without keep: the workspace goes
  CHECK(read(project.main_worktree() + "/hello.txt") == "hello from a host program\n");
  CHECK(!exists(ws.path));

  // A second workspace with uncommitted work, discarded: its work goes to the trash.
  make.name = "scratch";
  berth::Created scratch = must(berth::create_workspace(project, make), "create_workspace");
  std::ofstream(scratch.workspace.path + "/notes.txt") << "draft\n";
  berth::Discarded discarded =
      must(berth::discard_workspace(project, "scratch", berth::Force::no, berth::Trash::yes),
           "discard_workspace");
  CHECK(discarded.unsaved_work);
  CHECK(discarded.snapshot.has_value());
  CHECK(discarded.snapshot->ref.rfind("refs/berth/trash/scratch/", 0) == 0);
  auto listed = must(berth::list_workspaces(project), "list_workspaces");
  CHECK(listed.empty());
  auto snapshots = must(berth::list_snapshots(project, "scratch"), "list_snapshots");
  CHECK(snapshots.size() == 1 && snapshots[0].commit == discarded.snapshot->commit);

  // Errors come back as values with a stable code, and render as the --json contract does.
  auto missing = berth::find_workspace(project, "no-such");
  CHECK(!missing && missing.error().code == berth::ErrorCode::not_found);
  CHECK(berth::exit_status(missing.error().code) == 4);
  nlohmann::json error = berth::error_document(missing.error());
  CHECK(error["error"]["code"] == "not_found");
  nlohmann::json snapshot_json = *discarded.snapshot;
  CHECK(snapshot_json["name"] == "scratch");

  // run_in_workspace leaves the host's signal handlers alone (the CLI forwards signals, a
  // library must not): a SIGINT the command sends its parent reaches the host's own handler.
  struct sigaction mine {};
  mine.sa_handler = on_sigint;
  sigemptyset(&mine.sa_mask);
  CHECK(::sigaction(SIGINT, &mine, nullptr) == 0);
  make.name = "runner";
  berth::Created runner = must(berth::create_workspace(project, make), "create_workspace");
  berth::RunOptions run;
  run.name = "runner";
  run.command = {"sh", "-c", "kill -INT $PPID && echo ran >ran.txt"};
  berth::RunResult ran = must(berth::run_in_workspace(project, run), "run_in_workspace");
  CHECK(ran.exit_status == 0);
  CHECK(got_sigint == 1);
  CHECK(read(runner.workspace.path + "/ran.txt") == "ran\n");
  struct sigaction now {};
  CHECK(::sigaction(SIGINT, nullptr, &now) == 0 && now.sa_handler == on_sigint);
  must(berth::discard_workspace(project, "runner", berth::Force::yes, berth::Trash::no),
       "discard_workspace");

  std::printf("consumer: %d checks passed\n", checks);
  return 0;
}
