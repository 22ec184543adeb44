#include "system_stats.hpp"

#include <fcntl.h>
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace mlckpt::bench {

namespace {

// The number after `key` in a "key: value" file of /proc.
std::uint64_t proc_value(const char* path, const std::string& key) {
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind(key, 0) == 0) return std::stoull(line.substr(key.size()));
    }
    return 0;
}

}  // namespace

std::uint64_t resident_bytes() {
    return proc_value("/proc/self/status", "VmRSS:") * 1024;
}

std::uint64_t peak_resident_bytes() {
    if (std::uint64_t hwm = proc_value("/proc/self/status", "VmHWM:"); hwm > 0) return hwm * 1024;
    struct rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
}

void reset_peak_resident() {
    std::ofstream("/proc/self/clear_refs") << "5";
}

std::uint64_t heap_in_use_bytes() {
    const struct mallinfo2 info = mallinfo2();
    return static_cast<std::uint64_t>(info.uordblks) + static_cast<std::uint64_t>(info.hblkhd);
}

std::size_t open_descriptors() {
    std::size_t n = 0;
    std::error_code ec;
    for (auto it = fs::directory_iterator("/proc/self/fd", ec); it != fs::directory_iterator(); it.increment(ec)) {
        ++n;
    }
    return n > 0 ? n - 1 : 0;  // the iterator's own descriptor
}

double cpu_seconds() {
    struct rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    auto seconds = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
    };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

std::uint64_t minor_page_faults() {
    struct rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<std::uint64_t>(usage.ru_minflt);
}

double stolen_cpu_seconds() {
    // cpu  user nice system idle iowait irq softirq steal ...
    std::ifstream in("/proc/stat");
    std::string cpu;
    std::uint64_t field = 0;
    std::uint64_t steal = 0;
    in >> cpu;
    for (int i = 0; i < 8 && in >> field; ++i) steal = field;
    if (cpu != "cpu" || !in) return 0;
    return static_cast<double>(steal) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

std::uint64_t bytes_written_by_syscalls() {
    return proc_value("/proc/self/io", "wchar:");
}

std::size_t evict_from_page_cache(const fs::path& dir) {
    std::size_t files = 0;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        if (!it->is_regular_file(ec)) continue;
        int fd = ::open(it->path().c_str(), O_RDONLY);
        if (fd < 0) continue;
        ::fdatasync(fd);
        if (::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0) ++files;
        ::close(fd);
    }
    return files;
}

Tree tree_below(const fs::path& dir) {
    Tree t;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        if (!it->is_regular_file(ec)) continue;
        ++t.files;
        t.bytes += it->file_size(ec);
    }
    return t;
}

}  // namespace mlckpt::bench
