#include "cli/commands.hpp"

#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>

namespace cli {

std::string render_watch(const nlohmann::json& s, const RenderContext& context) {
  if (context.quiet) return {};
  if (s.value("running", false))
    return fmt::format("watcher: running (pid {}), following {} work tree(s), {} folder(s)\n",
                       s.value("pid", int64_t{0}), s.value("roots", int64_t{0}),
                       s.value("watches", int64_t{0}));
  return s.value("stopped", false)
             ? "watcher: stopped\n"
             : "watcher: not running (it starts with the next workspace query)\n";
}

int watch_hook_main(int argc, char** argv) {
  // git asks with protocol version 2 (berth configures it); anything else: "not supported".
  if (argc < 4 || std::string_view(argv[3]) != "2") return 1;
  const char* common_dir = std::getenv("BERTH_WATCH_DIR");
  char* root = ::realpath(".", nullptr);
  if (!common_dir || !*common_dir || !root) {
    std::free(root);
    return 1;
  }
  auto answer = berth::watch_hook(common_dir, root, argc > 4 ? argv[4] : "");
  std::free(root);
  // Failing makes git look at everything itself: slower, never wrong.
  if (!answer) return 1;
  return std::fwrite(answer->data(), 1, answer->size(), stdout) == answer->size() &&
                 std::fflush(stdout) == 0
             ? 0
             : 1;
}

int watch_serve_main(int argc, char** argv) {
  if (argc < 4) return 2;
  int idle = 1800;
  if (const char* v = std::getenv("BERTH_WATCH_IDLE"); v && std::atoi(v) > 0) idle = std::atoi(v);
  return berth::watch_serve(argv[3], idle) ? 0 : 1;
}

} // namespace cli
