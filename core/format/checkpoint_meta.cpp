#include "format/checkpoint_meta.hpp"

#include "format/file_formats.hpp"

#include <algorithm>
#include <charconv>
#include <utility>

#include "common/error.hpp"
#include "common/file_name.hpp"
#include "hash/crc32.hpp"

namespace mlckpt::core {

namespace {

constexpr std::string_view kMagicName = "MLCKPT_META";
// Version 3 added DIR; version 2 metadata describes checkpoints that each
// had a directory of their own, and partner copies named after the rank
// whose file they copy.
constexpr int kMetaVersion = 3;

std::uint32_t crc_of_text(std::string_view text) {
    return crc32_of(std::as_bytes(std::span(text.data(), text.size())));
}

// Reads "KEY value" lines one at a time and reports defects with the line number.
class LineReader {
  public:
    LineReader(std::string_view text, const std::string& source) : text_(text), source_(source) {}

    bool done() const { return pos_ >= text_.size(); }

    // Next line split into key and the rest.
    std::pair<std::string_view, std::string_view> next() {
        if (done()) error("unexpected end of file");
        auto nl = text_.find('\n', pos_);
        if (nl == std::string_view::npos) nl = text_.size();
        std::string_view line = text_.substr(pos_, nl - pos_);
        pos_ = nl + 1;
        ++line_no_;
        auto sp = line.find(' ');
        if (sp == std::string_view::npos) return {line, {}};
        return {line.substr(0, sp), line.substr(sp + 1)};
    }

    std::string_view expect(std::string_view key) {
        auto [k, v] = next();
        if (k != key) error("expected " + std::string(key) + ", found '" + std::string(k) + "'");
        return v;
    }

    template <typename T>
    T number(std::string_view v, int base = 10) {
        if (base == 16) {
            if (v.substr(0, 2) != "0x") error("expected a hexadecimal number");
            v.remove_prefix(2);
        }
        T out{};
        auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out, base);
        if (ec != std::errc() || end != v.data() + v.size() || v.empty()) {
            error("invalid number '" + std::string(v) + "'");
        }
        return out;
    }

    template <typename T>
    T expect_number(std::string_view key, int base = 10) {
        return number<T>(expect(key), base);
    }

    [[noreturn]] void error(const std::string& what) const {
        fail(ErrorKind::corrupt,
             "checkpoint metadata '" + source_ + "' line " + std::to_string(line_no_) + ": " + what);
    }

