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

// What is wrong with stored data (a checkpoint file, its metadata, a copy
// or parity): carried by corrupt Errors where the reader knows it, and the
// categories `mlckpt verify` reports, so that no caller reads it from the
// message.
enum class Damage {
    unspecified,   // not said (a corrupt Error of another cause, or not about stored data)
    missing,       // the file is not there
    unreadable,    // the file system refused to read it
    not_a_file,    // a directory or another kind of entry where a file should be
    size,          // shorter (truncated) or longer than recorded
    checksum,      // its bytes differ from their recorded checksum
    structure,     // its format's own records do not hold together
    incomplete,    // its record says it was never completed
    inconsistent,  // metadata that contradicts its file's name or the other ranks'
    misnamed,      // the metadata names no valid file
    stale,         // a copy that differs from what it copies
    journal,       // the redo journal of an update does not verify
};

class Error : public std::runtime_error {
  public:
    Error(ErrorKind kind, const std::string& message, bool remote = false)
        : std::runtime_error(message), kind_(kind), remote_(remote) {}
    // A corrupt Error (an io one when the data could not be read) saying what is damaged.
    Error(Damage damage, const std::string& message)
        : std::runtime_error(message),
          kind_(damage == Damage::unreadable ? ErrorKind::io : ErrorKind::corrupt),
          remote_(false),
          damage_(damage) {}
    ErrorKind kind() const noexcept { return kind_; }
    Damage damage() const noexcept { return damage_; }
    // True when another rank hit this error and already reported it; this
    // rank only learned of it through a collective agreement.
    bool remote() const noexcept { return remote_; }

  private:
    ErrorKind kind_;
    bool remote_;
    Damage damage_ = Damage::unspecified;
};

[[noreturn]] inline void fail(ErrorKind kind, const std::string& message) {
    throw Error(kind, message);
}

[[noreturn]] inline void fail(Damage damage, const std::string& message) {
    throw Error(damage, message);
}

// The category as `mlckpt verify` prints it: "missing", "size", "checksum" ...
inline const char* damage_name(Damage damage) noexcept {
    switch (damage) {
        case Damage::missing:
            return "missing";
        case Damage::unreadable:
            return "unreadable";
        case Damage::not_a_file:
            return "not a regular file";
        case Damage::size:
            return "size";
        case Damage::checksum:
            return "checksum";
        case Damage::structure:
            return "structure";
        case Damage::incomplete:
            return "incomplete";
        case Damage::inconsistent:
            return "inconsistent";
        case Damage::misnamed:
            return "name";
        case Damage::stale:
            return "stale";
        case Damage::journal:
            return "journal";
        case Damage::unspecified:
            break;
    }
    return "structure";
}

}  // namespace mlckpt::core
