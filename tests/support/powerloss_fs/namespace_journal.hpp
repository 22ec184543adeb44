// The strict model's memory of directory operations that are not durable
// yet: each create, mkdir, symlink, link, unlink, rmdir and rename is done on
// the backing folder at once, and recorded with what it takes to undo it
// until an fsync of its parent directory makes it durable. A power cut undoes
// the rest, newest first. What an unlink or a rename over a file destroys is
// kept in a trash folder of the backing side, which the mount does not show.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

#include "file_key.hpp"

namespace powerloss {

class NamespaceJournal {
  public:
    // `root_fd`: the backing folder; `trash_name`: a folder in it, made
    // (empty) by prepare() and removed by finish().
    NamespaceJournal(int root_fd, std::string trash_name);

    int prepare();
    void finish();

    // Records an object that was just made at `path` (a backing path
    // relative to the root): a file, a symlink or a link (removed at undo), or
    // a directory (removed with its subtree).
    void record_created(const std::string& path, bool directory);
    // Do the operation on the backing folder and record it; return 0 or -errno.
    int unlink(const std::string& path);
    int rmdir(const std::string& path);
    int rename(const std::string& from, const std::string& to, unsigned int flags);

    // An fsync of this directory: every operation in it becomes durable.
    void directory_synced(const FileKey& directory);
    void make_all_durable();
    // The power cut: every operation not durable is undone, newest first.
    void undo_all();
    // The power cut of one node: the operations not durable in its storage
    // (`prefix`, a backing path, and below) are undone, newest first; the
    // rest stays as it is (the shared storage's servers kept the power).
    void undo_under(const std::string& prefix);

    std::size_t size() const { return entries_.size(); }

  private:
    enum class Kind { created_file, created_directory, unlinked, removed_directory, renamed };
    struct Entry {
        Kind kind = Kind::created_file;
        std::string path;                 // what was made or removed; a rename's destination
        std::string old_path;             // a rename's source
        FileKey object{};                 // what undo expects to find at `path`
        std::vector<FileKey> parents;     // an fsync of any of these makes it durable
        std::string trash;                // where the destroyed file waits (unlinked, renamed over a file)
        bool replaced_directory = false;  // a rename over an empty directory
        mode_t mode = 0;                  // of a removed directory
    };

    static Entry make_entry(Kind kind, const std::string& path, const FileKey& object, std::vector<FileKey> parents);
    bool stat_at(const std::string& path, struct stat& st) const;
    FileKey parent_key(const std::string& path) const;
    std::string next_trash_path();
    void undo(const Entry& entry);
    void drop_trash(const Entry& entry);

    int root_fd_;
    std::string trash_name_;
    unsigned long trash_counter_ = 0;
    std::vector<Entry> entries_;
};

}  // namespace powerloss
