#include "cli/pager.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <string_view>
#include <sys/wait.h>
#include <unistd.h>

namespace cli {

bool page(const std::string& text, const std::string& pager) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return false;
  }
  if (pid == 0) {
    ::dup2(fds[0], STDIN_FILENO);
    // git's defaults: quit at once when it fits on one screen, pass colours, keep the screen.
    ::setenv("LESS", "FRX", 0);
    ::setenv("LV", "-c", 0);
    // The pager is the user's shell command (core.pager, GIT_PAGER, PAGER may hold options or
    // pipes), run by the shell as git runs it: the one place berth hands a string to sh.
    ::execl("/bin/sh", "sh", "-c", pager.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(fds[0]);
  // While the pager has the terminal, ^C is for it (less ignores it); berth's work is done.
  struct sigaction ignore {
  }, old_int{}, old_quit{};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGINT, &ignore, &old_int);
  ::sigaction(SIGQUIT, &ignore, &old_quit);
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fds[1], text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break; // EPIPE: the user quit the pager before the end
    done += static_cast<size_t>(n);
  }
  ::close(fds[1]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGQUIT, &old_quit, nullptr);
  // 127: the shell found no such pager (`less` not installed): nothing was shown, so the caller
  // prints the text itself rather than lose it.
  return !(WIFEXITED(status) && WEXITSTATUS(status) == 127);
}

std::string color_patch(const std::string& patch,
                        const std::map<std::string, std::string>& colors) {
  auto slot = [&](const char* name, const char* fallback) {
    auto found = colors.find(name);
    return found != colors.end() ? found->second : std::string(fallback);
  };
  const std::string meta = slot("meta", "\033[1m"), frag = slot("frag", "\033[36m"),
                    old_line = slot("old", "\033[31m"), new_line = slot("new", "\033[32m"),
                    context = slot("context", "");
  std::string out;
  out.reserve(patch.size() + patch.size() / 4);
  bool in_hunk = false;
  size_t start = 0;
  while (start < patch.size()) {
    size_t end = patch.find('\n', start);
    size_t stop = end == std::string::npos ? patch.size() : end;
    std::string_view line(patch.data() + start, stop - start);
    const std::string* sgr = &context;
    if (line.substr(0, 5) == "diff ") {
      in_hunk = false;
      sgr = &meta;
    } else if (line == "GIT binary patch") {
      in_hunk = true; // its data lines are plain, as git shows them
      sgr = &meta;
    } else if (line.substr(0, 2) == "@@") {
      in_hunk = true;
      sgr = &frag;
    } else if (!in_hunk) {
      sgr = &meta; // index, modes, renames, --- and +++: the file's header
    } else if (!line.empty() && line[0] == '+') {
      sgr = &new_line;
    } else if (!line.empty() && line[0] == '-') {
      sgr = &old_line;
    }
    if (!sgr->empty() && !line.empty()) {
      out += *sgr;
      out += line;
      out += "\033[m";
    } else {
      out += line;
    }
    if (end != std::string::npos) out += '\n';
    start = stop + 1;
  }
  return out;
}

} // namespace cli
