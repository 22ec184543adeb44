// Errors inside core are exceptions carrying a category; the C API maps the
// category onto an FTI return code and keeps the message for FTI_LastError.
#pragma once

#include <stdexcept>
#include <string>

namespace mlckpt::core {

enum class ErrorKind {
    usage,            // wrong call: bad argument, wrong state, unknown id
    config,           // invalid configuration
    io,               // the file system refused an operation
    corrupt,          // stored data does not verify
    not_recoverable,  // a recovery cannot proceed
    mpi,              // an MPI call failed
};

class Error : public std::runtime_error {
  public:
    Error(ErrorKind kind, const std::string& message, bool remote = false)
        : std::runtime_error(message), kind_(kind), remote_(remote) {}
    ErrorKind kind() const noexcept { return kind_; }
    // True when another rank hit this error and already reported it; this
    // rank only learned of it through a collective agreement.
    bool remote() const noexcept { return remote_; }

  private:
    ErrorKind kind_;
    bool remote_;
};

[[noreturn]] inline void fail(ErrorKind kind, const std::string& message) {
    throw Error(kind, message);
}

}  // namespace mlckpt::core
