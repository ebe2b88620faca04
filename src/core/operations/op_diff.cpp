#include "berth/json.hpp"
#include "core/operations/params.hpp"
#include "util/try.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace berth::ops {

namespace {

Param paths_param() {
  Param paths = string_param("paths", "only these files or folders (relative to the workspace)");
  paths.kind = ParamKind::strings;
  paths.positional = true;
  return paths;
}

// How the text is shown on a terminal; the document is the same whatever it says.
Param color_param() {
  Param color = string_param("color", "colour the patch: auto (on a terminal, as git's "
                                      "color.diff/color.ui say, never with NO_COLOR), always or "
                                      "never");
  color.choices = {"auto", "always", "never"};
  color.value_name = "WHEN";
  return color;
}

} // namespace

Entry diff_entry() {
  Operation op;
  op.name = "diff";
  op.summary = "what a workspace changed: commits, staged, unstaged, untracked";
  op.params = {
      name_param(),
      flag_param("stat", "a summary: lines added and removed per file"),
      flag_param("name_only", "only the names of changed files"),
      string_param("against", "diff from where REV and the workspace meet, instead of its base"),
      color_param(),
      flag_param("no_pager", "never through a pager, even on a terminal (as `git --no-pager diff`; "
                             "also pager.diff=false)"),
      paths_param()};
  op.read_only = true;
  op.idempotent = true;
  op.schema = "diff";
  return {op,
          [](const Project& project, const Params& p, const OperationContext&) -> Result<Outcome> {
            if (p.flag("stat") && p.flag("name_only"))
              return fail(ErrorCode::usage, "--stat and --name-only do not go together",
                          "choose one: a summary per file, or the names alone");
            DiffOptions options;
            options.format = p.flag("stat")        ? DiffFormat::stat
                             : p.flag("name_only") ? DiffFormat::name_only
                                                   : DiffFormat::patch;
            options.against = p.optional_string("against");
            options.paths = p.strings("paths");
            auto d = BERTH_TRY(diff_workspace(project, p.string("name"), options));
            Outcome out{d, {}, {}, 0};
            // Submodules and nested repositories with work in them are named in every format
            // (their files are not in the diff), so that nothing inside them goes unseen: --stat
            // lists them in its summary, the other formats warn.
            if (options.format != DiffFormat::stat)
              for (const auto& n : d.nested) {
                std::vector<std::string> what;
                if (n.new_commit) what.push_back("new commits");
                if (n.modified) what.push_back("uncommitted changes");
                if (n.untracked) what.push_back("untracked files");
                out.warnings.push_back(fmt::format("{} {}: {} (its files are not in this diff)",
                                                   n.submodule ? "submodule" : "nested repository",
                                                   n.path, fmt::join(what, ", ")));
              }
            return out;
          }};
}

} // namespace berth::ops
