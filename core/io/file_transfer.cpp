#include "io/file_transfer.hpp"

#include <algorithm>
#include <cstdint>
#include <system_error>
#include <vector>

#include "common/error.hpp"
#include "io/file.hpp"

namespace mlckpt::core {

fs::path transfer_temp_path(const FileTransfer& transfer) {
    // Hidden, beside the destination, so that the rename stays within one
    // file system and a listing of the directory does not show it.
    return transfer.to.parent_path() / ("." + transfer.to.filename().string() + ".stage-" + transfer.tag + ".tmp");
}

namespace {

void check_ends(const FileTransfer& t) {
    std::error_code ec;
    if (!fs::is_regular_file(t.from, ec)) {
        fail(ErrorKind::io,
             "'" + t.from.string() + "' is not a regular file" + (ec ? " (" + ec.message() + ")" : std::string()));
    }
    const fs::path dir = t.to.parent_path();
    if (!fs::is_directory(dir, ec)) {
        fail(ErrorKind::io, "the destination directory '" + dir.string() + "' does not exist");
    }
}

void copy_contents(const fs::path& from, File& out, std::size_t buffer_bytes) {
    File in = File::open_read(from);
    const std::uint64_t size = in.size();
    std::vector<std::byte> buffer(static_cast<std::size_t>(std::min<std::uint64_t>(size, buffer_bytes)));
    for (std::uint64_t pos = 0; pos < size;) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(size - pos, buffer.size()));
        std::span<std::byte> piece(buffer.data(), n);
        in.read_exact_at(piece, pos);
        out.write_all(piece);
        pos += n;
    }
}

}  // namespace

void copy_durably(const FileTransfer& t) {
    check_ends(t);
    const fs::path temp = transfer_temp_path(t);
    try {
        File out = File::create(temp);
        out.take_mode_and_owner(t.from);
        copy_contents(t.from, out, std::max<std::size_t>(t.buffer_bytes, 1));
        out.sync();
        out.close();
        rename_path(temp, t.to);
    } catch (...) {
        remove_file(temp);
        throw;
    }
    sync_dir(t.to.parent_path());
}

}  // namespace mlckpt::core