  private:
    std::string_view text_;
    const std::string& source_;
    std::size_t pos_ = 0;
    int line_no_ = 0;
};

// An absolute HDF5 path of printable characters, below the root.
bool is_dataset_path(std::string_view path) {
    if (path.size() < 2 || path.front() != '/' || path.back() == '/') return false;
    return std::none_of(path.begin(), path.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
}

FileRecord read_file_record(LineReader& in) {
    FileRecord r;
    r.file = std::string(in.expect("FILE"));
    // Restarts build paths from it: a name, never a path.
    if (!is_file_name(r.file))
        in.error("FILE '" + r.file + "' is not a file name (a '/', '.', '..' or a control byte)");
    r.rank = in.expect_number<int>("RANK");
    r.holder = in.expect_number<int>("HOLDER");
    r.node = in.expect_number<int>("NODE");
    r.type = std::string(in.expect("TYPE"));
    r.complete = in.expect_number<int>("COMPLETE") == 1;
    r.size = in.expect_number<std::uint64_t>("SIZE");
    r.crc32 = in.expect_number<std::uint32_t>("CRC", 16);
    bool first = true;
    for (;;) {
        auto [key, rest] = in.next();
        if (key == "END_FILE") break;
        if (key == "OFFSET" && first) {
            r.offset = in.number<std::uint64_t>(rest);
            first = false;
            continue;
        }
        first = false;
        if (key == "ORIG" || key == "ORIGPATH" || key == "ORIGNAME") {
            if (rest.empty()) in.error(std::string(key) + " without a value");
            (key == "ORIG" ? r.orig : key == "ORIGPATH" ? r.origpath : r.origname) = std::string(rest);
            continue;
        }
        if (key == "LAYER") {
            // LAYER <seq> ID <ckpt_id> OFFSET <o> SIZE <s> CRC <c>
            DcpLayer l;
            std::string_view s = rest;
            auto word = [&]() {
                auto sp = s.find(' ');
                std::string_view w = s.substr(0, sp);
                s = sp == std::string_view::npos ? std::string_view{} : s.substr(sp + 1);
                return w;
            };
            auto labelled = [&](std::string_view label) {
                if (word() != label) in.error("LAYER record lacks " + std::string(label));
                return word();
            };
            l.seq = in.number<std::uint64_t>(word());
            l.ckpt_id = in.number<int>(labelled("ID"));
            l.offset = in.number<std::uint64_t>(labelled("OFFSET"));
            l.size = in.number<std::uint64_t>(labelled("SIZE"));
            l.crc32 = in.number<std::uint32_t>(labelled("CRC"), 16);
            if (!s.empty()) in.error("unexpected text after LAYER record");
            if (!r.layers.empty() &&
                (l.seq <= r.layers.back().seq || l.offset < r.layers.back().offset + r.layers.back().size)) {
                in.error("LAYER records out of order");
            }
            r.layers.push_back(l);
            continue;
        }
        if (key == "DATASET") {
            // DATASET <path>: the HDF5 dataset of the VAR record before it.
            if (r.vars.empty() || !r.vars.back().dataset.empty()) in.error("DATASET without its VAR record");
            if (!is_dataset_path(rest)) in.error("DATASET '" + std::string(rest) + "' is not an absolute HDF5 path");
            r.vars.back().dataset = std::string(rest);
            continue;
        }
        if (key == "ELEM" || key == "PACKED") {
            // ELEM <bytes> / PACKED <bytes>: of the VAR record before it.
            if (r.vars.empty()) in.error(std::string(key) + " without its VAR record");
            VarRecord& v = r.vars.back();
            if (key == "ELEM") {
                if (v.elem != 0) in.error("ELEM given twice");
                v.elem = in.number<std::uint32_t>(rest);
                if (v.elem == 0) in.error("ELEM 0");
            } else {
                if (v.stored != 0) in.error("PACKED given twice");
                v.stored = in.number<std::uint64_t>(rest);
                if (v.stored == 0) in.error("PACKED 0");
            }
            continue;
        }
        if (key != "VAR") in.error("expected VAR or END_FILE, found '" + std::string(key) + "'");
        // VAR <id> OFFSET <o> SIZE <s> CRC <c> [NAME <name...>]
        VarRecord v;
        std::string_view s = rest;
        auto field = [&](std::string_view label) -> std::string_view {
            if (!label.empty()) {
                if (s.substr(0, label.size() + 1) != std::string(label) + " ") {
                    in.error("VAR record lacks " + std::string(label));
                }
                s.remove_prefix(label.size() + 1);
            }
            auto sp = s.find(' ');
            std::string_view value = s.substr(0, sp);
            s = sp == std::string_view::npos ? std::string_view{} : s.substr(sp + 1);
            return value;
        };
        v.id = in.number<int>(field(""));
        v.offset = in.number<std::uint64_t>(field("OFFSET"));
        v.size = in.number<std::uint64_t>(field("SIZE"));
        v.crc32 = in.number<std::uint32_t>(field("CRC"), 16);
        if (!s.empty()) {
            if (s.substr(0, 5) != "NAME ") in.error("unexpected text after VAR record");
            v.name = std::string(s.substr(5));
        }
        r.vars.push_back(std::move(v));
    }
    return r;
}

}  // namespace

const VarRecord* FileRecord::find_var(int id) const {
    const auto index_from = [&](std::size_t first) {
        if (first == 0) by_id_.clear();
        for (std::size_t i = first; i < vars.size(); ++i) by_id_.emplace(vars[i].id, i);
        indexed_ = vars.size();
    };
    index_from(indexed_ <= vars.size() ? indexed_ : 0);
    auto it = by_id_.find(id);
    if (it != by_id_.end() && vars[it->second].id != id) {
        index_from(0);
        it = by_id_.find(id);
    }
    return it == by_id_.end() ? nullptr : &vars[it->second];
}

std::string serialize_file_record(const FileRecord& r) {
    std::string out;
    out += "FILE " + r.file + "\n";
    out += "RANK " + std::to_string(r.rank) + "\n";
    out += "HOLDER " + std::to_string(r.holder) + "\n";
    out += "NODE " + std::to_string(r.node) + "\n";
    out += "TYPE " + r.type + "\n";
    out += "COMPLETE " + std::string(r.complete ? "1" : "0") + "\n";
    out += "SIZE " + std::to_string(r.size) + "\n";
    out += "CRC " + crc32_hex(r.crc32) + "\n";
    if (r.offset != 0) out += "OFFSET " + std::to_string(r.offset) + "\n";
    if (!r.orig.empty()) out += "ORIG " + r.orig + "\n";
    if (!r.origpath.empty()) out += "ORIGPATH " + r.origpath + "\n";
    if (!r.origname.empty()) out += "ORIGNAME " + r.origname + "\n";
    for (const DcpLayer& l : r.layers) {
        out += "LAYER " + std::to_string(l.seq) + " ID " + std::to_string(l.ckpt_id) + " OFFSET " +
               std::to_string(l.offset) + " SIZE " + std::to_string(l.size) + " CRC " + crc32_hex(l.crc32) + "\n";
    }
    for (const VarRecord& v : r.vars) {
        out += "VAR " + std::to_string(v.id) + " OFFSET " + std::to_string(v.offset) + " SIZE " +
               std::to_string(v.size) + " CRC " + crc32_hex(v.crc32);
        if (!v.name.empty()) out += " NAME " + v.name;
        out += "\n";
        if (!v.dataset.empty()) out += "DATASET " + v.dataset + "\n";
        if (v.elem != 0) out += "ELEM " + std::to_string(v.elem) + "\n";
        if (v.stored != 0) out += "PACKED " + std::to_string(v.stored) + "\n";
    }
    out += "END_FILE\n";
    return out;
}

FileRecord parse_file_record(std::string_view text, const std::string& source) {
    LineReader in(text, source);
    FileRecord r = read_file_record(in);
    if (!in.done()) in.error("trailing data after END_FILE");
    return r;
}

std::vector<FileRecord> parse_file_records(std::string_view text, const std::string& source) {
    LineReader in(text, source);
    std::vector<FileRecord> out;
    while (!in.done()) out.push_back(read_file_record(in));
    return out;
}

const FileRecord* CheckpointMeta::redundancy_held_by(int holder) const {
    for (const FileRecord& r : redundancy) {
        if (r.holder == holder) return &r;
    }
    return nullptr;
}

std::vector<FileRecord> CheckpointMeta::files_of_rank(int rank) const {
    std::vector<FileRecord> out;
    for (const FileRecord& f : files) {
        if (f.rank == rank) out.push_back(f);
    }
    return out;
}

const FileRecord& CheckpointMeta::file_of(int rank) const {
    const auto at = static_cast<std::size_t>(rank);
    if (rank >= 0 && at < files.size() && files[at].rank == rank) return files[at];  // a whole checkpoint's
    for (const FileRecord& r : files) {
        if (r.rank == rank) return r;
    }
    fail(ErrorKind::corrupt,
         "the metadata of checkpoint " + std::to_string(ckpt_id) + " has no file of rank " + std::to_string(rank));
}

std::string serialize_meta(const CheckpointMeta& m) {
    std::string out;
    out += std::string(kMagicName) + " " + std::to_string(kMetaVersion) + "\n";
    out += "EXEC_ID " + m.exec_id + "\n";
    out += "CKPT " + std::to_string(m.ckpt_id) + "\n";
    out += "SEQ " + std::to_string(m.seq) + "\n";
    out += "LEVEL " + std::to_string(m.level) + "\n";
    out += "DIR " + std::string(m.own_dir ? "own" : "level") + "\n";
    out += "IO " + std::to_string(static_cast<int>(m.io)) + "\n";
    out += "RANKS " + std::to_string(m.ranks) + "\n";
    out += "NODE_SIZE " + std::to_string(m.node_size) + "\n";
    out += "GROUP_SIZE " + std::to_string(m.group_size) + "\n";
    out += "TIME_NS " + std::to_string(m.time_ns) + "\n";
    out += "COMPLETE " + std::string(m.complete ? "1" : "0") + "\n";
    if (m.set_failures != 0) out += "SET_FAILURES " + std::to_string(m.set_failures) + "\n";
    if (m.is_dataset()) {
        out += "NAME " + m.name + "\n";
        out += "FLAGS " + std::to_string(m.flags) + "\n";
        out += "VALID " + std::string(m.valid ? "1" : "0") + "\n";
    }
    out += "FILES " + std::to_string(m.files.size()) + "\n";
    for (const FileRecord& r : m.files) out += serialize_file_record(r);
    out += "REDUNDANCY " + std::to_string(m.redundancy.size()) + "\n";
    for (const FileRecord& r : m.redundancy) out += serialize_file_record(r);
    out += "CHECKSUM " + crc32_hex(crc_of_text(out)) + "\n";
    return out;
}

CheckpointMeta parse_meta(std::string_view text, const std::string& source) {
    // Verify the trailing checksum before trusting any field.
    auto last = text.rfind("CHECKSUM ");
    if (last == std::string_view::npos || (last > 0 && text[last - 1] != '\n')) {
        fail(ErrorKind::corrupt,
             "checkpoint metadata '" + source + "' has no CHECKSUM line (truncated or not a metadata file)");
    }
    LineReader tail(text.substr(last), source);
    auto stored = tail.expect_number<std::uint32_t>("CHECKSUM", 16);
    if (!tail.done()) tail.error("trailing data after CHECKSUM");
    std::uint32_t actual = crc_of_text(text.substr(0, last));
    if (stored != actual) {
        fail(Damage::checksum, "checkpoint metadata '" + source + "' fails its checksum (stored " + crc32_hex(stored) +
                                   ", computed " + crc32_hex(actual) + ")");
    }

    LineReader in(text.substr(0, last), source);
    auto [magic, version] = in.next();
    if (magic != kMagicName || (version != "2" && version != std::to_string(kMetaVersion))) {
        in.error("not an mlckpt metadata file of version 2 or " + std::to_string(kMetaVersion) + " (found '" +
                 std::string(magic) + " " + std::string(version) + "')");
    }
    CheckpointMeta m;
    m.exec_id = std::string(in.expect("EXEC_ID"));
    m.ckpt_id = in.expect_number<int>("CKPT");
    m.seq = in.expect_number<std::uint64_t>("SEQ");
    m.level = in.expect_number<int>("LEVEL");
    m.own_dir = true;
    if (version != "2") {
        const std::string_view dir = in.expect("DIR");
        if (dir != "own" && dir != "level") in.error("DIR must be 'own' or 'level', found '" + std::string(dir) + "'");
        m.own_dir = dir == "own";
    }
    int io = in.expect_number<int>("IO");
    if (!is_registered_format(io)) in.error("unknown IO mode " + std::to_string(io));
    m.io = static_cast<IoMode>(io);
    m.ranks = in.expect_number<int>("RANKS");
    m.node_size = in.expect_number<int>("NODE_SIZE");
    m.group_size = in.expect_number<int>("GROUP_SIZE");
    m.time_ns = in.expect_number<std::int64_t>("TIME_NS");
    m.complete = in.expect_number<int>("COMPLETE") == 1;
    std::pair<std::string_view, std::string_view> line = in.next();
    if (line.first == "SET_FAILURES") {  // L3 as Reed-Solomon sets
        m.set_failures = in.number<int>(line.second);
        if (m.set_failures < 1 || m.set_failures >= m.group_size) {
            in.error("SET_FAILURES must be from 1 to GROUP_SIZE - 1 (" + std::to_string(m.group_size - 1) + ")");
        }
        line = in.next();
    }
    if (line.first == "NAME") {  // a dataset of application files
        m.name = std::string(line.second);
        m.flags = in.expect_number<int>("FLAGS");
        if (m.flags <= 0) in.error("FLAGS must be positive");
        m.valid = in.expect_number<int>("VALID") == 1;
        line = in.next();
    }
    if (line.first != "FILES") in.error("expected FILES, found '" + std::string(line.first) + "'");
    auto files = in.number<std::size_t>(line.second);
    for (std::size_t i = 0; i < files; ++i) m.files.push_back(read_file_record(in));
    auto redundancy = in.expect_number<std::size_t>("REDUNDANCY");
    for (std::size_t i = 0; i < redundancy; ++i) m.redundancy.push_back(read_file_record(in));
    if (!in.done()) in.error("trailing data after the file records");
    return m;
}

}  // namespace mlckpt::core
