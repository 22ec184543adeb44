// Checks of checkpoint files against their metadata, read with the core's
// own parsers (for the tests that look below the C API).
#pragma once

#include <gtest/gtest.h>

#include "format/checkpoint_meta.hpp"
#include "format/posix/posix_format.hpp"
#include "io/file.hpp"
#include "scenario.hpp"

namespace mlckpt::test {

// The size and CRC-32 recorded for this rank's file in the metadata of
// checkpoint `seq` at `level` are those of the file on disk.
inline void expect_recorded_size_and_crc(std::uint64_t seq, int level, const fs::path& file) {
    const std::string name = "ckpt" + std::to_string(seq) + ".l" + std::to_string(level) + ".meta";
    auto found = files_below(meta_dir(), [&](const fs::path& f) { return f.filename() == name; });
    ASSERT_EQ(found.size(), 1u) << name << " in " << meta_dir();
    const fs::path& meta_path = found.front();
    core::CheckpointMeta meta = core::parse_meta(core::read_text_file(meta_path), meta_path.string());
    const core::FileRecord& rec = meta.files.at(static_cast<std::size_t>(app_rank()));
    EXPECT_EQ(rec.file, file.filename().string());
    EXPECT_EQ(rec.size, fs::file_size(file)) << file;
    EXPECT_EQ(rec.crc32, core::crc32_of_file(file, 1 << 16)) << file;
}

}  // namespace mlckpt::test
