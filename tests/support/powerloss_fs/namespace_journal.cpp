#include "namespace_journal.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace powerloss {

namespace {

std::string parent_of(const std::string& path) {
    auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

// Removes `name` under `dir_fd` with everything below it.
void remove_tree(int dir_fd, const std::string& name) {
    if (unlinkat(dir_fd, name.c_str(), 0) == 0 || errno == ENOENT) return;
    int fd = openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    if (DIR* dir = fdopendir(fd)) {
        std::vector<std::string> children;
        while (dirent* entry = readdir(dir))
            if (std::strcmp(entry->d_name, ".") != 0 && std::strcmp(entry->d_name, "..") != 0)
                children.emplace_back(entry->d_name);
        for (const auto& child : children) remove_tree(dirfd(dir), child);
        closedir(dir);
    } else {
        close(fd);
    }
    unlinkat(dir_fd, name.c_str(), AT_REMOVEDIR);
}

void report_undo_failure(const char* what, const std::string& path) {
    std::fprintf(stderr, "mlckpt_powerloss_fs: cannot undo %s of %s: %s\n", what, path.c_str(), std::strerror(errno));
}

}  // namespace

NamespaceJournal::NamespaceJournal(int root_fd, std::string trash_name)
    : root_fd_(root_fd), trash_name_(std::move(trash_name)) {}

int NamespaceJournal::prepare() {
    remove_tree(root_fd_, trash_name_);  // left by an instance that did not unmount
    return mkdirat(root_fd_, trash_name_.c_str(), 0700) == 0 ? 0 : -errno;
}

void NamespaceJournal::finish() {
    make_all_durable();
    remove_tree(root_fd_, trash_name_);
}

bool NamespaceJournal::stat_at(const std::string& path, struct stat& st) const {
    return fstatat(root_fd_, path.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
}

FileKey NamespaceJournal::parent_key(const std::string& path) const {
    struct stat st {};
    stat_at(parent_of(path), st);
    return key_of(st);
}

NamespaceJournal::Entry NamespaceJournal::make_entry(Kind kind, const std::string& path, const FileKey& object,
                                                     std::vector<FileKey> parents) {
    Entry entry;
    entry.kind = kind;
    entry.path = path;
    entry.object = object;
    entry.parents = std::move(parents);
    return entry;
}

std::string NamespaceJournal::next_trash_path() {
    return trash_name_ + "/" + std::to_string(++trash_counter_);
}

void NamespaceJournal::record_created(const std::string& path, bool directory) {
    struct stat st {};
    if (!stat_at(path, st)) return;
    entries_.push_back(
        make_entry(directory ? Kind::created_directory : Kind::created_file, path, key_of(st), {parent_key(path)}));
}

int NamespaceJournal::unlink(const std::string& path) {
    struct stat st {};
    if (!stat_at(path, st)) return -errno;
    if (S_ISDIR(st.st_mode)) return -EISDIR;
    Entry entry = make_entry(Kind::unlinked, path, key_of(st), {parent_key(path)});
    entry.trash = next_trash_path();
    // A rename keeps the inode (and its other links) for the undo.
    if (renameat(root_fd_, path.c_str(), root_fd_, entry.trash.c_str()) != 0) return -errno;
    entries_.push_back(std::move(entry));
    return 0;
}

int NamespaceJournal::rmdir(const std::string& path) {
    struct stat st {};
    if (!stat_at(path, st)) return -errno;
    FileKey parent = parent_key(path);
    if (unlinkat(root_fd_, path.c_str(), AT_REMOVEDIR) != 0) return -errno;
    // It was empty: making it again is its undo.
    Entry entry = make_entry(Kind::removed_directory, path, key_of(st), {parent});
    entry.mode = st.st_mode;
    entries_.push_back(std::move(entry));
    return 0;
}

int NamespaceJournal::rename(const std::string& from, const std::string& to, unsigned int flags) {
    struct stat source {
    }, target{};
    if (!stat_at(from, source)) return -errno;
    const bool target_exists = stat_at(to, target);
    Entry entry = make_entry(Kind::renamed, to, key_of(source), {parent_key(from), parent_key(to)});
    entry.old_path = from;
    if (target_exists && key_of(target) == key_of(source)) {
        // Two links of one file: rename does nothing, there is nothing to undo.
        return renameat2(root_fd_, from.c_str(), root_fd_, to.c_str(), flags) == 0 ? 0 : -errno;
    }
    if (target_exists && !(flags & RENAME_NOREPLACE)) {
        if (S_ISDIR(target.st_mode)) {
            entry.replaced_directory = true;  // empty, or the rename fails
            entry.mode = target.st_mode;
        } else {
            entry.trash = next_trash_path();
            if (linkat(root_fd_, to.c_str(), root_fd_, entry.trash.c_str(), 0) != 0) return -errno;
        }
    }
    if (renameat2(root_fd_, from.c_str(), root_fd_, to.c_str(), flags) != 0) {
        int error = errno;
        if (!entry.trash.empty()) unlinkat(root_fd_, entry.trash.c_str(), 0);
        return -error;
    }
    entries_.push_back(std::move(entry));
    return 0;
}

void NamespaceJournal::drop_trash(const Entry& entry) {
    if (!entry.trash.empty()) unlinkat(root_fd_, entry.trash.c_str(), 0);
}

void NamespaceJournal::directory_synced(const FileKey& directory) {
    std::erase_if(entries_, [&](const Entry& entry) {
        bool durable = std::find(entry.parents.begin(), entry.parents.end(), directory) != entry.parents.end();
        if (durable) drop_trash(entry);
        return durable;
    });
}

void NamespaceJournal::make_all_durable() {
    for (const auto& entry : entries_) drop_trash(entry);
    entries_.clear();
}

void NamespaceJournal::undo_all() {
    for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) undo(*it);
    entries_.clear();
    remove_tree(root_fd_, trash_name_);
    mkdirat(root_fd_, trash_name_.c_str(), 0700);
}

void NamespaceJournal::undo_under(const std::string& prefix) {
    const auto inside = [&prefix](const std::string& path) {
        return path == prefix || (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
                                  path[prefix.size()] == '/');
    };
    for (std::size_t i = entries_.size(); i-- > 0;) {
        const Entry& entry = entries_[i];
        if (!inside(entry.path) && !inside(entry.old_path)) continue;
        undo(entry);
        drop_trash(entry);
        entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
    }
}

void NamespaceJournal::undo(const Entry& entry) {
    struct stat st {};
    // A later durable operation may have moved or replaced the object: an
    // undo only touches what it made.
    const bool found = stat_at(entry.path, st) && key_of(st) == entry.object;
    const char* path = entry.path.c_str();
    switch (entry.kind) {
        case Kind::created_file:
            if (found && unlinkat(root_fd_, path, 0) != 0) report_undo_failure("create", entry.path);
            break;
        case Kind::created_directory:
            if (found) remove_tree(root_fd_, entry.path);
            break;
        case Kind::unlinked:
            if (renameat2(root_fd_, entry.trash.c_str(), root_fd_, path, RENAME_NOREPLACE) != 0)
                report_undo_failure("unlink", entry.path);
            break;
        case Kind::removed_directory:
            if (mkdirat(root_fd_, path, entry.mode & 07777) != 0) report_undo_failure("rmdir", entry.path);
            break;
        case Kind::renamed:
            if (!found) break;
            if (renameat2(root_fd_, path, root_fd_, entry.old_path.c_str(), RENAME_NOREPLACE) != 0) {
                report_undo_failure("rename", entry.old_path + " -> " + entry.path);
                break;
            }
            if (!entry.trash.empty() && renameat2(root_fd_, entry.trash.c_str(), root_fd_, path, RENAME_NOREPLACE) != 0)
                report_undo_failure("rename over", entry.path);
            if (entry.replaced_directory && mkdirat(root_fd_, path, entry.mode & 07777) != 0)
                report_undo_failure("rename over", entry.path);
            break;
    }
}

}  // namespace powerloss
