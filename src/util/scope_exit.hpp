// Run something when a scope is left, whichever way (a return, an error passed up): the undo of
// a half-done step written once, where the step begins, instead of before every early return.
#pragma once

#include <utility>

namespace util {

template <class F> class ScopeExit {
public:
  explicit ScopeExit(F f) : f_(std::move(f)) {}
  ScopeExit(ScopeExit&& other) noexcept
      : f_(std::move(other.f_)), armed_(std::exchange(other.armed_, false)) {}
  ScopeExit(const ScopeExit&) = delete;
  ScopeExit& operator=(const ScopeExit&) = delete;
  ScopeExit& operator=(ScopeExit&&) = delete;
  ~ScopeExit() {
    if (armed_) f_();
  }
  /// The scope's work is done: nothing runs when it is left.
  void release() { armed_ = false; }
  bool armed() const { return armed_; }

private:
  F f_;
  bool armed_ = true;
};

/// `auto undo = util::on_scope_exit([&] { ... });` ... `undo.release();` once it must stay.
template <class F> [[nodiscard]] ScopeExit<F> on_scope_exit(F f) {
  return ScopeExit<F>(std::move(f));
}

} // namespace util
