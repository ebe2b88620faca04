// The registry: record (de)serialisation and the on-disk store of one JSON file per workspace.
#include "core/name.hpp"
#include "core/registry.hpp"
#include "util/atomic_file.hpp"
#include "util/paths.hpp"
#include "util/temp_dir.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <dirent.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using namespace std::chrono_literals;
using berth::ErrorCode;

berth::Workspace sample(const std::string& name = "feat/search") {
  berth::Workspace w;
  w.name = name;
  w.branch = "berth/" + name;
  w.base = "1235a52065e62a10fb9b3319992c9cd68a199b0a";
  w.path = "/home/u/.local/share/berth/proj-0123abcd/" + berth::name_slug(name);
  w.git_dir = "/home/u/proj/.git/worktrees/" + berth::name_slug(name);
  w.owner = "agent 7: \"quoted\" \\ label";
  w.created = 1763816578;
  w.last_used = 1763816600;
  w.state = berth::State::ready;
  w.root = "/home/u/.local/share/berth/proj-0123abcd";
  w.start = "89abcdef0123456789abcdef0123456789abcdef";
  return w;
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d))
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..")
        names.push_back(e->d_name);
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

util::TempDir temp_dir() {
  auto dir = util::TempDir::create("berth-test-registry-");
  if (!dir) throw std::runtime_error(dir.error());
  return std::move(*dir);
}

berth::Error record_error(const std::string& text) {
  auto r = berth::workspace_from_record(text, "/x/workspaces/w.json");
  EXPECT_FALSE(r.has_value()) << "accepted: " << text;
  if (!r) return r.error();
  return berth::Error{};
}

// ---- records --------------------------------------------------------------------------------

TEST(Record, RoundTripKeepsEveryField) {
  for (berth::State state : {berth::State::creating, berth::State::ready, berth::State::busy,
                             berth::State::discarding}) {
    berth::Workspace w = sample();
    w.state = state;
    w.holder_pid = 4242;
    w.holder_start = 987654321;
    std::string text = berth::workspace_to_record(w);
    auto back = berth::workspace_from_record(text, "test");
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->name, w.name);
    EXPECT_EQ(back->branch, w.branch);
    EXPECT_EQ(back->base, w.base);
    EXPECT_EQ(back->path, w.path);
    EXPECT_EQ(back->git_dir, w.git_dir);
    EXPECT_EQ(back->owner, w.owner);
    EXPECT_EQ(back->created, w.created);
    EXPECT_EQ(back->last_used, w.last_used);
    EXPECT_EQ(back->state, state);
    EXPECT_EQ(back->holder_pid, 4242);
    EXPECT_EQ(back->holder_start, 987654321);
    EXPECT_EQ(back->root, w.root);
    EXPECT_EQ(back->start, w.start);
    // And whatever fields are added later: writing it again gives the same bytes.
    EXPECT_EQ(berth::workspace_to_record(*back), text);
  }
}

TEST(Record, IsVersionedPrettyJson) {
  std::string text = berth::workspace_to_record(sample());
  auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j.at("version"), 1);
  EXPECT_EQ(j.at("name"), "feat/search");
  EXPECT_EQ(j.at("state"), "ready");
  EXPECT_EQ(text.back(), '\n');
  EXPECT_NE(text.find("\n  \"name\""), std::string::npos) << "indented, one field a line";
}

TEST(Record, OptionalFieldsDefault) {
  auto w = berth::workspace_from_record(
      R"({"name":"x","branch":"berth/x","base":"abc","path":"/w/x"})", "test");
  ASSERT_TRUE(w) << w.error().message;
  EXPECT_EQ(w->git_dir, "");
  EXPECT_EQ(w->owner, "");
  EXPECT_EQ(w->created, 0);
  EXPECT_EQ(w->state, berth::State::ready) << "a record without state is ready";
  EXPECT_EQ(w->holder_pid, 0);
  EXPECT_EQ(w->root, "") << "records from before berth kept roots";
  EXPECT_EQ(w->start, "");
}

TEST(Record, UnknownFieldsAreIgnored) {
  auto w = berth::workspace_from_record(
      R"({"version":1,"name":"x","branch":"b","base":"c","path":"/w/x","future":{"a":1}})", "test");
  EXPECT_TRUE(w) << (w ? "" : w.error().message);
}

TEST(Record, CorruptJsonIsRefusedWithWhereAndHint) {
  for (const std::string& text :
       {std::string(""), std::string("{"), std::string("not json"), std::string("[1,2]"),
        std::string("\"a string\""), std::string("{\"name\": \"x\"")}) {
    berth::Error e = record_error(text);
    EXPECT_EQ(e.code, ErrorCode::io_error) << text;
    EXPECT_NE(e.message.find("corrupt workspace record /x/workspaces/w.json"), std::string::npos)
        << e.message;
    EXPECT_FALSE(e.hint.empty());
  }
}

