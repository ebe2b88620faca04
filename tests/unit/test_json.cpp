// The --json contract built in the library (include/berth/json.hpp): every document on constructed
// values, field for field, and the error codes the published schema lists.
#include "berth/json.hpp"

#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>

namespace {

using nlohmann::json;

berth::Workspace sample_workspace() {
  berth::Workspace w;
  w.name = "feat/search";
  w.branch = "berth/feat/search";
  w.base = std::string(40, 'a');
  w.path = "/ws/app/feat-search";
  w.root = "/ws/app";
  w.owner = "agent-1";
  w.created = 1795354035; // 2026-11-22T13:27:15Z
  w.last_used = 1795354035;
  w.state = berth::State::ready;
  w.port = 20010;
  return w;
}

berth::FileChange sample_change() {
  berth::FileChange f;
  f.path = "login.c";
  f.status = 'M';
  f.old_mode = "100644";
  f.new_mode = "100644";
  f.additions = 1;
  f.deletions = 2;
  return f;
}

TEST(Json, WorkspaceHasEveryFieldNullsForNone) {
  auto w = sample_workspace();
  EXPECT_EQ(json(w).dump(),
            R"({"base":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","branch":"berth/feat/search",)"
            R"("created":"2026-11-22T13:27:15Z","last_used":"2026-11-22T13:27:15Z",)"
            R"("name":"feat/search","owner":"agent-1","path":"/ws/app/feat-search","port":20010,)"
            R"("root":"/ws/app","setup_error":null,"setup_state":"done","state":"ready"})");
  w.port = 0;
  w.setup_error = "npm ci exited 1";
  w.created = 0;
  json j = w;
  EXPECT_TRUE(j["port"].is_null());
  EXPECT_EQ(j["setup_error"], "npm ci exited 1");
  EXPECT_EQ(j["setup_state"], "failed");
  EXPECT_EQ(j["created"], "");
}

TEST(Json, WorkspaceStatusOverridesStateAndAddsGit) {
  berth::WorkspaceStatus s;
  s.workspace = sample_workspace();
  s.state = "missing";
  s.ahead = 2;
  s.modified = 3;
  s.dirty = true;
  json j = s;
  EXPECT_EQ(j["state"], "missing");
  EXPECT_EQ(j["ahead"], 2);
  EXPECT_EQ(j["changes"].dump(), R"({"conflicted":0,"modified":3,"staged":0,"untracked":0})");
  EXPECT_TRUE(j["invalid"].is_null());
  EXPECT_EQ(j["problem"], "");
  EXPECT_EQ(j.size(), 22u); // the 12 Workspace fields and 10 of its own
  EXPECT_TRUE(j["synced"].is_null()) << "never synced";
  s.workspace.invalid = "a root of /";
  EXPECT_EQ(json(s)["invalid"], "a root of /");
}

TEST(Json, ErrorDocumentCarriesPathsAndGitOnlyWhenThere) {
  berth::Error e{berth::ErrorCode::not_found, "no workspace named 'x'", "run `berth list`", {}, {}};
  EXPECT_EQ(berth::error_document(e).dump(),
            R"({"error":{"code":"not_found","hint":"run `berth list`",)"
            R"("message":"no workspace named 'x'"}})");
  e.code = berth::ErrorCode::git_failed;
  e.paths = {"a.txt"};
  e.git = berth::GitFailure{{"git", "status"}, 128, "", "fatal: x\n"};
  EXPECT_EQ(berth::error_document(e).dump(),
            R"({"error":{"code":"git_failed","git":{"argv":["git","status"],"status":128,)"
            R"("stderr":"fatal: x\n","stdout":""},"hint":"run `berth list`",)"
            R"("message":"no workspace named 'x'","paths":["a.txt"]}})");
}

