// Workspace names: what is accepted, what is refused and why, and how a name maps to a folder.
#include "berth/claude.hpp"
#include "core/git.hpp"
#include "core/name.hpp"

#include <gtest/gtest.h>
#include <map>
#include <string>
#include <vector>

namespace {

using berth::ErrorCode;

// The error of a refused name, or a test failure if it was accepted.
berth::Error refusal(std::string_view name) {
  auto r = berth::validate_name(name);
  EXPECT_FALSE(r.has_value()) << "accepted: '" << name << "'";
  if (!r) return r.error();
  berth::Error accepted;
  accepted.code = ErrorCode::usage;
  accepted.message = "accepted";
  return accepted;
}

void expect_refused(std::string_view name, std::string_view reason) {
  berth::Error e = refusal(name);
  EXPECT_EQ(e.code, ErrorCode::invalid_name) << name;
  EXPECT_NE(e.message.find(reason), std::string::npos)
      << "'" << name << "': message '" << e.message << "' should say '" << reason << "'";
  EXPECT_FALSE(e.hint.empty()) << name;
  EXPECT_EQ(e.message.find('\n'), std::string::npos) << "one line: " << e.message;
}

TEST(Name, AcceptsOrdinaryNames) {
  for (const char* name :
       {"a", "fix-login", "feat/search", "v1.2", "under_score", "CamelCase", "a/b/c", "x.y.z",
        "123", "a-", "lock", "a.locks", "head", "refsx", "my-refs/x", "feat/HEAD"}) {
    auto r = berth::validate_name(name);
    EXPECT_TRUE(r.has_value()) << name << ": " << (r ? "" : r.error().message);
  }
}

TEST(Name, AcceptsExactlyOneHundredCharacters) {
  EXPECT_TRUE(berth::validate_name(std::string(berth::kMaxNameLength, 'a')).has_value());
  expect_refused(std::string(berth::kMaxNameLength + 1, 'a'), "longer than 100 characters");
}

TEST(Name, LongNameMessageIsShortened) {
  berth::Error e = refusal(std::string(5000, 'x'));
  EXPECT_LT(e.message.size(), 200u) << "the message quotes a prefix, not all 5000 characters";
}

TEST(Name, RefusesEmpty) {
  expect_refused("", "it is empty");
}

TEST(Name, RefusesDotDot) {
  expect_refused("..", "'..'");
  expect_refused("a..b", "'..'");
  expect_refused("a/../b", "'..'");
}

TEST(Name, RefusesLeadingDashAsOption) {
  expect_refused("-x", "starts with '-'");
  expect_refused("--exec", "starts with '-'");
  expect_refused("a/-b", "starts with '-'");
  // '=' is refused before the leading dash is looked at; either way it never reaches git.
  expect_refused("--exec=x", "'='");
}

TEST(Name, RefusesLeadingDot) {
  expect_refused(".hidden", "starts with '.'");
  expect_refused(".", "starts with '.'");
  expect_refused("a/.b", "starts with '.'");
}

TEST(Name, RefusesTrailingDot) {
  expect_refused("a.", "ends with '.'");
  expect_refused("a./b", "ends with '.'");
}

TEST(Name, RefusesLockSuffix) {
  expect_refused("a.lock", "'.lock'");
  expect_refused("x/y.lock", "'.lock'");
  expect_refused("y.lock/x", "'.lock'");
}

TEST(Name, RefusesSpaces) {
  expect_refused("a b", "a space");
  expect_refused(" a", "a space");
  expect_refused("a ", "a space");
}

TEST(Name, RefusesControlCharactersAndShowsThemEscaped) {
  for (const std::string& name :
       {std::string("a\tb"), std::string("a\nb"), std::string("a\x1b[31m"), std::string("a\x7f"),
        std::string("a\0b", 3)}) {
    berth::Error e = refusal(name);
    EXPECT_EQ(e.code, ErrorCode::invalid_name);
    EXPECT_NE(e.message.find("control character"), std::string::npos) << e.message;
    for (char c : e.message)
      EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
          << "raw control byte in message: " << e.message;
  }
  EXPECT_NE(refusal("a\tb").message.find("\\x09"), std::string::npos);
}

TEST(Name, RefusesShellMetacharacters) {
  for (char c : std::string(";|&$`'\"*?<>()\\!#%^~:[]{}=,@+")) {
    std::string name = std::string("a") + c + "b";
    berth::Error e = refusal(name);
    EXPECT_EQ(e.code, ErrorCode::invalid_name) << name;
    EXPECT_NE(e.message.find(std::string("the character '") + c + "' is not allowed"),
              std::string::npos)
        << e.message;
  }
}

TEST(Name, RefusesNonAsciiWithAPrintableMessage) {
  // A message carrying a lone byte of a UTF-8 sequence would be invalid UTF-8, which the JSON
  // error document cannot hold (nlohmann::json::dump throws on it).
  for (const std::string& name :
       {std::string("caf\xc3\xa9"), std::string("\xff\xfe"), std::string("\xc3")}) {
    berth::Error e = refusal(name);
    EXPECT_EQ(e.code, ErrorCode::invalid_name);
    for (char c : e.message)
      EXPECT_LT(static_cast<unsigned char>(c), 0x80) << "raw non-ASCII byte in: " << e.message;
  }
  EXPECT_NE(refusal("caf\xc3\xa9").message.find("\\xc3"), std::string::npos);
}

TEST(Name, RefusesRefLookalikes) {
  expect_refused("refs/heads/main", "'refs' could be mistaken for a git ref");
  expect_refused("HEAD", "'HEAD' could be mistaken for a git ref");
  expect_refused("heads/x", "'heads'");
  expect_refused("tags/v1", "'tags'");
  expect_refused("remotes/origin/main", "'remotes'");
  expect_refused("refs", "'refs'");
}

TEST(Name, RefusesBadSlashes) {
  expect_refused("a//b", "'//'");
  expect_refused("a/", "ends with '/'");
  expect_refused("/a", "starts or ends with '/'");
  expect_refused("/", "starts or ends with '/'");
}

// Every accepted name must make a branch git itself accepts, under the default prefix.
TEST(Name, AcceptedNamesAreValidGitRefs) {
  for (const char* name : {"a", "fix-login", "feat/search", "v1.2", "a/b/c", "x_y", "a-", "Z9"}) {
    ASSERT_TRUE(berth::validate_name(name).has_value()) << name;
    auto r = berth::git_status_of(
        berth::GitCall{{"check-ref-format", std::string("refs/heads/berth/") + name},
                       "/",
                       {},
                       {},
                       util::Stream::pipe});
    ASSERT_TRUE(r.has_value()) << r.error().message;
    EXPECT_TRUE(r->ok()) << name << " refused by git check-ref-format";
  }
}

TEST(BranchPrefix, Accepted) {
  for (const char* prefix : {"", "berth/", "agents/", "a/b/", "x-y_z.1/"}) {
    auto r = berth::validate_branch_prefix(prefix);
    EXPECT_TRUE(r.has_value()) << prefix << ": " << (r ? "" : r.error().message);
  }
}

TEST(BranchPrefix, Refused) {
  struct Case {
    const char* prefix;
    const char* reason;
  };
  for (const Case& c : std::vector<Case>{{"berth", "must end with '/'"},
                                         {"/", "only '/'"},
                                         {"a b/", "character outside"},
                                         {"a;b/", "character outside"},
                                         {"../", "'..'"},
                                         {"a..b/", "'..'"},
                                         {"-x/", "starts with '-' or '.'"},
                                         {".x/", "starts with '-' or '.'"},
                                         {"x/.y/", "starts with '-' or '.'"},
                                         {"a//", "empty component"},
                                         {"a//b/", "empty component"},
                                         {"/a/", "empty component"},
                                         {"a.lock/", "'.lock'"}}) {
    auto r = berth::validate_branch_prefix(c.prefix);
    ASSERT_FALSE(r.has_value()) << "accepted: '" << c.prefix << "'";
    EXPECT_EQ(r.error().code, ErrorCode::config_invalid) << c.prefix;
    EXPECT_NE(r.error().message.find(c.reason), std::string::npos)
        << c.prefix << ": " << r.error().message;
    EXPECT_NE(r.error().message.find("branch_prefix"), std::string::npos);
  }
}

TEST(NameSlug, SlashesBecomeDashes) {
  EXPECT_EQ(berth::name_slug("fix-login"), "fix-login");
  EXPECT_EQ(berth::name_slug("feat/search"), "feat-search");
  EXPECT_EQ(berth::name_slug("a/b/c"), "a-b-c");
  // Two names may share a slug: the registry detects that (name_taken), the slug does not.
  EXPECT_EQ(berth::name_slug("a/b"), berth::name_slug("a-b"));
}

} // namespace

