// A shared fixture for unit tests on real repositories: a private world (HOME, berth's data and
// config, git's global config, all in a temp dir) and a one-commit repository `repo_`, made with
// git itself (the test's own set-up, not berth). Each test is its own process under CTest, so the
// environment changes stay with it.
#pragma once

#include "util/atomic_file.hpp"
#include "util/child_process.hpp"
#include "util/paths.hpp"
#include "util/temp_dir.hpp"

#include <cstdlib>
#include <gtest/gtest.h>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace berth_test {

/// Run git in `dir` for the test's set-up (fed `input`, when given); throw on failure (a broken
/// set-up is not a result). Its stdout, trailing newlines removed.
inline std::string sh_git(const std::string& dir, std::vector<std::string> args,
                          const std::string& input = {}) {
  args.insert(args.begin(), "git");
  util::SpawnOptions options;
  options.argv = args;
  options.cwd = dir;
  if (!input.empty()) {
    options.in = util::Stream::pipe;
    options.input = input;
  }
  auto done = util::run(options);
  if (!done || !done->ok())
    throw std::runtime_error("set-up git failed: " + args[1] + (done ? ": " + done->err : ""));
  std::string out = done->out;
  while (!out.empty() && out.back() == '\n')
    out.pop_back();
  return out;
}

/// Write `text` to `path`, making its folders.
inline void write(const std::string& path, const std::string& text) {
  if (auto made = util::make_dirs(util::dirname(path)); !made)
    throw std::runtime_error(made.error());
  if (auto ok = util::write_file_atomic(path, text); !ok) throw std::runtime_error(ok.error());
}

class RepoFixture : public ::testing::Test {
protected:
  void SetUp() override {
    auto dir = util::TempDir::create("berth-test-");
    ASSERT_TRUE(dir) << dir.error();
    tmp_.emplace(std::move(*dir));
    home_ = util::join(tmp_->path(), "home");
    ASSERT_TRUE(util::make_dirs(home_));
    ::setenv("HOME", home_.c_str(), 1);
    ::unsetenv("XDG_DATA_HOME");
    ::unsetenv("XDG_CONFIG_HOME");
    ::setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
    write(util::join(home_, ".gitconfig"), "[user]\n\tname = Berth Test\n\temail = "
                                           "test@example.com\n[init]\n\tdefaultBranch = main\n");
    repo_ = util::join(tmp_->path(), "app");
    ASSERT_TRUE(util::make_dirs(repo_));
    sh_git(repo_, {"init", "-q"});
    write(util::join(repo_, "README.md"), "hello\n");
    sh_git(repo_, {"add", "-A"});
    sh_git(repo_, {"commit", "-q", "-m", "initial"});
  }

  std::optional<util::TempDir> tmp_;
  std::string home_, repo_;
};

} // namespace berth_test
