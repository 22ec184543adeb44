// The journal of an L4 differential checkpoint: its header, then the roll
// forward a restart does, applied to a scratch copy of a small file.
#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "common/error.hpp"
#include "format/dcp/redo_journal.hpp"
#include "input_file.hpp"

using namespace mlckpt::core;

namespace {

// No file of a run grows past this: a journal of a few KiB that makes the
// roll forward write more describes what no update of this file could be.
// The write then raises SIGXFSZ, which libFuzzer reports (and which fails
// the regression runner), instead of filling the disk.
constexpr rlim_t kLargestFile = rlim_t{64} << 20;
constexpr std::size_t kTargetBytes = 4096;

// roll_forward bounds a sealed journal's new size and records by what the
// file and the journal hold (the first finding here, now in
// regressions/redo_journal/): a write past the limit is a new finding.
bool limit_file_size() {
    rlimit limit{};
    if (::getrlimit(RLIMIT_FSIZE, &limit) != 0) return false;
    limit.rlim_cur = std::min(kLargestFile, limit.rlim_max);
    return ::setrlimit(RLIMIT_FSIZE, &limit) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const bool limited = limit_file_size();
    if (!limited) std::abort();
    static const std::vector<std::uint8_t> original = [] {
        std::vector<std::uint8_t> v(kTargetBytes);
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint8_t>(i * 7);
        return v;
    }();
    const fs::path journal = mlckpt::fuzz::write_input("data.fti.journal", data, size);
    const fs::path target = mlckpt::fuzz::write_input("data.fti", original.data(), original.size());
    try {
        redo_journal_seq(journal);
        roll_forward(journal, target);
    } catch (const Error&) {
        // The expected outcome for a damaged or unsealed journal.
    }
    return 0;
}
