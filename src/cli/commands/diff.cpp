#include "cli/commands.hpp"
#include "cli/pager.hpp"
#include "cli/render.hpp"

#include <cstdlib>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <set>
#include <unistd.h>

namespace cli {

std::string stat_text(const nlohmann::json& files) {
  std::vector<std::vector<std::string>> rows;
  int64_t adds = 0, dels = 0;
  for (const auto& f : files) {
    std::string path =
        str(f, "old_path").empty() ? str(f, "path") : str(f, "old_path") + " => " + str(f, "path");
    std::string old_mode = str(f, "old_mode"), new_mode = str(f, "new_mode");
    if (!old_mode.empty() && !new_mode.empty() && old_mode != new_mode)
      path += fmt::format(" (mode {} => {})", old_mode, new_mode);
    int64_t a = f.value("additions", int64_t{0}), d = f.value("deletions", int64_t{0});
    bool binary = f.value("binary", false);
    rows.push_back({str(f, "status"), binary ? "bin" : paint(fmt::format("+{}", a), "32"),
                    binary ? "" : paint(fmt::format("-{}", d), "31"), path});
    adds += a;
    dels += d;
  }
  std::string text = table(rows);
  text += fmt::format("{} file(s) changed, {} insertion(s), {} deletion(s)\n", files.size(), adds,
                      dels);
  return text;
}

namespace {

// --color: always and never say it all; auto is colour on a terminal when NO_COLOR is not set
// and git would colour `git diff` there (color.diff, color.ui, TERM=dumb). A pipe gets no colour
// with auto, even with color.diff=always: `berth diff | git apply` must keep working.
bool wants_color(const RenderContext& context) {
  std::string when = context.params.value("color", std::string("auto"));
  if (when == "always") return true;
  if (when == "never" || !::isatty(STDOUT_FILENO)) return false;
  const char* no_color = std::getenv("NO_COLOR");
  if ((no_color && *no_color) || !context.project) return false;
  auto shown = berth::diff_presentation(*context.project, true, true, false);
  return shown && shown->color;
}

} // namespace

std::string render_diff(const nlohmann::json& d, const RenderContext& context) {
  const auto& files = d["files"];
  const auto& nested = d["nested"];
  if (context.params.value("stat", false)) {
    std::string text = files.empty() ? std::string() : stat_text(files);
    // Submodules and nested repositories with work in them: their files are not in the diff.
    for (const auto& n : nested)
      text += nested_work_line(n) + "\n";
    return text;
  }
  if (context.params.value("name_only", false)) {
    std::string text;
    std::set<std::string> named;
    for (const auto& f : files) {
      text += str(f, "path") + "\n";
      named.insert(str(f, "path"));
    }
    for (const auto& n : nested)
      if (!named.count(str(n, "path"))) text += str(n, "path") + "\n";
    return text;
  }
  std::string patch = str(d, "patch");
  if (!wants_color(context)) return patch;
  // The user's color.diff.<slot> colours, as git reads them; git's defaults without a project.
  std::map<std::string, std::string> colors;
  if (context.project)
    if (auto read = berth::diff_colors(*context.project)) colors = std::move(*read);
  return color_patch(patch, colors);
}

} // namespace cli
