// Runs a pass over [0, count) cut into contiguous ranges, one per thread,
// the first on the calling thread: for passes over the protected data
// (checksums of every block) on CPUs that would otherwise idle while the
// application waits for its checkpoint.
#pragma once

#include <algorithm>
#include <cstddef>
#include <future>
#include <vector>

namespace mlckpt::core {

// fn(begin, end) for each range; `threads` is capped at `count`. Exceptions
// propagate once every range is done.
template <class Fn>
void for_ranges(std::size_t count, std::size_t threads, const Fn& fn) {
    threads = std::clamp<std::size_t>(threads, 1, std::max<std::size_t>(count, 1));
    const std::size_t per = count / threads;
    const std::size_t extra = count % threads;
    auto range_begin = [&](std::size_t t) { return t * per + std::min(t, extra); };
    std::vector<std::future<void>> others;
    for (std::size_t t = 1; t < threads; ++t) {
        others.push_back(
            std::async(std::launch::async, [&fn, b = range_begin(t), e = range_begin(t + 1)] { fn(b, e); }));
    }
    std::exception_ptr failure;
    try {
        fn(std::size_t{0}, range_begin(1));
    } catch (...) {
        failure = std::current_exception();
    }
    for (auto& f : others) {
        try {
            f.get();
        } catch (...) {
            if (!failure) failure = std::current_exception();
        }
    }
    if (failure) std::rethrow_exception(failure);
}

}  // namespace mlckpt::core
