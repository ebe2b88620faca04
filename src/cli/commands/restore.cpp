#include "cli/commands.hpp"
#include "cli/render.hpp"

#include <ctime>
#include <fmt/format.h>

namespace cli {

// restore --list and `trash list`: the trash, newest first as berth::list_snapshots gives it.
std::string snapshots_text(const nlohmann::json& snaps, const RenderContext& context,
                           const std::string& filter) {
  if (snaps.empty())
    return context.quiet    ? std::string()
           : filter.empty() ? "the trash is empty\n"
                            : fmt::format("no snapshot of {} in the trash\n", filter);
  int64_t now = static_cast<int64_t>(::time(nullptr));
  std::vector<std::vector<std::string>> rows{
      {"NAME@TIME", "DISCARDED", "HOLDS", "IGNORED (NOT SAVED)", "REF"}};
  for (const auto& s : snaps) {
    std::string when = age(unix_time(str(s, "time")), now) + " ago";
    // NAME@TIME, as `restore` and `trash drop` take it: the ref's last part is the time.
    std::string ref = str(s, "ref");
    std::string spec = s.contains("spec") && s["spec"].is_string()
                           ? s["spec"].get<std::string>()
                           : str(s, "name") + "@" + ref.substr(ref.rfind('/') + 1);
    // What it holds beyond its base: commits, changed files and their size.
    std::string holds = "-";
    if (s.contains("holds") && s["holds"].is_object())
      holds = fmt::format("{} commit(s), {} file(s), {}", s["holds"].value("commits", 0),
                          s["holds"].value("files", 0),
                          human_bytes(s["holds"].value("bytes", uint64_t{0})));
    // Work inside submodules or nested repositories is saved apart from the files counted.
    if (s["nested"].is_string() && !str(s, "nested").empty()) holds += " + submodule work";
    // A snapshot that cannot be restored shows its state (the warning says why).
    if (str(s, "state") != "ok") {
      rows.push_back({spec, when, holds, paint(str(s, "state"), "31"), ref});
      continue;
    }
    const auto& files = s["ignored_files"];
    const auto& bytes = s["ignored_bytes"];
    // Set-up copies (a node_modules clone) are not lost work: said apart, not as "not saved".
    const auto& made = s["setup_files"];
    // "-": not counted (yet: the background deleter counts them as it deletes the tree).
    std::string cell =
        !files.is_number() ? std::string("-")
        : files.get<int64_t>() == 0
            ? std::string("none")
            : fmt::format("{} file(s), {}", files.get<int64_t>(),
                          human_bytes(bytes.is_number() ? bytes.get<uint64_t>() : 0));
    if (made.is_number() && made.get<int64_t>() > 0)
      cell += fmt::format(" (+{} recreated by set-up)", made.get<int64_t>());
    rows.push_back({spec, when, holds, cell, ref});
  }
  return table(rows);
}

std::string render_restore(const nlohmann::json& document, const RenderContext& context) {
  if (context.params.value("list", false))
    return snapshots_text(document, context, str(context.params, "name"));
  return str(document["workspace"], "path") + "\n";
}

} // namespace cli
