#include "berth/json.hpp"
#include "cli/commands.hpp"
#include "cli/render.hpp"

#include <cstdio>

namespace cli {

// stdout is the path alone, so that `cd "$(berth new x)"` works.
std::string render_new(const nlohmann::json& document, const RenderContext&) {
  return str(document, "path") + "\n";
}

// `berth setup NAME`: what happened went to stderr as it happened; stdout says how it ended.
std::string render_setup(const nlohmann::json& document, const RenderContext&) {
  return "set-up of " + str(document, "name") + ": " + str(document, "setup_state") + "\n";
}

// Set-up progress goes to stderr: text on a terminal, NDJSON with --json.
berth::SetupListener setup_printer(bool json, bool quiet) {
  if (quiet) return {};
  return [json](const berth::SetupEvent& e) {
    using Kind = berth::SetupEvent::Kind;
    if (json) {
      // A warning is a warning event like any other (and said once, however often it comes).
      if (e.kind == Kind::warning) {
        print_warning(e.detail);
        return;
      }
      nlohmann::json j = e;
      std::string type = j["type"].get<std::string>();
      emit_event(type, std::move(j));
      return;
    }
    switch (e.kind) {
    case Kind::copied:
      if (e.detail == "pool")
        std::fprintf(stderr, "berth: %s: ready in the pool slot (prepared ahead)\n",
                     e.subject.c_str());
      else if (e.files > 1)
        std::fprintf(stderr, "berth: copied %s (%llu files, %s, %s)\n", e.subject.c_str(),
                     static_cast<unsigned long long>(e.files), human_bytes(e.bytes).c_str(),
                     e.detail.c_str());
      else
        std::fprintf(stderr, "berth: copied %s (%s, %s)\n", e.subject.c_str(),
                     human_bytes(e.bytes).c_str(), e.detail.c_str());
      break;
    case Kind::linked:
      std::fprintf(stderr, "berth: linked %s\n", e.subject.c_str());
      break;
    case Kind::progress:
      std::fprintf(stderr, "berth: copying %s: %s\r", e.subject.c_str(),
                   human_bytes(e.bytes).c_str());
      break;
    case Kind::command_started:
      std::fprintf(stderr, "berth: setup: %s\n", e.subject.c_str());
      break;
    case Kind::output:
      std::fwrite(e.detail.data(), 1, e.detail.size(), stderr);
      break;
    case Kind::command_finished:
      // A failure is said once, by the command's closing warning (how to run it again too).
      break;
    case Kind::skipped:
      std::fprintf(stderr, "berth: skipped untrusted setup command: %s (%s)\n", e.subject.c_str(),
                   e.detail.c_str());
      break;
    case Kind::warning:
      print_warning(e.detail);
      break;
    }
  };
}

} // namespace cli
