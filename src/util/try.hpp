// BERTH_TRY: propagate the error of a tl::expected-returning expression, yielding its value
// otherwise. A GNU statement expression (GCC and Clang), so it is kept out of the public headers:
// an embedder compiles include/berth/ with any C++20 compiler and never sees it. It knows nothing
// of berth's types (any tl::expected), so the library and the front ends share it from util.
#pragma once

#include <tl/expected.hpp>
#include <utility>

namespace util::detail {
template <class T, class E> T take(tl::expected<T, E>&& r) {
  return std::move(r).value();
}
template <class E> void take(tl::expected<void, E>&&) {}
template <class T, class E> T take(tl::expected<T, E>& r) {
  return std::move(r).value();
}
template <class E> void take(tl::expected<void, E>&) {}
} // namespace util::detail

/// Propagate the error of a Result-returning expression, yielding its value otherwise.
#define BERTH_TRY(expr)                                                                            \
  ({                                                                                               \
    auto&& berth_try_result_ = (expr);                                                             \
    if (!berth_try_result_) return tl::unexpected(std::move(berth_try_result_).error());           \
    ::util::detail::take(berth_try_result_);                                                       \
  })
