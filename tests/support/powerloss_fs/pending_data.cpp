#include "pending_data.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace powerloss {

namespace {

int write_all(int fd, const char* data, std::size_t size, off_t offset) {
    while (size > 0) {
        ssize_t n = pwrite(fd, data, size, offset);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        data += n;
        size -= static_cast<std::size_t>(n);
        offset += n;
    }
    return 0;
}

}  // namespace

PendingFile::PendingFile(int fd) : fd_(fd) {}

PendingFile::~PendingFile() {
    close(fd_);
}

off_t PendingFile::extents_end() const {
    if (extents_.empty()) return 0;
    const auto& [offset, extent] = *extents_.rbegin();
    return offset + static_cast<off_t>(extent.bytes.size());
}

off_t PendingFile::size() const {
    if (truncated_size_) return *truncated_size_;
    struct stat st {};
    fstat(fd_, &st);
    return std::max(st.st_size, extents_end());
}

std::size_t PendingFile::pending_bytes() const {
    std::size_t total = 0;
    for (const auto& [offset, extent] : extents_) total += extent.bytes.size();
    return total;
}

void PendingFile::write(off_t offset, std::span<const char> data, int node) {
    if (data.empty()) return;
    const off_t end = offset + static_cast<off_t>(data.size());
    // Cut the extents that overlap [offset, end), keeping their parts outside.
    auto it = extents_.lower_bound(offset);
    if (it != extents_.begin()) {
        auto before = std::prev(it);
        const off_t before_end = before->first + static_cast<off_t>(before->second.bytes.size());
        if (before_end > offset) {
            if (before_end > end)
                extents_.emplace(end, Extent{before->second.bytes.substr(static_cast<std::size_t>(end - before->first)),
                                             before->second.node});
            before->second.bytes.resize(static_cast<std::size_t>(offset - before->first));
        }
    }
    while (it != extents_.end() && it->first < end) {
        const off_t it_end = it->first + static_cast<off_t>(it->second.bytes.size());
        if (it_end > end)
            extents_.emplace(
                end, Extent{it->second.bytes.substr(static_cast<std::size_t>(end - it->first)), it->second.node});
        it = extents_.erase(it);
    }
    extents_.emplace(offset, Extent{std::string(data.data(), data.size()), node});
    if (truncated_size_) truncated_size_ = std::max(*truncated_size_, end);
}

void PendingFile::truncate(off_t new_size) {
    auto it = extents_.lower_bound(new_size);
    extents_.erase(it, extents_.end());
    if (!extents_.empty()) {
        auto& [last_offset, last] = *extents_.rbegin();
        if (last_offset + static_cast<off_t>(last.bytes.size()) > new_size)
            last.bytes.resize(static_cast<std::size_t>(new_size - last_offset));
    }
    truncated_size_ = new_size;
    truncated_from_ = std::min(truncated_from_.value_or(new_size), new_size);
}

long PendingFile::read(off_t offset, std::span<char> out) const {
    const off_t file_size = size();
    if (offset >= file_size) return 0;
    const std::size_t length =
        static_cast<std::size_t>(std::min<off_t>(static_cast<off_t>(out.size()), file_size - offset));
    std::memset(out.data(), 0, length);
    // The backing file's bytes that are still visible, then the extents over them.
    const off_t backing_end = truncated_from_.value_or(file_size);
    if (offset < backing_end) {
        std::size_t want = static_cast<std::size_t>(std::min<off_t>(static_cast<off_t>(length), backing_end - offset));
        std::size_t done = 0;
        while (done < want) {
            ssize_t n = pread(fd_, out.data() + done, want - done, offset + static_cast<off_t>(done));
            if (n < 0) {
                if (errno == EINTR) continue;
                return -errno;
            }
            if (n == 0) break;  // shorter backing file: the rest stays zero
            done += static_cast<std::size_t>(n);
        }
    }
    const off_t end = offset + static_cast<off_t>(length);
    auto it = extents_.upper_bound(offset);
    if (it != extents_.begin()) --it;
    for (; it != extents_.end() && it->first < end; ++it) {
        const off_t from = std::max(offset, it->first);
        const off_t to = std::min(end, it->first + static_cast<off_t>(it->second.bytes.size()));
        if (from < to)
            std::memcpy(out.data() + (from - offset), it->second.bytes.data() + (from - it->first),
                        static_cast<std::size_t>(to - from));
    }
    return static_cast<long>(length);
}

int PendingFile::make_durable(bool data_only) {
    struct stat st {};
    if (fstat(fd_, &st) != 0) return -errno;
    if (truncated_from_ && *truncated_from_ < st.st_size && ftruncate(fd_, *truncated_from_) != 0) return -errno;
    for (const auto& [offset, extent] : extents_)
        if (int rc = write_all(fd_, extent.bytes.data(), extent.bytes.size(), offset); rc != 0) return rc;
    // Only a truncate sets the size: another mount may have grown the file.
    if (truncated_size_ && ftruncate(fd_, *truncated_size_) != 0) return -errno;
    if ((data_only ? fdatasync(fd_) : fsync(fd_)) != 0) return -errno;
    extents_.clear();
    truncated_from_.reset();
    truncated_size_.reset();
    return 0;
}

int PendingFile::write_through(off_t offset, std::span<const char> data) {
    if (int rc = write_all(fd_, data.data(), data.size(), offset); rc != 0) return rc;
    return fsync(fd_) == 0 ? 0 : -errno;
}

void PendingFile::forget_writes_of(int node) {
    std::erase_if(extents_, [node](const auto& entry) { return entry.second.node == node; });
}

PendingFile* PendingStore::find(const FileKey& key) {
    auto it = files_.find(key);
    return it == files_.end() ? nullptr : it->second.get();
}

PendingFile& PendingStore::add(const FileKey& key, int fd) {
    auto& slot = files_[key];
    if (slot)
        close(fd);  // the caller looked first; a second descriptor is not needed
    else
        slot = std::make_unique<PendingFile>(fd);
    return *slot;
}

int PendingStore::make_durable(const FileKey& key, bool data_only) {
    auto it = files_.find(key);
    if (it == files_.end()) return 0;
    int rc = it->second->make_durable(data_only);
    if (rc == 0) files_.erase(it);
    return rc;
}

int PendingStore::make_all_durable() {
    int first_error = 0;
    for (auto it = files_.begin(); it != files_.end();) {
        int rc = it->second->make_durable(false);
        if (rc == 0) {
            it = files_.erase(it);
        } else {
            if (first_error == 0) first_error = rc;
            ++it;
        }
    }
    return first_error;
}

void PendingStore::forget_writes_of(int node) {
    for (auto it = files_.begin(); it != files_.end();) {
        it->second->forget_writes_of(node);
        it = it->second->has_pending() ? std::next(it) : files_.erase(it);
    }
}

std::size_t PendingStore::pending_bytes() const {
    std::size_t total = 0;
    for (const auto& [key, file] : files_) total += file->pending_bytes();
    return total;
}

}  // namespace powerloss
