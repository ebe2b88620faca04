// util: paths, atomic files, the file lock, child processes, process identity, hashing.
#include "util/atomic_file.hpp"
#include "util/child_process.hpp"
#include "util/dir.hpp"
#include "util/fd.hpp"
#include "util/file_lock.hpp"
#include "util/paths.hpp"
#include "util/process_info.hpp"
#include "util/scope_exit.hpp"
#include "util/temp_dir.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using namespace std::chrono_literals;

util::TempDir temp_dir() {
  auto dir = util::TempDir::create("berth-test-util-");
  if (!dir) throw std::runtime_error(dir.error());
  return std::move(*dir);
}

std::vector<std::string> dir_entries(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d))
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..")
        names.push_back(e->d_name);
    ::closedir(d);
  }
  return names;
}

// Set (or unset) an environment variable for one scope, then put back what was there.
class ScopedEnv {
public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value->c_str(), 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
  const char* name_;
  std::optional<std::string> old_;
};

util::ProcessResult run_ok(const util::SpawnOptions& options) {
  auto r = util::run(options);
  if (!r) throw std::runtime_error(r.error());
  return std::move(*r);
}

util::SpawnOptions sh(const std::string& script) {
  util::SpawnOptions o;
  o.argv = {"/bin/sh", "-c", script};
  return o;
}

// ---- paths ----------------------------------------------------------------------------------

TEST(Paths, Join) {
  EXPECT_EQ(util::join("/a", "b"), "/a/b");
  EXPECT_EQ(util::join("/a/", "b"), "/a/b");
  EXPECT_EQ(util::join("/a", "/b"), "/a/b");
  EXPECT_EQ(util::join("/a/", "//b/c"), "/a/b/c");
  EXPECT_EQ(util::join("/", "b"), "/b");
  EXPECT_EQ(util::join("", "b"), "b");
  EXPECT_EQ(util::join("/a", ""), "/a");
}

TEST(Paths, Basename) {
  EXPECT_EQ(util::basename("/a/b"), "b");
  EXPECT_EQ(util::basename("/a/b/"), "b");
  EXPECT_EQ(util::basename("/a/b//"), "b");
  EXPECT_EQ(util::basename("b"), "b");
  EXPECT_EQ(util::basename("/a"), "a");
}

TEST(Paths, Dirname) {
  EXPECT_EQ(util::dirname("/a/b"), "/a");
  EXPECT_EQ(util::dirname("/a/b/"), "/a");
  EXPECT_EQ(util::dirname("/a"), "/");
  EXPECT_EQ(util::dirname("/"), "/");
  EXPECT_EQ(util::dirname("a"), ".");
  EXPECT_EQ(util::dirname("a/b"), "a");
}

TEST(Paths, LexicallyNormal) {
  EXPECT_EQ(util::lexically_normal("/a/b"), "/a/b");
  EXPECT_EQ(util::lexically_normal("/a//b/"), "/a/b");
  EXPECT_EQ(util::lexically_normal("/a/./b/."), "/a/b");
  EXPECT_EQ(util::lexically_normal("/a/b/../c"), "/a/c");
  EXPECT_EQ(util::lexically_normal("/a/b/.."), "/a");
  EXPECT_EQ(util::lexically_normal("/../../a"), "/a");
  EXPECT_EQ(util::lexically_normal("/"), "/");
  EXPECT_EQ(util::lexically_normal("//"), "/");
  EXPECT_EQ(util::lexically_normal("/a/.."), "/");
  EXPECT_EQ(util::lexically_normal("/a/..b/c"), "/a/..b/c") << "'..b' is a name, not '..'";
}

TEST(Paths, Absolute) {
  EXPECT_EQ(util::absolute("x", "/base"), "/base/x");
  EXPECT_EQ(util::absolute("x/../y", "/base"), "/base/y");
  EXPECT_EQ(util::absolute("../up", "/base/dir"), "/base/up");
  EXPECT_EQ(util::absolute(".", "/base/"), "/base");
  EXPECT_EQ(util::absolute("/abs/./p", "/base"), "/abs/p");
  EXPECT_EQ(util::absolute("", "/base"), "/base");
}

