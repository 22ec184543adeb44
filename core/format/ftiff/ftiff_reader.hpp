// Reader of FTI-FF files: the file checks itself (file block, block
// records, every chunk's MD5), so a damaged chunk is named by variable and
// offset; the metadata's record gives only the size.
#pragma once

#include <memory>

#include "format/checkpoint_reader.hpp"

namespace mlckpt::core {

std::unique_ptr<CheckpointReader> open_ftiff_reader(const fs::path& path, const FileRecord& record, DataWhere where);
void verify_ftiff_data(const fs::path& path, const FileRecord& record, std::size_t buffer_bytes);

}  // namespace mlckpt::core
