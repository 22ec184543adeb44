#include "io/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

#include "common/error.hpp"
#include "io/direct_reader.hpp"
#include "io/direct_writer.hpp"

namespace mlckpt::core {

namespace {

[[noreturn]] void fail_errno(const std::string& what, const fs::path& path, int err) {
    fail(ErrorKind::io, what + " '" + path.string() + "': " + std::strerror(err));
}

int open_or_throw(const fs::path& path, int flags, const char* what) {
    int fd;
    do {
        fd = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) fail_errno(what, path, errno);
    return fd;
}

// A name relative to a directory descriptor must be one component: a '/'
// would let openat resolve (and follow links) below it.
void check_name(const Directory& dir, const std::string& name) {
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
        fail(ErrorKind::usage, "'" + name + "' is not a file name in '" + dir.path().string() + "'");
    }
}

// openat, retried when interrupted; -1 with errno on failure.
int openat_retrying(const Directory& dir, const std::string& name, int flags) {
    int fd;
    do {
        fd = ::openat(dir.fd(), name.c_str(), flags | O_CLOEXEC, 0644);
    } while (fd < 0 && errno == EINTR);
    return fd;
}

int openat_or_throw(const Directory& dir, const std::string& name, int flags, const char* what) {
    check_name(dir, name);
    const int fd = openat_retrying(dir, name, flags);
    if (fd < 0) fail_errno(what, dir.path_of(name), errno);
    return fd;
}

// The directory of `path`, for a name in it that the user gave.
Directory parent_of(const fs::path& path) {
    return Directory::open(path.parent_path());
}

// A path without a trailing separator, "." and ".." resolved lexically.
fs::path trimmed(const fs::path& p) {
    fs::path n = p.lexically_normal();
    if (!n.has_filename() && n.has_relative_path()) n = n.parent_path();
    return n.empty() ? fs::path(".") : n;
}

// mkdir -p of a directory the user named: links in it are followed.
void make_user_dirs(const fs::path& dir) {
    fs::path prefix;
    for (const fs::path& part : dir) {
        prefix /= part;
        if (part == prefix.root_path() || part == "." || part == "..") continue;
        if (::mkdir(prefix.c_str(), kDirectoryMode) == 0) {
            Directory::open(prefix.parent_path()).sync();  // the new name durable, as in make_child
            continue;
        }
        if (errno == EEXIST) continue;
        const int err = errno;
        struct stat st {};
        if (::stat(prefix.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) continue;  // there, not ours to make
        fail_errno("cannot create directory", prefix, err);
    }
}

}  // namespace

Directory::Directory(int fd, fs::path path)
    : fd_(std::shared_ptr<const int>(new int(fd),
                                     [](const int* p) {
                                         ::close(*p);
                                         delete p;
                                     })),
      path_(std::move(path)) {}

Directory Directory::open(const fs::path& path) {
    // An empty path is the current directory, and names in it stay bare.
    const fs::path& name = path.empty() ? fs::path(".") : path;
    return Directory(open_or_throw(name, O_RDONLY | O_DIRECTORY, "cannot open directory"), path);
}

Directory Directory::make_child(const std::string& name) const {
    check_name(*this, name);
    // Opened first, created only when missing: on a parallel file system a
    // mkdir of an existing directory still goes to the metadata server,
    // once per rank when every rank makes the same checkpoint directory.
    const int existing = openat_retrying(*this, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    if (existing >= 0) return Directory(existing, path_of(name));
    if (errno == ENOENT) {
        if (::mkdirat(fd(), name.c_str(), kDirectoryMode) == 0) {
            // The new name is durable only once its parent is synced: after
            // a power cut, files committed in a directory whose creation was
            // not would vanish with it (docs/levels.md, "Power loss").
            sync();
        } else if (errno != EEXIST) {
            fail_errno("cannot create directory", path_of(name), errno);
        }
    }
    return child(name);  // names a link or a file, if that is what is there
}

Directory Directory::child(const std::string& name) const {
    check_name(*this, name);
    const fs::path path = path_of(name);
    const int child = openat_retrying(*this, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    if (child >= 0) return Directory(child, path);
    const int err = errno;
    struct stat st {};
    if (::fstatat(fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (S_ISLNK(st.st_mode)) {
            fail(ErrorKind::io, "refusing the directory '" + path.string() +
                                    "': it is a symbolic link, and mlckpt follows none below the directories "
                                    "the configuration names (remove it)");
        }
        if (!S_ISDIR(st.st_mode)) fail(ErrorKind::io, "'" + path.string() + "' exists but is not a directory");
    }
    fail_errno("cannot open directory", path, err);
}

void Directory::rename(const std::string& from, const Directory& target, const std::string& to) const {
    check_name(*this, from);
    check_name(target, to);
    if (::renameat(fd(), from.c_str(), target.fd(), to.c_str()) != 0) {
        fail(ErrorKind::io, "cannot rename '" + path_of(from).string() + "' to '" + target.path_of(to).string() +
                                "': " + std::strerror(errno));
    }
}

bool Directory::remove(const std::string& name) const noexcept {
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) return false;
    return ::unlinkat(fd(), name.c_str(), 0) == 0 || errno == ENOENT;
}

void Directory::sync() const {
    // Some file systems do not support fsync on directories; that is not an error.
    if (::fsync(fd()) != 0 && errno != EINVAL && errno != ENOTSUP) fail_errno("cannot sync directory", path_, errno);
}

Directory make_dirs(const fs::path& base, const fs::path& dir) {
    const fs::path top = trimmed(base);
    const fs::path below = trimmed(dir).lexically_relative(top);
    if (below.empty() || *below.begin() == "..") {
        fail(ErrorKind::usage, "'" + dir.string() + "' is not below '" + base.string() + "'");
    }
    // Opened first, made only when that fails (as make_child does): each
    // mkdir of an existing component would be a request to the metadata
    // server, by every rank.
    Directory d;
    try {
        d = Directory::open(top);
    } catch (const Error&) {
        make_user_dirs(top);
        d = Directory::open(top);
    }
    for (const fs::path& part : below) {
        if (part != ".") d = d.make_child(part.string());
    }
    return d;
}

Directory make_named_dirs(const fs::path& dir) {
    make_user_dirs(dir);
    return Directory::open(dir);
}

void remove_empty_dir(const fs::path& base, const fs::path& dir) noexcept {
    try {
        const fs::path top = trimmed(base);
        const fs::path below = trimmed(dir).lexically_relative(top);
        if (below.empty() || *below.begin() == ".." || below == ".") return;
        Directory parent = Directory::open(top);
        for (const fs::path& part : below.parent_path()) parent = parent.child(part.string());
        // AT_REMOVEDIR removes an empty directory, never a link or its target.
        ::unlinkat(parent.fd(), below.filename().c_str(), AT_REMOVEDIR);
    } catch (...) {
        // Best effort: a directory that cannot be opened is left.
    }
}

File File::create(const Directory& dir, const std::string& name) {
    // A regular file or a link at the name is replaced: a stale file, or a
    // link planted to redirect the write. A device (a test's /dev/full) is
    // opened as it is, never through a link.
    check_name(dir, name);
    // Nothing at the name, the usual case, costs one request: O_EXCL |
    // O_NOFOLLOW creates only where no entry is, not even a dangling link.
    const int fd = openat_retrying(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW);
    if (fd >= 0) return File(fd, dir.path_of(name));
    if (errno != EEXIST) fail_errno("cannot create", dir.path_of(name), errno);
    struct stat st {};
    if (::fstatat(dir.fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode) &&
        !S_ISLNK(st.st_mode) && !S_ISDIR(st.st_mode)) {
        return File(openat_or_throw(dir, name, O_WRONLY | O_NOFOLLOW, "cannot open"), dir.path_of(name));
    }
    if (::unlinkat(dir.fd(), name.c_str(), 0) != 0 && errno != ENOENT) {
        fail_errno("cannot replace", dir.path_of(name), errno);
    }
    return File(openat_or_throw(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, "cannot create"),
                dir.path_of(name));
}

File File::create(const fs::path& path) {
    return create(parent_of(path), path.filename().string());
}

File File::open_update(const Directory& dir, const std::string& name) {
    return File(openat_or_throw(dir, name, O_RDWR | O_CREAT | O_NOFOLLOW, "cannot open for update"), dir.path_of(name));
}

File File::open_update(const fs::path& path) {
    return open_update(parent_of(path), path.filename().string());
}

fs::path File::descriptor_path() const {
    return fs::path("/proc/self/fd") / std::to_string(fd_);
}

void File::take_mode_and_owner(const fs::path& like) const {
    struct stat st {};
    if (::stat(like.c_str(), &st) != 0) return;  // nothing to take
    if (::fchmod(fd_, st.st_mode & 07777) != 0) fail_errno("cannot set the mode of", path_, errno);
    if (::fchown(fd_, st.st_uid, st.st_gid) != 0) {
        // Only root may give a file away: the caller then owns it, as before.
    }
}

File File::open_read(const fs::path& path) {
    return File(open_or_throw(path, O_RDONLY, "cannot open"), path);
}

File File::open_read(const Directory& dir, const std::string& name) {
    return File(openat_or_throw(dir, name, O_RDONLY | O_NOFOLLOW, "cannot open"), dir.path_of(name));
}

File::File(File&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) {
    other.fd_ = -1;
}

File& File::operator=(File&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = other.fd_;
        path_ = std::move(other.path_);
        other.fd_ = -1;
    }
    return *this;
}

File::~File() {
    if (fd_ >= 0) ::close(fd_);
}

void File::write_all(std::span<const std::byte> data) {
    const std::byte* p = data.data();
    std::size_t left = data.size();
    while (left > 0) {
        ssize_t n = ::write(fd_, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail_errno("cannot write", path_, errno);
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
}

void File::write_all_at(std::span<const std::byte> data, std::uint64_t offset) {
    const std::byte* p = data.data();
    std::size_t left = data.size();
    auto pos = static_cast<off_t>(offset);
    while (left > 0) {
        ssize_t n = ::pwrite(fd_, p, left, pos);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail_errno("cannot write", path_, errno);
        }
        p += n;
        pos += n;
        left -= static_cast<std::size_t>(n);
    }
}

void File::resize(std::uint64_t size) {
    if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) fail_errno("cannot resize", path_, errno);
}

int File::reserve(std::uint64_t length) noexcept {
    while (::fallocate(fd_, 0, 0, static_cast<off_t>(length)) != 0) {
        if (errno != EINTR) return errno;
    }
    return 0;
}

void File::read_exact_at(std::span<std::byte> data, std::uint64_t offset) const {
    std::byte* p = data.data();
    std::size_t left = data.size();
    auto pos = static_cast<off_t>(offset);
    while (left > 0) {
        ssize_t n = ::pread(fd_, p, left, pos);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail_errno("cannot read", path_, errno);
        }
        if (n == 0) {
            fail(Damage::size, "file '" + path_.string() + "' is truncated: expected " +
                                   std::to_string(offset + data.size()) + " bytes, it ends at " + std::to_string(pos));
        }
        p += n;
        pos += n;
        left -= static_cast<std::size_t>(n);
    }
}

std::uint64_t File::size() const {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) fail_errno("cannot stat", path_, errno);
    return static_cast<std::uint64_t>(st.st_size);
}

