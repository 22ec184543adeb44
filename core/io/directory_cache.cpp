#include "io/directory_cache.hpp"

#include <sys/stat.h>

namespace mlckpt::core {

namespace {

// A directory that was removed (rmdir, or remove_all of a tree above it)
// keeps its descriptor but has no link left, and no file can be created in
// it: it is made again at its path.
bool still_linked(const Directory& d) {
    struct stat st {};
    return ::fstat(d.fd(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_nlink > 0;
}

// A relative base (FTI's templates have "./Local") is relative to the
// working directory of the moment: an application that changes it gets
// the directories below the new one, as every path the library opens.
std::string key_of(const fs::path& base, const fs::path& dir) {
    std::string key;
    if (base.is_relative()) {
        std::error_code ec;
        key = fs::current_path(ec).string() + '\n';
    }
    return key + base.string() + '\n' + dir.lexically_normal().string();
}

}  // namespace

Directory DirectoryCache::make_dirs(const fs::path& base, const fs::path& dir) {
    const std::string key = key_of(base, dir);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = open_.find(key);
        if (it != open_.end()) {
            if (still_linked(it->second)) return it->second;
            open_.erase(it);
        }
    }
    Directory d = core::make_dirs(base, dir);  // outside the lock: it may wait on the file system
    std::lock_guard<std::mutex> lock(mutex_);
    if (open_.size() >= kMaxOpen) open_.clear();
    open_.insert_or_assign(key, d);
    return d;
}

}  // namespace mlckpt::core
