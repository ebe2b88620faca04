#include "cli/commands.hpp"
#include "cli/render.hpp"

#include <ctime>
#include <fmt/format.h>

namespace cli {

std::string render_status(const nlohmann::json& s, const RenderContext&) {
  int64_t now = static_cast<int64_t>(::time(nullptr));
  std::string text;
  auto line = [&](const char* key, const std::string& value) {
    text += fmt::format("{:<10} {}\n", key, value);
  };
  auto when = [&](const char* key) {
    std::string iso = str(s, key);
    return fmt::format("{} ({} ago)", iso, age(unix_time(iso), now));
  };
  std::string branch = str(s, "branch"), head_branch = str(s, "head_branch");
  int64_t behind = s.value("behind", int64_t{0});
  const auto& c = s["changes"];
  line("name", str(s, "name"));
  line("state", state_cell(str(s, "state")));
  if (!str(s, "problem").empty()) line("problem", str(s, "problem"));
  if (str(s, "setup_state") == "failed")
    line("setup", paint("failed", "31") + ": " + str(s, "setup_error") + " (run `berth setup " +
                      str(s, "name") + "` to run it again)");
  else if (str(s, "setup_state") == "untrusted")
    line("setup", paint("untrusted", "33") +
                      ": the repository's setup commands did not run "
                      "(review them, `berth trust`, then `berth setup " +
                      str(s, "name") + "`)");
  line("path", str(s, "path"));
  line("branch", head_branch.empty() || head_branch == branch
                     ? branch
                     : fmt::format("{} (checked out: {})", branch, head_branch));
  line("base", str(s, "base"));
  if (!str(s, "synced").empty()) line("synced", "onto " + str(s, "synced"));
  line("head", str(s, "head").empty() ? "-" : str(s, "head"));
  line("commits", fmt::format("{} ahead of {}{}", s.value("ahead", int64_t{0}),
                              str(s, "synced").empty() ? "base" : "base and synced",
                              behind ? fmt::format(", {} behind", behind) : ""));
  // null: git could not count them (hostile, unreadable, branch_missing).
  line("changes",
       c.is_object()
           ? fmt::format("{} staged, {} modified, {} untracked, {} conflicted",
                         c.value("staged", int64_t{0}), c.value("modified", int64_t{0}),
                         c.value("untracked", int64_t{0}), c.value("conflicted", int64_t{0}))
           : std::string("unknown (git cannot look inside; see state)"));
  line("owner", str(s, "owner").empty() ? "-" : str(s, "owner"));
  line("created", when("created"));
  line("last used", when("last_used"));
  return text;
}

} // namespace cli