void File::start_writeback(std::uint64_t offset, std::uint64_t length) noexcept {
    if (length > 0) {
        ::sync_file_range(fd_, static_cast<off64_t>(offset), static_cast<off64_t>(length), SYNC_FILE_RANGE_WRITE);
    }
}

namespace {

constexpr std::size_t kPiece = std::size_t{8} << 20;

// Reads: the hash follows the reads, so the first piece's read and the last
// piece's hash overlap nothing. A 32nd of the range keeps that to a few
// percent (64 MiB: 2 MiB pieces, 8 % faster at one rank than 8 MiB), within
// 1 MiB (smaller direct reads slow the disk) and 8 MiB.
std::size_t read_piece(std::size_t size) {
    constexpr std::size_t kMiB = std::size_t{1} << 20;
    const std::size_t piece = (size / 32 + kMiB - 1) / kMiB * kMiB;
    return std::clamp(piece, kMiB, kPiece);
}
constexpr std::size_t kDirectMin = std::size_t{1} << 20;  // smaller ranges: not worth a direct descriptor

// When the worker of `pipelined` may take a piece.
enum class PieceOrder {
    independent,  // the bytes are in memory already (writes): the worker runs at its own pace
    after_io,     // the bytes arrive with io (reads): the worker follows it
};

// Cuts `size` bytes into pieces and runs io(pos, length) on each in order on
// the calling thread, and on_piece(pos, length) on each in order on one
// worker thread, so that a rank with a free core hashes while the disk
// works. Neither waits for the other piece by piece: the whole takes the
// longer of the two, not the sum of each piece's longer. The calls of
// on_piece never overlap one another. A failure on either side stops both
// and is rethrown here, io's first.
void pipelined(std::size_t size, std::size_t piece, PieceOrder order,
               const std::function<void(std::size_t, std::size_t)>& io,
               const std::function<void(std::size_t, std::size_t)>& on_piece) {
    if (size <= piece) {  // one piece: nothing to overlap, no thread
        io(0, size);
        on_piece(0, size);
        return;
    }
    std::mutex mutex;
    std::condition_variable progress;
    std::size_t done = 0;  // bytes io has finished
    bool stop = false;
    std::exception_ptr worker_failure;
    std::thread worker([&] {
        try {
            for (std::size_t pos = 0; pos < size; pos += piece) {
                const std::size_t n = std::min(piece, size - pos);
                {
                    std::unique_lock lock(mutex);
                    progress.wait(lock, [&] { return stop || order == PieceOrder::independent || done >= pos + n; });
                    if (stop) return;
                }
                on_piece(pos, n);
            }
        } catch (...) {
            std::lock_guard lock(mutex);
            worker_failure = std::current_exception();
            stop = true;
        }
    });
    std::exception_ptr io_failure;
    try {
        for (std::size_t pos = 0; pos < size; pos += piece) {
            const std::size_t n = std::min(piece, size - pos);
            {
                std::lock_guard lock(mutex);
                if (stop) break;
            }
            io(pos, n);
            {
                std::lock_guard lock(mutex);
                done = pos + n;
            }
            progress.notify_one();
        }
    } catch (...) {
        io_failure = std::current_exception();
        {
            std::lock_guard lock(mutex);
            stop = true;
        }
        progress.notify_one();
    }
    worker.join();
    if (io_failure) std::rethrow_exception(io_failure);
    if (worker_failure) std::rethrow_exception(worker_failure);
}

}  // namespace

