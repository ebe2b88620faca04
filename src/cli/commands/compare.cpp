#include "cli/commands.hpp"
#include "cli/render.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cli {
namespace {

std::string seconds(const nlohmann::json& ms) {
  if (!ms.is_number_integer()) return "-";
  return fmt::format("{:.1f}s", static_cast<double>(ms.get<int64_t>()) / 1000.0);
}

std::string run_cell(const nlohmann::json& run) {
  if (!run.is_object()) return "-";
  std::string state = str(run, "state");
  if (state == "exited") {
    int code = run["exit_code"].is_number_integer() ? run["exit_code"].get<int>() : -1;
    return paint(fmt::format("exit {}", code), code == 0 ? "32" : "31") + " " +
           seconds(run["duration_ms"]);
  }
  return paint(state, "33");
}

std::string test_cell(const nlohmann::json& test) {
  if (!test.is_object()) return "-";
  if (test.contains("error")) return paint("error", "31");
  if (test.value("timed_out", false)) return paint("timed out", "31");
  int code = test["exit_code"].is_number_integer() ? test["exit_code"].get<int>() : -1;
  return paint(code == 0 ? "pass" : fmt::format("fail ({})", code), code == 0 ? "32" : "31") + " " +
         seconds(test["duration_ms"]) + (test.value("sandboxed", false) ? " sandboxed" : "");
}

} // namespace

std::string render_compare(const nlohmann::json& d, const RenderContext& context) {
  const auto& attempts = d["attempts"];
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"ATTEMPT", "RUN", "FILES", "+", "-", "COMMITS", "UNCOMMITTED", "MERGES"});
  bool tested = d["test_command"].is_array();
  if (tested) rows.front().push_back("TEST");
  for (const auto& a : attempts) {
    // An attempt that could not be read: no numbers (its error is said below the table).
    if (const auto& error = a.value("error", nlohmann::json()); error.is_object()) {
      rows.push_back(
          {printable(str(a, "name")), paint("unreadable", "31"), "-", "-", "-", "-", "-", "-"});
      if (tested) rows.back().push_back("-");
      continue;
    }
    bool merges = a.value("merges_cleanly", false);
    rows.push_back({printable(str(a, "name")), run_cell(a["run"]),
                    std::to_string(a.value("files_changed", int64_t{0})),
                    paint(fmt::format("+{}", a.value("additions", int64_t{0})), "32"),
                    paint(fmt::format("-{}", a.value("deletions", int64_t{0})), "31"),
                    std::to_string(a.value("commits", int64_t{0})),
                    a.value("uncommitted", false) ? "yes" : "no",
                    merges ? paint("cleanly", "32")
                           : paint(fmt::format("conflicts ({})", a["conflicts"].size()), "31")});
    if (tested) rows.back().push_back(test_cell(a["test"]));
  }
  // The table fits a terminal: the names (the only wide column) shorten first.
  if (size_t columns = terminal_columns(); columns > 0) {
    size_t others = 0, name = 0;
    std::vector<size_t> widths(rows.front().size(), 0);
    for (const auto& row : rows)
      for (size_t c = 0; c < row.size(); ++c)
        widths[c] = std::max(widths[c], display_width(row[c]));
    for (size_t c = 1; c < widths.size(); ++c)
      others += widths[c] + 2;
    name = widths[0];
    if (others + name > columns && columns > others + 8)
      for (size_t r = 1; r < rows.size(); ++r)
        rows[r][0] = shorten(rows[r][0], columns - others);
  }
  std::string text = table(rows);
  for (const auto& a : attempts)
    if (const auto& error = a.value("error", nlohmann::json()); error.is_object())
      text += fmt::format("{} cannot be read: {} [{}]\n", printable(str(a, "name")),
                          printable(str(error, "message")), str(error, "code"));
  if (context.quiet) return text;
  const auto& pairs = d["pairs"];
  if (!pairs.empty()) {
    text += "\nsimilarity (Jaccard index of changed files / changed lines):\n";
    for (const auto& p : pairs) {
      std::string relation = str(p, "relation");
      text += fmt::format("  {} ~ {}: {} (files {:.2f}, lines {:.2f})\n", printable(str(p, "a")),
                          printable(str(p, "b")),
                          paint(relation, relation == "identical"  ? "32"
                                          : relation == "disjoint" ? "2"
                                                                   : "33"),
                          p.value("files_jaccard", 0.0), p.value("lines_jaccard", 0.0));
    }
  }
  const auto& files = d["files"];
  if (!files.empty()) {
    // One row per file, the attempts that touched it in a column of their own.
    std::vector<std::vector<std::string>> file_rows;
    for (const auto& f : files) {
      std::vector<std::string> who;
      for (const auto& n : f["attempts"])
        who.push_back(printable(n.get<std::string>()));
      file_rows.push_back(
          {"  " + printable(str(f, "path")),
           fmt::format("{}{}", fmt::join(who, ", "),
                       f.value("agree", false) ? paint("  (all agree)", "32") : "")});
    }
    text += "\nfiles:\n" + table(file_rows);
  }
  // Work inside submodules and nested repositories: not in the numbers above (as `berth diff
  // --stat` says it).
  for (const auto& a : attempts)
    for (const auto& n : a.value("nested", nlohmann::json::array()))
      text += fmt::format("{}: {} (not counted above)\n", printable(str(a, "name")),
                          nested_work_line(n));
  for (const auto& a : attempts)
    for (const auto& c : a["conflicts"])
      text += fmt::format("{} conflicts with {} in {}\n", printable(str(a, "name")),
                          printable(str(d, "target")), printable(c.get<std::string>()));
  if (!str(d, "html").empty()) text += fmt::format("\nreview page: {}\n", str(d, "html"));
  return text;
}

} // namespace cli
