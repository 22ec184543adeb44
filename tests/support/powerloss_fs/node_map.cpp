#include "node_map.hpp"

#include <dirent.h>

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string_view>

namespace powerloss {

namespace {

constexpr std::string_view rank_variable = "OMPI_COMM_WORLD_RANK=";

std::optional<pid_t> process_of_thread(pid_t tid) {
    std::ifstream status("/proc/" + std::to_string(tid) + "/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("Tgid:", 0) == 0) return static_cast<pid_t>(std::atol(line.c_str() + 5));
    return std::nullopt;
}

}  // namespace

NodeMap::NodeMap(const std::string& mountpoint) : mark_("MLCKPT_POWERLOSS_MOUNT=" + mountpoint) {}

std::optional<int> NodeMap::read_node(pid_t pid) const {
    if (ranks_per_node_ <= 0) return std::nullopt;
    std::ifstream file("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
    const std::string environ((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    bool marked = false;
    std::optional<int> rank;
    for (std::size_t start = 0; start < environ.size();) {
        std::size_t end = environ.find('\0', start);
        if (end == std::string::npos) end = environ.size();
        const std::string_view entry(environ.data() + start, end - start);
        if (entry == mark_) marked = true;
        if (entry.rfind(rank_variable, 0) == 0) {
            int value = -1;
            const auto digits = entry.substr(rank_variable.size());
            if (std::from_chars(digits.data(), digits.data() + digits.size(), value).ec == std::errc() && value >= 0)
                rank = value;
        }
        start = end + 1;
    }
    if (!marked || !rank) return std::nullopt;
    return *rank / ranks_per_node_;
}

std::optional<int> NodeMap::node_of_thread(pid_t tid) {
    if (tid <= 0 || ranks_per_node_ <= 0) return std::nullopt;
    const auto pid = process_of_thread(tid);
    if (!pid) return std::nullopt;
    auto known = node_of_process_.find(*pid);
    if (known != node_of_process_.end()) return known->second;
    return node_of_process_[*pid] = read_node(*pid);
}

std::vector<pid_t> NodeMap::processes_on(int node) const {
    std::vector<pid_t> found;
    DIR* proc = opendir("/proc");
    if (proc == nullptr) return found;
    while (dirent* entry = readdir(proc)) {
        pid_t pid = 0;
        const std::string_view name(entry->d_name);
        if (std::from_chars(name.data(), name.data() + name.size(), pid).ec != std::errc() || pid <= 0) continue;
        if (read_node(pid) == node) found.push_back(pid);
    }
    closedir(proc);
    return found;
}

}  // namespace powerloss