TEST(Json, SnapshotNullsWhatIsUnknown) {
  berth::Snapshot s;
  s.name = "x";
  s.ref = "refs/berth/trash/x/1";
  json j = s;
  EXPECT_TRUE(j["ignored_files"].is_null());
  EXPECT_TRUE(j["ignored_bytes"].is_null());
  EXPECT_TRUE(j["head_ref"].is_null());
  EXPECT_TRUE(j["nested"].is_null());
  EXPECT_TRUE(j["problem"].is_null());
  EXPECT_EQ(j["state"], "ok");
  EXPECT_EQ(j["time"], "");
  s.ignored_files = 0;
  s.ignored_bytes = 0;
  s.state = "damaged";
  s.problem = "its commit is missing";
  j = s;
  EXPECT_EQ(j["ignored_files"], 0);
  EXPECT_EQ(j["problem"], "its commit is missing");
}

TEST(Json, CreatedIsTheWorkspacePlusSetupAndWarnings) {
  berth::Created c;
  c.workspace = sample_workspace();
  c.setup.copies.push_back({".env", "include", "reflink", 1, 12});
  c.setup.commands.push_back({"npm ci", true, true, 0, "ok\n"});
  c.warnings = {"post-checkout hook failed"};
  json j = c;
  EXPECT_EQ(j["name"], "feat/search");
  EXPECT_EQ(j["setup"].dump(),
            R"({"commands":[{"command":"npm ci","exit_status":0,"output":"ok\n","ran":true,)"
            R"("trusted":true}],"copies":[{"bytes":12,"files":1,"kind":"include",)"
            R"("method":"reflink","path":".env"}],"failed":false,"submodules":[],"warnings":[]})");
  EXPECT_EQ(j["warnings"].dump(), R"(["post-checkout hook failed"])");
}

TEST(Json, SetupEventNamesEveryKind) {
  using Kind = berth::SetupEvent::Kind;
  const std::pair<Kind, const char*> kinds[] = {
      {Kind::copied, "copied"},     {Kind::linked, "linked"},
      {Kind::progress, "progress"}, {Kind::command_started, "command_started"},
      {Kind::output, "output"},     {Kind::command_finished, "command_finished"},
      {Kind::skipped, "skipped"},   {Kind::warning, "warning"},
  };
  for (const auto& [kind, name] : kinds) {
    berth::SetupEvent e;
    e.kind = kind;
    EXPECT_EQ(json(e)["type"], name);
  }
  berth::SetupEvent e{Kind::command_finished, "make", "", 0, 2};
  EXPECT_EQ(json(e).dump(),
            R"({"detail":"","exit_status":2,"subject":"make","type":"command_finished"})");
  // exit_status only where a command ran, bytes only where bytes moved.
  berth::SetupEvent started{Kind::command_started, "make", "", 0, 0};
  EXPECT_EQ(json(started).dump(), R"({"detail":"","subject":"make","type":"command_started"})");
  berth::SetupEvent copied{Kind::copied, "a", "copy", 5, 0};
  EXPECT_EQ(json(copied).dump(),
            R"({"bytes":5,"detail":"copy","files":0,"subject":"a","type":"copied"})");
  // A workspace only when the event is about another than the operation's own (a fork's attempt).
  berth::SetupEvent attempt{Kind::output, "post-checkout hook", "hi\n", 0, 0};
  attempt.workspace = "task-2";
  EXPECT_EQ(json(attempt).dump(), R"({"detail":"hi\n","subject":"post-checkout hook",)"
                                  R"("type":"output","workspace":"task-2"})");
}

TEST(Json, DiscardedCountsAreNullWhenNotCounted) {
  berth::Discarded d;
  d.workspace = sample_workspace();
  d.ignored_counted = false;
  json j = d;
  EXPECT_TRUE(j["snapshot"].is_null());
  EXPECT_TRUE(j["ignored_files"].is_null());
  EXPECT_TRUE(j["ignored_bytes"].is_null());
  d.ignored_counted = true;
  d.ignored_files = 3;
  d.snapshot = berth::Snapshot{};
  j = d;
  EXPECT_EQ(j["ignored_files"], 3);
  EXPECT_TRUE(j["snapshot"].is_object());
}