void write_overlapped(File& file, std::uint64_t offset, std::span<const std::byte> data,
                      const std::function<void(std::span<const std::byte>)>& on_piece, WritePath path) {
    std::optional<DirectWriter> direct;
    if (path == WritePath::direct && data.size() >= kDirectMin) direct.emplace(file, kPiece);
    pipelined(
        data.size(), kPiece, PieceOrder::independent,
        [&](std::size_t pos, std::size_t n) {
            if (direct && direct->direct()) {
                direct->write_at(data.subspan(pos, n), offset + pos);
                return;
            }
            file.write_all_at(data.subspan(pos, n), offset + pos);
            file.start_writeback(offset + pos, n);
        },
        [&](std::size_t pos, std::size_t n) { on_piece(data.subspan(pos, n)); });
}

void read_overlapped(const File& file, std::uint64_t offset, std::span<std::byte> out,
                     const std::function<void(std::span<const std::byte>)>& on_piece, ReadPath path) {
    std::optional<DirectReader> direct;
    const std::size_t piece = read_piece(out.size());
    if (path == ReadPath::direct && out.size() >= kDirectMin) direct.emplace(file, piece);
    pipelined(
        out.size(), piece, PieceOrder::after_io,
        [&](std::size_t pos, std::size_t n) {
            if (direct) {
                direct->read_at(out.subspan(pos, n), offset + pos);
            } else {
                file.read_exact_at(out.subspan(pos, n), offset + pos);
            }
        },
        [&](std::size_t pos, std::size_t n) { on_piece(out.subspan(pos, n)); });
}

