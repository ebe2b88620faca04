// The fork record (berth/fork.hpp): written and read back whole, listed by task, corrupt records
// refused with their path, removed with the logs beside them.
#include "berth/fork.hpp"
#include "repo_fixture.hpp"

#include <stdexcept>

namespace {

class ForkGroupTest : public berth_test::RepoFixture {
protected:
  berth::Project project() {
    auto opened = berth::Project::open({repo_, {}});
    if (!opened) throw std::runtime_error("open: " + opened.error().message);
    return *opened;
  }
};

berth::ForkGroup sample_fork(const std::string& task) {
  berth::ForkGroup fork;
  fork.task = task;
  fork.base = std::string(40, 'a');
  fork.attempts = 2;
  fork.created = 1700000000;
  fork.command = {"sh", "-c", "echo hi"};
  berth::AttemptRun one;
  one.name = berth::attempt_name(task, 1);
  one.attempt = 1;
  one.state = "exited";
  one.exit_code = 0;
  one.started_ms = 1700000000123;
  one.duration_ms = 42;
  one.log = "/tmp/x/attempt-1.log";
  berth::AttemptRun two = one;
  two.name = berth::attempt_name(task, 2);
  two.attempt = 2;
  two.state = "signalled";
  two.exit_code = -1;
  two.signal = 15;
  fork.runs = {one, two};
  return fork;
}

TEST_F(ForkGroupTest, SavedRecordReadsBackWhole) {
  auto p = project();
  auto none = berth::load_fork(p, "fix/bug");
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_FALSE(none->has_value());

  ASSERT_TRUE(berth::save_fork(p, sample_fork("fix/bug")));
  auto loaded = berth::load_fork(p, "fix/bug");
  ASSERT_TRUE(loaded && loaded->has_value());
  const auto& fork = **loaded;
  EXPECT_EQ(fork.task, "fix/bug");
  EXPECT_EQ(fork.attempts, 2);
  EXPECT_EQ(fork.command, (std::vector<std::string>{"sh", "-c", "echo hi"}));
  ASSERT_EQ(fork.runs.size(), 2u);
  EXPECT_EQ(fork.runs[0].name, "fix/bug-1");
  EXPECT_EQ(fork.runs[0].exit_code, 0);
  EXPECT_EQ(fork.runs[0].duration_ms, 42);
  EXPECT_EQ(fork.runs[1].state, "signalled");
  EXPECT_EQ(fork.runs[1].exit_code, -1);
  EXPECT_EQ(fork.runs[1].signal, 15);
  EXPECT_EQ(berth::fork_to_json(fork), berth::fork_to_json(sample_fork("fix/bug")));
}

TEST_F(ForkGroupTest, ListedByTaskAndRemovedWithLogs) {
  auto p = project();
  ASSERT_TRUE(berth::save_fork(p, sample_fork("zeta")));
  ASSERT_TRUE(berth::save_fork(p, sample_fork("alpha")));
  berth_test::write(util::join(berth::fork_dir(p, "zeta"), "attempt-1.log"), "out\n");
  auto all = berth::load_forks(p);
  ASSERT_TRUE(all) << all.error().message;
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].task, "alpha");
  EXPECT_EQ((*all)[1].task, "zeta");

  ASSERT_TRUE(berth::remove_fork(p, "zeta"));
  EXPECT_FALSE(util::exists(berth::fork_dir(p, "zeta")));
  auto left = berth::load_forks(p);
  ASSERT_TRUE(left && left->size() == 1u);
}

TEST_F(ForkGroupTest, CorruptRecordIsAnErrorNamingItsPath) {
  auto p = project();
  std::string path = util::join(berth::fork_dir(p, "broken"), "fork.json");
  berth_test::write(path, "{\"task\": \"broken\"}");
  auto loaded = berth::load_fork(p, "broken");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().code, berth::ErrorCode::io_error);
  EXPECT_NE(loaded.error().message.find(path), std::string::npos) << loaded.error().message;
  EXPECT_FALSE(loaded.error().hint.empty());
}

} // namespace
