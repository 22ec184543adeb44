#include "storage/file_names.hpp"

#include <charconv>
#include <limits>
#include <string_view>

#include "storage/checkpoint_ref.hpp"

namespace mlckpt::core {

namespace {

bool parse_u64(std::string_view s, std::uint64_t& out) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return !s.empty() && ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

const char* file_extension(IoMode format) {
    return format == IoMode::hdf5 ? ".h5" : ".fti";
}

std::string data_file_name(int ckpt_id, int rank, IoMode format) {
    return "Ckpt" + std::to_string(ckpt_id) + "-Rank" + std::to_string(rank) + file_extension(format);
}

DcpNames dcp_names(IoMode configured) {
    return configured == IoMode::posix ? DcpNames::posix : DcpNames::ftiff;
}

const char* dcp_dir_name(DcpNames names) {
    return names == DcpNames::legacy ? "dcp" : "dCP";
}

std::string dcp_file_name(int rank, DcpNames names) {
    const std::string r = std::to_string(rank);
    switch (names) {
        case DcpNames::posix:
            return "dcp-id0-rank" + r + ".fti";
        case DcpNames::ftiff:
            return "dCPFile-Rank" + r + ".fti";
        case DcpNames::legacy:
            break;
    }
    return "dCP-Rank" + r + ".fti";
}

bool parse_dcp_file_name(const std::string& name, int& rank, DcpNames& names) {
    std::string_view s = name;
    if (s.size() < 4 || s.substr(s.size() - 4) != ".fti") return false;
    s.remove_suffix(4);
    DcpNames found;
    if (s.substr(0, 12) == "dCPFile-Rank") {
        found = DcpNames::ftiff;
        s.remove_prefix(12);
    } else if (s.substr(0, 8) == "dCP-Rank") {
        found = DcpNames::legacy;
        s.remove_prefix(8);
    } else if (s.substr(0, 6) == "dcp-id") {
        s.remove_prefix(6);
        const auto dash = s.find("-rank");
        std::uint64_t stack = 0;
        if (dash == std::string_view::npos || !parse_u64(s.substr(0, dash), stack)) return false;
        found = DcpNames::posix;
        s.remove_prefix(dash + 5);
    } else {
        return false;
    }
    std::uint64_t r = 0;
    if (!parse_u64(s, r) || r > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) return false;
    rank = static_cast<int>(r);
    names = found;
    return true;
}

std::string partner_file_name(int ckpt_id, int holder, IoMode format) {
    return "Ckpt" + std::to_string(ckpt_id) + "-Pcof" + std::to_string(holder) + file_extension(format);
}

std::string parity_file_name(int ckpt_id, int holder, IoMode format) {
    return "Ckpt" + std::to_string(ckpt_id) + "-RSed" + std::to_string(holder) + file_extension(format);
}

bool parse_file_name_id(const std::string& name, int& ckpt_id) {
    if (name.size() < 6 || name.compare(0, 4, "Ckpt") != 0) return false;
    const auto dash = name.find('-', 4);
    std::uint64_t id = 0;
    if (dash == std::string::npos || !parse_u64(std::string_view(name).substr(4, dash - 4), id) ||
        id > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
        return false;
    }
    ckpt_id = static_cast<int>(id);
    return true;
}

bool parse_data_file_rank(const std::string& name, int& rank) {
    int id = 0;
    if (!parse_file_name_id(name, id)) return false;
    const std::string_view rest = std::string_view(name).substr(name.find('-'));
    const auto dot = rest.find('.');
    std::uint64_t r = 0;
    if (rest.compare(0, 5, "-Rank") != 0 || dot == std::string_view::npos || !parse_u64(rest.substr(5, dot - 5), r) ||
        r > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
        return false;
    }
    rank = static_cast<int>(r);
    return true;
}

bool parse_meta_file_name(const std::string& name, std::uint64_t& seq, int& level) {
    std::string_view s = name;
    if (s.substr(0, 4) != "ckpt" || s.size() < 12 || s.substr(s.size() - 5) != ".meta") return false;
    s = s.substr(4, s.size() - 9);  // "<seq>.l<L>"
    auto dot = s.find(".l");
    if (dot == std::string_view::npos) return false;
    std::uint64_t lv = 0;
    if (!parse_u64(s.substr(0, dot), seq) || !parse_u64(s.substr(dot + 2), lv)) return false;
    if ((lv < 1 || lv > 4) && lv != kDcpLevel) return false;
    level = static_cast<int>(lv);
    return true;
}

std::string own_dir_name(std::uint64_t seq) {
    return "ckpt" + std::to_string(seq);
}

bool parse_own_dir_name(const std::string& name, std::uint64_t& seq) {
    return name.size() > 4 && name.compare(0, 4, "ckpt") == 0 && parse_u64(std::string_view(name).substr(4), seq);
}

std::optional<int> dcp_stack_of(const std::string& name) {
    int rank = 0;
    DcpNames names;
    if (!parse_dcp_file_name(name, rank, names) || names != DcpNames::posix) return std::nullopt;
    const std::size_t dash = name.find('-', 6);
    return std::stoi(name.substr(6, dash - 6));
}

}  // namespace mlckpt::core
