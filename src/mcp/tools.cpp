// berth's MCP tools (see tools.hpp): the table's operations plus the confined file tools.
#include "mcp/tools.hpp"

#include "berth/json.hpp"
#include "berth/operations.hpp"
#include "core/confine.hpp"
#include "core/review.hpp"
#include "core/workspace_git.hpp"
#include "mcp/schemas.hpp"
#include "util/paths.hpp"
#include "util/try.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <fnmatch.h>
#include <iostream>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <sys/stat.h>
#include <unistd.h>

namespace mcp {

using nlohmann::json;

namespace {

// ---- limits: what one answer may carry (a model's context is the scarce thing) --------------

constexpr std::size_t kDefaultReadLimit = std::size_t{64} * 1024;
constexpr std::size_t kMaxReadLimit = std::size_t{1024} * 1024;
constexpr std::size_t kDefaultDiffBytes = std::size_t{64} * 1024;
constexpr std::size_t kMaxDiffBytes = 4 * std::size_t{1024} * 1024;
constexpr std::size_t kMaxListEntries = 2000;

// ---- one workspace at a time: file tools against whole-workspace operations ----------------

// Every call runs on a thread of its own (server.cpp), so a model's parallel calls could write a
// file into a workspace that a discard is moving aside (the write lost after the snapshot), or
// under a commit (in or out of it by chance). File writes share a workspace's gate; commit,
// sync, discard, restore and accept take it alone, so each sees the writes before it whole and
// none after. Across processes the lease refuses what would race (run, commit, sync).
std::shared_mutex& gate(const std::string& workspace) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<std::shared_mutex>> gates;
  std::lock_guard lock(mutex);
  auto& g = gates[workspace];
  if (!g) g = std::make_unique<std::shared_mutex>();
  return *g;
}

std::string name_of(const json& arguments) {
  auto it = arguments.find("name");
  return it != arguments.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// ---- building results ---------------------------------------------------------------------

std::string text_of(const json& j) {
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

json success_result(json document, const std::vector<std::string>& warnings = {},
                    const std::vector<std::string>& notes = {}) {
  json content = json::array({{{"type", "text"}, {"text", text_of(document)}}});
  std::string news;
  for (const auto& w : warnings)
    news += "berth: warning: " + w + "\n";
  for (const auto& n : notes)
    news += "berth: " + n + "\n";
  if (!news.empty()) content.push_back({{"type", "text"}, {"text", news}});
  return {{"content", content}, {"structuredContent", std::move(document)}, {"isError", false}};
}

berth::Error usage(std::string message, std::string hint = {}) {
  return berth::Error{
      berth::ErrorCode::usage, std::move(message), std::move(hint), std::nullopt, {}};
}

// ---- input schemas ------------------------------------------------------------------------

json param_schema(const berth::Param& p) {
  json s;
  switch (p.kind) {
  case berth::ParamKind::flag:
    s["type"] = "boolean";
    break;
  case berth::ParamKind::string:
    s["type"] = "string";
    if (!p.choices.empty()) s["enum"] = p.choices;
    break;
  case berth::ParamKind::integer:
    s["type"] = "integer";
    break;
  case berth::ParamKind::number:
    s["type"] = "number";
    break;
  case berth::ParamKind::strings:
    s["type"] = "array";
    s["items"] = {{"type", "string"}};
    break;
  }
  if (!p.help.empty()) s["description"] = p.help;
  return s;
}

struct Extra {
  std::string name;
  json schema;
  bool required = false;
  /// The CLI option it stands for and how an agent says the same ("--timeout" is
  /// "`timeout_s`"): an operation's errors name the CLI's options (in_tool_words).
  std::string cli_option = {}, in_tool = {};
};

json object_schema(const std::vector<std::pair<std::string, json>>& properties,
                   const std::vector<std::string>& required) {
  json props = json::object();
  for (const auto& [name, schema] : properties)
    props[name] = schema;
  json s{{"type", "object"}, {"properties", props}, {"additionalProperties", false}};
  if (!required.empty()) s["required"] = required;
  return s;
}

// ---- the tools' declarations ----------------------------------------------------------------

struct Hints {
  bool read_only = false, destructive = false, idempotent = false;
};

json definition(const std::string& name, const std::string& title, const std::string& description,
                json input, json output, Hints hints) {
  return {{"name", name},
          {"title", title},
          {"description", description},
          {"inputSchema", std::move(input)},
          {"outputSchema", std::move(output)},
          {"annotations",
           {{"title", title},
            {"readOnlyHint", hints.read_only},
            {"destructiveHint", hints.destructive},
            {"idempotentHint", hints.idempotent},
            // Everything stays on this machine, in this repository.
            {"openWorldHint", false}}}};
}

// Per call: what a tool does around the operation (run: capture, progress, cancel; diff: caps).
struct CallHook {
  virtual ~CallHook() = default;
  virtual void prepare(berth::OperationContext&, const CallContext&) {}
  virtual json shape(json document, const json& /*arguments*/) { return document; }
};

// An operation-backed tool: which of the entry's parameters it offers, extra ones of its own,
// how its arguments become the entry's parameters, and what it does around the call.
struct OpTool {
  OpTool(std::string name_, std::string title_, std::string description_, std::string operation_,
         std::vector<std::string> params_)
      : name(std::move(name_)), title(std::move(title_)), description(std::move(description_)),
        operation(std::move(operation_)), params(std::move(params_)) {}
  std::string name, title, description, operation;
  std::vector<std::string> params; ///< the entry's parameters offered, in this order
  std::vector<Extra> extras;       ///< tool-only arguments
  std::string schema;              ///< docs/schema/<schema>.json (default: the entry's)
  std::string wrap_key = "items";  ///< for an array-rooted document
  /// The entry's parameters from the tool's arguments (default: the arguments as they are);
  /// an Error refuses the call.
  std::function<berth::Result<json>(const json& arguments, const CallContext&)> to_params;
  std::function<std::unique_ptr<CallHook>()> hook;
  bool alone = false; ///< takes the workspace's gate alone (see gate())
};

json wrap(const std::string& key, json document) {
  if (document.is_object()) return document;
  return {{key, std::move(document)}};
}

// The operation's error in the words of the tool that called it: its messages and hints name the
// CLI's options (`pass --force`, `--timeout`), which an agent does not have; it has the tool's
// parameters (`force: true`, `timeout_s`). An option the tool does not offer is left as it is.
berth::Error in_tool_words(berth::Error error, const berth::Operation& op, const OpTool& spec) {
  std::vector<std::pair<std::string, std::string>> words;
  for (const auto& extra : spec.extras)
    if (!extra.cli_option.empty()) words.emplace_back(extra.cli_option, extra.in_tool);
  for (const auto& name : spec.params)
    for (const auto& p : op.params)
      if (p.name == name && !p.positional) {
        std::string option = "--" + p.name;
        std::replace(option.begin(), option.end(), '_', '-');
        words.emplace_back(option, p.kind == berth::ParamKind::flag ? "`" + p.name + ": true`"
                                                                    : "`" + p.name + "`");
      }
  auto rewrite = [&words](std::string& text) {
    for (const auto& [option, said] : words)
      for (std::size_t at = text.find(option); at != std::string::npos;
           at = text.find(option, at)) {
        std::size_t end = at + option.size();
        // A whole option only: --force, not --force-with-lease; a backquoted `--force` too.
        bool whole = end == text.size() || !(std::isalnum(static_cast<unsigned char>(text[end])) ||
                                             text[end] == '-' || text[end] == '=');
        if (!whole) {
          at = end;
          continue;
        }
        bool quoted = at > 0 && text[at - 1] == '`' && end < text.size() && text[end] == '`';
        if (quoted)
          text.replace(at - 1, option.size() + 2, said);
        else
          text.replace(at, option.size(), said);
        at += said.size() - (quoted ? 1 : 0);
      }
  };
  rewrite(error.message);
  rewrite(error.hint);
  return error;
}

std::optional<Tool> make_op_tool(const OpTool& spec) {
  const berth::Operation* op = berth::find_operation(spec.operation);
  if (!op) {
    std::cerr << "berth mcp: no operation '" << spec.operation << "': tool " << spec.name
              << " left out\n";
    return std::nullopt;
  }
  std::vector<std::pair<std::string, json>> props;
  std::vector<std::string> required;
  for (const auto& wanted : spec.params) {
    for (const auto& p : op->params) {
      if (p.name != wanted || p.internal) continue;
      props.emplace_back(p.name, param_schema(p));
      if (p.required) required.push_back(p.name);
    }
  }
  for (const auto& extra : spec.extras) {
    props.emplace_back(extra.name, extra.schema);
    if (extra.required) required.push_back(extra.name);
  }
  std::string schema_name = spec.schema.empty() ? op->schema : spec.schema;
  Hints hints{op->read_only, op->destructive, op->idempotent};
  Tool tool;
  tool.name = spec.name;
  tool.definition =
      definition(spec.name, spec.title, spec.description, object_schema(props, required),
                 bundled_schema(schema_name, spec.wrap_key), hints);
  tool.call = [spec, op](const json& arguments, const CallContext& ctx) -> json {
    json params = arguments;
    if (spec.to_params) {
      auto converted = spec.to_params(arguments, ctx);
      if (!converted) return error_result(converted.error());
      params = std::move(*converted);
    }
    std::unique_lock<std::shared_mutex> alone;
    if (spec.alone) alone = std::unique_lock(gate(name_of(arguments)));
    std::unique_ptr<CallHook> hook = spec.hook ? spec.hook() : std::make_unique<CallHook>();
    berth::OperationContext context;
    // A cancelled call stops what the operation runs (fork's attempts) as Ctrl-C would.
    context.stop_requested = [cancelled = ctx.cancelled] { return cancelled && cancelled->load(); };
    hook->prepare(context, ctx);
    auto outcome = op->run(&ctx.project, params, context);
    if (!outcome) return error_result(in_tool_words(outcome.error(), *op, spec));
    json document = hook->shape(wrap(spec.wrap_key, std::move(outcome->document)), arguments);
    return success_result(std::move(document), outcome->warnings, outcome->notes);
  };
  return tool;
}

// The arguments less the tool's own.
json without(const json& arguments, std::initializer_list<const char*> own) {
  json params = arguments;
  for (const char* key : own)
    params.erase(key);
  return params;
}

// ---- workspace_diff: the byte cap -----------------------------------------------

struct DiffHook : CallHook {
  json shape(json document, const json& arguments) override {
    if (document.contains("patch")) {
      std::size_t cap = kDefaultDiffBytes;
      if (arguments.contains("max_bytes"))
        cap = std::min<std::size_t>(arguments["max_bytes"].get<std::size_t>(), kMaxDiffBytes);
      std::string patch = document["patch"].get<std::string>();
      document["patch_bytes"] = patch.size();
      document["truncated"] = patch.size() > cap;
      if (patch.size() > cap) {
        // Cut at a line's end: half a line would read as content.
        auto cut = cap == 0 ? std::string::npos : patch.rfind('\n', cap - 1);
        document["patch"] = patch.substr(0, cut == std::string::npos ? 0 : cut + 1);
      }
    }
    return document;
  }
};

// ---- workspace_run: capture, progress, cancel ---------------------------------------------

struct RunHook : CallHook {
  struct Shared {
    std::mutex mutex;
    std::size_t bytes = 0; ///< all the command wrote so far (the library keeps the output)
    std::chrono::steady_clock::time_point last_progress{};
    std::string recent; ///< output since the last progress notification
  };
  std::shared_ptr<Shared> shared = std::make_shared<Shared>();

  void prepare(berth::OperationContext& context, const CallContext& ctx) override {
    auto s = shared;
    auto progress = ctx.progress;
    auto cancelled = ctx.cancelled;
    context.prepare_run = [s, progress, cancelled](berth::RunOptions& options) {
      options.on_output = [s, progress](std::string_view chunk, int stream) {
        (void)stream;
        std::lock_guard lock(s->mutex);
        s->bytes += chunk.size();
        if (!progress) return;
        s->recent.append(chunk);
        if (s->recent.size() > 8192) s->recent.erase(0, s->recent.size() - 8192);
        auto now = std::chrono::steady_clock::now();
        // A few notifications a second at most: the client asked for progress, not a flood.
        if (now - s->last_progress < std::chrono::milliseconds(200)) return;
        s->last_progress = now;
        progress(static_cast<double>(s->bytes), s->recent);
        s->recent.clear();
      };
      options.cancelled = [cancelled] { return cancelled && cancelled->load(); };
    };
  }
};

berth::Result<json> run_params(const json& arguments, const CallContext& ctx) {
  json params = without(arguments, {"timeout_s", "sandbox", "net"});
  bool sandbox = arguments.value("sandbox", ctx.settings.sandbox_default);
  if (!sandbox && !ctx.settings.allow_unsandboxed)
    return tl::unexpected(
        berth::Error{berth::ErrorCode::usage,
                     "sandbox: false is refused by this server",
                     "leave sandbox out (commands run sandboxed); the user may start `berth mcp "
                     "--allow-unsandboxed`",
                     std::nullopt,
                     {}});
  params["sandbox"] = sandbox ? "landlock" : "off";
  // stdout is the protocol: the output comes back in the result (the operation's --capture).
  params["capture"] = true;
  if (arguments.contains("net")) params["net"] = arguments["net"].get<bool>() ? "on" : "off";
  if (arguments.contains("timeout_s")) params["timeout"] = arguments["timeout_s"];
  return params;
}

// workspace_fork: as workspace_run's (sandboxed unless the server allows otherwise), for a
// command; without one there is nothing to confine (fork refuses --sandbox without a command).
// No capture: each attempt's output goes to its log file.
berth::Result<json> fork_params(const json& arguments, const CallContext& ctx) {
  if (!arguments.contains("command") || arguments["command"].empty())
    return without(arguments, {"timeout_s", "sandbox", "net"});
  json params = BERTH_TRY(run_params(arguments, ctx));
  params.erase("capture");
  return params;
}

// workspace_compare's `html`: the review page is written in the project (the folder the server
// serves), never elsewhere: the agent is confined to its workspaces, and a page written to any
// path the user may write would replace that file (a dotfile, the repository's `.git/config`).
// Refused: an absolute path, a `..` or `.git` component, and a folder that resolves (through a
// symlink) outside the project. A folder that does not exist is compare's to report.
berth::Result<void> check_html_target(const std::string& html, const CallContext& ctx) {
  auto refuse = [&](std::string_view why) -> berth::Result<void> {
    return tl::unexpected(berth::Error{
        berth::ErrorCode::escape_refused,
        fmt::format("html {}: {}", html, why),
        "give a file name relative to the project, e.g. compare.html or build/compare.html",
        std::nullopt,
        {html}});
  };
  if (!html.empty() && html.front() == '/') return refuse("an absolute path");
  for (std::size_t at = 0; at <= html.size();) {
    std::size_t end = std::min(html.find('/', at), html.size());
    std::string_view part = std::string_view(html).substr(at, end - at);
    if (part == "..") return refuse("`..` leaves the project");
    if (part == ".git") return refuse("git's metadata");
    at = end + 1;
  }
  const std::string& root = ctx.project.cwd();
  auto real_root = util::real_path(root);
  auto real_dir = util::real_path(util::dirname(util::join(root, html)));
  if (real_root && real_dir && !util::is_within(*real_dir, *real_root))
    return refuse("its folder leads outside the project");
  return {};
}

// workspace_compare: a `test` command is run in every attempt, sandboxed as workspace_run's
// (the server's default, landlock); compare takes no --net (a sandboxed fork's attempts are
// tested with the fork's network setting) and no capture (each test's output tail is in its
// result). Without a test there is nothing to run or confine.
berth::Result<json> compare_params(const json& arguments, const CallContext& ctx) {
  if (arguments.contains("html") && arguments["html"].is_string())
    BERTH_TRY(check_html_target(arguments["html"].get<std::string>(), ctx));
  if (!arguments.contains("test") || arguments["test"].empty())
    return without(arguments, {"timeout_s", "sandbox"});
  json params = BERTH_TRY(run_params(arguments, ctx));
  params.erase("capture");
  return params;
}

// ---- the confined file tools --------------------------------------------------------------

// The workspace a file tool works in (its files beneath `.path`). The workspace's `.git` (a file
// naming its admin dir) is git's, not a file to edit: a write there could point the checkout
// anywhere.
berth::Result<berth::Workspace> file_root(const CallContext& ctx, const json& arguments,
                                          const std::string& path) {
  // Usable: its folder there (one deleted by hand is not_found with the hint to clean it up, as
  // workspace_diff says), its admin files not planted.
  auto w = BERTH_TRY(berth::usable_workspace(ctx.project, arguments["name"].get<std::string>()));
  // Any `.git` on the way, however spelled (`./.git/HEAD`, `a/../.git/config`, a nested
  // repository's or submodule's): git's metadata, never a file tool's to touch.
  std::string normal = util::lexically_normal(path);
  for (std::size_t at = 0; at <= normal.size();) {
    std::size_t end = std::min(normal.find('/', at), normal.size());
    if (normal.compare(at, end - at, ".git") == 0)
      return berth::fail(berth::ErrorCode::escape_refused,
                         fmt::format("{}: the workspace's git metadata", path),
                         "edit the workspace's files; commit with workspace_commit");
    at = end + 1;
  }
  return w;
}

json read_file(const json& a, const CallContext& ctx) {
  std::string path = a["path"];
  auto root = file_root(ctx, a, path);
  if (!root) return error_result(root.error());
  auto fd = berth::open_beneath(root->path, path, berth::Access::read);
  if (!fd) return error_result(fd.error());
  struct stat st {};
  ::fstat(*fd, &st);
  std::size_t size = static_cast<std::size_t>(st.st_size);
  std::size_t offset = a.value("offset", std::size_t{0});
  std::size_t limit = std::min(a.value("limit", kDefaultReadLimit), kMaxReadLimit);
  if (limit == 0)
    return error_result({berth::ErrorCode::usage,
                         "workspace_read_file: limit must be at least 1 byte",
                         "leave limit out for the default page size",
                         std::nullopt,
                         {}});
  std::string content;
  if (offset < size) {
    content.resize(std::min(limit, size - offset));
    std::size_t done = 0;
    while (done < content.size()) {
      ssize_t r = ::pread(*fd, content.data() + done, content.size() - done,
                          static_cast<off_t>(offset + done));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      done += static_cast<std::size_t>(r);
    }
    content.resize(done);
    // A page that stops inside a UTF-8 character would hand the model two halves it shows as
    // U+FFFD (and writes back corrupted): the page ends before that character instead, and
    // next_offset starts at it. (Unless the page is smaller than one character.)
    if (offset + content.size() < size) {
      std::size_t lead = content.size();
      while (lead > 0 && content.size() - lead < 4 &&
             (static_cast<unsigned char>(content[lead - 1]) & 0xC0) == 0x80)
        --lead;
      if (lead > 1) {
        auto c = static_cast<unsigned char>(content[lead - 1]);
        std::size_t want = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        if (want > 1 && content.size() - (lead - 1) < want) content.resize(lead - 1);
      }
    }
  }
  ::close(*fd);
  std::size_t next = std::max(offset, std::min(offset + content.size(), size));
  return success_result({{"name", a["name"]},
                         {"path", path},
                         {"content", content},
                         {"offset", offset},
                         {"bytes", content.size()},
                         {"size", size},
                         {"truncated", next < size},
                         {"next_offset", next}});
}

// Whether `path` exists beneath the root (an escape comes back as its error).
berth::Result<bool> exists_beneath(const std::string& root, const std::string& path) {
  auto fd = berth::open_beneath(root, path, berth::Access::read);
  if (fd) {
    ::close(*fd);
    return true;
  }
  if (fd.error().code == berth::ErrorCode::not_found) return false;
  // Not a regular file (a directory, a FIFO): write_beneath judges and refuses it.
  if (fd.error().code == berth::ErrorCode::escape_refused &&
      fd.error().message.find("not a regular file") != std::string::npos)
    return true;
  return tl::unexpected(fd.error());
}

json write_file(const json& a, const CallContext& ctx) {
  std::string path = a["path"];
  std::shared_lock shared(gate(name_of(a)));
  auto root = file_root(ctx, a, path);
  if (!root) return error_result(root.error());
  auto existed = exists_beneath(root->path, path);
  if (!existed) return error_result(existed.error());
  std::string content = a["content"];
  auto written = berth::write_beneath(root->path, path, content, true);
  if (!written) return error_result(written.error());
  return success_result(
      {{"name", a["name"]}, {"path", path}, {"bytes", content.size()}, {"created", !*existed}});
}

json edit_file(const json& a, const CallContext& ctx) {
  std::string path = a["path"];
  std::shared_lock shared(gate(name_of(a)));
  auto root = file_root(ctx, a, path);
  if (!root) return error_result(root.error());
  std::string old_string = a["old_string"], new_string = a["new_string"];
  if (old_string.empty())
    return error_result(usage("old_string is empty", "give the exact text to replace"));
  auto content = berth::read_beneath(root->path, path);
  if (!content) return error_result(content.error());
  std::size_t count = 0;
  for (auto at = content->find(old_string); at != std::string::npos;
       at = content->find(old_string, at + old_string.size()))
    ++count;
  if (count == 0)
    return error_result(berth::Error{berth::ErrorCode::not_found,
                                     fmt::format("{}: old_string not found", path),
                                     "read the file again; old_string must match exactly, "
                                     "whitespace included",
                                     std::nullopt,
                                     {path}});
  bool all = a.value("replace_all", false);
  if (count > 1 && !all)
    return error_result(usage(fmt::format("{}: old_string occurs {} times", path, count),
                              "add surrounding lines to make it unique, or set replace_all"));
  std::string out;
  std::size_t pos = 0, replaced = 0;
  for (auto at = content->find(old_string); at != std::string::npos;
       at = content->find(old_string, pos)) {
    out.append(*content, pos, at - pos);
    out += new_string;
    pos = at + old_string.size();
    ++replaced;
    if (!all) break;
  }
  out.append(*content, pos);
  auto written = berth::write_beneath(root->path, path, out);
  if (!written) return error_result(written.error());
  return success_result(
      {{"name", a["name"]}, {"path", path}, {"replacements", replaced}, {"bytes", out.size()}});
}

json delete_file(const json& a, const CallContext& ctx) {
  std::string path = a["path"];
  std::shared_lock shared(gate(name_of(a)));
  auto root = file_root(ctx, a, path);
  if (!root) return error_result(root.error());
  auto deleted = berth::delete_beneath(root->path, path);
  if (!deleted) return error_result(deleted.error());
  return success_result({{"name", a["name"]}, {"path", path}});
}

// A glob on a whole path, `**/` matching any number of folders, none included (`src/**/*.c` finds
// src/main.c too), as in git and most globbers; `*` alone crosses folders as well.
bool path_glob(const std::string& pattern, const std::string& file, int depth = 0) {
  if (::fnmatch(pattern.c_str(), file.c_str(), 0) == 0) return true;
  if (depth > 8) return false; // enough for any pattern a person writes
  for (auto at = pattern.find("**/"); at != std::string::npos; at = pattern.find("**/", at + 1))
    if ((at == 0 || pattern[at - 1] == '/') &&
        path_glob(pattern.substr(0, at) + pattern.substr(at + 3), file, depth + 1))
      return true;
  return false;
}

// Whether a workspace-relative `file` matches a list_files pattern: a pattern without `/` looks at
// the name alone (`*.py` finds them at any depth), one with `/` at the whole path.
bool matches(const std::string& pattern, const std::string& file) {
  if (pattern.empty()) return true;
  if (pattern.find('/') != std::string::npos) return path_glob(pattern, file);
  auto slash = file.rfind('/');
  return ::fnmatch(pattern.c_str(), file.c_str() + (slash == std::string::npos ? 0 : slash + 1),
                   0) == 0;
}

json entry_of(const std::string& name, const std::string& type, int64_t size) {
  return {{"name", name}, {"type", type}, {"size", size}};
}

// The recursive listing: the project's files as git sees them (tracked, and untracked but not
// ignored), so a model's "find the *.py files" does not drown in node_modules.
berth::Result<json> list_recursive(const berth::Workspace& w, const std::string& path,
                                   const std::string& pattern, bool& truncated) {
  const std::string& root = w.path;
  auto files = BERTH_TRY(berth::workspace_files(w, path));
  json list = json::array();
  for (const auto& file : files) {
    if (!matches(pattern, file)) continue;
    // git lists no path through a symlinked folder, so no component on the way leads out.
    struct stat st {};
    if (::lstat((root + "/" + file).c_str(), &st) != 0) continue; // deleted, not committed
    if (list.size() >= kMaxListEntries) {
      truncated = true;
      break;
    }
    std::string type = S_ISREG(st.st_mode)   ? "file"
                       : S_ISLNK(st.st_mode) ? "symlink"
                       : S_ISDIR(st.st_mode) ? "dir" // a submodule
                                             : "other";
    list.push_back(entry_of(file, type, S_ISREG(st.st_mode) ? int64_t{st.st_size} : 0));
  }
  return list;
}

// A shell glob fnmatch reads as the user meant: a `[` without its `]` (or a trailing `\`) is
// taken literally by fnmatch, so `[` would silently match nothing; say so instead.
std::optional<berth::Error> bad_glob(const std::string& pattern) {
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '\\') {
      if (++i == pattern.size())
        return usage(fmt::format("pattern \"{}\": it ends with a lone backslash", pattern),
                     "to match a backslash write \\\\; nothing was listed");
      continue;
    }
    if (pattern[i] != '[') continue;
    std::size_t j = i + 1;
    if (j < pattern.size() && (pattern[j] == '!' || pattern[j] == '^')) ++j;
    if (j < pattern.size() && pattern[j] == ']') ++j; // a `]` first is one of the set
    while (j < pattern.size() && pattern[j] != ']')
      ++j;
    if (j == pattern.size())
      return usage(fmt::format("pattern \"{}\": the [ at {} has no closing ]", pattern, i + 1),
                   "a set is written [abc] or [a-z]; to match a [ itself write [[] or \\[");
    i = j;
  }
  return std::nullopt;
}

json list_files(const json& a, const CallContext& ctx) {
  std::string path = a.value("path", std::string("."));
  if (path.empty()) path = ".";
  auto root = file_root(ctx, a, path);
  if (!root) return error_result(root.error());
  // The folder itself goes through the confined listing either way: `..`, symlinks out and
  // the like are refused before git is asked anything.
  auto entries = berth::list_beneath(root->path, path);
  if (!entries) return error_result(entries.error());
  std::string pattern = a.value("pattern", std::string());
  bool recursive = a.value("recursive", false);
  if (auto bad = bad_glob(pattern)) return error_result(*bad);
  json list = json::array();
  bool truncated = false;
  if (recursive) {
    auto found = list_recursive(*root, path, pattern, truncated);
    if (!found) return error_result(found.error());
    list = std::move(*found);
  } else {
    for (const auto& e : *entries) {
      if (path == "." && e.name == ".git") continue; // git's, see file_root
      if (!pattern.empty() && ::fnmatch(pattern.c_str(), e.name.c_str(), 0) != 0) continue;
      if (list.size() >= kMaxListEntries) {
        truncated = true;
        break;
      }
      list.push_back(entry_of(e.name, e.type, e.size));
    }
  }
  return success_result({{"name", a["name"]},
                         {"path", path},
                         {"pattern", pattern},
                         {"recursive", recursive},
                         {"entries", list},
                         {"truncated", truncated}});
}

json described(json schema, const std::string& description) {
  schema["description"] = description;
  return schema;
}

json str(const std::string& description) {
  return {{"type", "string"}, {"description", description}};
}

Tool file_tool(const std::string& name, const std::string& title, const std::string& description,
               std::vector<std::pair<std::string, json>> props, std::vector<std::string> required,
               const std::string& schema, Hints hints,
               json (*call)(const json&, const CallContext&)) {
  props.insert(props.begin(), {"name", str("the workspace's name")});
  required.insert(required.begin(), "name");
  Tool tool;
  tool.name = name;
  tool.definition = definition(name, title, description, object_schema(props, required),
                               bundled_schema(schema), hints);
  tool.call = call;
  return tool;
}

const char* kConfined =
    " The path is relative to the workspace's top; `..`, absolute paths, symlinks that lead "
    "out, /proc/self/root and (for writes) hard-linked files are refused with escape_refused, "
    "and nothing outside the workspace is touched.";

std::vector<Tool> file_tools() {
  json path = str("a path relative to the workspace's top, e.g. src/main.c");
  json count = {{"type", "integer"}, {"minimum", 0}};
  std::vector<Tool> tools;
  tools.push_back(file_tool(
      "workspace_read_file", "Read a file in a workspace",
      std::string("Read one file of a workspace (not of the user's checkout). Returns at most "
                  "`limit` bytes (default 65536, at most 1 MiB) from `offset`; when the file "
                  "goes on, `truncated` is true and `next_offset` says where to continue. "
                  "Changes nothing.") +
          kConfined,
      {{"path", path},
       {"offset", described(count, "byte offset to start at (default 0)")},
       {"limit", described(count, "most bytes to return (default 65536)")}},
      {"path"}, "file-read", {true, false, true}, read_file));
  tools.push_back(file_tool(
      "workspace_write_file", "Write a file in a workspace",
      std::string("Create or replace one file of a workspace with `content` (written whole, "
                  "atomically; missing folders are made). Use it for new files or full "
                  "rewrites; workspace_edit_file changes part of a file. Never touches the "
                  "user's checkout: the change waits in the workspace for review.") +
          kConfined,
      {{"path", path}, {"content", str("the file's whole new content (UTF-8 text)")}},
      {"path", "content"}, "file-write", {false, true, true}, write_file));
  tools.push_back(file_tool(
      "workspace_edit_file", "Edit a file in a workspace",
      std::string("Replace an exact string in one file of a workspace. `old_string` must occur "
                  "exactly once (add surrounding lines to make it unique) unless "
                  "`replace_all` is true; not found is an error, nothing is written then.") +
          kConfined,
      {{"path", path},
       {"old_string", str("the exact text to replace, whitespace included")},
       {"new_string", str("the text to put in its place")},
       {"replace_all", {{"type", "boolean"}, {"description", "replace every occurrence"}}}},
      {"path", "old_string", "new_string"}, "file-edit", {false, true, false}, edit_file));
  tools.push_back(file_tool(
      "workspace_delete_file", "Delete a file in a workspace",
      std::string("Delete one file (or symlink: the link itself) of a workspace; folders are "
                  "refused. Recoverable until the workspace is discarded without its snapshot: "
                  "the file is still in the workspace's base commit if it was tracked.") +
          kConfined,
      {{"path", path}}, {"path"}, "file-delete", {false, true, false}, delete_file));
  tools.push_back(file_tool(
      "workspace_list_files", "List files in a workspace",
      std::string(
          "List one folder of a workspace (name, type, size), sorted by name; `pattern` is a "
          "shell glob on the names (`*.c`). With `recursive`, list every file below the "
          "folder as git sees the project (tracked files, and new files that are not "
          "ignored: node_modules and build output stay out), each named by its path from the "
          "workspace's top; a pattern without `/` then matches names at any depth (`*.py`), "
          "one with `/` the whole path (`src/**/*.ts`). At most 2000 entries (`truncated`). "
          "Changes nothing.") +
          kConfined,
      {{"path", str("the folder, relative to the workspace's top (default: its top)")},
       {"pattern", str("a shell glob the names must match, e.g. *.py")},
       {"recursive",
        {{"type", "boolean"},
         {"description", "every file below the folder, not ignored by git (default false)"}}}},
      {}, "file-list", {true, false, true}, list_files));
  return tools;
}

const char* kWorkspaceNote =
    " A workspace is a git worktree on its own branch, outside the user's checkout; the user's "
    "files and branches are never touched by it.";

} // namespace