void File::sync() {
    if (::fsync(fd_) != 0) fail_errno("cannot sync", path_, errno);
}

void File::close() {
    int fd = fd_;
    fd_ = -1;
    if (fd >= 0 && ::close(fd) != 0) fail_errno("cannot close", path_, errno);
}

void ensure_writable_dir(const fs::path& base, const fs::path& dir, std::string_view role, int unique_tag) {
    try {
        Directory d = make_dirs(base, dir);
        const std::string probe = ".mlckpt-probe-" + std::to_string(::getpid()) + "-" + std::to_string(unique_tag);
        File f = File::create(d, probe);
        f.close();
        d.remove(probe);
    } catch (const Error& e) {
        fail(ErrorKind::config, std::string(role) + " is not a writable directory: " + e.what());
    }
}

void sync_dir(const fs::path& dir) {
    int fd = open_or_throw(dir, O_RDONLY | O_DIRECTORY, "cannot open directory");
    int rc = ::fsync(fd);
    int err = errno;
    ::close(fd);
    // Some file systems do not support fsync on directories; that is not an error.
    if (rc != 0 && err != EINVAL && err != ENOTSUP) fail_errno("cannot sync directory", dir, err);
}

void rename_path(const fs::path& from, const fs::path& to) {
    if (::rename(from.c_str(), to.c_str()) != 0) {
        fail(ErrorKind::io, "cannot rename '" + from.string() + "' to '" + to.string() + "': " + std::strerror(errno));
    }
}