TEST(Paths, IsWithin) {
  EXPECT_TRUE(util::is_within("/a/b", "/a/b"));
  EXPECT_TRUE(util::is_within("/a/b/c", "/a/b"));
  EXPECT_TRUE(util::is_within("/a/b/c/d", "/a/b"));
  EXPECT_FALSE(util::is_within("/a/bc", "/a/b")) << "a sibling sharing a prefix is not inside";
  EXPECT_FALSE(util::is_within("/a/b-2/x", "/a/b"));
  EXPECT_FALSE(util::is_within("/a", "/a/b"));
  EXPECT_FALSE(util::is_within("/x/y", "/a/b"));
  EXPECT_TRUE(util::is_within("/anything", "/"));
  EXPECT_TRUE(util::is_within("/", "/"));
  EXPECT_FALSE(util::is_within("", "/"));
}

TEST(Paths, RealPathResolvesSymlinksAndNamesMissingPaths) {
  auto dir = temp_dir();
  std::string target = util::join(dir.path(), "target");
  ASSERT_TRUE(util::make_dirs(target));
  std::string link = util::join(dir.path(), "link");
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  auto real_target = util::real_path(target);
  ASSERT_TRUE(real_target);
  auto resolved = util::real_path(link);
  ASSERT_TRUE(resolved) << resolved.error();
  EXPECT_EQ(*resolved, *real_target);

  std::string missing = util::join(dir.path(), "missing");
  auto error = util::real_path(missing);
  ASSERT_FALSE(error);
  EXPECT_NE(error.error().find(missing), std::string::npos) << error.error();
}

TEST(Paths, ExistsIsDirectoryIsSymlink) {
  auto dir = temp_dir();
  std::string file = util::join(dir.path(), "f");
  ASSERT_TRUE(util::write_file_atomic(file, "x"));
  std::string link = util::join(dir.path(), "l");
  ASSERT_EQ(::symlink(dir.path().c_str(), link.c_str()), 0);
  std::string dangling = util::join(dir.path(), "dangling");
  ASSERT_EQ(::symlink("/nonexistent/berth", dangling.c_str()), 0);

  EXPECT_TRUE(util::exists(file));
  EXPECT_FALSE(util::is_directory(file));
  EXPECT_TRUE(util::is_directory(dir.path()));
  EXPECT_FALSE(util::is_directory(link)) << "a symlink to a directory is not a real directory";
  EXPECT_TRUE(util::is_symlink(link));
  EXPECT_TRUE(util::exists(dangling)) << "lstat: a dangling symlink exists";
  EXPECT_FALSE(util::exists(util::join(dir.path(), "nope")));
  EXPECT_FALSE(util::is_symlink(file));
}

TEST(Paths, MakeDirsAndRemoveTree) {
  auto dir = temp_dir();
  std::string deep = util::join(dir.path(), "a/b/c");
  ASSERT_TRUE(util::make_dirs(deep));
  EXPECT_TRUE(util::is_directory(deep));
  EXPECT_TRUE(util::make_dirs(deep)) << "an existing directory is fine";
  ASSERT_TRUE(util::write_file_atomic(util::join(deep, "f"), "x"));
  ASSERT_TRUE(util::remove_tree(util::join(dir.path(), "a")));
  EXPECT_FALSE(util::exists(util::join(dir.path(), "a")));
  EXPECT_TRUE(util::remove_tree(util::join(dir.path(), "never-was"))) << "missing is fine";
}

TEST(Paths, RemoveTreeNeverFollowsSymlinks) {
  auto dir = temp_dir();
  std::string outside = util::join(dir.path(), "outside");
  ASSERT_TRUE(util::make_dirs(outside));
  ASSERT_TRUE(util::write_file_atomic(util::join(outside, "precious"), "keep me"));
  std::string tree = util::join(dir.path(), "tree");
  ASSERT_TRUE(util::make_dirs(util::join(tree, "sub")));
  ASSERT_EQ(::symlink(outside.c_str(), util::join(tree, "sub/link").c_str()), 0);
  // The tree itself replaced by a symlink: only the link goes.
  std::string top_link = util::join(dir.path(), "top-link");
  ASSERT_EQ(::symlink(outside.c_str(), top_link.c_str()), 0);

  ASSERT_TRUE(util::remove_tree(tree));
  ASSERT_TRUE(util::remove_tree(top_link));
  EXPECT_FALSE(util::exists(tree));
  EXPECT_FALSE(util::exists(top_link));
  auto kept = util::read_file(util::join(outside, "precious"));
  ASSERT_TRUE(kept) << kept.error();
  EXPECT_EQ(*kept, "keep me");
}