// Claude Code's worktree names (berth hook claude worktree-create): every name it could send maps
// to a name berth accepts, always the same one, and two names never to the same one; valid names
// are kept as they are.
TEST(ClaudeName, MapsEveryNameToAValidDistinctOne) {
  std::vector<std::string> names = {"",
                                    "/",
                                    "//",
                                    "a//b",
                                    ".",
                                    "..",
                                    "...",
                                    ".hidden",
                                    "-dash",
                                    "--x",
                                    "a b",
                                    "a:b",
                                    "a\tb",
                                    "a\nb",
                                    "HEAD",
                                    "refs",
                                    "refs/x",
                                    "heads/main",
                                    "x.lock",
                                    "a.lock/b",
                                    "trailing.",
                                    "a./b",
                                    "feature/../x",
                                    "../../etc",
                                    "/abs/path",
                                    "a/",
                                    "ü",
                                    "ünïcode",
                                    "日本語",
                                    "a~b^c:d?e*",
                                    "a[b]\\c",
                                    "@{x}",
                                    "a@{1}",
                                    std::string(150, 'x'),
                                    std::string(99, 'y') + ".",
                                    std::string(98, 'z') + "/-",
                                    std::string(1, '\0'),
                                    "x" + std::string(1, '\x7f'),
                                    "a-b",
                                    "A_b.c-d",
                                    "feat/search",
                                    "agent-a1b2c3"};
  std::map<std::string, std::string> seen;
  for (const auto& name : names) {
    std::string mapped = berth::claude_workspace_name(name);
    EXPECT_TRUE(berth::validate_name(mapped).has_value())
        << "'" << name << "' -> '" << mapped << "'";
    EXPECT_EQ(berth::claude_workspace_name(name), mapped) << "deterministic";
    auto [it, fresh] = seen.emplace(mapped, name);
    EXPECT_TRUE(fresh) << "'" << name << "' and '" << it->second << "' both -> '" << mapped << "'";
  }
  for (std::string valid : {"a-b", "A_b.c-d", "feat/search", "agent-a1b2c3"})
    EXPECT_EQ(berth::claude_workspace_name(valid), valid);
  EXPECT_EQ(berth::claude_workspace_name("a b").substr(0, 4), "a-b-");
  EXPECT_EQ(berth::claude_workspace_name("HEAD").substr(0, 12), "claude-HEAD-");
  EXPECT_EQ(berth::claude_workspace_name(std::string(150, 'x')).size(), berth::kMaxNameLength);
}