json error_result(const berth::Error& error) {
  json document = berth::error_document(error);
  // Every refusal tells the agent what to do next; one the code path left without a hint at
  // least points at the code's entry.
  if (error.hint.empty())
    document["error"]["hint"] = fmt::format(
        "docs/errors.md, `{}`, says what it means and what to do", berth::code_name(error.code));
  std::string text = text_of(document);
  return {{"content", json::array({{{"type", "text"}, {"text", text}}})}, {"isError", true}};
}

std::string cap_middle(const std::string& text, std::size_t cap) {
  if (text.size() <= cap) return text;
  std::size_t half = cap / 2;
  return text.substr(0, half) +
         fmt::format("\n[... berth: {} bytes left out ...]\n", text.size() - 2 * half) +
         text.substr(text.size() - half);
}

std::string check_arguments(const json& schema, const json& arguments) {
  if (!arguments.is_object()) return "arguments must be an object";
  const json& props = schema["properties"];
  for (const auto& key : schema.value("required", json::array()))
    if (!arguments.contains(key.get<std::string>()))
      return fmt::format("missing required argument '{}'", key.get<std::string>());
  for (const auto& [key, value] : arguments.items()) {
    if (!props.contains(key)) return fmt::format("unknown argument '{}'", key);
    const json& p = props[key];
    std::string type = p.value("type", "");
    bool ok = type.empty() || (type == "string" && value.is_string()) ||
              (type == "boolean" && value.is_boolean()) ||
              (type == "integer" && value.is_number_integer()) ||
              (type == "number" && value.is_number()) || (type == "object" && value.is_object());
    if (type == "integer" && p.contains("minimum") && value.is_number_integer() &&
        value.get<int64_t>() < p["minimum"].get<int64_t>())
      return fmt::format("argument '{}' must be at least {}", key, p["minimum"].dump());
    if (type == "array") {
      ok = value.is_array();
      if (ok)
        for (const auto& item : value)
          ok = ok && item.is_string();
    }
    if (!ok) return fmt::format("argument '{}' must be of type {}", key, type);
    if (p.contains("enum") &&
        std::find(p["enum"].begin(), p["enum"].end(), value) == p["enum"].end())
      return fmt::format("argument '{}' must be one of {}", key, p["enum"].dump());
  }
  return {};
}