TEST(Paths, XdgDirectories) {
  {
    ScopedEnv data("XDG_DATA_HOME", "/xdg/data");
    ScopedEnv config("XDG_CONFIG_HOME", "/xdg/config");
    EXPECT_EQ(util::data_home(), "/xdg/data");
    EXPECT_EQ(util::config_home(), "/xdg/config");
  }
  {
    // The XDG spec: relative values are invalid and ignored; empty means unset.
    ScopedEnv home("HOME", "/home/tester");
    ScopedEnv data("XDG_DATA_HOME", "relative/data");
    ScopedEnv config("XDG_CONFIG_HOME", "");
    EXPECT_EQ(util::home_dir(), "/home/tester");
    EXPECT_EQ(util::data_home(), "/home/tester/.local/share");
    EXPECT_EQ(util::config_home(), "/home/tester/.config");
  }
}

TEST(Paths, Fnv1aIsStable) {
  // Published FNV-1a 64-bit test vectors: default workspace roots are named after this hash, so
  // it must never change between versions or machines.
  EXPECT_EQ(util::fnv1a(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(util::fnv1a("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(util::fnv1a("foobar"), 0x85944171f73967e8ull);
  EXPECT_NE(util::fnv1a("/repo/.git"), util::fnv1a("/repo2/.git"));
}

// ---- temp dir -------------------------------------------------------------------------------

TEST(TempDir, CreatedUnderParentAndRemovedWithContents) {
  auto parent = temp_dir();
  std::string path;
  {
    auto dir = util::TempDir::create("inner-", parent.path());
    ASSERT_TRUE(dir) << dir.error();
    path = dir->path();
    EXPECT_EQ(util::dirname(path), parent.path());
    EXPECT_EQ(util::basename(path).rfind("inner-", 0), 0u);
    ASSERT_TRUE(util::make_dirs(util::join(path, "x/y")));
    ASSERT_TRUE(util::write_file_atomic(util::join(path, "x/y/f"), "data"));
    util::TempDir moved(std::move(*dir));
    EXPECT_EQ(moved.path(), path);
  }
  EXPECT_FALSE(util::exists(path));
  EXPECT_FALSE(util::TempDir::create("x-", "/nonexistent/berth/parent"));
}

// ---- atomic files ---------------------------------------------------------------------------

TEST(AtomicFile, ReadRefusesWhatIsNotARegularFileWithoutBlocking) {
  // A FIFO planted where a file is expected (a worktree's admin dir is writable by its agent)
  // would block a plain open forever; a device would be read forever.
  auto dir = temp_dir();
  std::string fifo = util::join(dir.path(), "index");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto read = util::read_file(fifo);
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().find("not a regular file"), std::string::npos) << read.error();
  std::string zero = util::join(dir.path(), "HEAD");
  ASSERT_EQ(::symlink("/dev/zero", zero.c_str()), 0);
  EXPECT_FALSE(util::read_file(zero));
  EXPECT_FALSE(util::read_file(dir.path()));
}

TEST(AtomicFile, WriteReadOverwriteLeavesNoTemporaryFile) {
  auto dir = temp_dir();
  std::string file = util::join(dir.path(), "record.json");
  ASSERT_TRUE(util::write_file_atomic(file, "first"));
  EXPECT_EQ(util::read_file(file).value_or("?"), "first");
  ASSERT_TRUE(util::write_file_atomic(file, "second, longer content"));
  EXPECT_EQ(util::read_file(file).value_or("?"), "second, longer content");
  ASSERT_TRUE(util::write_file_atomic(file, ""));
  EXPECT_EQ(util::read_file(file).value_or("?"), "");
  EXPECT_EQ(dir_entries(dir.path()), std::vector<std::string>{"record.json"});
}

TEST(AtomicFile, WithoutFsyncStillReplacesWholeAndLeavesNoTemporaryFile) {
  auto dir = temp_dir();
  std::string file = util::join(dir.path(), "1-2-3.req");
  ASSERT_TRUE(util::write_file_atomic(file, "4\n", util::Fsync::no));
  EXPECT_EQ(util::read_file(file).value_or("?"), "4\n");
  ASSERT_TRUE(util::write_file_atomic(file, "12\n", util::Fsync::no));
  EXPECT_EQ(util::read_file(file).value_or("?"), "12\n");
  EXPECT_EQ(dir_entries(dir.path()), std::vector<std::string>{"1-2-3.req"});
  auto error = util::write_file_atomic(util::join(dir.path(), "missing/f"), "x", util::Fsync::no);
  ASSERT_FALSE(error);
  EXPECT_NE(error.error().find("missing/f"), std::string::npos) << error.error();
}

TEST(AtomicFile, SeveralAtOnceEachWholeAndAFailureStopsOnlyItsOwn) {
  auto dir = temp_dir();
  std::string a = util::join(dir.path(), "a.json"), b = util::join(dir.path(), "b.json");
  ASSERT_TRUE(util::write_file_atomic(a, "old a"));
  std::string missing = util::join(dir.path(), "missing/c.json");
  auto written = util::write_files_atomic({{a, "new a"}, {missing, "c"}, {b, "new b"}});
  ASSERT_EQ(written.size(), 3u);
  EXPECT_TRUE(written[0]);
  ASSERT_FALSE(written[1]);
  EXPECT_NE(written[1].error().find(missing), std::string::npos) << written[1].error();
  EXPECT_TRUE(written[2]);
  EXPECT_EQ(util::read_file(a).value_or("?"), "new a");
  EXPECT_EQ(util::read_file(b).value_or("?"), "new b");
  auto left = dir_entries(dir.path());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"a.json", "b.json"})) << "no temporary file left";
  EXPECT_TRUE(util::write_files_atomic({}).empty());
}