TEST(Json, RestoredNamesItsSnapshot) {
  berth::Restored r;
  r.workspace = sample_workspace();
  r.from.ref = "refs/berth/trash/x/1";
  json j = r;
  EXPECT_EQ(j["snapshot"]["ref"], "refs/berth/trash/x/1");
  EXPECT_EQ(j["workspace"]["name"], "feat/search");
  EXPECT_TRUE(j["warnings"].is_array());
}

TEST(Json, FileChange) {
  auto f = sample_change();
  EXPECT_EQ(json(f).dump(),
            R"({"additions":1,"binary":false,"deletions":2,"new_mode":"100644",)"
            R"("old_mode":"100644","old_path":null,"path":"login.c","status":"M"})");
  f.status = 'R';
  f.old_path = "old.c";
  EXPECT_EQ(json(f)["old_path"], "old.c");
  EXPECT_EQ(json(f)["status"], "R");
}

TEST(Json, DiffHasAPatchOnlyInPatchFormat) {
  berth::Diff d;
  d.name = "x";
  d.from = "f";
  d.to_tree = "t";
  d.files = {sample_change()};
  d.nested.push_back({"third_party/x", true, true, false, false});
  d.nested.push_back({"scratch", false, false, false, true});
  d.format = berth::DiffFormat::patch;
  json j = d;
  EXPECT_EQ(j["patch"], "");
  EXPECT_EQ(j["tree"], "t");
  EXPECT_EQ(j["files"].size(), 1u);
  EXPECT_EQ(j["nested"].dump(),
            R"([{"kind":"submodule","modified":false,"new_commit":true,"path":"third_party/x",)"
            R"("untracked":false},{"kind":"repository","modified":false,"new_commit":false,)"
            R"("path":"scratch","untracked":true}])");
  d.format = berth::DiffFormat::stat;
  EXPECT_FALSE(json(d).contains("patch"));
  d.format = berth::DiffFormat::name_only;
  d.files.clear();
  d.nested.clear();
  j = d;
  EXPECT_FALSE(j.contains("patch"));
  EXPECT_EQ(j["files"].dump(), "[]");
  EXPECT_EQ(j["nested"].dump(), "[]");
}

TEST(Json, CommittedNullCommitWhenNothingToCommit) {
  berth::Committed c;
  c.name = "x";
  EXPECT_EQ(json(c).dump(), R"({"commit":null,"files":[],"name":"x"})");
  c.commit = "abc";
  c.files = {sample_change()};
  EXPECT_EQ(json(c)["commit"], "abc");
  EXPECT_EQ(json(c)["files"][0]["path"], "login.c");
}

TEST(Json, Accepted) {
  berth::Accepted a;
  a.name = "x";
  a.strategy = berth::Strategy::squash;
  a.target = "main";
  a.old_commit = "o";
  a.new_commit = "n";
  a.files = {sample_change()};
  json j = a;
  EXPECT_EQ(j["strategy"], "squash");
  EXPECT_TRUE(j["discarded"].is_null());
  EXPECT_EQ(j["target_worktree"], "");
  EXPECT_EQ(j.size(), 15u);
  EXPECT_EQ(j["conflicts"], json::array());
  EXPECT_EQ(j["hint"], "");
  a.discarded = berth::Discarded{};
  a.discarded->workspace = sample_workspace();
  j = a;
  EXPECT_EQ(j["discarded"]["workspace"]["name"], "feat/search");
}

TEST(Json, SyncedAndRunResult) {
  berth::Synced s{"x", "onto", "old", "new", false, {"a.txt"}, false, "resolve"};
  EXPECT_EQ(json(s).dump(), R"({"aborted":false,"conflicts":["a.txt"],"hint":"resolve",)"
                            R"("name":"x","new_head":"new","old_head":"old",)"
                            R"("onto":"onto","up_to_date":false})");
  berth::RunResult r;
  r.name = "x";
  r.path = "/p";
  r.cwd = "/p/src";
  r.exit_status = 124;
  r.timed_out = true;
  r.sandbox_layers = {"new session"};
  EXPECT_EQ(json(r).dump(),
            R"({"cancelled":false,"commits":0,"cwd":"/p/src","exit_status":124,"kept":true,)"
            R"("name":"x","path":"/p","sandbox":["new session"],"timed_out":true,)"
            R"("warnings":[]})");
}

