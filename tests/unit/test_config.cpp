// Layered configuration: defaults < user file < repository file < BERTH_* environment < -c flags.
#include "berth/config.hpp"
#include "util/atomic_file.hpp"
#include "util/paths.hpp"
#include "util/temp_dir.hpp"

#include <cctype>
#include <cstdlib>
#include <gtest/gtest.h>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace {

using berth::ErrorCode;
using Layer = berth::ConfigSource::Layer;

std::string env_name(const std::string& key) {
  std::string var = "BERTH_";
  for (char c : key)
    var += c == '.' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return var;
}

// Each test starts with no BERTH_* variable of a known key set, and leaves the environment as it
// found it.
class ConfigTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto dir = util::TempDir::create("berth-test-config-");
    if (!dir) throw std::runtime_error(dir.error());
    dir_.emplace(std::move(*dir));
    user_ = util::join(dir_->path(), "user/config.toml");
    repo_ = util::join(dir_->path(), "repo/.berth.toml");
    for (const auto& key : berth::config_keys()) {
      std::string var = env_name(key.name);
      const char* old = std::getenv(var.c_str());
      saved_.emplace_back(var, old ? std::optional<std::string>(old) : std::nullopt);
      ::unsetenv(var.c_str());
    }
  }
  void TearDown() override {
    for (const auto& [var, value] : saved_)
      if (value)
        ::setenv(var.c_str(), value->c_str(), 1);
      else
        ::unsetenv(var.c_str());
  }

  void write(const std::string& path, const std::string& content) {
    ASSERT_TRUE(util::make_dirs(util::dirname(path)));
    ASSERT_TRUE(util::write_file_atomic(path, content));
  }
  void setenv(const std::string& key, const std::string& value) {
    ::setenv(env_name(key).c_str(), value.c_str(), 1);
  }

  berth::Config load(const std::vector<std::string>& flags = {}) {
    auto config = berth::Config::load(user_, repo_, flags);
    if (!config) {
      ADD_FAILURE() << "load failed: " << config.error().message;
      return berth::Config::load("", "", {}).value();
    }
    return std::move(*config);
  }
  berth::Error load_error(const std::vector<std::string>& flags = {}) {
    auto config = berth::Config::load(user_, repo_, flags);
    EXPECT_FALSE(config.has_value()) << "load succeeded";
    if (!config) return config.error();
    return berth::Error{};
  }

  std::optional<util::TempDir> dir_;
  std::string user_, repo_;
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

bool any_contains(const std::vector<std::string>& list, const std::string& part) {
  for (const auto& s : list)
    if (s.find(part) != std::string::npos) return true;
  return false;
}

TEST_F(ConfigTest, KnownKeys) {
  bool root = false, prefix = false;
  for (const auto& key : berth::config_keys()) {
    EXPECT_NE(std::string(key.description), "") << key.name;
    if (std::string(key.name) == "workspace_root") {
      root = true;
      EXPECT_EQ(std::get<std::string>(key.default_value), "");
      EXPECT_TRUE(key.repository_may_set);
    }
    if (std::string(key.name) == "branch_prefix") {
      prefix = true;
      EXPECT_EQ(std::get<std::string>(key.default_value), "berth/");
    }
  }
  EXPECT_TRUE(root);
  EXPECT_TRUE(prefix);
}

TEST_F(ConfigTest, DefaultsWhenNothingIsSet) {
  berth::Config c = load(); // neither file exists
  EXPECT_EQ(c.get_string("workspace_root"), "");
  EXPECT_EQ(c.get_string("branch_prefix"), "berth/");
  EXPECT_EQ(c.entry("branch_prefix").source.layer, Layer::built_in);
  EXPECT_EQ(c.entry("branch_prefix").source.where, "built-in");
  EXPECT_TRUE(c.warnings().empty());
  for (const auto& key : berth::config_keys())
    EXPECT_EQ(c.entries().count(key.name), 1u) << "every key has an effective value: " << key.name;

  auto no_files = berth::Config::load("", "", {});
  ASSERT_TRUE(no_files);
  EXPECT_EQ(no_files->get_string("branch_prefix"), "berth/");
}