TEST(AtomicFile, BinaryAndLargeContentRoundTrips) {
  auto dir = temp_dir();
  std::string file = util::join(dir.path(), "blob");
  std::string content;
  for (int i = 0; i < 300000; ++i)
    content += static_cast<char>(i * 7 % 256);
  ASSERT_TRUE(util::write_file_atomic(file, content));
  auto back = util::read_file(file);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, content);
}

TEST(AtomicFile, ErrorsNameTheFile) {
  auto dir = temp_dir();
  std::string missing_dir = util::join(dir.path(), "no/such/dir/file");
  auto written = util::write_file_atomic(missing_dir, "x");
  ASSERT_FALSE(written);
  EXPECT_NE(written.error().find(missing_dir), std::string::npos) << written.error();

  std::string missing = util::join(dir.path(), "missing");
  auto read = util::read_file(missing);
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().find(missing), std::string::npos) << read.error();
  EXPECT_NE(read.error().find("No such file"), std::string::npos) << read.error();
  EXPECT_TRUE(dir_entries(dir.path()).empty()) << "a failed write leaves nothing behind";
}

TEST(AtomicFile, ReplacesASymlinkRatherThanWritingThroughIt) {
  auto dir = temp_dir();
  std::string target = util::join(dir.path(), "target");
  ASSERT_TRUE(util::write_file_atomic(target, "target content"));
  std::string link = util::join(dir.path(), "link");
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  ASSERT_TRUE(util::write_file_atomic(link, "new"));
  EXPECT_FALSE(util::is_symlink(link));
  EXPECT_EQ(util::read_file(target).value_or("?"), "target content");
}

// ---- file lock ------------------------------------------------------------------------------

TEST(FileLock, ExcludesASecondLockerUntilReleased) {
  auto dir = temp_dir();
  std::string path = util::join(dir.path(), "lock");
  std::optional<util::FileLock> first;
  {
    auto lock = util::FileLock::acquire(path);
    ASSERT_TRUE(lock) << lock.error();
    first.emplace(std::move(*lock));
  }
  EXPECT_TRUE(util::exists(path)) << "the lock file is created";

  // A second locker opens its own file description, as another process would.
  std::atomic<bool> acquired{false};
  std::thread second([&] {
    auto lock = util::FileLock::acquire(path);
    if (lock) acquired = true;
  });
  std::this_thread::sleep_for(300ms);
  EXPECT_FALSE(acquired) << "the second locker got in while the first held the lock";
  first.reset();
  for (int i = 0; i < 500 && !acquired; ++i)
    std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(acquired) << "the second locker never got the released lock";
  second.join();
}

TEST(FileLock, DiesWithItsHolderProcess) {
  auto dir = temp_dir();
  std::string path = util::join(dir.path(), "lock");
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto lock = util::FileLock::acquire(path);
    char c = lock ? 'y' : 'n';
    (void)!::write(ready[1], &c, 1);
    ::pause();
    ::_exit(0);
  }
  ::close(ready[1]);
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  ::close(ready[0]);
  ASSERT_EQ(c, 'y');

  // While the child holds it, we cannot get in; once it is killed (a crash), we can.
  std::atomic<bool> acquired{false};
  std::thread waiter([&] {
    if (util::FileLock::acquire(path)) acquired = true;
  });
  std::this_thread::sleep_for(200ms);
  EXPECT_FALSE(acquired);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  for (int i = 0; i < 500 && !acquired; ++i)
    std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(acquired) << "a killed holder left a stale lock";
  waiter.join();
}

