// `mlckpt verify`'s checks of one file against its record, without MPI:
// what a restart checks before it reads, then every byte.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "format/checkpoint_meta.hpp"
#include "format/io_mode.hpp"
#include "verify_report.hpp"

namespace mlckpt::tools::verifying {

// Whether `path` is a regular file (its size then in `size`); what is wrong
// otherwise. Never opens it: a FIFO or a device is not read.
std::optional<Outcome> not_a_file(const fs::path& path, std::uint64_t& size);
// One rank's part of a file that is present with `size` bytes.
Outcome check_part(const fs::path& path, std::uint64_t size, const core::FileRecord& rec, core::IoMode io);
// An L4 differential file: its committed update may still wait in its
// journal (a crash while it was applied), which a restart applies; `note`
// gets what to say of a journal that is not part of it.
std::optional<Outcome> pending_update(const fs::path& path, std::uint64_t size, std::uint64_t seq, std::string& note);

}  // namespace mlckpt::tools::verifying
