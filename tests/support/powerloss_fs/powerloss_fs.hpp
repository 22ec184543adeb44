// The state of one mount of the power-loss file system and the table of its
// FUSE operations (libfuse3's high-level API). Every operation passes
// through to the backing folder, except what is not durable yet: file data
// waits in PendingStore, and in the strict model directory operations can be
// undone from NamespaceJournal. One mutex serialises the operations.
#pragma once

#define FUSE_USE_VERSION 35
#include <fuse.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "control.hpp"
#include "namespace_journal.hpp"
#include "node_map.hpp"
#include "pending_data.hpp"

namespace powerloss {

enum class Model { data, strict };

struct Settings {
    Model model = Model::data;
    bool torn = false;
    std::uint64_t seed = 0;
    std::string label;
    std::string mountpoint;  // its absolute path: the mark of the launches' processes (NodeMap)
};

class PowerLossFs {
  public:
    // `root_fd`: the backing folder, opened before the mount (the mount may
    // hide it).
    PowerLossFs(int root_fd, Settings settings);

    // Shared with the operations of powerloss_fs.cpp.
    struct LastWrite {
        FileKey file;
        off_t offset;
        std::string data;
    };

    std::mutex mutex;
    const int root_fd;
    const Settings settings;
    PendingStore pending;
    NamespaceJournal journal;
    PowerSwitch power;
    NodeMap nodes;
    // The last operation that changed durable state, when it was a write
    // still pending: the one a cut tears.
    std::optional<LastWrite> last_write;
};

fuse_operations powerloss_operations();

}  // namespace powerloss