TEST(FileLock, ErrorNamesThePath) {
  auto lock = util::FileLock::acquire("/nonexistent/berth/dir/lock");
  ASSERT_FALSE(lock);
  EXPECT_NE(lock.error().find("/nonexistent/berth/dir/lock"), std::string::npos);
}

// ---- child processes ------------------------------------------------------------------------

TEST(ChildProcess, ExitCodeAndOutputs) {
  auto r = run_ok(sh("echo out; echo err >&2; exit 3"));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.signal, 0);
  EXPECT_EQ(r.status(), 3);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");

  auto ok = run_ok(sh("true"));
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.status(), 0);
}

TEST(ChildProcess, SignalGivesShellStyleStatus) {
  auto r = run_ok(sh("kill -TERM $$; sleep 5"));
  EXPECT_EQ(r.signal, SIGTERM);
  EXPECT_EQ(r.status(), 128 + SIGTERM);
  EXPECT_FALSE(r.ok());

  auto killed = run_ok(sh("kill -KILL $$"));
  EXPECT_EQ(killed.status(), 128 + SIGKILL);
}

TEST(ChildProcess, LargeStdoutAndStderrTogetherDoNotDeadlock) {
  // Both streams well past a pipe buffer: a reader that drains one stream at a time would hang.
  auto r = run_ok(sh("i=0; while [ $i -lt 3 ]; do head -c 1100000 /dev/zero | tr '\\0' o; "
                     "head -c 1100000 /dev/zero | tr '\\0' e >&2; i=$((i+1)); done"));
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.out.size(), 3300000u);
  EXPECT_EQ(r.err.size(), 3300000u);
  EXPECT_EQ(r.out.find_first_not_of('o'), std::string::npos);
  EXPECT_EQ(r.err.find_first_not_of('e'), std::string::npos);
}

TEST(ChildProcess, TimeoutKillsTheWholeGroup) {
  // A child (and its own child) that would run for minutes: killed at the deadline, all of it.
  auto options = sh("sleep 120 & echo $!; wait");
  options.group = util::ProcessGroup::own;
  options.timeout = std::chrono::milliseconds(300);
  auto start = std::chrono::steady_clock::now();
  auto r = util::run(options);
  ASSERT_TRUE(r) << r.error();
  EXPECT_TRUE(r->timed_out);
  EXPECT_FALSE(r->ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  pid_t grandchild = static_cast<pid_t>(std::atoi(r->out.c_str()));
  ASSERT_GT(grandchild, 0);
  // Gone, or a zombie waiting for its reaper (it was re-parented when its shell died).
  auto alive = [&] {
    auto stat = util::read_file("/proc/" + std::to_string(grandchild) + "/stat");
    if (!stat) return false;
    auto close = stat->rfind(')');
    return close != std::string::npos && close + 2 < stat->size() && (*stat)[close + 2] != 'Z';
  };
  for (int i = 0; i < 100 && alive(); ++i)
    ::usleep(10000);
  EXPECT_FALSE(alive()) << "the sleep outlived its group";
}

TEST(ChildProcess, TimeoutLeavesAQuickChildAlone) {
  auto options = sh("echo done");
  options.timeout = std::chrono::milliseconds(10000);
  auto r = util::run(options);
  ASSERT_TRUE(r) << r.error();
  EXPECT_FALSE(r->timed_out);
  EXPECT_TRUE(r->ok());
  EXPECT_EQ(r->out, "done\n");
}

TEST(ChildProcess, StdinIsFed) {
  util::SpawnOptions o;
  o.argv = {"cat"};
  o.in = util::Stream::pipe;
  o.input = "line one\nline two\n";
  auto r = run_ok(o);
  EXPECT_EQ(r.out, o.input);
}

TEST(ChildProcess, LargeStdinWhileTheChildWritesLargeOutputDoesNotDeadlock) {
  // cat echoes as it reads: if the parent blocked writing all of stdin before reading stdout,
  // both would wait on full pipes forever.
  util::SpawnOptions o;
  o.argv = {"cat"};
  o.in = util::Stream::pipe;
  o.input.reserve(4 << 20);
  for (int i = 0; o.input.size() < (4u << 20); ++i)
    o.input += std::to_string(i) + "\n";
  auto r = run_ok(o);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.out.size(), o.input.size());
  EXPECT_TRUE(r.out == o.input);
}