TEST(Json, PoolCountsReadySlots) {
  berth::PoolStatus p;
  p.dir = "/ws/.pool";
  p.size = 2;
  p.slots.push_back({"slot-1", "/ws/.pool/slot-1", "", "c1", "ready", 1795354035});
  p.slots.push_back({"slot-2", "/ws/.pool/slot-2", "", "c2", "filling", 0});
  json j = p;
  EXPECT_EQ(j["ready"], 1);
  EXPECT_EQ(j["slots"][0].dump(), R"({"commit":"c1","created":"2026-11-22T13:27:15Z",)"
                                  R"("id":"slot-1","path":"/ws/.pool/slot-1","state":"ready"})");
  EXPECT_EQ(j["slots"][1]["created"], "");
  EXPECT_EQ(j.size(), 5u);
}

TEST(Json, WatchShowsWhatItFollowsOnlyWhileRunning) {
  berth::WatchStatus s;
  s.address = "berth-watch-1";
  EXPECT_EQ(berth::watch_document(s, std::nullopt).dump(),
            R"({"address":"berth-watch-1","running":false})");
  EXPECT_EQ(berth::watch_document(s, false).dump(),
            R"({"address":"berth-watch-1","running":false,"stopped":false})");
  s.running = true;
  s.pid = 7;
  s.roots = 2;
  s.watches = 30;
  EXPECT_EQ(json(s).dump(), R"({"address":"berth-watch-1","blind":0,"pid":7,"roots":2,)"
                            R"("running":true,"watches":30})");
}

TEST(Json, TrustDocuments) {
  berth::TrustStatus s{{"npm ci"}, "h", true, "/trust.json", true, ""};
  EXPECT_EQ(
      json(s).dump(),
      R"({"commands":["npm ci"],"hash":"h","source":"","store":"/trust.json","trusted":true})");
  EXPECT_EQ(berth::revoke_document(s)["revoked"], true);
  EXPECT_EQ(berth::trust_list_document({{"/app/.git", "h"}}).dump(),
            R"({"trusted":[{"hash":"h","project":"/app/.git"}]})");
  EXPECT_EQ(berth::trust_list_document({}).dump(), R"({"trusted":[]})");
}

TEST(Json, ListDocumentWithAndWithoutOverlaps) {
  berth::WorkspaceStatus a, b;
  a.workspace = sample_workspace();
  a.workspace.name = "a";
  b.workspace = sample_workspace();
  b.workspace.name = "b";
  EXPECT_EQ(berth::list_document({}).dump(), "[]");
  json plain = berth::list_document({a, b});
  EXPECT_FALSE(plain[0].contains("overlaps"));
  std::vector<berth::Overlap> overlaps{{"a", "b", {"login.c"}, true, {"login.c"}}};
  json j = berth::list_document({a, b}, &overlaps);
  EXPECT_EQ(j[0]["overlaps"].dump(), R"([{"conflict_paths":["login.c"],"conflicts":true,)"
                                     R"("paths":["login.c"],"with":"b"}])");
  EXPECT_EQ(j[1]["overlaps"][0]["with"], "a");
  std::vector<berth::Overlap> none;
  EXPECT_EQ(berth::list_document({a}, &none)[0]["overlaps"].dump(), "[]");
}

TEST(Json, PathAndVersion) {
  EXPECT_EQ(berth::path_document(sample_workspace()).dump(),
            R"({"name":"feat/search","path":"/ws/app/feat-search"})");
  EXPECT_EQ(berth::version_document()["version"], std::string(berth::version()));
}