TEST(Record, MissingOrMistypedFieldsAreRefused) {
  for (const std::string& text :
       {std::string(R"({"branch":"b","base":"c","path":"/w/x"})"),          // no name
        std::string(R"({"name":"x","base":"c","path":"/w/x"})"),            // no branch
        std::string(R"({"name":"x","branch":"b","path":"/w/x"})"),          // no base
        std::string(R"({"name":"x","branch":"b","base":"c"})"),             // no path
        std::string(R"({"name":7,"branch":"b","base":"c","path":"/w/x"})"), // name not a string
        std::string(R"({"name":"x","branch":"b","base":"c","path":"/w/x","created":"soon"})"),
        std::string(R"({"name":"x","branch":"b","base":"c","path":"/w/x","state":"weird"})")}) {
    berth::Error e = record_error(text);
    EXPECT_EQ(e.code, ErrorCode::io_error) << text;
    EXPECT_NE(e.message.find("corrupt workspace record"), std::string::npos) << e.message;
  }
}

TEST(Record, NewerVersionIsRefused) {
  nlohmann::json j = nlohmann::json::parse(berth::workspace_to_record(sample()));
  j["version"] = 2;
  berth::Error e = record_error(j.dump());
  EXPECT_EQ(e.code, ErrorCode::io_error);
  EXPECT_NE(e.message.find("newer berth"), std::string::npos) << e.message;
}

TEST(Record, InvalidNameIsRefused) {
  // A hand-edited or forged record must not smuggle a name berth would never create.
  for (const char* name : {"", "../escape", "-rf", "a b", "refs/heads/main"}) {
    nlohmann::json j = nlohmann::json::parse(berth::workspace_to_record(sample()));
    j["name"] = name;
    berth::Error e = record_error(j.dump());
    EXPECT_NE(e.message.find("invalid name"), std::string::npos) << name << ": " << e.message;
  }
}

TEST(Record, RelativePathIsRefused) {
  for (const char* path : {"", "relative/dir", "~/x"}) {
    nlohmann::json j = nlohmann::json::parse(berth::workspace_to_record(sample()));
    j["path"] = path;
    berth::Error e = record_error(j.dump());
    EXPECT_NE(e.message.find("path is not absolute"), std::string::npos) << path;
  }
}

// ---- the store ------------------------------------------------------------------------------

TEST(Registry, SaveLoadRemove) {
  auto dir = temp_dir();
  berth::Registry registry(util::join(dir.path(), "berth"));
  EXPECT_EQ(registry.dir(), util::join(dir.path(), "berth"));

  auto none = registry.load("feat-search");
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_FALSE(none->has_value()) << "nothing saved yet";

  berth::Workspace w = sample("feat/search");
  ASSERT_TRUE(registry.save(w));
  // One file per workspace, named after the slug.
  EXPECT_TRUE(util::exists(util::join(dir.path(), "berth/workspaces/feat-search.json")));

  auto loaded = registry.load("feat-search");
  ASSERT_TRUE(loaded) << loaded.error().message;
  ASSERT_TRUE(loaded->has_value());
  EXPECT_EQ(berth::workspace_to_record(**loaded), berth::workspace_to_record(w));

  w.owner = "someone else";
  w.state = berth::State::busy;
  ASSERT_TRUE(registry.save(w)) << "saving again replaces the record";
  EXPECT_EQ((*registry.load("feat-search"))->owner, "someone else");

  ASSERT_TRUE(registry.remove("feat-search"));
  EXPECT_FALSE(registry.load("feat-search")->has_value());
  EXPECT_TRUE(registry.remove("feat-search")) << "removing what is gone is fine";
}

TEST(Registry, LoadAllIsSortedByNameAndReportsCorruptRecords) {
  auto dir = temp_dir();
  berth::Registry registry(util::join(dir.path(), "berth"));
  auto empty = registry.load_all();
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty()) << "no registry directory yet: no workspaces";

  for (const char* name : {"zeta", "alpha", "mid/dle"})
    ASSERT_TRUE(registry.save(sample(name)));
  std::string workspaces = util::join(dir.path(), "berth/workspaces");
  ASSERT_TRUE(util::write_file_atomic(util::join(workspaces, "broken.json"), "{ not json"));
  ASSERT_TRUE(util::write_file_atomic(util::join(workspaces, "notes.txt"), "not a record"));
  ASSERT_TRUE(util::write_file_atomic(util::join(workspaces, ".json"), "{}"));

  std::vector<berth::Problem> problems;
  auto all = registry.load_all(&problems);
  ASSERT_TRUE(all) << all.error().message;
  std::vector<std::string> names;
  for (const auto& w : *all)
    names.push_back(w.name);
  EXPECT_EQ(names, (std::vector<std::string>{"alpha", "mid/dle", "zeta"}));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].code, "record_unreadable");
  EXPECT_NE(problems[0].path.find("broken.json"), std::string::npos) << problems[0].path;
  EXPECT_NE(problems[0].message.find("broken.json"), std::string::npos) << problems[0].message;

  auto without_report = registry.load_all();
  ASSERT_TRUE(without_report) << "a corrupt record does not make the whole list fail";
  EXPECT_EQ(without_report->size(), 3u);
}

