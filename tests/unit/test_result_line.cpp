// StdoutTail (`berth --json run|shell`): berth's result line must start on a line of its own, so
// finish() says whether the command's output ended without a newline, and everything the command
// wrote reaches the real stdout unchanged.
#include "cli/result_line.hpp"

#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>

namespace {

// fd 1 goes to a temporary file for one StdoutTail session; `write` is what the "command" writes
// to fd 1 meanwhile. Returns finish()'s answer; `forwarded` gets what reached the real stdout.
bool session(const std::string& write, std::string& forwarded) {
  char path[] = "/tmp/berth-result-line-XXXXXX";
  int file = ::mkstemp(path);
  EXPECT_GE(file, 0);
  ::unlink(path);
  std::fflush(stdout);
  int saved = ::dup(STDOUT_FILENO);
  ::dup2(file, STDOUT_FILENO);
  bool newline_needed;
  {
    cli::StdoutTail tail;
    tail.start();
    // In chunks, as a command would: the last byte decides.
    for (size_t at = 0; at < write.size(); at += 3) {
      std::string chunk = write.substr(at, 3);
      EXPECT_EQ(::write(STDOUT_FILENO, chunk.data(), chunk.size()),
                static_cast<ssize_t>(chunk.size()));
    }
    newline_needed = tail.finish();
  }
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  forwarded.clear();
  char buf[4096];
  ssize_t n;
  ::lseek(file, 0, SEEK_SET);
  while ((n = ::read(file, buf, sizeof buf)) > 0)
    forwarded.append(buf, static_cast<size_t>(n));
  ::close(file);
  return newline_needed;
}

TEST(StdoutTail, OutputWithoutNewlineNeedsOne) {
  std::string out;
  EXPECT_TRUE(session("abc{", out));
  EXPECT_EQ(out, "abc{");
}

TEST(StdoutTail, OutputEndingInNewlineNeedsNone) {
  std::string out;
  EXPECT_FALSE(session("line one\nline two\n", out));
  EXPECT_EQ(out, "line one\nline two\n");
}

TEST(StdoutTail, NoOutputNeedsNone) {
  std::string out;
  EXPECT_FALSE(session("", out));
  EXPECT_EQ(out, "");
}

TEST(StdoutTail, LargeOutputIsForwardedWhole) {
  std::string big(200000, 'x');
  big += "\nend";
  std::string out;
  EXPECT_TRUE(session(big, out));
  EXPECT_EQ(out, big);
}

TEST(StdoutTail, FinishWithoutStartIsHarmless) {
  cli::StdoutTail tail;
  EXPECT_FALSE(tail.finish());
}

} // namespace
