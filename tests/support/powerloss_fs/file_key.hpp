// A backing file or directory, named by its device and inode: files are
// renamed and linked, what this file system remembers of them follows the
// inode, not the path.
#pragma once

#include <sys/stat.h>

#include <utility>

namespace powerloss {

using FileKey = std::pair<dev_t, ino_t>;

inline FileKey key_of(const struct stat& st) {
    return {st.st_dev, st.st_ino};
}

}  // namespace powerloss