TEST(Json, DoctorReport) {
  berth::DoctorReport r;
  r.problems.push_back({"stale_lock", "", "/app/.git/index.lock", "a stale lock", ""});
  r.repaired = {"removed x"};
  EXPECT_EQ(json(r).dump(), R"({"pending":[],"problems":[{"code":"stale_lock","message":)"
                            R"("a stale lock","name":null,"path":"/app/.git/index.lock",)"
                            R"("repair":null}],"repaired":["removed x"]})");
}

TEST(Json, ConfigHasEveryKeyWithItsSource) {
  auto c = berth::Config::load("/nonexistent/user.toml", "/nonexistent/repo.toml", {"pool.size=3"});
  ASSERT_TRUE(c.has_value()) << c.error().message;
  json j = *c;
  EXPECT_EQ(j.size(), berth::config_keys().size());
  EXPECT_EQ(j["pool.size"].dump(), R"({"source":"flag","value":3,"where":"-c pool.size"})");
  for (const auto& key : berth::config_keys())
    EXPECT_TRUE(j.contains(key.name)) << key.name;
}

#ifdef BERTH_SCHEMA_DIR
json schema_file(const std::string& name) {
  std::ifstream in(std::string(BERTH_SCHEMA_DIR) + "/" + name);
  if (!in) throw std::runtime_error("cannot read " + std::string(BERTH_SCHEMA_DIR) + "/" + name);
  return json::parse(in);
}

// The published schema's list of error codes is the code's: a code added to ErrorCode without
// the schema (or the other way round) fails here.
TEST(Json, SchemaListsEveryErrorCode) {
  json defs = schema_file("defs.json");
  std::set<std::string> in_schema;
  for (const auto& code : defs["$defs"]["ErrorCode"]["enum"])
    in_schema.insert(code.get<std::string>());
  std::set<std::string> in_code;
  for (int i = 0;; ++i) {
    auto name = berth::code_name(static_cast<berth::ErrorCode>(i));
    if (name == "unknown") break;
    in_code.insert(std::string(name));
  }
  EXPECT_EQ(in_schema, in_code);
}

TEST(Json, SchemaListsEveryRecordedState) {
  json defs = schema_file("defs.json");
  std::set<std::string> in_schema, in_code;
  for (const auto& state : defs["$defs"]["WorkspaceState"]["enum"])
    in_schema.insert(state.get<std::string>());
  for (auto state : {berth::State::creating, berth::State::ready, berth::State::busy,
                     berth::State::discarding, berth::State::landed})
    in_code.insert(std::string(berth::state_name(state)));
  EXPECT_EQ(in_schema, in_code);
  // What list shows includes every recorded state.
  std::set<std::string> shown;
  for (const auto& state : defs["$defs"]["WorkspaceStatusState"]["enum"])
    shown.insert(state.get<std::string>());
  for (const auto& state : in_code)
    EXPECT_TRUE(shown.count(state)) << state;
}

// config.json names every key berth knows, each with the JSON type of its value.
TEST(Json, ConfigSchemaHasEveryKeyWithItsType) {
  json properties = schema_file("config.json")["properties"];
  EXPECT_EQ(properties.size(), berth::config_keys().size());
  for (const auto& key : berth::config_keys()) {
    ASSERT_TRUE(properties.contains(key.name)) << key.name;
    json value = properties[key.name]["properties"]["value"];
    if (value.contains("enum")) {
      // accept.strategy: its values are the strategies.
      for (const auto& v : value["enum"])
        EXPECT_TRUE(berth::parse_strategy(v.get<std::string>())) << key.name << ": " << v;
      continue;
    }
    const char* want = std::visit(
        [](const auto& v) -> const char* {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::string>)
            return "string";
          else if constexpr (std::is_same_v<T, int64_t>)
            return "integer";
          else if constexpr (std::is_same_v<T, bool>)
            return "boolean";
          else
            return "array";
        },
        key.default_value);
    std::string got =
        value.contains("$ref") ? std::string("array") : value["type"].get<std::string>();
    if (value.contains("$ref")) {
      EXPECT_EQ(value["$ref"], "defs.json#/$defs/Strings") << key.name;
    }
    EXPECT_EQ(got, want) << key.name;
  }
}
#endif

} // namespace