TEST(ChildProcess, ChildThatIgnoresStdinDoesNotKillUs) {
  // Writing to a pipe nobody reads raises SIGPIPE, which would kill the caller.
  util::SpawnOptions o = sh("exec 0<&-; echo done");
  o.in = util::Stream::pipe;
  o.input = std::string(1 << 20, 'x');
  auto r = run_ok(o);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.out, "done\n");
}

TEST(ChildProcess, NullStdinReadsNothing) {
  util::SpawnOptions o = sh("cat; echo end");
  o.in = util::Stream::null;
  auto r = run_ok(o);
  EXPECT_EQ(r.out, "end\n");
}

TEST(ChildProcess, EnvironmentOverrideAndUnset) {
  ScopedEnv set("BERTH_TEST_INHERITED", "from-parent");
  ScopedEnv gone("BERTH_TEST_UNSET_ME", "present");
  util::SpawnOptions o = sh("echo \"$BERTH_TEST_INHERITED|${BERTH_TEST_UNSET_ME-unset}|"
                            "$BERTH_TEST_NEW|$BERTH_TEST_OVERRIDE\"");
  {
    ScopedEnv overridden("BERTH_TEST_OVERRIDE", "old");
    o.env = {{"BERTH_TEST_UNSET_ME", std::nullopt},
             {"BERTH_TEST_NEW", "new value"},
             {"BERTH_TEST_OVERRIDE", "new"}};
    auto r = run_ok(o);
    EXPECT_EQ(r.out, "from-parent|unset|new value|new\n");
  }
  // Our own environment is untouched.
  EXPECT_STREQ(std::getenv("BERTH_TEST_UNSET_ME"), "present");
  EXPECT_EQ(std::getenv("BERTH_TEST_NEW"), nullptr);
}

TEST(ChildProcess, WorkingDirectory) {
  auto dir = temp_dir();
  auto real = util::real_path(dir.path());
  ASSERT_TRUE(real);
  util::SpawnOptions o;
  o.argv = {"pwd", "-P"};
  o.cwd = dir.path();
  EXPECT_EQ(run_ok(o).out, *real + "\n");

  o.cwd = util::join(dir.path(), "missing");
  auto r = util::run(o);
  EXPECT_TRUE(!r || !r->ok()) << "running in a missing directory must not succeed";
}

TEST(ChildProcess, MissingProgramIsAnErrorNamingIt) {
  util::SpawnOptions o;
  o.argv = {"berth-no-such-program-xyz"};
  auto r = util::run(o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("berth-no-such-program-xyz"), std::string::npos) << r.error();

  util::SpawnOptions empty;
  EXPECT_FALSE(util::run(empty));
}

TEST(ChildProcess, ConversationLineByLine) {
  // A child that answers each line it reads: send() and read_line() keep a conversation going,
  // communicate() then ends it (closing stdin) and collects the rest.
  util::SpawnOptions o = sh("while read -r l; do echo \"got $l\"; done; echo bye; echo err >&2");
  o.in = util::Stream::pipe;
  auto child = util::spawn(o);
  ASSERT_TRUE(child) << child.error();
  ASSERT_TRUE(child->send("one\ntwo\n"));
  EXPECT_EQ(child->read_line(), std::optional<std::string>("got one"));
  EXPECT_EQ(child->read_line(), std::optional<std::string>("got two"));
  ASSERT_TRUE(child->send("three\n"));
  EXPECT_EQ(child->read_line(), std::optional<std::string>("got three"));
  auto ended = child->communicate();
  ASSERT_TRUE(ended) << ended.error();
  EXPECT_EQ(ended->out, "bye\n");
  EXPECT_EQ(ended->err, "err\n");
  EXPECT_TRUE(ended->ok());
}

TEST(ChildProcess, ParentDeathSignalEndsTheChildWithItsStarter) {
  // The signal comes when the thread that started the child ends (as when berth is killed): a
  // child left running (detached) by a thread that ended gets it.
  pid_t pid = -1;
  std::thread starter([&] {
    util::SpawnOptions o = sh("exec sleep 30");
    o.parent_death_signal = SIGTERM;
    auto child = util::spawn(o);
    ASSERT_TRUE(child) << child.error();
    pid = child->pid();
    child->detach();
  });
  starter.join();
  ASSERT_GT(pid, 0);
  int status = 0;
  pid_t done = 0;
  for (int i = 0; i < 500 && done == 0; ++i) {
    done = ::waitpid(pid, &status, WNOHANG);
    if (done == 0) ::usleep(10000);
  }
  if (done == 0) ::kill(pid, SIGKILL), ::waitpid(pid, &status, 0);
  ASSERT_EQ(done, pid) << "the child outlived the thread that started it";
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
}

