// What the operating system says about this process and its files: memory,
// bytes sent to storage, and the page cache.
#pragma once

#include <cstdint>
#include <filesystem>

namespace mlckpt::bench {

namespace fs = std::filesystem;

// Resident set now, and its peak since the process started or since the
// last reset_peak_resident(), in bytes.
std::uint64_t resident_bytes();
std::uint64_t peak_resident_bytes();
// Sets the peak to the resident set now (/proc/self/clear_refs), so that
// what a yardstick allocated and freed before does not count as the
// library's.
void reset_peak_resident();
// Bytes the program holds from malloc now (glibc's mallinfo2: in use in the
// heap and in mmapped chunks). Unlike the resident set it does not keep
// what was freed, so a leak of a few bytes per call shows.
std::uint64_t heap_in_use_bytes();
// File descriptors this process has open now (/proc/self/fd).
std::size_t open_descriptors();
// CPU time (user + system) of every thread of this process so far, in
// seconds: with the wall time, how busy the cores were.
double cpu_seconds();
// Page faults this process has taken so far that needed no disk (minor):
// mostly first touches of memory, which on a VM whose balloon reports free
// memory cost the host a fault too.
std::uint64_t minor_page_faults();
// CPU time the hypervisor took from this machine's cores so far (steal in
// /proc/stat, all cores), in seconds; 0 on bare metal. On a virtual
// machine the host's own work for the guest's disk I/O shows up here.
double stolen_cpu_seconds();
// Bytes this process has passed to write system calls (/proc/self/io
// wchar): what a checkpoint writes, whatever the format. (write_bytes, the
// bytes sent to storage, is counted in whole large folios by some file
// systems: a 16 KiB write into a big file can count 2 MiB.)
std::uint64_t bytes_written_by_syscalls();
// Drops the cached pages of every file below `dir` (posix_fadvise
// DONTNEED; needs no privilege, works on clean pages). Returns the files.
std::size_t evict_from_page_cache(const fs::path& dir);
// Regular files and their bytes below `dir`.
struct Tree {
    std::size_t files = 0;
    std::uint64_t bytes = 0;
};
Tree tree_below(const fs::path& dir);

}  // namespace mlckpt::bench
