// Quantities as a person reads them, shared by the library's messages and the CLI's tables.
#pragma once

#include <cstdint>
#include <string>

namespace util {

/// "1.2 MB" style (powers of 1000); "512 B" below a kilobyte.
std::string human_bytes(uint64_t bytes);

} // namespace util
