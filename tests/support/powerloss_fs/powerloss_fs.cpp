#include "powerloss_fs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <vector>

#include "torn_write.hpp"

namespace powerloss {

PowerLossFs::PowerLossFs(int root, Settings chosen)
    : root_fd(root),
      settings(std::move(chosen)),
      journal(root, ".powerloss.trash." + std::to_string(getpid())),
      nodes(settings.mountpoint) {}

namespace {

constexpr const char* control_path = "/.powerloss";
constexpr const char* reserved_prefix = "/.powerloss";  // the control file, the trash folders

// What a FUSE file handle (fuse_file_info::fh) points to.
struct Handle {
    int fd = -1;
    bool control = false;
    bool sync_writes = false;  // opened O_SYNC or O_DSYNC
    bool append = false;
    DIR* dir = nullptr;
    bool root_dir = false;  // its listing leaves out the reserved names
    std::string status;     // of the control file, taken at each read from offset 0
};

PowerLossFs& fs() {
    return *static_cast<PowerLossFs*>(fuse_get_context()->private_data);
}
Handle* handle_of(const fuse_file_info* fi) {
    return reinterpret_cast<Handle*>(fi->fh);
}
bool strict() {
    return fs().settings.model == Model::strict;
}

bool is_control(const char* path) {
    return path != nullptr && std::strcmp(path, control_path) == 0;
}
// The names at the root that the mount does not show.
bool is_reserved(const char* path) {
    return path != nullptr && std::strncmp(path, reserved_prefix, std::strlen(reserved_prefix)) == 0 &&
           std::strchr(path + 1, '/') == nullptr;
}
bool reserved_or_inside(const char* path) {
    if (path == nullptr) return false;
    std::string first = path;
    auto slash = first.find('/', 1);
    if (slash != std::string::npos) first.resize(slash);
    return is_reserved(first.c_str());
}

// The backing path, relative to the backing folder.
std::string backing(const char* path) {
    return path[1] == '\0' ? std::string(".") : std::string(path + 1);
}

int errno_result(int rc) {
    return rc == 0 ? 0 : -errno;
}

// The node of the calling process (-1: none; NodeMap).
int caller_node() {
    return fs().nodes.node_of_thread(fuse_get_context()->pid).value_or(-1);
}

// -EIO when the caller has no power: the whole mount is frozen, or its node is down.
int unpowered() {
    if (fs().power.frozen()) return -EIO;
    const auto down = fs().power.node_down();
    return down && caller_node() == *down ? -EIO : 0;
}

void cut_node(PowerLossFs& state, const NodeCut& cut);

// After an operation that changed durable state: counted, and the freeze
// (or one node's cut) comes when it is the armed one. Any operation but a
// write ends the window in which a cut tears the last write.
void counted(bool was_write = false) {
    if (!was_write) fs().last_write.reset();
    fs().power.count_operation();
    if (auto cut = fs().power.take_due_node_cut()) cut_node(fs(), *cut);
}

int stat_of(const char* path, const fuse_file_info* fi, struct stat& st) {
    if (fi != nullptr && handle_of(fi)->fd >= 0) return errno_result(fstat(handle_of(fi)->fd, &st));
    if (path == nullptr) return -EBADF;
    return errno_result(fstatat(fs().root_fd, backing(path).c_str(), &st, AT_SYMLINK_NOFOLLOW));
}

// The pending state of a file, started on its first change with a
// read-write descriptor of its own (the handle's may be read-only or closed
// before the data is synced).
int pending_of(const char* path, const fuse_file_info* fi, PendingFile*& file) {
    struct stat st {};
    if (int rc = stat_of(path, fi, st); rc != 0) return rc;
    if (!S_ISREG(st.st_mode)) return -EINVAL;
    const FileKey key = key_of(st);
    if ((file = fs().pending.find(key)) != nullptr) return 0;
    int fd;
    if (fi != nullptr && handle_of(fi)->fd >= 0) {
        const std::string reopen = "/proc/self/fd/" + std::to_string(handle_of(fi)->fd);
        fd = open(reopen.c_str(), O_RDWR | O_CLOEXEC);
    } else {
        fd = openat(fs().root_fd, backing(path).c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    }
    if (fd < 0) return -errno;
    file = &fs().pending.add(key, fd);
    return 0;
}

void fill_control_stat(struct stat& st) {
    st = {};
    st.st_mode = S_IFREG | 0666;
    st.st_nlink = 1;
    st.st_uid = getuid();
    st.st_gid = getgid();
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    st.st_atim = st.st_mtim = st.st_ctim = now;
}

// --- the control file --------------------------------------------------

void cut(PowerLossFs& state) {
    if (state.settings.torn && state.last_write) {
        const auto& torn = *state.last_write;
        const std::size_t kept = torn_prefix_length(torn.offset, torn.data.size(), state.settings.seed);
        if (PendingFile* file = state.pending.find(torn.file))
            file->write_through(torn.offset, std::span(torn.data.data(), kept));
    }
    state.pending.forget_all();
    if (state.settings.model == Model::strict) state.journal.undo_all();
    state.last_write.reset();
    state.power.power_on();
}

// The files below `dir` (a backing path), which a node's cut forgets.
void collect_files(int root_fd, const std::string& dir, std::vector<FileKey>& keys) {
    int fd = openat(root_fd, dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    DIR* listing = fdopendir(fd);
    if (listing == nullptr) {
        close(fd);
        return;
    }
    while (dirent* entry = readdir(listing)) {
        if (std::strcmp(entry->d_name, ".") == 0 || std::strcmp(entry->d_name, "..") == 0) continue;
        struct stat st {};
        const std::string path = dir + "/" + entry->d_name;
        if (fstatat(root_fd, path.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        if (S_ISDIR(st.st_mode))
            collect_files(root_fd, path, keys);
        else if (S_ISREG(st.st_mode))
            keys.push_back(key_of(st));
    }
    closedir(listing);
}

// One node's power cut, at the armed operation: its processes stop before
// this operation returns (a node without power runs nothing more), its own
// storage loses what a cut loses, and its writes to the shared storage that
// were not synced are lost; its directory operations there stay (the
// shared storage's servers did them). The other nodes go on.
void cut_node(PowerLossFs& state, const NodeCut& cut) {
    for (pid_t pid : state.nodes.processes_on(cut.node)) kill(pid, SIGSTOP);
    std::vector<FileKey> own;
    collect_files(state.root_fd, cut.storage, own);
    for (const FileKey& key : own) state.pending.forget(key);
    state.pending.forget_writes_of(cut.node);
    if (state.settings.model == Model::strict) state.journal.undo_under(cut.storage);
    state.last_write.reset();
}

int run_control(std::string_view text) {
    auto commands = parse_commands(text);
    if (!commands) return -EINVAL;
    PowerLossFs& state = fs();
    for (const Command& command : *commands) {
        switch (command.kind) {
            case Command::Kind::cut:
                cut(state);
                break;
            case Command::Kind::arm:
                state.power.arm(command.count);
                break;
            case Command::Kind::arm_node:
                state.power.arm_node(command.count, NodeCut{command.node, command.storage});
                break;
            case Command::Kind::node_size:
                state.nodes.set_ranks_per_node(static_cast<int>(command.count));
                state.nodes.forget_processes();
                break;
            case Command::Kind::disarm:
                state.power.disarm();
                break;
            case Command::Kind::freeze:
                state.power.freeze();
                break;
            case Command::Kind::reset:
                state.power.reset_count();
                state.nodes.forget_processes();  // a new launch: process ids are reused
                break;
            case Command::Kind::sync:
                // What sync(2) would do on a local disk, which FUSE does not pass on.
                if (state.power.frozen()) return -EIO;
                if (int rc = state.pending.make_all_durable(); rc != 0) return rc;
                state.journal.make_all_durable();
                state.last_write.reset();
                break;
        }
    }
    return 0;
}

std::string control_status() {
    PowerLossFs& state = fs();
    return state.power.status({state.pending.pending_bytes(), state.journal.size()},
                              state.settings.model == Model::strict ? "strict" : "data", state.settings.label);
}

// --- the operations ------------------------------------------------------

#define LOCKED_AND_POWERED                        \
    std::lock_guard<std::mutex> lock(fs().mutex); \
    if (int unpowered_rc = unpowered(); unpowered_rc != 0) return unpowered_rc

void* op_init(fuse_conn_info* conn, fuse_config* cfg) {
    // Every write() reaches this process before it returns (no writeback
    // cache), so that each one is counted and can be the last before a cut.
    conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
    // Nothing cached in the kernel outlives a cut: attributes and names are
    // asked each time, and a file's pages are dropped at each open.
    cfg->entry_timeout = 0;
    cfg->attr_timeout = 0;
    cfg->negative_timeout = 0;
    cfg->kernel_cache = 0;
    cfg->auto_cache = 0;
    cfg->direct_io = 0;  // the page cache stays: mmap needs it
    cfg->use_ino = 0;
    // An unlinked file that is still open stays reachable through its
    // handle (no .fuse_hidden renames in the backing folder).
    cfg->hard_remove = 1;
    cfg->nullpath_ok = 1;
    PowerLossFs& state = fs();
    if (state.settings.model == Model::strict && state.journal.prepare() != 0)
        std::fprintf(stderr, "mlckpt_powerloss_fs: cannot make the trash folder: %s\n", std::strerror(errno));
    return &state;
}

void op_destroy(void* private_data) {
    // A clean unmount is a clean shutdown: what is pending is written out.
    // Frozen, the power is off: the unmount finds what a cut leaves.
    PowerLossFs& state = *static_cast<PowerLossFs*>(private_data);
    std::lock_guard<std::mutex> lock(state.mutex);
    if (state.power.frozen())
        cut(state);
    else
        state.pending.make_all_durable();
    state.pending.forget_all();
    state.journal.finish();
}

int op_getattr(const char* path, struct stat* st, fuse_file_info* fi) {
    std::lock_guard<std::mutex> lock(fs().mutex);
    if (is_control(path)) {
        fill_control_stat(*st);
        return 0;
    }
    // The root stays visible while frozen, so that the control file can be reached.
    const bool root = path != nullptr && std::strcmp(path, "/") == 0;
    if (!root)
        if (int rc = unpowered(); rc != 0) return rc;
    if (reserved_or_inside(path)) return -ENOENT;
    if (int rc = stat_of(path, fi, *st); rc != 0) return rc;
    if (S_ISREG(st->st_mode))
        if (PendingFile* file = fs().pending.find(key_of(*st))) {
            st->st_size = file->size();
            st->st_blocks = std::max<blkcnt_t>(st->st_blocks, (file->size() + 511) / 512);
        }
    return 0;
}

int op_access(const char* path, int mask) {
    if (is_control(path)) return 0;
    LOCKED_AND_POWERED;
    if (reserved_or_inside(path)) return -ENOENT;
    return errno_result(faccessat(fs().root_fd, backing(path).c_str(), mask, 0));
}

int op_readlink(const char* path, char* buffer, size_t size) {
    LOCKED_AND_POWERED;
    if (reserved_or_inside(path)) return -ENOENT;
    ssize_t n = readlinkat(fs().root_fd, backing(path).c_str(), buffer, size - 1);
    if (n < 0) return -errno;
    buffer[n] = '\0';
    return 0;
}

int refuse_reserved_name(const char* path) {
    return is_control(path) ? -EEXIST : -EPERM;
}

int op_mkdir(const char* path, mode_t mode) {
    LOCKED_AND_POWERED;
    if (reserved_or_inside(path)) return refuse_reserved_name(path);
    const std::string name = backing(path);
    if (mkdirat(fs().root_fd, name.c_str(), mode) != 0) return -errno;
    if (strict()) fs().journal.record_created(name, true);
    counted();
    return 0;
}

int op_symlink(const char* target, const char* path) {
    LOCKED_AND_POWERED;
    if (reserved_or_inside(path)) return refuse_reserved_name(path);
    const std::string name = backing(path);
    if (symlinkat(target, fs().root_fd, name.c_str()) != 0) return -errno;
    if (strict()) fs().journal.record_created(name, false);
    counted();
    return 0;
}

int op_link(const char* from, const char* to) {
    LOCKED_AND_POWERED;
    if (reserved_or_inside(from)) return -ENOENT;
    if (reserved_or_inside(to)) return refuse_reserved_name(to);
    const std::string name = backing(to);
    if (linkat(fs().root_fd, backing(from).c_str(), fs().root_fd, name.c_str(), 0) != 0) return -errno;
    if (strict()) fs().journal.record_created(name, false);
    counted();
    return 0;
}

int op_unlink(const char* path) {
    LOCKED_AND_POWERED;
    if (reserved_or_inside(path)) return is_control(path) ? -EPERM : -ENOENT;
    const std::string name = backing(path);
    int rc = strict() ? fs().journal.unlink(name) : errno_result(unlinkat(fs().root_fd, name.c_str(), 0));
    if (rc == 0) counted();
    return rc;
}

int op_rmdir(const char* path) {
    LOCKED_AND_POWERED;
    if (reserved_or_inside(path)) return -ENOENT;
    const std::string name = backing(path);
    int rc = strict() ? fs().journal.rmdir(name) : errno_result(unlinkat(fs().root_fd, name.c_str(), AT_REMOVEDIR));
    if (rc == 0) counted();
    return rc;
}

int op_rename(const char* from, const char* to, unsigned int flags) {
    LOCKED_AND_POWERED;
    if (flags & ~static_cast<unsigned int>(RENAME_NOREPLACE)) return -EINVAL;  // RENAME_EXCHANGE, _WHITEOUT
    if (reserved_or_inside(from)) return is_control(from) ? -EPERM : -ENOENT;
    if (reserved_or_inside(to)) return -EPERM;
    const std::string source = backing(from), target = backing(to);
    int rc = strict() ? fs().journal.rename(source, target, flags)
                      : errno_result(renameat2(fs().root_fd, source.c_str(), fs().root_fd, target.c_str(), flags));
    if (rc == 0) counted();
    return rc;
}

int op_chmod(const char* path, mode_t mode, fuse_file_info* fi) {
    if (is_control(path)) return -EPERM;
    LOCKED_AND_POWERED;
    if (reserved_or_inside(path)) return -ENOENT;
    if (fi != nullptr) return errno_result(fchmod(handle_of(fi)->fd, mode));
    return errno_result(fchmodat(fs().root_fd, backing(path).c_str(), mode, 0));
}

int op_chown(const char* path, uid_t uid, gid_t gid, fuse_file_info* fi) {
    if (is_control(path)) return -EPERM;
    LOCKED_AND_POWERED;
    if (reserved_or_inside(path)) return -ENOENT;
    if (fi != nullptr) return errno_result(fchown(handle_of(fi)->fd, uid, gid));
    return errno_result(fchownat(fs().root_fd, backing(path).c_str(), uid, gid, AT_SYMLINK_NOFOLLOW));
}

int op_utimens(const char* path, const timespec times[2], fuse_file_info* fi) {
    if (is_control(path)) return 0;
    LOCKED_AND_POWERED;
    if (reserved_or_inside(path)) return -ENOENT;
    if (fi != nullptr) return errno_result(futimens(handle_of(fi)->fd, times));
    return errno_result(utimensat(fs().root_fd, backing(path).c_str(), times, AT_SYMLINK_NOFOLLOW));
}

int truncate_locked(const char* path, off_t size, fuse_file_info* fi) {
    PendingFile* file = nullptr;
    if (int rc = pending_of(path, fi, file); rc != 0) return rc;
    file->truncate(size);
    counted();
    return 0;
}

int op_truncate(const char* path, off_t size, fuse_file_info* fi) {
    if (is_control(path)) return 0;
    LOCKED_AND_POWERED;
    if (reserved_or_inside(path)) return -ENOENT;
    if (size < 0) return -EINVAL;
    return truncate_locked(path, size, fi);
}

// The descriptor of the backing file for a handle: no O_TRUNC (a pending
// truncate instead), no O_APPEND (the end is the pending size), no O_SYNC
// (each write is synced here).
int open_backing(const char* path, fuse_file_info* fi, int extra_flags, mode_t mode) {
    const int flags = (fi->flags & (O_ACCMODE | O_NOFOLLOW | O_NOATIME)) | O_CLOEXEC | extra_flags;
    return openat(fs().root_fd, backing(path).c_str(), flags, mode);
}

int finish_open(const char* path, fuse_file_info* fi, int fd, bool existed) {
    auto* handle = new Handle;
    handle->fd = fd;
    handle->sync_writes = (fi->flags & (O_SYNC | O_DSYNC)) != 0;
    handle->append = (fi->flags & O_APPEND) != 0;
    fi->fh = reinterpret_cast<uint64_t>(handle);
    if (existed && (fi->flags & O_TRUNC) && (fi->flags & O_ACCMODE) != O_RDONLY)
        if (int rc = truncate_locked(path, 0, fi); rc != 0) {
            close(fd);
            delete handle;
            return rc;
        }
    return 0;
}

int op_open(const char* path, fuse_file_info* fi) {
    if (is_control(path)) {
        std::lock_guard<std::mutex> lock(fs().mutex);
        auto* handle = new Handle;
        handle->control = true;
        fi->fh = reinterpret_cast<uint64_t>(handle);
        fi->direct_io = 1;  // its size says 0: every read and write must come here
        return 0;
    }
    LOCKED_AND_POWERED;
    if (reserved_or_inside(path)) return -ENOENT;
    // Refused as file systems without direct I/O refuse it; callers fall back.
    if (fi->flags & O_DIRECT) return -EINVAL;
    int fd = open_backing(path, fi, 0, 0);
    if (fd < 0) return -errno;
    return finish_open(path, fi, fd, true);
}

int op_create(const char* path, mode_t mode, fuse_file_info* fi) {
    LOCKED_AND_POWERED;
    if (reserved_or_inside(path)) return refuse_reserved_name(path);
    if (fi->flags & O_DIRECT) return -EINVAL;
    int fd = open_backing(path, fi, O_CREAT | O_EXCL, mode);
    if (fd < 0 && errno == EEXIST && !(fi->flags & O_EXCL)) {
        fd = open_backing(path, fi, 0, 0);
        if (fd < 0) return -errno;
        return finish_open(path, fi, fd, true);
    }
    if (fd < 0) return -errno;
    if (strict()) fs().journal.record_created(backing(path), false);
    counted();
    return finish_open(path, fi, fd, false);
}

int op_read(const char*, char* buffer, size_t size, off_t offset, fuse_file_info* fi) {
    Handle* handle = handle_of(fi);
    if (handle->control) {
        std::lock_guard<std::mutex> lock(fs().mutex);
        if (offset == 0) handle->status = control_status();
        if (static_cast<size_t>(offset) >= handle->status.size()) return 0;
        const size_t n = std::min(size, handle->status.size() - static_cast<size_t>(offset));
        std::memcpy(buffer, handle->status.data() + offset, n);
        return static_cast<int>(n);
    }
    LOCKED_AND_POWERED;
    struct stat st {};
    if (fstat(handle->fd, &st) != 0) return -errno;
    if (PendingFile* file = fs().pending.find(key_of(st)))
        return static_cast<int>(file->read(offset, std::span(buffer, size)));
    ssize_t n = pread(handle->fd, buffer, size, offset);
    return n < 0 ? -errno : static_cast<int>(n);
}

int op_write(const char* path, const char* buffer, size_t size, off_t offset, fuse_file_info* fi) {
    Handle* handle = handle_of(fi);
    if (handle->control) {
        std::lock_guard<std::mutex> lock(fs().mutex);
        int rc = run_control(std::string_view(buffer, size));
        return rc != 0 ? rc : static_cast<int>(size);
    }
    LOCKED_AND_POWERED;
    PendingFile* file = nullptr;
    if (int rc = pending_of(path, fi, file); rc != 0) return rc;
    if (handle->append) offset = file->size();
    file->write(offset, std::span(buffer, size), caller_node());
    struct stat st {};
    fstat(handle->fd, &st);
    if (handle->sync_writes) {
        if (int rc = fs().pending.make_durable(key_of(st), false); rc != 0) return rc;
        counted();
    } else {
        fs().last_write = PowerLossFs::LastWrite{key_of(st), offset, std::string(buffer, size)};
        counted(true);
    }
    return static_cast<int>(size);
}

int op_fallocate(const char* path, int mode, off_t offset, off_t length, fuse_file_info* fi) {
    LOCKED_AND_POWERED;
    if (mode == FALLOC_FL_KEEP_SIZE) return 0;  // reserves blocks: nothing this file system shows
    if (mode != 0) return -EOPNOTSUPP;
    PendingFile* file = nullptr;
    if (int rc = pending_of(path, fi, file); rc != 0) return rc;
    if (offset + length > file->size()) file->truncate(offset + length);
    counted();
    return 0;
}

int op_statfs(const char*, struct statvfs* st) {
    LOCKED_AND_POWERED;
    return errno_result(fstatvfs(fs().root_fd, st));
}

int op_flush(const char*, fuse_file_info* fi) {
    if (handle_of(fi)->control) return 0;
    LOCKED_AND_POWERED;
    return 0;  // a close makes nothing durable
}

int op_release(const char*, fuse_file_info* fi) {
    std::lock_guard<std::mutex> lock(fs().mutex);
    Handle* handle = handle_of(fi);
    if (handle->fd >= 0) close(handle->fd);
    delete handle;
    return 0;
}

int op_fsync(const char*, int datasync, fuse_file_info* fi) {
    Handle* handle = handle_of(fi);
    if (handle->control) return 0;
    LOCKED_AND_POWERED;
    struct stat st {};
    if (fstat(handle->fd, &st) != 0) return -errno;
    const FileKey key = key_of(st);
    if (fs().pending.find(key) != nullptr) {
        if (int rc = fs().pending.make_durable(key, datasync != 0); rc != 0) return rc;
    } else if ((datasync ? fdatasync(handle->fd) : fsync(handle->fd)) != 0) {
        return -errno;
    }
    counted();
    return 0;
}

int op_opendir(const char* path, fuse_file_info* fi) {
    LOCKED_AND_POWERED;
    if (reserved_or_inside(path)) return -ENOENT;
    int fd = openat(fs().root_fd, backing(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -errno;
    DIR* dir = fdopendir(fd);
    if (dir == nullptr) {
        int error = errno;
        close(fd);
        return -error;
    }
    auto* handle = new Handle;
    handle->fd = fd;
    handle->dir = dir;
    handle->root_dir = std::strcmp(path, "/") == 0;
    fi->fh = reinterpret_cast<uint64_t>(handle);
    return 0;
}

int op_readdir(const char*, void* buffer, fuse_fill_dir_t fill, off_t offset, fuse_file_info* fi, fuse_readdir_flags) {
    LOCKED_AND_POWERED;
    Handle* handle = handle_of(fi);
    if (offset == 0) rewinddir(handle->dir);
    while (dirent* entry = readdir(handle->dir)) {
        if (handle->root_dir && std::strncmp(entry->d_name, reserved_prefix + 1, std::strlen(reserved_prefix) - 1) == 0)
            continue;
        if (fill(buffer, entry->d_name, nullptr, 0, static_cast<fuse_fill_dir_flags>(0)) != 0) break;
    }
    return 0;
}

int op_releasedir(const char*, fuse_file_info* fi) {
    std::lock_guard<std::mutex> lock(fs().mutex);
    Handle* handle = handle_of(fi);
    closedir(handle->dir);
    delete handle;
    return 0;
}

int op_fsyncdir(const char*, int datasync, fuse_file_info* fi) {
    LOCKED_AND_POWERED;
    Handle* handle = handle_of(fi);
    if ((datasync ? fdatasync(handle->fd) : fsync(handle->fd)) != 0) return -errno;
    struct stat st {};
    if (fstat(handle->fd, &st) != 0) return -errno;
    if (strict()) fs().journal.directory_synced(key_of(st));
    counted();
    return 0;
}

}  // namespace

fuse_operations powerloss_operations() {
    fuse_operations ops{};
    ops.init = op_init;
    ops.destroy = op_destroy;
    ops.getattr = op_getattr;
    ops.access = op_access;
    ops.readlink = op_readlink;
    ops.mkdir = op_mkdir;
    ops.symlink = op_symlink;
    ops.link = op_link;
    ops.unlink = op_unlink;
    ops.rmdir = op_rmdir;
    ops.rename = op_rename;
    ops.chmod = op_chmod;
    ops.chown = op_chown;
    ops.utimens = op_utimens;
    ops.truncate = op_truncate;
    ops.open = op_open;
    ops.create = op_create;
    ops.read = op_read;
    ops.write = op_write;
    ops.fallocate = op_fallocate;
    ops.statfs = op_statfs;
    ops.flush = op_flush;
    ops.release = op_release;
    ops.fsync = op_fsync;
    ops.opendir = op_opendir;
    ops.readdir = op_readdir;
    ops.releasedir = op_releasedir;
    ops.fsyncdir = op_fsyncdir;
    return ops;
}

}  // namespace powerloss