TEST(Registry, SaveOfANonUtf8FieldIsAnErrorNotACrash) {
  // JSON cannot hold arbitrary bytes; the owner label comes straight from the command line.
  auto dir = temp_dir();
  berth::Registry registry(dir.path());
  berth::Workspace w = sample("w");
  w.owner = "bad \xff byte";
  auto saved = registry.save(w);
  ASSERT_FALSE(saved);
  EXPECT_EQ(saved.error().code, ErrorCode::io_error);
  EXPECT_NE(saved.error().message.find("UTF-8"), std::string::npos) << saved.error().message;
  EXPECT_FALSE(registry.load("w")->has_value()) << "nothing was written";
  EXPECT_TRUE(files_in(util::join(dir.path(), "workspaces")).empty());
}

TEST(Registry, LoadOfACorruptRecordIsAnError) {
  auto dir = temp_dir();
  berth::Registry registry(dir.path());
  ASSERT_TRUE(util::make_dirs(util::join(dir.path(), "workspaces")));
  ASSERT_TRUE(util::write_file_atomic(util::join(dir.path(), "workspaces/bad.json"), "{"));
  auto r = registry.load("bad");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::io_error);
  EXPECT_NE(r.error().message.find("bad.json"), std::string::npos);
}

TEST(Registry, AtomicWritesLeaveNoTemporaryFiles) {
  auto dir = temp_dir();
  berth::Registry registry(dir.path());
  berth::Workspace w = sample("w");
  for (int i = 0; i < 50; ++i) {
    w.last_used = i;
    ASSERT_TRUE(registry.save(w));
  }
  ASSERT_TRUE(registry.save(sample("other")));
  EXPECT_EQ(files_in(util::join(dir.path(), "workspaces")),
            (std::vector<std::string>{"other.json", "w.json"}));
  EXPECT_EQ((*registry.load("w"))->last_used, 49);
}

TEST(Registry, ReadersNeverSeeATornRecord) {
  auto dir = temp_dir();
  berth::Registry registry(dir.path());
  berth::Workspace w = sample("w");
  w.owner = std::string(20000, 'o'); // larger than one write() on some systems
  ASSERT_TRUE(registry.save(w));
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    berth::Workspace copy = w;
    for (int64_t i = 0; !stop; ++i) {
      copy.last_used = i;
      (void)registry.save(copy);
    }
  });
  int bad = 0;
  auto until = std::chrono::steady_clock::now() + 300ms;
  while (std::chrono::steady_clock::now() < until) {
    auto r = registry.load("w");
    if (!r || !r->has_value()) ++bad;
  }
  stop = true;
  writer.join();
  EXPECT_EQ(bad, 0) << "a reader saw a missing or partial record";
}

TEST(Registry, LockExcludesAnotherLocker) {
  auto dir = temp_dir();
  berth::Registry registry(util::join(dir.path(), "berth"));
  auto first = registry.lock();
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_TRUE(util::exists(util::join(dir.path(), "berth/lock")));
  EXPECT_TRUE(util::is_directory(util::join(dir.path(), "berth/workspaces")));

  std::atomic<bool> acquired{false};
  std::thread other([&] {
    if (registry.lock()) acquired = true;
  });
  std::this_thread::sleep_for(200ms);
  EXPECT_FALSE(acquired);
  { auto released = std::move(*first); }
  for (int i = 0; i < 500 && !acquired; ++i)
    std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(acquired);
  other.join();
}

TEST(Registry, HoldMarksThisProcess) {
  berth::Workspace w = sample();
  berth::hold(w, berth::State::busy);
  EXPECT_EQ(w.state, berth::State::busy);
  EXPECT_EQ(w.holder_pid, ::getpid());
  EXPECT_GT(w.holder_start, 0);
}

TEST(Registry, StateNames) {
  EXPECT_EQ(berth::state_name(berth::State::creating), "creating");
  EXPECT_EQ(berth::state_name(berth::State::ready), "ready");
  EXPECT_EQ(berth::state_name(berth::State::busy), "busy");
  EXPECT_EQ(berth::state_name(berth::State::discarding), "discarding");
}

} // namespace
