// Fuzz inputs as files: the readers under test take a path or an open file,
// as at a restart, so each target writes its input to a file first.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace mlckpt::fuzz {

namespace fs = std::filesystem;

// A directory of this process, removed at exit. A memory file system is
// preferred: the journal's roll-forward syncs its files on every run, which
// on a disk would bound the runs per second.
class ScratchDir {
  public:
    ScratchDir() {
        std::vector<fs::path> bases;
        if (const char* tmp = std::getenv("TMPDIR"); tmp != nullptr && *tmp != '\0') bases.emplace_back(tmp);
        bases.emplace_back("/dev/shm");
        bases.emplace_back("/tmp");
        for (const fs::path& base : bases) {
            std::string tmpl = (base / "mlckpt-fuzz-XXXXXX").string();
            if (::mkdtemp(tmpl.data()) != nullptr) {
                path_ = tmpl;
                return;
            }
        }
        std::abort();  // nowhere to write an input: no run could mean anything
    }
    ~ScratchDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

    const fs::path& path() const { return path_; }

  private:
    fs::path path_;
};

inline const fs::path& scratch_dir() {
    static const ScratchDir dir;
    return dir.path();
}

// Writes `size` bytes to the file `name` of the scratch directory, replacing
// it, and returns its path.
inline fs::path write_input(const std::string& name, const std::uint8_t* data, std::size_t size) {
    fs::path path = scratch_dir() / name;
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) std::abort();
    for (std::size_t done = 0; done < size;) {
        ssize_t n = ::write(fd, data + done, size - done);
        if (n <= 0) std::abort();
        done += static_cast<std::size_t>(n);
    }
    ::close(fd);
    return path;
}

}  // namespace mlckpt::fuzz