void atomic_write_file(const Directory& dir, const std::string& name, std::string_view content, bool durable,
                       const fs::path& like) {
    const std::string tmp = name + ".tmp." + std::to_string(::getpid());
    try {
        File f = File::create(dir, tmp);
        if (!like.empty()) f.take_mode_and_owner(like);
        f.write_all(std::as_bytes(std::span(content.data(), content.size())));
        if (durable) f.sync();
        f.close();
        dir.rename(tmp, name);
    } catch (...) {
        dir.remove(tmp);
        throw;
    }
    if (durable) dir.sync();
}

void atomic_write_file(const fs::path& path, std::string_view content, bool durable, const fs::path& like) {
    atomic_write_file(parent_of(path), path.filename().string(), content, durable, like);
}

std::string read_text_file(const fs::path& path) {
    File f = File::open_read(path);
    std::string text(f.size(), '\0');
    f.read_exact_at(std::as_writable_bytes(std::span(text.data(), text.size())), 0);
    return text;
}

bool remove_tree(const fs::path& path) noexcept {
    std::error_code ec;
    fs::remove_all(path, ec);
    return !ec;
}

bool remove_file(const fs::path& path) noexcept {
    return ::unlink(path.c_str()) == 0 || errno == ENOENT;
}

void remove_file_and_empty_dir(const fs::path& file) noexcept {
    remove_file(file);
    ::rmdir(file.parent_path().c_str());
}

void read_in_pieces(const File& in, std::uint64_t from, std::uint64_t length, std::span<std::byte> buffer,
                    const std::function<void(std::span<const std::byte>)>& on_piece) {
    for (std::uint64_t pos = 0; pos < length;) {
        auto n = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), length - pos));
        std::span<std::byte> piece(buffer.data(), n);
        in.read_exact_at(piece, from + pos);
        on_piece(piece);
        pos += n;
    }
}

}  // namespace mlckpt::core
