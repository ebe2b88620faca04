// compare: N attempts at one task (a fork's, or any workspaces) side by side. docs/compare.md.
#pragma once

#include "berth/berth.hpp"

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace berth {

struct CompareOptions {
  /// One name: a fork's task (its attempts); two or more: those workspaces.
  std::vector<std::string> names;
  std::optional<std::string> into; ///< the target whose merge is previewed (default: accept's)
  std::optional<std::string> html; ///< write the review page here
  std::vector<std::string> test;   ///< run this in every attempt (empty: no test)
  std::optional<double> test_timeout;
  std::optional<std::string> sandbox; ///< the test's sandbox (as `run --sandbox`)
  /// Polled while the tests run: true stops every test command's process group (Ctrl-C).
  std::function<bool()> cancelled;
};

/// The comparison document (docs/schema/compare.json).
Result<nlohmann::json> compare_attempts(const Project& project, const CompareOptions& options);

/// What a compare of workspace `name` looks at, made ahead and kept: its capture (kept with the
/// watcher's verdict), its diff and its merge preview against accept's default target (kept in
/// the diff cache). The fork calls it as each attempt's command ends, so that the compare after
/// the fork finds them made (docs/compare.md, "Cost"). Reads only, like compare.
Result<void> prepare_comparison(const Project& project, const std::string& name);

// ---- the parts, exposed for unit tests --------------------------------------------------------

/// One file's section of a `diff-tree -p --full-index` patch.
struct FilePatch {
  std::string text;    ///< the whole section, "diff --git ..." included
  std::string new_oid; ///< the blob after (from the index line; "" when none: mode change only)
  std::string new_mode;
  bool binary = false;
  std::vector<std::string> added, removed; ///< the lines, without their +/-
};

/// Split a patch into its files' sections, in order.
std::vector<FilePatch> split_patch(std::string_view patch);

/// What one attempt changed, as the similarity sees it: per path, what it made of the file
/// ("M 100644 <oid>"), and the changed lines ("path\0+text\0n", n counting repeats).
struct ChangeSet {
  std::vector<std::pair<std::string, std::string>> files; ///< path -> outcome, sorted by path
  std::vector<std::string> lines;                         ///< sorted, unique
};
ChangeSet change_set(const std::vector<FileChange>& files, const std::vector<FilePatch>& patches);

/// How two attempts' changes relate: "identical" (every file ends the same), "disjoint" (no file
/// in common) or "overlapping"; and the Jaccard indexes |A∩B| / |A∪B| of their changed files and
/// of their changed lines (1 when both are empty).
struct Similarity {
  std::string relation;
  double files = 0, lines = 0;
  std::vector<std::string> shared_files;
};
Similarity similarity(const ChangeSet& a, const ChangeSet& b);

/// `text` with & < > " ' as HTML entities.
std::string html_escape(std::string_view text);
/// The self-contained review page of a compare document, given each attempt's patch by name.
std::string compare_html(const nlohmann::json& document,
                         const std::vector<std::vector<FilePatch>>& patches);

} // namespace berth