std::vector<Tool> make_tools(const ServerSettings& settings) {
  json boolean = {{"type", "boolean"}};
  std::vector<OpTool> specs = {
      {"workspace_create",
       "Create a workspace",
       std::string("Create a new workspace NAME: a git worktree on a new branch, from `base` "
                   "(default: the checkout's HEAD), set up as the project says. Use it once "
                   "per task, before changing files; then edit with the workspace_* file "
                   "tools, run commands with workspace_run, and workspace_commit. Fails with "
                   "name_taken when NAME exists. In a folder that is not a git repository (or "
                   "with `plain: true`), berth keeps a private repository of the folder outside "
                   "it and the workspace starts from the folder's files; the folder itself is "
                   "only written when the user accepts.") +
           kWorkspaceNote,
       "new",
       {"name", "base", "owner", "plain"}},
      {"workspace_list",
       "List workspaces",
       "List this project's workspaces with their state, branch, base and how much each "
       "changed (ahead/behind, dirty files). Use it to see what exists before creating or "
       "reviewing. Changes nothing.",
       "list",
       {}},
      {"workspace_status",
       "Show one workspace",
       "Show one workspace's state, branch, base, path and changes in detail. Changes nothing.",
       "status",
       {"name"}},
      {"workspace_diff",
       "Diff a workspace",
       "Show everything a workspace changed since its base (commits, staged, unstaged and "
       "untracked files) as a file list and a patch. `stat` gives the file list only; `paths` "
       "limits it to some files or folders; the patch is capped at `max_bytes` (default 65536), "
       "with `truncated` and `patch_bytes` saying what was left out. Changes nothing.",
       "diff",
       {"name", "stat", "paths"}},
      {"workspace_compare",
       "Compare attempts side by side",
       "Compare a fork's attempts (`names`: [TASK]) or two or more workspaces (`names`: [A, B, "
       "...]): per attempt its run's exit status and time, files changed, lines added and "
       "removed, commits, and whether it merges cleanly into the target (`into`, default: "
       "the main checkout's branch); across attempts the pairwise similarity (identical, "
       "overlapping or disjoint, with Jaccard indexes of changed files and lines) and the files "
       "they all changed the same way. `html` also writes a self-contained review page for a "
       "person to that file (a path relative to the project, inside it). `test` (an argv array, no "
       "shell) runs that command in every "
       "attempt, side by side and sandboxed like workspace_run (an attempt of a fork in the "
       "fork's confinement), and gives each one's exit code, time and output tail; `timeout_s` "
       "stops each test after that many seconds. Without `test` it changes no workspace.",
       "compare",
       {"names", "into", "html", "test"}},
      {"workspace_run",
       "Run a command in a workspace",
       "Run one command (an argv array, no shell: use [\"sh\", \"-c\", \"...\"] for pipes) in a "
       "workspace's folder and return its exit status and output. Sandboxed by default: it can "
       "write only the workspace, and with net: false reach no network. stdin is empty. Output "
       "is capped (start and end kept, `output.truncated`); for long logs redirect to a file "
       "and read it with workspace_read_file. Sends progress notifications when asked; a "
       "cancelled call stops the command's whole process group (a process that made a session "
       "of its own with setsid escapes that outside the sandbox).",
       "run",
       {"name", "command"}},
      {"workspace_commit",
       "Commit a workspace's work",
       "Record all of a workspace's uncommitted work (tracked and untracked files) as one "
       "commit on its branch, with `message`. Does not land it anywhere: the user (or "
       "workspace_accept) does.",
       "commit",
       {"name", "message"}},
      {"workspace_sync",
       "Bring a workspace up to date",
       "Merge the target branch's new commits into a workspace. Conflicts are left in the "
       "workspace's files with markers (the result lists them) for you to resolve; the user's "
       "checkout is not touched.",
       "sync",
       {"name"}},
      {"workspace_discard",
       "Discard a workspace",
       "Remove a workspace when its task is done or abandoned: first a snapshot of all its work "
       "(commits, staged, modified and untracked files) is saved to the trash, then its folder "
       "and branch go. workspace_restore brings it back. `force` also discards a busy one "
       "(stopping the command that holds it); the snapshot is made either way.",
       "discard",
       {"name", "force"}},
      {"workspace_restore",
       "Restore a discarded workspace",
       "Bring back a discarded workspace from its newest snapshot, as NAME or as `as`.",
       "restore",
       {"name", "as"}},
      {"workspace_fork",
       "Fork a task into N attempts",
       std::string("Create `attempts` workspaces TASK-1 ... TASK-N from one base (`base`, "
                   "default: the checkout's HEAD), recorded as a fork, for independent attempts "
                   "at one task. With `command` (an argv array), run it in every attempt (at "
                   "most `jobs` at once), sandboxed like workspace_run, with BERTH_ATTEMPT, "
                   "BERTH_ATTEMPTS and BERTH_FORK set; each attempt's output goes to its log "
                   "file (`fork.runs[].log`), and the result gives each run's state, exit code "
                   "and duration. `timeout_s` stops them all. Fails with name_taken when a "
                   "TASK-i exists.") +
           kWorkspaceNote,
       "fork",
       {"task", "attempts", "base", "owner", "jobs", "command"}},
      {"workspace_gc",
       "Clean up workspaces and the trash",
       "List (by default; nothing changes) or, with `apply: true`, remove what is safe to "
       "remove: workspaces whose change already landed, idle ones with no change, orphans, and "
       "expired trash snapshots. Each item has a category and a reason; a workspace in use or "
       "with uncommitted work is skipped, and every removed workspace is saved to the trash "
       "first.",
       "gc",
       {"older_than", "keep"}},
  };
  for (auto& spec : specs) {
    spec.alone = spec.operation == "commit" || spec.operation == "sync" ||
                 spec.operation == "discard" || spec.operation == "restore";
    if (spec.name == "workspace_list") spec.wrap_key = "workspaces";
    if (spec.name == "workspace_diff") {
      spec.extras = {
          {"max_bytes",
           {{"type", "integer"},
            {"minimum", 0},
            {"description", "most bytes of patch to return (default 65536, at most 4 MiB)"}}}};
      spec.to_params = [](const json& a, const CallContext&) -> berth::Result<json> {
        return without(a, {"max_bytes"});
      };
      spec.hook = [] { return std::make_unique<DiffHook>(); };
    }
    // A dry run unless the agent asks for the real one.
    if (spec.name == "workspace_gc") {
      spec.extras = {{"apply",
                      {{"type", "boolean"},
                       {"description", "true: really remove (default false: a dry run, nothing "
                                       "changes)"}}}};
      spec.to_params = [](const json& a, const CallContext&) -> berth::Result<json> {
        json p = without(a, {"apply"});
        p["dry_run"] = !a.value("apply", false);
        return p;
      };
    }
    if (spec.name == "workspace_run") {
      spec.extras = {
          {"timeout_s",
           {{"type", "number"},
            {"exclusiveMinimum", 0},
            {"description", "seconds before the command (and all it started) is killed"}},
           false,
           "--timeout",
           "`timeout_s`"},
          {"sandbox",
           {{"type", "boolean"},
            {"description", "false runs it unconfined: refused unless the user started the "
                            "server with --allow-unsandboxed"}},
           false,
           "--sandbox",
           "`sandbox: true`"},
          {"net",
           {{"type", "boolean"}, {"description", "false: no network (sandbox only)"}},
           false,
           "--net=off",
           "`net: false`"}};
      spec.to_params = run_params;
      spec.hook = [] { return std::make_unique<RunHook>(); };
    }
    if (spec.name == "workspace_fork") {
      for (const auto& other : specs)
        if (other.name == "workspace_run") spec.extras = other.extras;
      spec.to_params = fork_params;
    }
  }
  // (After the loop: workspace_run's extras are made in it, after workspace_compare's turn.)
  for (auto& spec : specs)
    if (spec.name == "workspace_compare") {
      for (const auto& other : specs)
        if (other.name == "workspace_run")
          for (const auto& extra : other.extras)
            if (extra.name != "net") spec.extras.push_back(extra);
      spec.to_params = compare_params;
    }
  if (settings.allow_accept)
    specs.emplace_back(
        "workspace_accept", "Land a workspace's change",
        "Land a workspace's change on the user's branch (`into`, default: the main checkout's "
        "branch) with `strategy` (apply stages it in the user's checkout; merge, squash, ff, "
        "rebase commit). Never overwrites the user's uncommitted work: a clash is refused with "
        "nothing changed. `dry_run` shows what would land. Offered only because the user "
        "started the server with --allow-accept.",
        "accept", std::vector<std::string>{"name", "strategy", "into", "message", "dry_run"});
  if (settings.allow_accept) specs.back().alone = true;
  if (settings.allow_accept) {
    specs.emplace_back(
        "workspace_pick", "Pick one attempt of a fork",
        "Land attempt NAME of a fork (made by workspace_fork) exactly as workspace_accept "
        "would, then discard its sibling attempts to the trash (workspace_restore brings one "
        "back); `keep_others` keeps them. A conflict changes nothing, the siblings included. "
        "Offered only because the user started the server with --allow-accept.",
        "pick",
        std::vector<std::string>{"name", "strategy", "into", "message", "dry_run", "keep_others"});
    specs.back().alone = true;
  }
  std::vector<Tool> tools;
  for (const auto& spec : specs)
    if (auto tool = make_op_tool(spec)) tools.push_back(std::move(*tool));
  for (auto& tool : file_tools())
    tools.push_back(std::move(tool));
  return tools;
}

} // namespace mcp
