// POSIX file access with RAII descriptors. Every failure throws an io Error
// that names the path, the operation and the system's reason.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>

namespace mlckpt::core {

namespace fs = std::filesystem;

class File {
  public:
    // A new file, write-only, mode 0644 (less the umask). A regular file or
    // a symbolic link at `path` (stale, or planted there) is unlinked first,
    // and the file is created exclusively, never through a link: the write
    // reaches no other file. A device is opened as it is.
    static File create(const fs::path& path);
    static File open_read(const fs::path& path);
    // Read-write, created if missing, never truncated; not through a
    // symbolic link.
    static File open_update(const fs::path& path);

    File(File&& other) noexcept;
    File& operator=(File&& other) noexcept;
    File(const File&) = delete;
    File& operator=(const File&) = delete;
    ~File();

    void write_all(std::span<const std::byte> data);
    void write_all_at(std::span<const std::byte> data, std::uint64_t offset);
    void resize(std::uint64_t size);  // ftruncate: grows with zeros
    // Reads exactly data.size() bytes at offset; a short file is an error.
    void read_exact_at(std::span<std::byte> data, std::uint64_t offset) const;
    std::uint64_t size() const;
    // Asks the kernel to start writing [offset, offset + length) to storage
    // now, without waiting: the disk works while the caller computes. Errors
    // are reported by the sync() that must follow.
    void start_writeback(std::uint64_t offset, std::uint64_t length) noexcept;
    void sync();   // fsync: the data is durable when this returns
    void close();  // checked close; the destructor closes silently

    const fs::path& path() const { return path_; }
    // A path that opens this very file (its descriptor under /proc), so that
    // a second descriptor never follows a name that may have changed.
    fs::path descriptor_path() const;
    // fchmod and fchown (as far as the caller may) from `like`'s mode and owner.
    void take_mode_and_owner(const fs::path& like) const;

  private:
    File(int fd, fs::path path) : fd_(fd), path_(std::move(path)) {}
    int fd_ = -1;
    fs::path path_;
};

// How write_overlapped hands the bytes to the kernel.
enum class WritePath {
    // Through the page cache, each piece's writeback started at once: the
    // disk works while the caller goes on (to the next level's transfers,
    // say) until the final sync.
    page_cache,
    // Around the page cache for ranges of 1 MiB or more (see
    // direct_writer.hpp): each piece is on the device when its write
    // returns, and the CPU the cache would take is left to the hashing.
    direct,
};

// Writes `data` at `offset` in pieces and hands each to `on_piece`
// (checksums), so that hashing overlaps the disk's work instead of following
// it. on_piece sees the pieces in order, one at a time, on a worker thread
// that goes at its own pace while the caller's thread writes (the bytes are
// in memory, so neither waits for the other): it must not touch what the
// caller's thread does.
void write_overlapped(File& file, std::uint64_t offset, std::span<const std::byte> data,
                      const std::function<void(std::span<const std::byte>)>& on_piece,
                      WritePath path = WritePath::page_cache);
// Reads `out.size()` bytes at `offset` in pieces, each handed to `on_piece`
// as above once it is read, while the reads go on ahead. ReadPath::direct
// reads ranges of 1 MiB or more around the page cache (direct_reader.hpp).
enum class ReadPath { page_cache, direct };
void read_overlapped(const File& file, std::uint64_t offset, std::span<std::byte> out,
                     const std::function<void(std::span<const std::byte>)>& on_piece,
                     ReadPath path = ReadPath::page_cache);

// mkdir -p; an existing directory is fine.
void make_dirs(const fs::path& dir);
// Creates the directory if needed and proves it writable by creating and
// removing a probe file (named with `unique_tag`, so that concurrent ranks do
// not collide). `role` names the directory in the error message
// (for instance "ckpt_dir").
void ensure_writable_dir(const fs::path& dir, std::string_view role, int unique_tag);
// fsync on a directory, so that renames and creations in it are durable.
void sync_dir(const fs::path& dir);
// rename(2) with a clear error.
void rename_path(const fs::path& from, const fs::path& to);
// Writes `content` to a temporary file next to `path`, syncs it and renames
// it over `path`: readers see either the old or the new content. Without
// `durable`, nothing is synced: a crash may lose the file, never tear it.
// With `like`, the new file takes that file's mode and owner (through its
// descriptor, before the rename).
void atomic_write_file(const fs::path& path, std::string_view content, bool durable = true, const fs::path& like = {});
std::string read_text_file(const fs::path& path);
// Best-effort removal; returns false (and leaves the tree) on failure.
bool remove_tree(const fs::path& path) noexcept;
bool remove_file(const fs::path& path) noexcept;
// Best-effort: removes `file`, then its directory if that left it empty.
void remove_file_and_empty_dir(const fs::path& file) noexcept;

}  // namespace mlckpt::core
