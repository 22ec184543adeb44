#include "storage/execution_dirs.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "common/error.hpp"
#include "io/file.hpp"

namespace mlckpt::core {

std::string claim_new_exec_id(const Config& c) {
    std::time_t now = std::time(nullptr);
    std::tm tm{};
    localtime_r(&now, &tm);
    char base[64];
    std::strftime(base, sizeof base, "%Y-%m-%d_%H-%M-%S", &tm);
    Directory meta;
    try {
        meta = make_dirs(c.meta_dir, c.meta_dir);
    } catch (const Error& e) {
        fail(ErrorKind::config, c.path + ": [basic] meta_dir is not a writable directory: " + e.what());
    }
    std::string id = base;
    for (int n = 1;; ++n) {
        std::error_code ec;
        bool global_taken = fs::exists(fs::path(c.glbl_dir) / id, ec);
        if (!global_taken) {
            if (::mkdirat(meta.fd(), id.c_str(), kDirectoryMode) == 0) {
                meta.sync();  // the execution's directory survives a power cut (as Directory::make_child's)
                return id;
            }
            if (errno != EEXIST) {
                fail(ErrorKind::config, c.path + ": [basic] meta_dir is not a writable directory: cannot create '" +
                                            meta.path_of(id).string() + "': " + std::strerror(errno));
            }
        }
        id = std::string(base) + "-" + std::to_string(n);
    }
}

void remove_empty_exec_dirs(const StorageLayout& layout, int node, bool global) noexcept {
    try {
        const fs::path dir = layout.node_exec_dir(node);
        for (const fs::path& d : {dir / "l1", dir / "l2", dir / "l3", layout.stage_dir(node), dir, dir.parent_path()}) {
            remove_empty_dir(layout.base_of(d), d);
        }
        if (!global) return;
        remove_empty_dir(layout.base_of(layout.global_exec_dir()), layout.global_exec_dir());
        remove_empty_dir(layout.base_of(layout.meta_exec_dir()), layout.meta_exec_dir());
    } catch (...) {
        // Best effort, as the directories' removal itself.
    }
}

}  // namespace mlckpt::core