TEST_F(ConfigTest, EachLayerOverridesTheOneBelowAndIsRecorded) {
  write(user_, "workspace_root = \"/data/ws\"\nbranch_prefix = \"user/\"\n");
  berth::Config c = load();
  EXPECT_EQ(c.get_string("workspace_root"), "/data/ws");
  EXPECT_EQ(c.get_string("branch_prefix"), "user/");
  EXPECT_EQ(c.entry("branch_prefix").source.layer, Layer::user);
  EXPECT_EQ(c.entry("branch_prefix").source.where, user_);

  write(repo_, "branch_prefix = \"repo/\"\n");
  c = load();
  EXPECT_EQ(c.get_string("branch_prefix"), "repo/");
  EXPECT_EQ(c.entry("branch_prefix").source.layer, Layer::repository);
  EXPECT_EQ(c.entry("branch_prefix").source.where, repo_);
  EXPECT_EQ(c.entry("workspace_root").source.layer, Layer::user) << "untouched by the repo file";

  setenv("branch_prefix", "env/");
  c = load();
  EXPECT_EQ(c.get_string("branch_prefix"), "env/");
  EXPECT_EQ(c.entry("branch_prefix").source.layer, Layer::environment);
  EXPECT_EQ(c.entry("branch_prefix").source.where, "BERTH_BRANCH_PREFIX");

  c = load({"branch_prefix=flag/"});
  EXPECT_EQ(c.get_string("branch_prefix"), "flag/");
  EXPECT_EQ(c.entry("branch_prefix").source.layer, Layer::flag);
  EXPECT_EQ(c.entry("branch_prefix").source.where, "-c branch_prefix");

  c = load({"branch_prefix=first/", "branch_prefix=last/"});
  EXPECT_EQ(c.get_string("branch_prefix"), "last/") << "the last -c wins";
}

TEST_F(ConfigTest, WorkspaceRootFromTheEnvironment) {
  setenv("workspace_root", "/env/root");
  berth::Config c = load();
  EXPECT_EQ(c.get_string("workspace_root"), "/env/root");
  EXPECT_EQ(c.entry("workspace_root").source.where, "BERTH_WORKSPACE_ROOT");

  setenv("workspace_root", "");
  c = load();
  EXPECT_EQ(c.get_string("workspace_root"), "") << "set but empty: back to the default root";
  EXPECT_EQ(c.entry("workspace_root").source.layer, Layer::environment);
}

TEST_F(ConfigTest, FlagValueMayContainEquals) {
  berth::Config c = load({"workspace_root=/a=b"});
  EXPECT_EQ(c.get_string("workspace_root"), "/a=b");
}

TEST_F(ConfigTest, WrongTypeInAFileIsConfigInvalid) {
  write(user_, "branch_prefix = 5\n");
  berth::Error e = load_error();
  EXPECT_EQ(e.code, ErrorCode::config_invalid);
  EXPECT_NE(e.message.find(user_), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("branch_prefix must be a string"), std::string::npos) << e.message;
  EXPECT_FALSE(e.hint.empty());

  write(user_, "");
  write(repo_, "workspace_root = true\n");
  e = load_error();
  EXPECT_EQ(e.code, ErrorCode::config_invalid);
  EXPECT_NE(e.message.find(repo_), std::string::npos) << e.message;

  write(repo_, "workspace_root = [\"a\"]\n");
  EXPECT_EQ(load_error().code, ErrorCode::config_invalid);
}

TEST_F(ConfigTest, TomlSyntaxErrorNamesFileLineAndColumn) {
  write(user_, "# comment\nbranch_prefix = \"ok/\"\nworkspace_root = \n");
  berth::Error e = load_error();
  EXPECT_EQ(e.code, ErrorCode::config_invalid);
  EXPECT_EQ(e.message.rfind(user_ + ":3:", 0), 0u) << "file:line:col first: " << e.message;
  // file:line:col:, then the description.
  std::string rest = e.message.substr(user_.size() + 3);
  ASSERT_FALSE(rest.empty());
  EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(rest[0]))) << e.message;
  EXPECT_NE(e.hint.find("TOML"), std::string::npos);

  write(user_, "");
  write(repo_, "[unclosed\n");
  e = load_error();
  EXPECT_EQ(e.code, ErrorCode::config_invalid);
  EXPECT_EQ(e.message.rfind(repo_ + ":1:", 0), 0u) << e.message;
}

TEST_F(ConfigTest, UnknownKeysAreWarningsNotErrors) {
  write(user_, "colour = \"blue\"\n[nosuch]\nthing = 1\n");
  write(repo_, "branch_prefix = \"r/\"\ntypo_key = 1\n");
  berth::Config c = load();
  EXPECT_EQ(c.get_string("branch_prefix"), "r/") << "known keys still apply";
  EXPECT_EQ(c.warnings().size(), 3u);
  EXPECT_TRUE(any_contains(c.warnings(), user_ + ": unknown key 'colour' ignored"));
  EXPECT_TRUE(any_contains(c.warnings(), "unknown key 'nosuch.thing'")) << "tables flatten";
  EXPECT_TRUE(any_contains(c.warnings(), repo_ + ": unknown key 'typo_key'"));
  EXPECT_EQ(c.entries().count("colour"), 0u);
}