TEST(ChildProcess, ReadLineAfterTheChildEnded) {
  util::SpawnOptions o = sh("echo last-without-newline | tr -d '\\n'; exit 3");
  o.in = util::Stream::pipe;
  auto child = util::spawn(o);
  ASSERT_TRUE(child) << child.error();
  EXPECT_EQ(child->read_line(), std::nullopt); // no complete line ever came
  auto ended = child->communicate();
  ASSERT_TRUE(ended) << ended.error();
  EXPECT_EQ(ended->exit_code, 3);
}

TEST(ChildProcess, InheritedAndNullStreamsAreNotCaptured) {
  util::SpawnOptions o = sh("echo to-null; echo to-null-err >&2");
  o.out = util::Stream::null;
  o.err = util::Stream::null;
  auto r = run_ok(o);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
}

TEST(ChildProcess, OwnProcessGroup) {
  util::SpawnOptions o = sh("ps -o pgid= -p $$ | tr -d ' '; echo $$");
  o.group = util::ProcessGroup::own;
  auto r = run_ok(o);
  auto nl = r.out.find('\n');
  ASSERT_NE(nl, std::string::npos) << r.out;
  std::string pgid = r.out.substr(0, nl);
  std::string pid = r.out.substr(nl + 1, r.out.size() - nl - 2);
  if (pgid.empty()) GTEST_SKIP() << "ps cannot report the process group here";
  EXPECT_EQ(pgid, pid) << "the child leads its own process group";
}

TEST(ChildProcess, FindInPath) {
  EXPECT_FALSE(util::find_in_path("sh").empty());
  EXPECT_EQ(util::find_in_path("/bin/sh"), "/bin/sh");
  EXPECT_TRUE(util::find_in_path("berth-no-such-program-xyz").empty());
}

// ---- process identity -----------------------------------------------------------------------

TEST(ProcessInfo, OwnProcessIsAliveWithItsStartTime) {
  int64_t start = util::process_start_time(::getpid());
  ASSERT_GT(start, 0);
  EXPECT_EQ(util::process_start_time(::getpid()), start) << "stable across calls";
  EXPECT_TRUE(util::process_alive(::getpid(), 0));
  EXPECT_TRUE(util::process_alive(::getpid(), start));
  EXPECT_FALSE(util::process_alive(::getpid(), start + 1))
      << "a reused pid is not the same process";
  EXPECT_FALSE(util::process_alive(0, 0));
  EXPECT_FALSE(util::process_alive(-1, 0));
}

TEST(ProcessInfo, ReapedChildIsDead) {
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_FALSE(util::process_alive(child, 0));
  EXPECT_EQ(util::process_start_time(child), 0);
}

