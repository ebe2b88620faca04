#include "core/ports.hpp"

#include "util/try.hpp"

#include <cstdlib>
#include <fmt/format.h>
#include <netinet/in.h>
#include <set>
#include <sys/socket.h>
#include <unistd.h>

namespace berth {

Result<std::pair<int, int>> parse_port_range(const std::string& text) {
  auto bad = [&] {
    return fail(ErrorCode::config_invalid,
                fmt::format("ports.range '{}' is not a port range", text),
                "write it as FIRST-LAST, e.g. \"20000-29999\", within 1024-65535");
  };
  auto dash = text.find('-');
  if (dash == std::string::npos) return bad();
  char* end = nullptr;
  long first = std::strtol(text.c_str(), &end, 10);
  if (end != text.c_str() + dash) return bad();
  long last = std::strtol(text.c_str() + dash + 1, &end, 10);
  if (*end != '\0' || first < 1024 || last > 65535 || last - first + 1 < kPortBlock) return bad();
  return std::pair<int, int>{static_cast<int>(first), static_cast<int>(last)};
}

bool port_block_free(int first) {
  for (int port = first; port < first + kPortBlock; ++port) {
    // Bound on all addresses (what a dev server does), without SO_REUSEADDR: if we can, so can
    // the workspace's server.
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    if (!ok) return false;
  }
  return true;
}

Result<int> allocate_port_block(const Project& project, const std::vector<Workspace>& taken) {
  auto [first, last] = BERTH_TRY(parse_port_range(project.config().get_string("ports.range")));
  std::set<int> used;
  for (const auto& w : taken)
    if (w.port > 0) used.insert(w.port);
  for (int base = first; base + kPortBlock - 1 <= last; base += kPortBlock) {
    bool overlaps = false;
    for (int u : used)
      if (u < base + kPortBlock && base < u + kPortBlock) overlaps = true;
    if (!overlaps && port_block_free(base)) return base;
  }
  return fail(ErrorCode::io_error,
              fmt::format("no free block of {} ports left in {}", kPortBlock,
                          project.config().get_string("ports.range")),
              "discard unused workspaces, or widen ports.range");
}

} // namespace berth