TEST_F(ConfigTest, RepositoryMayOnlyPutWorkspacesInsideItself) {
  write(user_, "workspace_root = \"/user/choice\"\n");
  // Odd spellings ("x/./y", "x//y") are refused too: a repository file has no reason for them.
  for (const char* root : {"/tmp/elsewhere", "../sibling", "a/../../out", "~/x", "~", "a/..", ".",
                           "./", "x/./y", "x//y", "/"}) {
    write(repo_, std::string("workspace_root = \"") + root + "\"\n");
    berth::Config c = load();
    EXPECT_EQ(c.get_string("workspace_root"), "/user/choice")
        << root << " must be ignored, leaving the user's value";
    EXPECT_EQ(c.entry("workspace_root").source.layer, Layer::user) << root;
    ASSERT_EQ(c.warnings().size(), 1u) << root;
    EXPECT_NE(c.warnings()[0].find("workspace_root '" + std::string(root) + "' ignored"),
              std::string::npos)
        << c.warnings()[0];
  }
  for (const char* root : {".worktrees", ".worktrees/", "build/workspaces", "ws"}) {
    write(repo_, std::string("workspace_root = \"") + root + "\"\n");
    berth::Config c = load();
    EXPECT_EQ(c.get_string("workspace_root"), root);
    EXPECT_EQ(c.entry("workspace_root").source.layer, Layer::repository);
    EXPECT_TRUE(c.warnings().empty()) << root;
  }
}

TEST_F(ConfigTest, UserEnvironmentAndFlagsMaySetAnyRoot) {
  write(user_, "workspace_root = \"../anywhere\"\n");
  EXPECT_EQ(load().get_string("workspace_root"), "../anywhere");
  EXPECT_EQ(load({"workspace_root=/abs"}).get_string("workspace_root"), "/abs");
  setenv("workspace_root", "~/ws");
  EXPECT_EQ(load().get_string("workspace_root"), "~/ws");
}

TEST_F(ConfigTest, BadFlagsAreUsageErrors) {
  berth::Error e = load_error({"no_such_key=1"});
  EXPECT_EQ(e.code, ErrorCode::usage);
  EXPECT_NE(e.message.find("unknown config key 'no_such_key'"), std::string::npos) << e.message;
  EXPECT_NE(e.hint.find("berth config"), std::string::npos);

  e = load_error({"branch_prefix"});
  EXPECT_EQ(e.code, ErrorCode::usage);
  EXPECT_NE(e.message.find("expected KEY=VALUE"), std::string::npos) << e.message;

  e = load_error({"=value"});
  EXPECT_EQ(e.code, ErrorCode::usage);
}

TEST_F(ConfigTest, ErrorsInALowerLayerStopLoading) {
  // A broken user file is an error even when a flag would override the same key: the user should
  // hear about it rather than have it silently ignored.
  write(user_, "branch_prefix = 1\n");
  EXPECT_EQ(load_error({"branch_prefix=x/"}).code, ErrorCode::config_invalid);
}

// The first known key whose default has type T ("" if none).
template <class T> std::string key_of_type() {
  for (const auto& key : berth::config_keys())
    if (std::holds_alternative<T>(key.default_value)) return key.name;
  return {};
}

TEST_F(ConfigTest, BooleanValuesFromTextAndFiles) {
  std::string key = key_of_type<bool>();
  if (key.empty()) GTEST_SKIP() << "no boolean key yet";
  for (const char* yes : {"true", "1", "yes", "on"})
    EXPECT_TRUE(load({key + "=" + yes}).get_bool(key)) << yes;
  for (const char* no : {"false", "0", "no", "off"})
    EXPECT_FALSE(load({key + "=" + no}).get_bool(key)) << no;
  berth::Error e = load_error({key + "=maybe"});
  EXPECT_EQ(e.code, ErrorCode::config_invalid);
  EXPECT_NE(e.message.find("must be true or false, not 'maybe'"), std::string::npos) << e.message;

  setenv(key, "TRUE");
  e = load_error();
  EXPECT_EQ(e.code, ErrorCode::config_invalid) << "only the listed spellings";
  EXPECT_NE(e.message.find(env_name(key)), std::string::npos) << "names the variable";
  ::unsetenv(env_name(key).c_str());

  // In TOML the type is TOML's: a string "true" is not a boolean.
  std::string table = key.substr(0, key.find('.'));
  std::string leaf = key.substr(key.find('.') + 1);
  ASSERT_NE(key.find('.'), std::string::npos) << "test assumes a dotted key";
  write(user_, "[" + table + "]\n" + leaf + " = true\n");
  EXPECT_TRUE(load().get_bool(key));
  EXPECT_EQ(load().entry(key).source.layer, Layer::user);
  write(user_, "[" + table + "]\n" + leaf + " = \"true\"\n");
  EXPECT_EQ(load_error().code, ErrorCode::config_invalid);
}

