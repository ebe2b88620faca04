#include "util/temp_dir.hpp"

#include "util/paths.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <vector>

namespace util {

tl::expected<TempDir, std::string> TempDir::create(const std::string& prefix,
                                                   const std::string& parent) {
  std::string base = parent;
  if (base.empty()) {
    const char* tmp = ::getenv("TMPDIR");
    base = tmp && *tmp ? tmp : "/tmp";
  }
  std::string pattern = join(base, prefix + "XXXXXX");
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr)
    return tl::unexpected(
        fmt::format("cannot create a temporary directory in {}: {}", base, std::strerror(errno)));
  return TempDir(std::string(buf.data()));
}

TempDir::~TempDir() {
  if (!path_.empty()) (void)remove_tree(path_);
}

} // namespace util
