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

// Set-up progress goes to stderr: text on a terminal, NDJSON with --json. Under --json there is a
// listener even with --quiet: a hook's output is then dropped, where without one the library
// would let the hook write to stderr, among the events.
berth::SetupListener setup_printer(bool json, bool quiet) {
  if (quiet) return json ? berth::SetupListener([](const berth::SetupEvent&) {}) : nullptr;
  return [json](const berth::SetupEvent& e) {
    using Kind = berth::SetupEvent::Kind;
    if (json) {
      // A warning is a warning event like any other (and said once, however often it comes).
      if (e.kind == Kind::warning) {
        print_warning(e.detail, e.workspace);
        return;
      }
      nlohmann::json j = e;
      std::string type = j["type"].get<std::string>();
      emit_event(type, std::move(j));
      return;
    }
    // Another workspace than the command's (a fork's attempt) is named.
    const std::string who = e.workspace.empty() ? std::string() : printable(e.workspace) + ": ";
    switch (e.kind) {
    case Kind::copied:
      if (e.detail == "pool")
        std::fprintf(stderr, "berth: %s: ready in the pool slot (prepared ahead)\n",
                     e.subject.c_str());
      else if (e.files > 1)
        std::fprintf(stderr, "berth: %scopied %s (%llu files, %s, %s)\n", who.c_str(),
                     e.subject.c_str(), static_cast<unsigned long long>(e.files),
                     human_bytes(e.bytes).c_str(), e.detail.c_str());
      else
        std::fprintf(stderr, "berth: %scopied %s (%s, %s)\n", who.c_str(), e.subject.c_str(),
                     human_bytes(e.bytes).c_str(), e.detail.c_str());
      break;
    case Kind::linked:
      std::fprintf(stderr, "berth: %slinked %s\n", who.c_str(), e.subject.c_str());
      break;
    case Kind::progress:
      std::fprintf(stderr, "berth: %scopying %s: %s\r", who.c_str(), e.subject.c_str(),
                   human_bytes(e.bytes).c_str());
      break;
    case Kind::command_started:
      std::fprintf(stderr, "berth: %ssetup: %s\n", who.c_str(), e.subject.c_str());
      break;
    case Kind::output:
      std::fwrite(e.detail.data(), 1, e.detail.size(), stderr);
      break;
    case Kind::command_finished:
      // A failure is said once, by the command's closing warning (how to run it again too).
      break;
    case Kind::skipped:
      std::fprintf(stderr, "berth: %sskipped untrusted setup command: %s (%s)\n", who.c_str(),
                   e.subject.c_str(), e.detail.c_str());
      break;
    case Kind::warning:
      print_warning(e.detail, e.workspace);
      break;
    }
  };
}

} // namespace cli
