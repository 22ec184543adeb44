// Moving one file to another file system (staging, FTI_SendFile): the
// destination is complete or absent, never partial.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace mlckpt::core {

namespace fs = std::filesystem;

struct FileTransfer {
    fs::path from;  // a regular file (a link to one is followed)
    fs::path to;    // the destination; its directory must exist
    // Names the temporary file beside `to` (unique among the transfers that
    // may run at once into one directory: the requester's rank and request).
    std::string tag;
    std::size_t buffer_bytes = 16u << 20;
};

// The temporary name `transfer` writes before the rename.
fs::path transfer_temp_path(const FileTransfer& transfer);

// Copies `from` under the temporary name (created exclusively, never through
// a link planted there), syncs it, renames it over `to` and syncs the
// directory: once this returns, `to` is durable. On any failure the
// temporary file is removed and an io Error names the file and the system's
// reason (a full disk: "No space left on device"). `from` is left alone.
void copy_durably(const FileTransfer& transfer);

}  // namespace mlckpt::core
