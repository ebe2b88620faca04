// compare --html: one self-contained page (inline CSS, no script, no external asset) a person
// opens from disk. Everything an attempt wrote (file names and contents) is escaped, and the page's
// Content-Security-Policy forbids scripts besides: an attempt that writes `<script>` into a file
// or a file name runs nothing in the reviewer's browser.
#include "core/compare.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <set>

namespace berth {

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text)
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += c;
    }
  return out;
}

namespace {

// Past these the page says what it left out rather than growing without bound.
constexpr size_t kLinesPerColumn = 2000;
constexpr size_t kPageBytes = size_t{8} << 20;
// Unchanged context longer than this is folded into a <details> (git's own 3 lines around a
// change are, so that the changed lines stand out; one click shows them).
constexpr size_t kFoldContext = 2;

// A member of a compare document, null when absent (the page never asserts on its input).
const nlohmann::json& field(const nlohmann::json& object, const char* key) {
  static const nlohmann::json null;
  if (!object.is_object()) return null;
  auto it = object.find(key);
  return it == object.end() ? null : *it;
}

std::string num(const nlohmann::json& v) {
  if (v.is_null()) return "-";
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  return html_escape(v.dump());
}

std::string seconds(const nlohmann::json& ms) {
  if (!ms.is_number()) return "-";
  return fmt::format("{:.1f}s", static_cast<double>(ms.get<int64_t>()) / 1000.0);
}

std::string run_cell(const nlohmann::json& run) {
  if (!run.is_object()) return "-";
  std::string state = run.value("state", std::string());
  if (state == "exited")
    return fmt::format("exit {} ({})", num(field(run, "exit_code")),
                       seconds(field(run, "duration_ms")));
  return html_escape(state);
}

std::string test_cell(const nlohmann::json& test) {
  if (!test.is_object()) return "-";
  if (test.contains("error")) return "error: " + html_escape(test.value("error", std::string()));
  std::string what =
      test.value("timed_out", false) ? "timed out" : "exit " + num(field(test, "exit_code"));
  bool ok =
      field(test, "exit_code").is_number_integer() && field(test, "exit_code").get<int>() == 0;
  return fmt::format("<span class=\"{}\">{}</span> ({})", ok ? "ok" : "bad", what,
                     seconds(field(test, "duration_ms")));
}

// One attempt's section of one file: its hunks, changed lines marked, long context folded.
std::string column(const FilePatch& p) {
  if (p.binary) return "<p class=\"binary\">binary</p>";
  // Each line is a block of its own: no newline between them (a <pre> would show it twice).
  std::string out = "<pre>";
  std::vector<std::string_view> context;
  auto flush = [&] {
    if (context.size() > kFoldContext) {
      out += fmt::format("<details><summary>{} unchanged lines</summary>", context.size());
      for (auto line : context)
        out += "<span class=\"ctx\">" + html_escape(line) + "</span>";
      out += "</details>";
    } else {
      for (auto line : context)
        out += "<span class=\"ctx\">" + html_escape(line) + "</span>";
    }
    context.clear();
  };
  size_t shown = 0, total = 0;
  bool in_hunk = false;
  std::string_view text = p.text;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (line.rfind("@@", 0) == 0) in_hunk = true;
    if (!in_hunk) continue;
    ++total;
    if (shown >= kLinesPerColumn) continue;
    ++shown;
    if (line.rfind("@@", 0) == 0) {
      flush();
      out += "<span class=\"hunk\">" + html_escape(line) + "</span>";
    } else if (!line.empty() && line.front() == '+') {
      flush();
      out += "<ins class=\"add\">" + html_escape(line) + "</ins>";
    } else if (!line.empty() && line.front() == '-') {
      flush();
      out += "<del class=\"del\">" + html_escape(line) + "</del>";
    } else {
      context.push_back(line);
    }
  }
  flush();
  out += "</pre>";
  if (total > shown)
    out += fmt::format("<p class=\"truncated\">truncated: {} more lines not shown (berth diff "
                       "shows them all)</p>",
                       total - shown);
  if (!in_hunk) out = "<p class=\"none\">no content change (mode or name only)</p>";
  return out;
}