TEST(ProcessInfo, StartTimeParsesCommandNamesWithSpacesAndParens) {
  // Field 2 of /proc/PID/stat is "(comm)", which may itself hold spaces and ')'.
  auto dir = temp_dir();
  std::string odd = util::join(dir.path(), "a) b (c");
  ASSERT_EQ(::symlink("/bin/sleep", odd.c_str()), 0);
  util::SpawnOptions o;
  o.argv = {odd, "5"};
  auto child = util::spawn(o);
  ASSERT_TRUE(child) << child.error();
  int64_t start = 0;
  for (int i = 0; i < 100 && start == 0; ++i) {
    start = util::process_start_time(child->pid());
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_GT(start, 0);
  EXPECT_GE(start, util::process_start_time(::getpid()));
  EXPECT_TRUE(util::process_alive(child->pid(), start));
  // Destroying the Child kills and reaps it.
}

// ---- Fd, DirEntries, ScopeExit ----------------------------------------------------------------

bool fd_open(int fd) {
  return ::fcntl(fd, F_GETFD) != -1;
}

TEST(Fd, ClosesWhenItGoesOutOfScope) {
  int raw = -1;
  {
    util::Fd fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    ASSERT_TRUE(fd);
    raw = fd.get();
    EXPECT_TRUE(fd_open(raw));
  }
  EXPECT_FALSE(fd_open(raw));
}

TEST(Fd, MoveTransfersOwnershipAndAssignmentClosesTheOld) {
  util::Fd a(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  int first = a.get();
  util::Fd b(std::move(a));
  EXPECT_FALSE(a); // NOLINT(bugprone-use-after-move): the moved-from state is the point
  EXPECT_EQ(b.get(), first);
  util::Fd c(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  int second = c.get();
  c = std::move(b);
  EXPECT_FALSE(fd_open(second)) << "the descriptor assigned over is closed";
  EXPECT_EQ(c.get(), first);
  EXPECT_TRUE(fd_open(first));
}

TEST(Fd, ReleaseKeepsItOpenAndCloseReportsSuccess) {
  util::Fd fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  int raw = fd.release();
  EXPECT_FALSE(fd);
  EXPECT_TRUE(fd_open(raw));
  util::Fd again(raw);
  EXPECT_TRUE(again.close());
  EXPECT_FALSE(fd_open(raw));
  EXPECT_FALSE(again);
  EXPECT_TRUE(util::Fd().close()) << "nothing to close is no failure";
}

TEST(DirEntries, ListsEveryEntryButDotAndDotDot) {
  auto dir = temp_dir();
  for (const char* name : {"a", ".hidden", "..x", "b"})
    ASSERT_TRUE(util::write_file_atomic(util::join(dir.path(), name), "x"));
  ASSERT_TRUE(util::make_dirs(util::join(dir.path(), "sub")));
  std::vector<std::string> names;
  util::DirEntries entries(dir.path());
  EXPECT_TRUE(entries.is_open());
  for (const auto& e : entries) {
    names.emplace_back(e.name);
    if (e.name == "sub" && e.type != DT_UNKNOWN) {
      EXPECT_EQ(e.type, DT_DIR);
    }
  }
  EXPECT_EQ(entries.error(), 0);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"..x", ".hidden", "a", "b", "sub"}));
  EXPECT_GE(entries.fd(), 0);
}

TEST(DirEntries, EmptyDirectoryYieldsNothing) {
  auto dir = temp_dir();
  util::DirEntries entries(dir.path());
  EXPECT_TRUE(entries.is_open());
  EXPECT_TRUE(entries.begin() == entries.end());
  EXPECT_EQ(entries.error(), 0);
}

TEST(DirEntries, ReportsWhyItCannotBeOpened) {
  auto dir = temp_dir();
  util::DirEntries missing(util::join(dir.path(), "nope"));
  EXPECT_FALSE(missing.is_open());
  EXPECT_EQ(missing.error(), ENOENT);
  EXPECT_TRUE(missing.begin() == missing.end());
  EXPECT_EQ(missing.fd(), -1);
  std::string file = util::join(dir.path(), "file");
  ASSERT_TRUE(util::write_file_atomic(file, "x"));
  util::DirEntries not_a_dir(file);
  EXPECT_FALSE(not_a_dir.is_open());
  EXPECT_EQ(not_a_dir.error(), ENOTDIR);
}

TEST(DirEntries, ClosesItsDescriptorWhenLeftEarly) {
  auto dir = temp_dir();
  for (const char* name : {"a", "b", "c"})
    ASSERT_TRUE(util::write_file_atomic(util::join(dir.path(), name), "x"));
  int raw = -1;
  {
    util::DirEntries entries(dir.path());
    raw = entries.fd();
    for (const auto& e : entries) {
      (void)e;
      break;
    }
    EXPECT_TRUE(fd_open(raw));
  }
  EXPECT_FALSE(fd_open(raw));
}

TEST(ScopeExit, RunsWhenTheScopeIsLeftWhicheverWay) {
  int runs = 0;
  {
    auto undo = util::on_scope_exit([&] { ++runs; });
    EXPECT_TRUE(undo.armed());
  }
  EXPECT_EQ(runs, 1);
  auto early = [&](bool leave) {
    auto undo = util::on_scope_exit([&] { ++runs; });
    if (leave) return 1;
    undo.release();
    return 2;
  };
  EXPECT_EQ(early(true), 1);
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(early(false), 2);
  EXPECT_EQ(runs, 2) << "released: nothing runs";
}

TEST(ScopeExit, AMovedGuardRunsOnce) {
  int runs = 0;
  {
    auto first = util::on_scope_exit([&] { ++runs; });
    auto second = std::move(first);
    EXPECT_FALSE(first.armed()); // NOLINT(bugprone-use-after-move)
    EXPECT_TRUE(second.armed());
  }
  EXPECT_EQ(runs, 1);
}

} // namespace
