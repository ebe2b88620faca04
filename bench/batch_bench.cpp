// The library's batch entry points, timed as `fork` and `pick` will call them (scripts/bench):
//
//   berth_batch_bench BERTH REPO create PREFIX N   create_workspaces: PREFIX-1 ... PREFIX-N
//   berth_batch_bench BERTH REPO discard NAME...   discard_workspaces of the names (to the trash)
//
// BERTH is the berth executable for the background work (the pool filler, the watcher). Prints
// the wall time of the call in microseconds; exit 1 when any workspace failed.
#include "berth/berth.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s BERTH REPO create PREFIX N | discard NAME...\n", argv[0]);
    return 2;
  }
  berth::ProjectOptions options;
  options.dir = argv[2];
  options.helper_path = argv[1];
  auto project = berth::Project::open(options);
  if (!project) {
    std::fprintf(stderr, "%s\n", project.error().message.c_str());
    return 1;
  }
  std::string what = argv[3];
  bool failed = false;
  auto start = std::chrono::steady_clock::now();
  if (what == "create" && argc == 6) {
    std::vector<berth::NewOptions> asked(static_cast<size_t>(std::atoi(argv[5])));
    for (size_t i = 0; i < asked.size(); ++i)
      asked[i].name = std::string(argv[4]) + "-" + std::to_string(i + 1);
    for (const auto& made : berth::create_workspaces(*project, asked))
      if (!made) {
        std::fprintf(stderr, "%s\n", made.error().message.c_str());
        failed = true;
      }
  } else if (what == "discard") {
    std::vector<std::string> names(argv + 4, argv + argc);
    for (const auto& gone :
         berth::discard_workspaces(*project, names, berth::Force::yes, berth::Trash::yes))
      if (!gone) {
        std::fprintf(stderr, "%s\n", gone.error().message.c_str());
        failed = true;
      }
  } else {
    std::fprintf(stderr, "unknown: %s\n", what.c_str());
    return 2;
  }
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                                  start)
                .count();
  std::printf("%lld\n", static_cast<long long>(us));
  return failed ? 1 : 0;
}
