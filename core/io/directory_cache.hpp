// The library's own directories, kept open between checkpoints.
//
// make_dirs() walks a directory from its configured base, an open (and a
// mkdir where one is missing) per component: on a parallel file system
// each is a request to the metadata server, made by every rank at every
// checkpoint. A DirectoryCache makes that walk once per directory
// and process; later calls check with one fstat() that the directory they
// remember is still linked (the library removes emptied directories, a
// restart may remove a whole execution) and walk again if it is not.
#pragma once

#include <cstddef>
#include <filesystem>
#include <mutex>
#include <string>
#include <unordered_map>

#include "io/file.hpp"

namespace mlckpt::core {

class DirectoryCache {
  public:
    // make_dirs(base, dir), or the directory opened by an earlier call if
    // it is still linked. Safe to call from several threads.
    Directory make_dirs(const fs::path& base, const fs::path& dir);

    // At most this many directories are kept open (each holds a
    // descriptor): a run that makes a directory per checkpoint
    // (l<L>/ckpt<S>/) must not accumulate them.
    static constexpr std::size_t kMaxOpen = 32;

  private:
    std::mutex mutex_;
    std::unordered_map<std::string, Directory> open_;
};

}  // namespace mlckpt::core
