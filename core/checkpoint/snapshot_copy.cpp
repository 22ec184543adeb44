#include "checkpoint/snapshot_copy.hpp"

#include <sys/mman.h>

#include <cstring>
#include <new>

#include "common/error.hpp"

namespace mlckpt::core {

namespace {

constexpr std::uint64_t kPage = 4096;

std::uint64_t page_rounded(std::uint64_t bytes) {
    return (bytes + kPage - 1) / kPage * kPage;
}

}  // namespace

SnapshotCopy::~SnapshotCopy() {
    if (region_ != nullptr) munmap(region_, size_);
}

std::uint64_t SnapshotCopy::footprint(const std::vector<Variable>& vars) {
    std::uint64_t total = 0;
    for (const Variable& v : vars) total += page_rounded(v.bytes());
    return total;
}

std::vector<Variable> SnapshotCopy::take(const std::vector<Variable>& vars) {
    const std::uint64_t needed = footprint(vars);
    if (needed > budget_) {
        fail(ErrorKind::usage, "an in-memory snapshot of " + std::to_string(needed) + " bytes exceeds the budget of " +
                                   std::to_string(budget_));
    }
    if (needed > size_) {
        // Anonymous memory: page-aligned for the direct writes, and given
        // back to the system whole when the session ends.
        void* grown = mmap(nullptr, needed, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (grown == MAP_FAILED) {
            fail(ErrorKind::io, "cannot allocate " + std::to_string(needed) + " bytes for the in-memory snapshot");
        }
        if (region_ != nullptr) munmap(region_, size_);
        region_ = static_cast<std::byte*>(grown);
        size_ = needed;
    }
    std::vector<Variable> copies;
    copies.reserve(vars.size());
    std::uint64_t at = 0;
    for (const Variable& v : vars) {
        Variable copy = v;
        copy.ptr = region_ + at;
        if (v.bytes() > 0) std::memcpy(copy.ptr, v.ptr, static_cast<std::size_t>(v.bytes()));
        copies.push_back(copy);
        at += page_rounded(v.bytes());
    }
    return copies;
}

}  // namespace mlckpt::core
