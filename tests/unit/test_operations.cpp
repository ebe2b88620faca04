// The operation table (include/berth/operations.hpp) as every front end sees it: its invariants,
// a workspace's life through find_operation(...)->run on a temp repository (the documents each
// step returns), and bad parameters, as an MCP client may send them, refused as usage errors with
// a hint before anything is made.
#include "berth/json.hpp"
#include "berth/operations.hpp"
#include "util/atomic_file.hpp"
#include "util/child_process.hpp"
#include "util/paths.hpp"
#include "util/temp_dir.hpp"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using berth::ErrorCode;
using nlohmann::json;

std::string sh_git(const std::string& dir, std::vector<std::string> args) {
  args.insert(args.begin(), "git");
  util::SpawnOptions options;
  options.argv = args;
  options.cwd = dir;
  auto done = util::run(options);
  if (!done || !done->ok())
    throw std::runtime_error("set-up git failed: " + args[1] + (done ? ": " + done->err : ""));
  return done->out;
}

void write(const std::string& path, const std::string& text) {
  if (auto made = util::make_dirs(util::dirname(path)); !made)
    throw std::runtime_error(made.error());
  if (auto ok = util::write_file_atomic(path, text); !ok) throw std::runtime_error(ok.error());
}

bool snake_case(const std::string& name) {
  if (name.empty() || !std::islower(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  return name.back() != '_' && name.find("__") == std::string::npos;
}

TEST(OperationTable, Invariants) {
  const auto& ops = berth::operations();
  ASSERT_GE(ops.size(), 17u);
  std::set<std::string> names;
  for (const auto& op : ops) {
    SCOPED_TRACE(op.name);
    EXPECT_TRUE(names.insert(op.name).second) << "two operations called " << op.name;
    EXPECT_EQ(berth::find_operation(op.name), &op);
    EXPECT_FALSE(op.summary.empty());
    EXPECT_TRUE(op.run) << "no handler";
    EXPECT_FALSE(op.read_only && op.destructive);
    std::vector<std::string> schemas{op.schema};
    for (const auto& v : op.schema_variants) {
      schemas.push_back(v.schema);
      auto flag = std::find_if(op.params.begin(), op.params.end(),
                               [&](const berth::Param& p) { return p.name == v.flag; });
      ASSERT_NE(flag, op.params.end()) << "variant by an unknown flag " << v.flag;
      EXPECT_EQ(flag->kind, berth::ParamKind::flag);
    }
    for (const auto& schema : schemas)
      EXPECT_TRUE(std::filesystem::exists(std::string(BERTH_SCHEMA_DIR) + "/" + schema + ".json"))
          << "no docs/schema/" << schema << ".json";
    std::set<std::string> params, shorts;
    bool optional_positional = false;
    for (const auto& p : op.params) {
      SCOPED_TRACE(p.name);
      EXPECT_TRUE(snake_case(p.name));
      EXPECT_TRUE(params.insert(p.name).second) << "a parameter twice";
      EXPECT_FALSE(p.help.empty()) << "no help";
      if (!p.short_name.empty()) {
        EXPECT_EQ(p.short_name.size(), 1u);
        EXPECT_TRUE(shorts.insert(p.short_name).second);
        EXPECT_FALSE(p.positional);
      }
      EXPECT_TRUE(p.choices.empty() || p.kind == berth::ParamKind::string)
          << "choices on a non-string";
      EXPECT_TRUE(p.implicit_value.empty() || p.kind == berth::ParamKind::string);
      EXPECT_FALSE(p.required && p.kind == berth::ParamKind::flag) << "a required flag";
      EXPECT_FALSE(p.required && p.internal);
      // A required positional after an optional one could never be told apart.
      EXPECT_FALSE(p.positional && p.required && optional_positional);
      if (p.positional && !p.required) optional_positional = true;
    }
  }
  EXPECT_EQ(berth::find_operation("no-such-command"), nullptr);
  json doc = berth::operations_document();
  ASSERT_TRUE(doc.is_array());
  EXPECT_EQ(doc.size(), ops.size());
  EXPECT_EQ(doc[0]["name"], ops[0].name);
}

TEST(OperationTable, SchemaFor) {
  const auto* restore = berth::find_operation("restore");
  ASSERT_NE(restore, nullptr);
  EXPECT_EQ(berth::schema_for(*restore, json{{"name", "x"}}), "restore");
  EXPECT_EQ(berth::schema_for(*restore, json{{"list", true}}), "restore-list");
  EXPECT_EQ(berth::schema_for(*berth::find_operation("trust"), json{{"list", true}}), "trust-list");
}

class Operations : public ::testing::Test {
protected:
  void SetUp() override {
    auto dir = util::TempDir::create("berth-test-ops-");
    ASSERT_TRUE(dir) << dir.error();
    tmp_.emplace(std::move(*dir));
    home_ = util::join(tmp_->path(), "home");
    ASSERT_TRUE(util::make_dirs(home_));
    ::setenv("HOME", home_.c_str(), 1);
    ::unsetenv("XDG_DATA_HOME");
    ::unsetenv("XDG_CONFIG_HOME");
    ::setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
    write(util::join(home_, ".gitconfig"),
          "[user]\n\tname = Ops Test\n\temail = ops@example.com\n[init]\n\tdefaultBranch = main\n");
    repo_ = util::join(tmp_->path(), "app");
    ASSERT_TRUE(util::make_dirs(repo_));
    sh_git(repo_, {"init", "-q"});
    write(util::join(repo_, "README.md"), "hello\n");
    sh_git(repo_, {"add", "-A"});
    sh_git(repo_, {"commit", "-q", "-m", "initial"});
    auto opened = berth::Project::open({repo_, {}});
    ASSERT_TRUE(opened) << opened.error().message;
    project_.emplace(std::move(*opened));
  }

  berth::Result<berth::Outcome> call(const std::string& name, const json& params) {
    const auto* op = berth::find_operation(name);
    if (!op) throw std::runtime_error("no operation " + name);
    return op->run(&*project_, params, context_);
  }

  json ok(const std::string& name, const json& params) {
    auto out = call(name, params);
    if (!out) throw std::runtime_error(name + ": " + out.error().message);
    EXPECT_EQ(out->exit, 0) << name;
    return out->document;
  }

  // A usage error with a hint, and no workspace made by it.
  void refused(const std::string& name, const json& params, const std::string& mentions) {
    SCOPED_TRACE(name + " " + params.dump());
    auto out = call(name, params);
    ASSERT_FALSE(out) << "accepted";
    EXPECT_EQ(out.error().code, ErrorCode::usage) << out.error().message;
    EXPECT_FALSE(out.error().hint.empty()) << "no hint";
    EXPECT_NE(out.error().message.find(mentions), std::string::npos) << out.error().message;
    EXPECT_TRUE(ok("list", json::object()).empty()) << "something was made";
  }

  std::optional<util::TempDir> tmp_;
  std::string home_, repo_;
  std::optional<berth::Project> project_;
  berth::OperationContext context_;
};

TEST_F(Operations, NewStatusDiffCommitDiscardRestore) {
  json created = ok("new", {{"name", "feature"}, {"no_pool", true}});
  EXPECT_EQ(created["name"], "feature");
  EXPECT_EQ(created["branch"], "berth/feature");
  std::string path = created["path"];
  EXPECT_TRUE(std::filesystem::exists(util::join(path, "README.md")));

  json status = ok("status", {{"name", "feature"}});
  EXPECT_EQ(status["state"], "ready");
  EXPECT_EQ(status["dirty"], false);
  EXPECT_EQ(status["ahead"], 0);

  write(util::join(path, "notes.txt"), "new file\n");
  json diff = ok("diff", {{"name", "feature"}, {"stat", true}});
  ASSERT_EQ(diff["files"].size(), 1u);
  EXPECT_EQ(diff["files"][0]["path"], "notes.txt");
  EXPECT_EQ(diff["files"][0]["status"], "A");
  EXPECT_FALSE(diff.contains("patch")) << "--stat computes no patch";
  json patch = ok("diff", {{"name", "feature"}});
  EXPECT_NE(patch["patch"].get<std::string>().find("+new file"), std::string::npos);

  json committed = ok("commit", {{"name", "feature"}, {"message", "add notes"}});
  EXPECT_TRUE(committed["commit"].is_string());
  EXPECT_EQ(committed["files"].size(), 1u);
  EXPECT_EQ(ok("status", {{"name", "feature"}})["ahead"], 1);

  // Unsaved work at discard (an untracked file): kept in the snapshot.
  write(util::join(path, "draft.txt"), "draft\n");
  json discarded = ok("discard", {{"name", "feature"}});
  EXPECT_EQ(discarded["workspace"]["name"], "feature");
  ASSERT_TRUE(discarded["snapshot"].is_object());
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(ok("list", json::object()).empty());

  json trash = ok("restore", {{"list", true}});
  ASSERT_EQ(trash.size(), 1u);
  EXPECT_EQ(trash[0]["name"], "feature");
  EXPECT_EQ(trash[0]["ref"], discarded["snapshot"]["ref"]);

  json restored = ok("restore", {{"name", "feature"}});
  EXPECT_EQ(restored["workspace"]["name"], "feature");
  std::string back = restored["workspace"]["path"];
  EXPECT_TRUE(std::filesystem::exists(util::join(back, "notes.txt")));
  EXPECT_TRUE(std::filesystem::exists(util::join(back, "draft.txt")));
  EXPECT_EQ(ok("status", {{"name", "feature"}})["ahead"], 1);
}

TEST_F(Operations, NotesAndWarningsComeWithTheOutcome) {
  ok("new", {{"name", "t"}, {"no_pool", true}});
  auto d = call("diff", {{"name", "t"}, {"name_only", true}});
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->warnings.empty());
  // doctor: exit 0 when all is well; it reports interrupted accepts itself.
  auto doc = call("doctor", json::object());
  ASSERT_TRUE(doc) << doc.error().message;
  EXPECT_EQ(doc->exit, 0);
  EXPECT_TRUE(berth::find_operation("doctor")->reports_pending_accepts);
  EXPECT_FALSE(berth::find_operation("list")->reports_pending_accepts);
}

TEST_F(Operations, BadParametersAreUsageErrorsAndMakeNothing) {
  refused("new", json::object(), "'name'");                 // missing required
  refused("new", {{"name", 7}}, "'name' must be a string"); // wrong type
  refused("new", {{"name", "x"}, {"no_pool", "yes"}}, "'no_pool' must be true or false");
  refused("new", {{"name", "x"}, {"bogus", true}}, "no parameter 'bogus'"); // unknown key
  refused("new", json::array({"x"}), "must be a JSON object");
  refused("accept", {{"name", "x"}, {"strategy", "octopus"}}, "not one of"); // unknown choice
  refused("run", {{"name", "x"}, {"command", {"true", 1}}}, "array of strings");
  refused("run", {{"name", "x"}, {"command", {"true"}}, {"timeout", "soon"}}, "a number");
  refused("pool", {{"action", "fill"}, {"count", 1000}}, "from 0 to");
  refused("pool", {{"action", "fill"}, {"count", 1.5}}, "an integer");
  refused("restore", json::object(), "needs a workspace name");
  refused("trust", {{"list", true}, {"revoke", true}}, "do not go together");
  refused("diff", {{"name", "x"}, {"stat", true}, {"name_only", true}}, "do not go together");
  // A null is an absent parameter, as JSON clients often send them.
  json made = ok("new", {{"name", "y"}, {"base", nullptr}, {"no_pool", true}});
  EXPECT_EQ(made["name"], "y");
}

TEST_F(Operations, NoProjectIsAUsageError) {
  auto out = berth::find_operation("list")->run(nullptr, json::object(), context_);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ErrorCode::usage);
}

} // namespace
