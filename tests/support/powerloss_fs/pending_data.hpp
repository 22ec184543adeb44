// What a file holds that is not durable yet: its unsynced writes and size
// changes, kept in memory as extents over the backing file's content, which
// is the durable state. A power cut forgets them; a sync writes them out.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "file_key.hpp"

namespace powerloss {

class PendingFile {
  public:
    // Takes ownership of `fd`, opened read-write on the backing file.
    explicit PendingFile(int fd);
    ~PendingFile();
    PendingFile(const PendingFile&) = delete;
    PendingFile& operator=(const PendingFile&) = delete;

    // The size this mount shows: the backing file's (which other mounts over
    // the same folder may grow), or the size set by a truncate, grown by the
    // writes.
    off_t size() const;
    std::size_t pending_bytes() const;

    // `node`: the node whose process wrote it (-1: none), for a cut of one node.
    void write(off_t offset, std::span<const char> data, int node = -1);
    void truncate(off_t new_size);
    // Fills `out` with the file's content as this mount sees it; returns the
    // number of bytes read (short at the end of the file) or -errno.
    long read(off_t offset, std::span<char> out) const;
    // Writes everything pending to the backing file and fsyncs it (fdatasync
    // when `data_only`); returns 0 or -errno.
    int make_durable(bool data_only);
    // Writes bytes straight to the backing file, durably (the kept part of a
    // torn write at a cut); returns 0 or -errno.
    int write_through(off_t offset, std::span<const char> data);
    // The power cut of one node: its writes are lost, the others' stay pending.
    void forget_writes_of(int node);
    bool has_pending() const { return !extents_.empty() || truncated_size_.has_value(); }

  private:
    off_t extents_end() const;

    int fd_;
    // Since the last sync: the smallest size a truncate set (backing bytes
    // from there on read as zeros, and are cut at the sync), and the size the
    // last truncate set, grown by the writes after it.
    std::optional<off_t> truncated_from_;
    std::optional<off_t> truncated_size_;
    struct Extent {
        std::string bytes;
        int node = -1;
    };
    std::map<off_t, Extent> extents_;  // non-overlapping
};

// The pending files of one mount.
class PendingStore {
  public:
    PendingFile* find(const FileKey& key);
    // Starts the pending state of a file on its first change; `fd` is a
    // read-write descriptor of the backing file that the store then owns.
    PendingFile& add(const FileKey& key, int fd);
    int make_durable(const FileKey& key, bool data_only);
    int make_all_durable();
    void forget(const FileKey& key) { files_.erase(key); }
    void forget_writes_of(int node);
    void forget_all() { files_.clear(); }
    std::size_t pending_bytes() const;

  private:
    std::map<FileKey, std::unique_ptr<PendingFile>> files_;
};

}  // namespace powerloss
