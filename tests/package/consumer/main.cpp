// A program that embeds berth as any user of the installed package would: only <berth/...>
// headers, linked against libberth found by find_package(berth) or pkg-config. It walks the
// lifecycle on the repository it is given and checks every result.
//
//   consumer REPO
#include <berth/berth.hpp>
#include <berth/json.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>

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

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer REPO\n");
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

  std::printf("consumer: %d checks passed\n", checks);
  return 0;
}
