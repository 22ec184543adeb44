// POSIX file access with RAII descriptors. Every failure throws an io Error
// that names the path, the operation and the system's reason.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace mlckpt::core {

namespace fs = std::filesystem;

// The mode of every directory the library creates (checkpoint, metadata and
// execution directories, and a configured directory that does not exist):
// the owner has every right; the owner's group (an operator, a colleague of
// the project) may list, read and verify checkpoints, and copy them away,
// but not add, rename or remove an entry, which is what redirecting or
// replacing a checkpoint's files would take; others have no access. The
// umask may narrow it, never widen it (a umask of 0 or 002 gives 0750).
// FTI creates them 0777 less the umask, which a umask of 0 or 002 leaves
// writable by others or by the whole group.
inline constexpr unsigned kDirectoryMode = 0750;

// A directory opened once (O_DIRECTORY | O_CLOEXEC): files are created,
// renamed and removed relative to its descriptor (openat, renameat,
// unlinkat), so that once it is open, replacing the directory or one above
// it by a symbolic link redirects nothing. Copies share the descriptor,
// which the last of them closes. Names given to its functions are single
// components (no '/', not "." or ".."), never paths.
class Directory {
  public:
    Directory() = default;  // none: every operation fails
    // The directory at `path`, following symbolic links in it: a directory
    // the user named (ckpt_dir, glbl_dir, meta_dir, the configuration file's
    // or an output file's directory), which a site may make a link.
    static Directory open(const fs::path& path);
    // Subdirectory `name`, opened with O_NOFOLLOW: a symbolic link or
    // anything but a directory at the name is refused with an error naming
    // the path.
    Directory child(const std::string& name) const;
    // The same, created with kDirectoryMode if missing.
    Directory make_child(const std::string& name) const;

    const fs::path& path() const { return path_; }
    // The path of `name` in this directory, for messages.
    fs::path path_of(const std::string& name) const { return path_ / name; }
    int fd() const { return fd_ ? *fd_ : -1; }
    // `name` reached through this descriptor (/proc/self/fd/<fd>/name), for
    // APIs that take a path (HDF5): it resolves in this very directory, even
    // if the directory's path was changed since it was opened.
    fs::path descriptor_path_of(const std::string& name) const {
        return fs::path("/proc/self/fd") / std::to_string(fd()) / name;
    }

    // renameat: `from` in this directory becomes `to` in `target`.
    void rename(const std::string& from, const std::string& to) const { rename(from, *this, to); }
    void rename(const std::string& from, const Directory& target, const std::string& to) const;
    // unlinkat; true if `name` is gone (or was never there).
    bool remove(const std::string& name) const noexcept;
    // fsync, so that creations and renames in it are durable.
    void sync() const;

  private:
    Directory(int fd, fs::path path);
    std::shared_ptr<const int> fd_;
    fs::path path_;
};

// Creates `dir` and returns it open. `base` is a directory the user named
// (`dir` is `base` or below it): its missing components are created, and
// symbolic links in it are followed, as a site may make ckpt_dir a link to
// another file system. Every component below `base` is the library's own:
// created if missing, opened with O_NOFOLLOW, and a symbolic link or a
// non-directory there is refused with an error naming it. Every directory
// created has kDirectoryMode.
Directory make_dirs(const fs::path& base, const fs::path& dir);
// Creates `dir`, a directory an application named (scr.h's files in the
// prefix), as `mkdir -p` does: symbolic links in it are followed, they are
// the application's layout. Every directory created is synced into its
// parent. Returns it open.
Directory make_named_dirs(const fs::path& dir);
// Best-effort: removes `dir` (below `base`, as for make_dirs) if it is an
// empty directory; never through a symbolic link below `base`.
void remove_empty_dir(const fs::path& base, const fs::path& dir) noexcept;

class File {
  public:
    // A new file `name` in `dir`, write-only, mode 0644 (less the umask). A
    // regular file or a symbolic link at the name (stale, or planted there)
    // is unlinked first, and the file is created exclusively, never through
    // a link (openat with O_CREAT | O_EXCL | O_NOFOLLOW): the write reaches
    // no other file. A device is opened as it is.
    static File create(const Directory& dir, const std::string& name);
    // The same in the directory of `path`, opened as Directory::open does
    // (following links): for files the user names.
    static File create(const fs::path& path);
    static File open_read(const fs::path& path);
    // Read-only, not through a symbolic link: a file of the library's own.
    static File open_read(const Directory& dir, const std::string& name);
    // Read-write, created if missing, never truncated; not through a
    // symbolic link.
    static File open_update(const Directory& dir, const std::string& name);
    static File open_update(const fs::path& path);

    File(File&& other) noexcept;
    File& operator=(File&& other) noexcept;
    File(const File&) = delete;
    File& operator=(const File&) = delete;
    ~File();

    void write_all(std::span<const std::byte> data);
    void write_all_at(std::span<const std::byte> data, std::uint64_t offset);
    void resize(std::uint64_t size);  // ftruncate: grows with zeros
    // Allocates the storage of [0, length) (fallocate, growing the file to
    // it), so that no later write within it can meet a full disk. 0, or the
    // errno: EOPNOTSUPP where the file system cannot, ENOSPC when full.
    int reserve(std::uint64_t length) noexcept;
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

// Reads [from, from + length) of `in` in pieces of at most buffer.size()
// bytes, into `buffer`, handing each piece to `on_piece` in order.
void read_in_pieces(const File& in, std::uint64_t from, std::uint64_t length, std::span<std::byte> buffer,
                    const std::function<void(std::span<const std::byte>)>& on_piece);

// Creates `dir` as make_dirs(base, dir) does and proves it writable by
// creating and removing a probe file (named with `unique_tag`, so that
// concurrent ranks do not collide). `role` names the directory in the error
// message (for instance "ckpt_dir").
void ensure_writable_dir(const fs::path& base, const fs::path& dir, std::string_view role, int unique_tag);
// fsync on a directory, so that renames and creations in it are durable.
void sync_dir(const fs::path& dir);
// rename(2) with a clear error.
void rename_path(const fs::path& from, const fs::path& to);
// Writes `content` to a temporary file next to `name` in `dir`, syncs it
// and renames it over `name`: readers see either the old or the new
// content. Without `durable`, nothing is synced: a crash may lose the file,
// never tear it. With `like`, the new file takes that file's mode and owner
// (through its descriptor, before the rename).
void atomic_write_file(const Directory& dir, const std::string& name, std::string_view content, bool durable = true,
                       const fs::path& like = {});
// The same in the directory of `path`, opened as Directory::open does.
void atomic_write_file(const fs::path& path, std::string_view content, bool durable = true, const fs::path& like = {});
std::string read_text_file(const fs::path& path);
// Best-effort removal; returns false (and leaves the tree) on failure.
bool remove_tree(const fs::path& path) noexcept;
bool remove_file(const fs::path& path) noexcept;
// Best-effort: removes `file`, then its directory if that left it empty.
void remove_file_and_empty_dir(const fs::path& file) noexcept;

}  // namespace mlckpt::core