constexpr const char* kStyle = R"(
body{font-family:system-ui,sans-serif;margin:1em;color:#222}
table{border-collapse:collapse;margin-bottom:1em}
th,td{border:1px solid #ccc;padding:.2em .6em;text-align:left}
.ok{color:#070}.bad{color:#b00}
section.file{margin:1em 0;border-top:2px solid #888}
.side{display:flex;gap:.5em;align-items:flex-start}
.col{flex:1;min-width:0;overflow-x:auto;border:1px solid #ddd}
.col h4{margin:0;padding:.2em .4em;background:#eee}
pre{margin:0;font-size:12px}
ins.add{display:block;background:#e6ffec;text-decoration:none}
del.del{display:block;background:#ffebe9;text-decoration:none}
.hunk{display:block;color:#555;background:#f0f4ff}
.ctx{display:block;color:#444}
.none,.binary,.truncated,.renamed{color:#666;font-style:italic;padding:.2em .4em}
)";

} // namespace

std::string compare_html(const nlohmann::json& doc,
                         const std::vector<std::vector<FilePatch>>& patches) {
  const auto& attempts = field(doc, "attempts");
  std::string title =
      field(doc, "task").is_string() ? field(doc, "task").get<std::string>() : "attempts";
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                    "style-src 'unsafe-inline'\">\n";
  out += "<title>berth compare: " + html_escape(title) + "</title>\n<style>" + kStyle +
         "</style></head><body>\n";
  out += "<h1>berth compare: " + html_escape(title) + "</h1>\n";
  out += fmt::format("<p>target {} at <code>{}</code></p>\n",
                     html_escape(doc.value("target", std::string())),
                     html_escape(doc.value("target_commit", std::string()).substr(0, 12)));

  // The summary: one row per attempt.
  out += "<table id=\"summary\"><thead><tr><th>attempt</th><th>run</th><th>files</th>"
         "<th>+</th><th>-</th><th>commits</th><th>uncommitted</th><th>merges</th><th>test</th>"
         "</tr></thead><tbody>\n";
  for (const auto& a : attempts) {
    // An attempt that could not be read: its error across the row.
    if (const auto& error = field(a, "error"); error.is_object()) {
      out += fmt::format("<tr class=\"attempt\"><td>{}</td><td colspan=\"8\" class=\"bad\">"
                         "cannot be read: {} [{}]</td></tr>\n",
                         html_escape(a.value("name", std::string())),
                         html_escape(error.value("message", std::string())),
                         html_escape(error.value("code", std::string())));
      continue;
    }
    bool merges = a.value("merges_cleanly", false);
    out += fmt::format(
        "<tr class=\"attempt\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td class=\"{}\">{}</td><td>{}</td></tr>\n",
        html_escape(a.value("name", std::string())), run_cell(field(a, "run")),
        num(field(a, "files_changed")), num(field(a, "additions")), num(field(a, "deletions")),
        num(field(a, "commits")), a.value("uncommitted", false) ? "yes" : "no",
        merges ? "ok" : "bad",
        merges ? "cleanly" : fmt::format("conflicts ({})", field(a, "conflicts").size()),
        test_cell(field(a, "test")));
  }
  out += "</tbody></table>\n";

  // Work inside submodules and nested repositories: not in the numbers or the diffs below.
  std::string nested;
  for (const auto& a : attempts)
    for (const auto& n : a.value("nested", nlohmann::json::array())) {
      std::vector<std::string> what;
      if (n.value("new_commit", false)) what.push_back("new commits");
      if (n.value("modified", false)) what.push_back("uncommitted changes");
      if (n.value("untracked", false)) what.push_back("untracked files");
      nested += fmt::format("<li>{}: {} {}: {}</li>\n", html_escape(a.value("name", std::string())),
                            n.value("kind", std::string()) == "submodule" ? "submodule"
                                                                          : "nested repository",
                            html_escape(n.value("path", std::string())),
                            html_escape(fmt::format("{}", fmt::join(what, ", "))));
    }
  if (!nested.empty())
    out += "<p>Work inside submodules and nested repositories (not counted above, not in the "
           "diffs below):</p>\n<ul id=\"nested\">\n" +
           nested + "</ul>\n";

  // How the attempts relate.
  if (!field(doc, "pairs").empty()) {
    out += "<h2>Similarity</h2>\n<table id=\"pairs\"><thead><tr><th>attempts</th><th>relation</th>"
           "<th>files (Jaccard)</th><th>lines (Jaccard)</th></tr></thead><tbody>\n";
    for (const auto& p : field(doc, "pairs"))
      out += fmt::format("<tr><td>{} / {}</td><td>{}</td><td>{:.2f}</td><td>{:.2f}</td></tr>\n",
                         html_escape(p.value("a", std::string())),
                         html_escape(p.value("b", std::string())),
                         html_escape(p.value("relation", std::string())),
                         p.value("files_jaccard", 0.0), p.value("lines_jaccard", 0.0));
    out += "</tbody></table>\n";
  }

  // The diffs, file by file, the attempts side by side. Each attempt's patch sections pair with
  // its file list in order (both from the same diff-tree).
  // A rename's column says where it came from; its old path's section says where it went.
  struct Cell {
    const FilePatch* patch = nullptr;
    std::string note;
  };
  std::map<std::string, std::map<size_t, Cell>> by_file;
  for (size_t i = 0; i < attempts.size() && i < patches.size(); ++i) {
    const auto& files = field(attempts[i], "files");
    if (files.size() != patches[i].size()) continue;
    for (size_t k = 0; k < files.size(); ++k) {
      std::string path = files[k].value("path", std::string());
      std::string from = files[k].value("old_path", nlohmann::json()).is_string()
                             ? files[k]["old_path"].get<std::string>()
                             : std::string();
      bool renamed = files[k].value("status", std::string()) == "R" && !from.empty();
      by_file[path][i] = {&patches[i][k], renamed ? "renamed from " + from : std::string()};
      if (renamed) by_file[from].try_emplace(i, Cell{nullptr, "renamed to " + path});
    }
  }
  std::set<std::string> agreed;
  for (const auto& path : field(doc, "agree"))
    if (path.is_string()) agreed.insert(path.get<std::string>());
  out += "<h2>Changes</h2>\n";
  size_t left_out = 0;
  for (const auto& [path, by_attempt] : by_file) {
    if (out.size() > kPageBytes) {
      ++left_out;
      continue;
    }
    out += fmt::format("<section class=\"file\"><h3>{}{}</h3><div class=\"side\">\n",
                       html_escape(path), agreed.count(path) ? " (all attempts agree)" : "");
    for (size_t i = 0; i < attempts.size(); ++i) {
      out += fmt::format("<div class=\"col\" data-attempt=\"{}\"><h4>{}</h4>",
                         html_escape(attempts[i].value("name", std::string())),
                         html_escape(attempts[i].value("name", std::string())));
      auto it = by_attempt.find(i);
      if (it == by_attempt.end()) {
        out += "<p class=\"none\">not changed</p>";
      } else {
        if (!it->second.note.empty())
          out += "<p class=\"renamed\">" + html_escape(it->second.note) + "</p>";
        if (it->second.patch) out += column(*it->second.patch);
      }
      out += "</div>\n";
    }
    out += "</div></section>\n";
  }
  if (left_out)
    out += fmt::format("<p class=\"truncated\">truncated: {} more files not shown (the page "
                       "stops at {} MiB; berth diff NAME shows them)</p>\n",
                       left_out, kPageBytes >> 20);
  out += "</body></html>\n";
  return out;
}

} // namespace berth
