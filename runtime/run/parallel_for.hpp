#pragma once
// fn(0), ..., fn(n-1) on up to one thread per core (at least two), returning when all are done.
// For the independent per-rule-file work of `seam run`'s start: clang builds, object loads.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace seam::runtime {

inline void parallel_for(size_t n, const std::function<void(size_t)>& fn) {
  size_t threads = std::min<size_t>(n, std::max(2u, std::thread::hardware_concurrency()));
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (size_t i; (i = next.fetch_add(1)) < n;) fn(i);
    });
  for (std::thread& t : pool) t.join();
}

}  // namespace seam::runtime
