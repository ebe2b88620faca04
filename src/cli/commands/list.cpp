#include "cli/commands.hpp"
#include "cli/render.hpp"

#include <algorithm>
#include <ctime>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cli {
namespace {

std::string changes_cell(const nlohmann::json& s) {
  std::string state = str(s, "state");
  // No work tree to look at (gone, or not to be trusted): no changes to show.
  if (state == "missing" || state == "removed" || state == "unlinked" || state == "invalid")
    return "-";
  bool dirty = s.value("dirty", false);
  const auto& c = s["changes"]; // null: git could not count them
  if (!c.is_object() || (dirty && str(s, "head").empty())) return "?";
  if (!dirty) return "clean";
  std::vector<std::string> parts;
  auto part = [&](const char* key, const char* sign) {
    if (int64_t n = c.value(key, int64_t{0})) parts.push_back(fmt::format("{}{}", sign, n));
  };
  part("staged", "+");
  part("modified", "~");
  part("untracked", "?");
  part("conflicted", "!");
  return fmt::format("{}", fmt::join(parts, " "));
}

// Each workspace lists the others it overlaps with; a pair is told once, from its first member,
// in list order (the order berth::find_overlaps found them in).
std::string overlaps_text(const nlohmann::json& list) {
  std::string text;
  bool any = false;
  for (size_t i = 0; i < list.size(); ++i)
    for (const auto& o : list[i].value("overlaps", nlohmann::json::array())) {
      std::string with = str(o, "with");
      bool later = false;
      for (size_t j = i + 1; j < list.size(); ++j)
        if (str(list[j], "name") == with) later = true;
      if (!later) continue;
      any = true;
      const auto& paths = o["paths"];
      const auto& conflict_paths = o["conflict_paths"];
      text += fmt::format("{} and {} both change {} file(s): {}\n", str(list[i], "name"), with,
                          paths.size(),
                          o.value("conflicts", false) ? paint("they conflict", "31")
                                                      : paint("they merge cleanly", "32"));
      for (const auto& p : paths) {
        bool c = std::find(conflict_paths.begin(), conflict_paths.end(), p) != conflict_paths.end();
        text +=
            fmt::format("    {}{}\n", p.get<std::string>(), c ? paint(" (conflict)", "31") : "");
      }
    }
  if (!any) text = "no overlaps: no two workspaces change the same file\n";
  return text;
}

// The table shortened to `columns` (a terminal's width): PATH, the last column, first shortens
// in its middle while it keeps a useful part (20 columns); short of that it is left out (`berth
// path NAME` prints it). Then, if still too wide, the name-like columns (`shrinkable`) shorten at
// their end, to 8 columns at least. Anything shortened is said in a last line.
std::string fit_table(std::vector<std::vector<std::string>> rows, size_t columns,
                      const std::vector<size_t>& shrinkable) {
  constexpr size_t kMinPath = 20, kMinName = 8;
  auto widths = [&rows] {
    std::vector<size_t> w(rows[0].size(), 0);
    for (const auto& row : rows)
      for (size_t c = 0; c < row.size(); ++c)
        w[c] = std::max(w[c], display_width(row[c]));
    return w;
  };
  auto total = [](const std::vector<size_t>& w) {
    size_t sum = 2 * (w.size() - 1);
    for (size_t x : w)
      sum += x;
    return sum;
  };
  std::vector<size_t> w = widths();
  if (total(w) <= columns) return table(rows);
  size_t path = w.size() - 1;
  size_t others = total(w) - w[path];
  std::string said;
  if (others + kMinPath <= columns) {
    for (size_t r = 1; r < rows.size(); ++r)
      rows[r][path] = shorten(rows[r][path], columns - others, true);
    said = "paths shortened";
  } else {
    for (auto& row : rows)
      row.pop_back();
    said = "paths left out: `berth path NAME`";
    w = widths();
    // Take the excess from the widest shrinkable column each time, keeping each readable.
    while (total(w) > columns) {
      size_t widest = path;
      for (size_t c : shrinkable)
        if (c < w.size() && w[c] > kMinName && (widest == path || w[c] > w[widest])) widest = c;
      if (widest == path) break; // nothing left to shorten: let the terminal wrap
      size_t cut = std::min(total(w) - columns, w[widest] - kMinName);
      for (size_t r = 1; r < rows.size(); ++r)
        rows[r][widest] = shorten(rows[r][widest], w[widest] - cut);
      w = widths();
      said = "paths left out: `berth path NAME`; names shortened";
    }
  }
  return table(rows) + paint(shorten(fmt::format("({}; --wide shows all)", said), columns), "2") +
         "\n";
}

} // namespace

