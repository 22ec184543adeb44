// The default bound of a wait on another rank ([advanced] wait_timeout),
// shared by the configuration and the waits themselves (mpi/bounded_wait).
#pragma once

namespace mlckpt::core {

constexpr int kDefaultWaitBoundSeconds = 1800;

}  // namespace mlckpt::core
