// What the watcher (watch.cpp), its clients and the standalone fsmonitor hook
// (src/hook/fsmonitor.cpp, which links nothing of berth's) must agree on: the socket's name and
// the shape of a token. Header-only, the standard library only.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace berth {

/// Every token the watcher hands out starts so: "berth:<instance>:<seq>".
inline constexpr std::string_view kWatchTokenPrefix = "berth:";

/// The watcher's socket name (abstract namespace, no leading NUL) for a project and a user:
/// FNV-1a of the common dir, so one name per project and user.
inline std::string watch_address_for(const std::string& common_dir, unsigned long uid) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : common_dir) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "berth-watch-%lu-%016llx", uid,
                static_cast<unsigned long long>(h));
  return buf;
}

} // namespace berth