TEST_F(ConfigTest, IntegerValuesFromText) {
  std::string key = key_of_type<int64_t>();
  if (key.empty()) GTEST_SKIP() << "no integer key yet";
  EXPECT_EQ(load({key + "=42"}).get_int(key), 42);
  EXPECT_EQ(load_error({key + "=4x"}).code, ErrorCode::config_invalid);
  EXPECT_EQ(load_error({key + "="}).code, ErrorCode::config_invalid);
}

TEST_F(ConfigTest, ListValuesFromFilesEnvironmentAndFlags) {
  using V = std::vector<std::string>;
  berth::Config c = load();
  EXPECT_EQ(c.get_list("setup.run"), V{});
  EXPECT_EQ(c.get_list("setup.copy"), V{});
  EXPECT_EQ(c.get_string("setup.lfs"), "auto");

  write(user_, "[setup]\nrun = [\"make deps\"]\nclone = [\"node_modules/\", \".venv\"]\n");
  c = load();
  EXPECT_EQ(c.get_list("setup.run"), V{"make deps"});
  EXPECT_EQ(c.get_list("setup.clone"), (V{"node_modules/", ".venv"}));
  EXPECT_EQ(c.entry("setup.run").source.layer, Layer::user);

  write(repo_, "setup.run = [\"npm ci\", \"npm run build\"]\n");
  c = load();
  EXPECT_EQ(c.get_list("setup.run"), (V{"npm ci", "npm run build"})) << "a layer replaces a list";
  EXPECT_EQ(c.entry("setup.run").source.layer, Layer::repository);

  // The environment: one item per line (or a TOML array).
  setenv("setup.run", "echo one\necho two\n");
  c = load();
  EXPECT_EQ(c.get_list("setup.run"), (V{"echo one", "echo two"}));
  EXPECT_EQ(c.entry("setup.run").source.where, "BERTH_SETUP_RUN");
  setenv("setup.run", "[\"a\", \"b\"]");
  EXPECT_EQ(load().get_list("setup.run"), (V{"a", "b"}));
  ::unsetenv(env_name("setup.run").c_str());

  // Flags: each -c appends to the list the first one started.
  c = load({"setup.run=first", "setup.run=second"});
  EXPECT_EQ(c.get_list("setup.run"), (V{"first", "second"}));
  EXPECT_EQ(c.entry("setup.run").source.layer, Layer::flag);
  EXPECT_EQ(load({"setup.run=[]"}).get_list("setup.run"), V{}) << "-c KEY=[] empties it";
  EXPECT_EQ(load({"setup.copy=[\".env\", \"*.local\"]"}).get_list("setup.copy"),
            (V{".env", "*.local"}));
}

TEST_F(ConfigTest, ListOfWrongTypeIsConfigInvalid) {
  write(user_, "[setup]\nrun = \"make\"\n");
  berth::Error e = load_error();
  EXPECT_EQ(e.code, ErrorCode::config_invalid);
  EXPECT_NE(e.message.find("setup.run must be an array of strings"), std::string::npos)
      << e.message;
  write(user_, "[setup]\nrun = [\"make\", 3]\n");
  EXPECT_EQ(load_error().code, ErrorCode::config_invalid);
  write(user_, "");
  setenv("setup.copy", "[1]");
  EXPECT_EQ(load_error().code, ErrorCode::config_invalid);
}

TEST(ConfigValue, ToStringAndLayerNames) {
  EXPECT_EQ(berth::to_string(berth::ConfigValue(std::string("s"))), "s");
  EXPECT_EQ(berth::to_string(berth::ConfigValue(int64_t{42})), "42");
  EXPECT_EQ(berth::to_string(berth::ConfigValue(true)), "true");
  EXPECT_EQ(berth::to_string(berth::ConfigValue(false)), "false");
  EXPECT_EQ(berth::to_string(berth::ConfigValue(std::vector<std::string>{})), "[]");
  EXPECT_EQ(berth::layer_name(Layer::built_in), "built-in");
  EXPECT_EQ(berth::layer_name(Layer::user), "user");
  EXPECT_EQ(berth::layer_name(Layer::repository), "repository");
  EXPECT_EQ(berth::layer_name(Layer::environment), "environment");
  EXPECT_EQ(berth::layer_name(Layer::flag), "flag");
}

} // namespace
