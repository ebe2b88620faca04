// Run independent jobs side by side, as many at once as there are cores.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace util {

/// Call job(i) for every i in [0, count), on at most hardware_concurrency() threads; returns when
/// all are done. Jobs must not throw.
template <class Job> void parallel_for(size_t count, Job&& job) {
  if (count == 1) { // (no thread to start and wait for)
    job(size_t{0});
    return;
  }
  size_t threads_wanted =
      std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), count);
  std::atomic<size_t> next{0};
  std::vector<std::thread> threads;
  threads.reserve(threads_wanted);
  for (size_t t = 0; t < threads_wanted; ++t)
    threads.emplace_back([&] {
      for (size_t i = next++; i < count; i = next++)
        job(i);
    });
  for (auto& t : threads)
    t.join();
}

} // namespace util