std::string state_cell(const std::string& state) {
  if (state == "ready") return paint(state, "32");
  if (state == "missing" || state == "removed" || state == "invalid") return paint(state, "31");
  return paint(state, "33");
}

// A ready workspace whose set-up failed (or awaits trust) is not ready as configured: its state
// cell says so, where a person scanning the list looks.
std::string list_state_cell(const nlohmann::json& s) {
  std::string state = str(s, "state"), setup = str(s, "setup_state");
  if (state == "ready" && setup == "failed") return paint("setup-failed", "31");
  if (state == "ready" && setup == "untrusted") return paint("setup-untrusted", "33");
  return state_cell(state);
}

std::string render_list(const nlohmann::json& list, const RenderContext& context) {
  if (list.empty())
    return context.quiet ? std::string() : "no workspaces (create one with `berth new NAME`)\n";
  bool all = context.params.value("all", false);
  int64_t now = static_cast<int64_t>(::time(nullptr));
  std::vector<std::vector<std::string>> rows;
  if (all)
    rows.push_back({"NAME", "STATE", "BRANCH", "BASE", "HEAD", "AHEAD", "CHANGES", "OWNER",
                    "CREATED", "USED", "PATH"});
  else
    rows.push_back({"NAME", "STATE", "BASE", "AHEAD", "CHANGES", "OWNER", "USED", "PATH"});
  std::string fork; // the fork whose attempts the last rows were
  for (const auto& s : list) {
    // A fork's attempts come under one heading row, `TASK (fork)`, their names indented.
    std::string name = printable(str(s, "name"));
    if (s.contains("fork")) {
      if (str(s, "fork") != fork) {
        fork = str(s, "fork");
        std::vector<std::string> heading(rows[0].size(), "");
        heading[0] = printable(fork) + " (fork)";
        rows.push_back(std::move(heading));
      }
      name = "  " + name;
    } else
      fork.clear();
    std::string owner = str(s, "owner").empty() ? "-" : printable(str(s, "owner"));
    std::string head = str(s, "head");
    std::string ahead = std::to_string(s.value("ahead", int64_t{0}));
    int64_t used = unix_time(str(s, "last_used"));
    if (all)
      rows.push_back({name, list_state_cell(s), printable(str(s, "branch")),
                      short_sha(str(s, "base")), head.empty() ? "-" : short_sha(head), ahead,
                      changes_cell(s), owner, age(unix_time(str(s, "created")), now),
                      age(used, now), printable(str(s, "path"))});
    else
      rows.push_back({name, list_state_cell(s), short_sha(str(s, "base")), ahead, changes_cell(s),
                      owner, age(used, now), printable(str(s, "path"))});
  }
  // On a terminal the table fits its width (unless --wide); elsewhere (a pipe, a file) every
  // cell is whole, so that what scripts read does not depend on a window's size.
  size_t columns = context.params.value("wide", false) ? 0 : terminal_columns();
  std::string text =
      columns > 0
          ? fit_table(rows, columns, all ? std::vector<size_t>{0, 2, 7} : std::vector<size_t>{0, 5})
          : table(rows);
  if (context.params.value("overlaps", false)) text += "\n" + overlaps_text(list);
  return text;
}

} // namespace cli
