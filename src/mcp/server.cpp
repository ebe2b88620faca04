// `berth mcp`: JSON-RPC 2.0 on stdin/stdout, one message per line (the MCP stdio transport).
//
// Concurrency: requests that only answer from memory (initialize, tools/list, ping) are answered
// on the reading thread; every tools/call and resources/read runs on a thread of its own, so a
// long workspace_run does not hold up a workspace_list. One mutex serialises stdout. Each
// in-flight request has a cancel flag: notifications/cancelled sets it (a run's process group is
// then stopped), and so does the end of stdin, after which the server waits for every call to
// finish (no child left behind) and exits.
#include "mcp/server.hpp"

#include "berth/berth.hpp"
#include "berth/json.hpp"
#include "berth/operations.hpp"
#include "mcp/protocol.hpp"
#include "mcp/tools.hpp"
#include "util/paths.hpp"

#include <atomic>
#include <cctype>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unistd.h>

namespace mcp {
namespace {

using nlohmann::json;

// JSON-RPC's server-defined range: MCP names -32002 for an unknown resource.
constexpr int kResourceNotFound = -32002;

// %XX escapes decoded (a malformed one is kept as it is: the name check then refuses it).
std::string percent_decoded(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() &&
        std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

const char* kInstructions =
    "berth gives each coding task its own git workspace (a worktree on its own branch, outside "
    "the user's checkout). Create one with workspace_create, change files only through the "
    "workspace_* file tools or workspace_run, check with workspace_diff, record with "
    "workspace_commit. The user reviews and lands the work; discarding is recoverable "
    "(workspace_restore).";

class Server {
public:
  // `project` is empty in a folder that is not yet a project (no git repository, no plain
  // folder's private repository): `missing` says why, and workspace_create makes it a plain folder
  // (as `berth new` does; docs/plain.md).
  Server(std::optional<berth::Project> project, berth::ProjectOptions options,
         std::optional<berth::Error> missing, ServerSettings settings)
      : project_(project ? std::make_shared<const berth::Project>(std::move(*project)) : nullptr),
        options_(std::move(options)), missing_(std::move(missing)), settings_(settings),
        tools_(make_tools(settings_)) {}

  void serve() {
    LineReader reader;
    char buf[65536];
    for (;;) {
      ssize_t r = ::read(0, buf, sizeof buf);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      for (auto& line : reader.feed(std::string_view(buf, static_cast<size_t>(r))))
        handle_line(line);
    }
    if (auto last = reader.finish()) handle_line(*last);
    shutdown();
  }

private:
  struct InFlight {
    std::shared_ptr<std::atomic<bool>> cancelled = std::make_shared<std::atomic<bool>>(false);
  };

  void write(const json& message) {
    std::string text = frame(message);
    std::lock_guard lock(out_mutex_);
    size_t done = 0;
    while (done < text.size()) {
      ssize_t w = ::write(1, text.data() + done, text.size() - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return; // the client is gone; stdin's end will follow
      done += static_cast<size_t>(w);
    }
  }

  void handle_line(const LineReader::Line& line) {
    if (line.oversize) {
      write(error_reply(nullptr, kInvalidRequest,
                        "Invalid Request: message larger than " + std::to_string(kMaxMessageBytes) +
                            " bytes"));
      return;
    }
    if (line.text.find_first_not_of(" \t\r") == std::string::npos) return; // blank line
    Message m = parse_message(line.text);
    switch (m.kind) {
    case Message::Kind::invalid:
      write(m.error_reply);
      return;
    case Message::Kind::response:
      return; // we send no requests, so no response is awaited
    case Message::Kind::notification:
      notification(m);
      return;
    case Message::Kind::request:
      request(std::move(m));
      return;
    }
  }

  void notification(const Message& m) {
    if (m.method == "notifications/initialized") {
      initialized_ = true;
    } else if (m.method == "notifications/cancelled") {
      std::lock_guard lock(flight_mutex_);
      auto it = in_flight_.find(key(m.params.value("requestId", json())));
      if (it != in_flight_.end()) it->second.cancelled->store(true);
    }
    // Other notifications (roots, progress) need nothing from us.
  }

  static std::string key(const json& id) { return id.dump(); }

  // The stateless revision's results say they are complete (no input needed from the client).
  static json finish(json result, bool stateless) {
    if (stateless) result["resultType"] = "complete";
    return result;
  }

  void request(Message m) {
    auto version = request_version(m.params);
    bool stateless = version.has_value() && m.method != "initialize";
    if (stateless && *version != kStatelessVersion &&
        std::find(lifecycle_versions().begin(), lifecycle_versions().end(), *version) ==
            lifecycle_versions().end()) {
      write(error_reply(m.id, kInvalidParams, "Unsupported protocol version",
                        {{"supported", supported_versions()}, {"requested", *version}}));
      return;
    }
    stateless = stateless && *version == kStatelessVersion;
    // An id still in flight (a tools/call running) must not get a second answer from any method.
    {
      std::lock_guard lock(flight_mutex_);
      if (in_flight_.count(key(m.id))) {
        write(error_reply(m.id, kInvalidRequest, "Invalid Request: id already in use"));
        return;
      }
    }
    const std::string& method = m.method;
    if (method == "initialize") {
      std::string v = negotiate_version(m.params.value("protocolVersion", json()));
      write(result_reply(m.id, {{"protocolVersion", v},
                                {"capabilities", capabilities()},
                                {"serverInfo", server_info()},
                                {"instructions", kInstructions}}));
    } else if (method == "server/discover") {
      write(result_reply(m.id, {{"resultType", "complete"},
                                {"supportedVersions", supported_versions()},
                                {"capabilities", capabilities()},
                                {"serverInfo", server_info()},
                                {"instructions", kInstructions}}));
    } else if (method == "ping") {
      write(result_reply(m.id, finish(json::object(), stateless)));
    } else if (method == "tools/list") {
      json list = json::array();
      for (const auto& tool : tools_)
        list.push_back(tool.definition);
      write(result_reply(m.id, finish({{"tools", list}}, stateless)));
    } else if (method == "resources/templates/list") {
      json templates = json::array({{{"uriTemplate", "berth://workspace/{name}/diff"},
                                     {"name", "workspace-diff"},
                                     {"title", "A workspace's diff"},
                                     {"description", "everything the workspace changed since its "
                                                     "base, as a patch git apply takes"},
                                     {"mimeType", "text/x-diff"}}});
      write(result_reply(m.id, finish({{"resourceTemplates", templates}}, stateless)));
    } else if (method == "tools/call" || method == "resources/read" || method == "resources/list") {
      start_call(std::move(m), stateless);
    } else {
      write(error_reply(m.id, kMethodNotFound, "Method not found: " + method));
    }
  }

  json capabilities() const {
    return {{"tools", {{"listChanged", false}}},
            {"resources", {{"subscribe", false}, {"listChanged", false}}}};
  }

  static json server_info() {
    return {{"name", "berth"}, {"title", "berth workspaces"}, {"version", berth::version()}};
  }

  // Runs a request on a thread of its own; the reading thread goes on reading.
  void start_call(Message m, bool stateless) {
    InFlight flight;
    {
      std::lock_guard lock(flight_mutex_);
      if (in_flight_.count(key(m.id))) {
        write(error_reply(m.id, kInvalidRequest, "Invalid Request: id already in use"));
        return;
      }
      in_flight_[key(m.id)] = flight;
      ++running_;
    }
    std::thread([this, m = std::move(m), stateless, flight]() mutable {
      json reply;
      try {
        reply = call(m, stateless, flight);
      } catch (const std::exception& e) {
        // nlohmann's type errors (an argument of the wrong type) and the like: the request's
        // fault or ours, either way an answer, never a dead server.
        reply = error_reply(m.id, kInternalError, std::string("Internal error: ") + e.what());
      }
      write(reply);
      std::lock_guard lock(flight_mutex_);
      in_flight_.erase(key(m.id));
      --running_;
      done_.notify_all();
    }).detach();
  }

  json call(const Message& m, bool stateless, const InFlight& flight) {
    if (m.method == "resources/list")
      return result_reply(m.id, finish(list_resources(), stateless));
    if (m.method == "resources/read") {
      if (!m.params.contains("uri") || !m.params["uri"].is_string())
        return error_reply(m.id, kInvalidParams, "Invalid params: resources/read needs a uri");
      return read_resource(m.id, m.params["uri"].get<std::string>(), stateless);
    }
    // tools/call
    if (!m.params.contains("name") || !m.params["name"].is_string())
      return error_reply(m.id, kInvalidParams, "Invalid params: tools/call needs a tool name");
    std::string name = m.params["name"];
    const Tool* tool = nullptr;
    for (const auto& t : tools_)
      if (t.name == name) tool = &t;
    if (!tool) return error_reply(m.id, kInvalidParams, "Invalid params: unknown tool " + name);
    json arguments = m.params.value("arguments", json::object());
    // A model's mistake in the arguments is a tool error it can read and correct (MCP
    // 2025-11-25: input validation errors are tool execution errors).
    std::string wrong = check_arguments(tool->definition["inputSchema"], arguments);
    if (!wrong.empty())
      return result_reply(
          m.id,
          finish(
              error_result(berth::Error{
                  berth::ErrorCode::usage, wrong, "see the tool's inputSchema", std::nullopt, {}}),
              stateless));
    auto project = current_project();
    if (name == "workspace_create") {
      auto made = plain_project_for(arguments, project);
      if (!made) return result_reply(m.id, finish(error_result(made.error()), stateless));
      project = *made;
    }
    if (!project) return result_reply(m.id, finish(error_result(*missing_), stateless));
    CallContext ctx{*project, settings_, {}, flight.cancelled};
    json meta = m.params.value("_meta", json::object());
    if (meta.is_object() && meta.contains("progressToken")) {
      json token = meta["progressToken"];
      ctx.progress = [this, token](double progress, const std::string& message) {
        write(
            {{"jsonrpc", "2.0"},
             {"method", "notifications/progress"},
             {"params", {{"progressToken", token}, {"progress", progress}, {"message", message}}}});
      };
    }
    json result = tool->call(arguments, ctx);
    if (flight.cancelled->load())
      std::cerr << "berth mcp: request " << m.id.dump() << " (" << name << ") was cancelled\n";
    return result_reply(m.id, finish(std::move(result), stateless));
  }

  std::shared_ptr<const berth::Project> current_project() {
    std::lock_guard lock(project_mutex_);
    return project_;
  }

  // workspace_create makes the plain folder's private repository, as `berth new` does, when the
  // folder is not yet a project, or (`plain: true`, as `new --plain`) when it is a git
  // repository's: from then on every call serves the plain folder, as the CLI does in that
  // folder. One at a time: two calls must not make two private repositories of one folder.
  berth::Result<std::shared_ptr<const berth::Project>>
  plain_project_for(const json& arguments, std::shared_ptr<const berth::Project> project) {
    bool plain = arguments.value("plain", false);
    if (project && (!plain || project->plain())) return project;
    std::lock_guard making(making_mutex_);
    project = current_project();
    if (project && (!plain || project->plain())) return project;
    berth::ProjectOptions options = options_;
    options.plain_create = true;
    options.plain_force = plain;
    if (arguments.contains("name") && arguments["name"].is_string())
      options.plain_workspace_name = arguments["name"].get<std::string>();
    auto opened = berth::Project::open(options);
    if (!opened) return tl::unexpected(opened.error());
    auto made = std::make_shared<const berth::Project>(std::move(*opened));
    std::lock_guard lock(project_mutex_);
    project_ = made;
    return made;
  }

  json list_resources() {
    json resources = json::array({{{"uri", "berth://workspaces"},
                                   {"name", "workspaces"},
                                   {"title", "This project's workspaces"},
                                   {"mimeType", "application/json"}}});
    auto project = current_project();
    if (!project) return {{"resources", resources}};
    if (auto list = berth::list_workspaces(*project))
      for (const auto& w : *list)
        resources.push_back({{"uri", "berth://workspace/" + w.workspace.name + "/diff"},
                             {"name", w.workspace.name + "-diff"},
                             {"title", "Diff of workspace " + w.workspace.name},
                             {"mimeType", "text/x-diff"}});
    return {{"resources", resources}};
  }

  json read_resource(const json& id, const std::string& uri, bool stateless) {
    const std::string prefix = "berth://workspace/", suffix = "/diff";
    std::string mime, text;
    berth::OperationContext context;
    auto project = current_project();
    if (!project)
      return error_reply(id, kInternalError, missing_->message, berth::error_document(*missing_));
    if (uri == "berth://workspaces") {
      const berth::Operation* op = berth::find_operation("list");
      auto outcome = op ? op->run(project.get(), json::object(), context)
                        : berth::Result<berth::Outcome>(
                              berth::fail(berth::ErrorCode::internal, "no list operation"));
      if (!outcome) return error_reply(id, kInternalError, outcome.error().message);
      mime = "application/json";
      text = outcome->document.dump(2, ' ', false, json::error_handler_t::replace);
    } else if (uri.rfind(prefix, 0) == 0 && uri.size() > prefix.size() + suffix.size() &&
               uri.compare(uri.size() - suffix.size(), suffix.size(), suffix) == 0) {
      // The template's {name} expanded as RFC 6570 does: `feat/x` arrives as feat%2Fx.
      std::string name =
          percent_decoded(uri.substr(prefix.size(), uri.size() - prefix.size() - suffix.size()));
      const berth::Operation* op = berth::find_operation("diff");
      auto outcome = op ? op->run(project.get(), {{"name", name}}, context)
                        : berth::Result<berth::Outcome>(
                              berth::fail(berth::ErrorCode::internal, "no diff operation"));
      if (!outcome) {
        if (outcome.error().code == berth::ErrorCode::not_found)
          return error_reply(id, kResourceNotFound, "Resource not found", {{"uri", uri}});
        // A name that cannot be a workspace's (`../x`, `-bad`): the caller's mistake.
        if (outcome.error().code == berth::ErrorCode::invalid_name ||
            outcome.error().code == berth::ErrorCode::usage)
          return error_reply(id, kInvalidParams, "Invalid params: " + outcome.error().message,
                             berth::error_document(outcome.error()));
        return error_reply(id, kInternalError, outcome.error().message,
                           berth::error_document(outcome.error()));
      }
      mime = "text/x-diff";
      text = outcome->document.value("patch", std::string());
    } else {
      return error_reply(id, kResourceNotFound, "Resource not found", {{"uri", uri}});
    }
    return result_reply(
        id,
        finish({{"contents", json::array({{{"uri", uri}, {"mimeType", mime}, {"text", text}}})}},
               stateless));
  }

  // stdin ended: the client is gone. Stop what runs and wait for it, so no child is left.
  void shutdown() {
    std::unique_lock lock(flight_mutex_);
    for (auto& [id, flight] : in_flight_)
      flight.cancelled->store(true);
    done_.wait(lock, [this] { return running_ == 0; });
  }

  std::mutex project_mutex_, making_mutex_;
  std::shared_ptr<const berth::Project> project_; ///< under project_mutex_
  berth::ProjectOptions options_;
  std::optional<berth::Error> missing_; ///< why there is no project yet
  ServerSettings settings_;
  std::vector<Tool> tools_;
  std::mutex out_mutex_;
  std::mutex flight_mutex_;
  std::condition_variable done_;
  std::map<std::string, InFlight> in_flight_;
  int running_ = 0;
  std::atomic<bool> initialized_{false};
};

// In the layout of the other commands' help (CLI11's), which scripts/completions reads.
const char* kUsage =
    "Serve this project's workspaces to an MCP client on stdin/stdout (see docs/mcp.md)\n"
    "Usage: berth mcp [OPTIONS]\n\n"
    "Options:\n"
    "  -h,--help             Print this help message and exit\n"
    "  -C DIR                serve the repository at DIR (default: the current directory)\n"
    "  -c KEY=VALUE          override a config value (repeatable)\n"
    "  --allow-accept        offer workspace_accept (lands changes on your branches)\n"
    "  --allow-unsandboxed   let the agent run commands outside the sandbox (sandbox: false)\n";

} // namespace

int mcp_main(int argc, char** argv) {
  berth::ProjectOptions options;
  bool allow_accept = false, allow_unsandboxed = false;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if ((arg == "-C" || arg == "-c") && i + 1 < argc) {
      (arg == "-C" ? options.dir : options.config_flags.emplace_back()) = argv[++i];
    } else if (arg.rfind("-C", 0) == 0 && arg.size() > 2) {
      options.dir = arg.substr(2);
    } else if (arg == "--quiet" || arg == "-q" || arg == "--json") {
      // Global options given with it: stdout is the protocol's either way, logs go to stderr.
    } else if (arg == "--allow-accept") {
      allow_accept = true;
    } else if (arg == "--allow-unsandboxed") {
      allow_unsandboxed = true;
    } else if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      return 0;
    } else {
      std::cerr << "berth: mcp: unknown argument '" << arg << "'\n" << kUsage;
      return 2;
    }
  }
  auto project = berth::Project::open(options);
  std::optional<berth::Error> missing;
  // A folder that is no git repository is served all the same: workspace_create makes it a plain
  // folder (docs/plain.md); until then the other tools say not_a_repository. A directory that
  // does not exist is refused now.
  if (!project && project.error().code == berth::ErrorCode::not_a_repository &&
      (util::is_directory(options.dir.empty() ? "." : options.dir) ||
       util::is_directory(util::real_path(options.dir.empty() ? "." : options.dir).value_or(""))))
    missing = project.error();
  if (!project && !missing) {
    // Nothing on stdout: it is the protocol's. The client shows our stderr.
    std::cerr << "berth: " << project.error().message << " ["
              << berth::code_name(project.error().code) << "]\n";
    if (!project.error().hint.empty()) std::cerr << "hint: " << project.error().hint << "\n";
    return berth::exit_status(project.error().code);
  }
  // The settings from the project's config; with no project yet, from the user's (and -c).
  std::optional<berth::Config> user_config;
  if (!project) {
    auto loaded = berth::Config::load(util::join(util::config_home(), "berth/config.toml"), "",
                                      options.config_flags);
    if (!loaded) {
      std::cerr << "berth: " << loaded.error().message << " ["
                << berth::code_name(loaded.error().code) << "]\n";
      return berth::exit_status(loaded.error().code);
    }
    user_config = std::move(*loaded);
  }
  const berth::Config& config = project ? project->config() : *user_config;
  ServerSettings settings;
  settings.allow_accept = allow_accept || config.get_bool("mcp.allow_accept");
  settings.allow_unsandboxed = allow_unsandboxed;
  settings.sandbox_default = config.get_bool("mcp.sandbox");
  std::optional<berth::Project> opened;
  if (project) opened = std::move(*project);
  Server server(std::move(opened), options, std::move(missing), settings);
  server.serve();
  return 0;
}

} // namespace mcp
