// BERTH_TRY: propagate the error of a Result-returning expression, yielding its value otherwise.
// A GNU statement expression (GCC and Clang), so it is kept out of the public headers: an embedder
// compiles include/berth/ with any C++20 compiler and never sees it.
#pragma once

#include "berth/error.hpp"

#include <utility>

namespace berth {

namespace detail {
template <class T, class E> T take(tl::expected<T, E>&& r) {
  return std::move(r).value();
}
template <class E> void take(tl::expected<void, E>&&) {}
template <class T, class E> T take(tl::expected<T, E>& r) {
  return std::move(r).value();
}
template <class E> void take(tl::expected<void, E>&) {}
} // namespace detail

} // namespace berth

/// Propagate the error of a Result-returning expression, yielding its value otherwise.
#define BERTH_TRY(expr)                                                                            \
  ({                                                                                               \
    auto&& berth_try_result_ = (expr);                                                             \
    if (!berth_try_result_) return tl::unexpected(std::move(berth_try_result_).error());           \
    ::berth::detail::take(berth_try_result_);                                                      \
  })
