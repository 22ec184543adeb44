#include "storage/execution_dirs.hpp"

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
    try {
        make_dirs(c.meta_dir);
    } catch (const Error& e) {
        fail(ErrorKind::config, c.path + ": [basic] meta_dir is not a writable directory: " + e.what());
    }
    std::string id = base;
    for (int n = 1;; ++n) {
        std::error_code ec;
        bool global_taken = fs::exists(fs::path(c.glbl_dir) / id, ec);
        if (!global_taken && fs::create_directory(fs::path(c.meta_dir) / id, ec)) return id;
        if (ec) {
            fail(ErrorKind::config, c.path + ": [basic] meta_dir is not a writable directory: cannot create '" +
                                        (fs::path(c.meta_dir) / id).string() + "': " + ec.message());
        }
        id = std::string(base) + "-" + std::to_string(n);
    }
}

void remove_empty_exec_dirs(const StorageLayout& layout, int node, bool global) noexcept {
    std::error_code ec;
    const fs::path dir = layout.node_exec_dir(node);
    for (const fs::path& d : {dir / "l1", dir / "l2", dir / "l3", layout.stage_dir(node), dir, dir.parent_path()}) {
        fs::remove(d, ec);  // only when empty
    }
    if (!global) return;
    fs::remove(layout.global_exec_dir(), ec);
    fs::remove(layout.meta_exec_dir(), ec);
}

}  // namespace mlckpt::core
