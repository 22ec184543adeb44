#include "format/dcp/dcp_layers.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "common/byte_order.hpp"
#include "common/error.hpp"
#include "hash/crc32.hpp"

namespace mlckpt::core {

namespace {

constexpr std::uint32_t kLayersVersion = 1;
constexpr std::array<char, 4> kLayersMagic = {'M', 'L', 'D', 'L'};

[[noreturn]] void corrupt(const std::filesystem::path& path, const DcpLayer& layer, const std::string& what) {
    fail(ErrorKind::corrupt, "L4 differential file '" + path.string() + "', layer of checkpoint " +
                                 std::to_string(layer.ckpt_id) + " (seq " + std::to_string(layer.seq) + ", bytes " +
                                 std::to_string(layer.offset) + ".." + std::to_string(layer.offset + layer.size) +
                                 "): " + what);
}

// The CRC-32 of `length` bytes of `file` from `offset`, read in pieces.
std::uint32_t crc_of_range(const File& file, std::uint64_t offset, std::uint64_t length, std::size_t buffer_bytes) {
    std::vector<std::byte> buffer(std::max<std::size_t>(std::min<std::uint64_t>(length, buffer_bytes), 1));
    std::uint32_t crc = 0;
    for (std::uint64_t done = 0; done < length;) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), length - done));
        file.read_exact_at(std::span(buffer.data(), n), offset + done);
        crc = crc32_combine(crc, crc32_of(std::span<const std::byte>(buffer.data(), n)), n);
        done += n;
    }
    return crc;
}

}  // namespace

DcpLayerWriter::DcpLayerWriter(const Directory& dir, const std::string& name, std::uint64_t offset, std::uint64_t seq,
                               int ckpt_id, const DcpBaseline* baseline, DcpOptions options)
    : dir_(dir),
      name_(name),
      file_(File::open_update(dir, name)),
      start_(offset),
      end_(offset),
      seq_(seq),
      ckpt_id_(ckpt_id),
      options_(options) {
    if (baseline != nullptr) baseline_ = *baseline;
    if (file_.size() != offset) file_.resize(offset);
}

void DcpLayerWriter::append(std::span<const std::byte> bytes) {
    file_.write_all_at(bytes, end_);
    crc_ = crc32_combine(crc_, crc32_of(bytes), bytes.size());
    end_ += bytes.size();
}

void DcpLayerWriter::add(int id, std::span<const std::byte> data, const std::string& name) {
    const std::size_t bs = options_.block_size;
    const std::vector<std::uint32_t> crcs = block_crcs(data, bs, options_.threads);
    std::vector<ftiff::Md5> digests = digests_from(data, crcs, options_);
    const std::vector<ftiff::Md5>* old = baseline_digests(baseline_, id);
    auto changed = [&](std::size_t k) { return old == nullptr || k >= old->size() || (*old)[k] != digests[k]; };
    // Runs of changed blocks, each one extent.
    for (std::size_t k = 0; k < digests.size();) {
        if (!changed(k)) {
            ++k;
            continue;
        }
        std::size_t end = k;
        while (end < digests.size() && changed(end)) ++end;
        const std::uint64_t from = static_cast<std::uint64_t>(k) * bs;
        const std::uint64_t to = std::min<std::uint64_t>(static_cast<std::uint64_t>(end) * bs, data.size());
        std::array<std::byte, kDcpExtentHeader> header{};
        store_le<std::int32_t>(header.data(), id);
        store_le<std::uint64_t>(header.data() + 4, from);
        store_le<std::uint64_t>(header.data() + 12, to - from);
        append(header);
        append(data.subspan(static_cast<std::size_t>(from), static_cast<std::size_t>(to - from)));
        ++extents_;
        bytes_written_ += to - from;
        k = end;
    }
    VarRecord var;
    var.id = id;
    var.size = data.size();
    var.crc32 = crcs.empty() ? 0 : crc32_of_blocks(crcs, bs, data.size() - (crcs.size() - 1) * bs);
    var.name = name;
    records_.push_back(std::move(var));
    vars_[id] = true;
    digests_[id] = std::move(digests);
    bytes_protected_ += data.size();
}

DcpLayer DcpLayerWriter::finish() {
    std::vector<std::byte> tail(records_.size() * kDcpTableEntry + kDcpLayerFooter);
    std::byte* at = tail.data();
    for (const VarRecord& v : records_) {
        store_le<std::int32_t>(at, v.id);
        store_le<std::uint64_t>(at + 4, v.size);
        store_le<std::uint32_t>(at + 12, v.crc32);
        at += kDcpTableEntry;
    }
    std::memcpy(at, kLayersMagic.data(), 4);
    store_le<std::uint32_t>(at + 4, kLayersVersion);
    store_le<std::uint64_t>(at + 8, seq_);
    store_le<std::int32_t>(at + 16, ckpt_id_);
    store_le<std::uint32_t>(at + 20, static_cast<std::uint32_t>(records_.size()));
    store_le<std::uint64_t>(at + 24, extents_);
    const std::uint64_t size = end_ + tail.size() - start_;
    store_le<std::uint64_t>(at + 32, size);
    append(std::span<const std::byte>(tail.data(), tail.size() - 4));
    const std::uint32_t crc = crc_;
    store_le<std::uint32_t>(at + 40, crc);
    file_.write_all_at(std::span<const std::byte>(tail.data() + tail.size() - 4, 4), end_);
    end_ += 4;
    file_.sync();
    file_.close();
    return DcpLayer{seq_, ckpt_id_, start_, size, crc};
}

void DcpLayerWriter::abandon() noexcept {
    try {
        if (start_ == 0) {
            dir_.remove(name_);
        } else {
            File::open_update(dir_, name_).resize(start_);
        }
    } catch (...) {
        // What lies past the committed layers is cut off by the next append.
    }
}

DcpLayerInfo read_dcp_layer_footer(const File& file, const DcpLayer& layer) {
    const std::filesystem::path& path = file.path();
    const std::uint64_t fsize = file.size();
    if (layer.size < kDcpLayerFooter || layer.offset + layer.size > fsize) {
        corrupt(path, layer, "the file ends at byte " + std::to_string(fsize) + ", before the layer does");
    }
    std::array<std::byte, kDcpLayerFooter> f{};
    file.read_exact_at(f, layer.offset + layer.size - kDcpLayerFooter);
    if (std::memcmp(f.data(), kLayersMagic.data(), 4) != 0) corrupt(path, layer, "no layer footer at its end");
    if (load_le<std::uint32_t>(f.data() + 4) != kLayersVersion) corrupt(path, layer, "unknown layer version");
    DcpLayerInfo info;
    info.seq = load_le<std::uint64_t>(f.data() + 8);
    info.ckpt_id = load_le<std::int32_t>(f.data() + 16);
    const std::uint32_t nvars = load_le<std::uint32_t>(f.data() + 20);
    info.extents = load_le<std::uint64_t>(f.data() + 24);
    info.size = load_le<std::uint64_t>(f.data() + 32);
    info.crc32 = load_le<std::uint32_t>(f.data() + 40);
    if (info.seq != layer.seq || info.ckpt_id != layer.ckpt_id || info.size != layer.size ||
        info.crc32 != layer.crc32) {
        corrupt(path, layer, "its footer does not match the metadata (another checkpoint's layer)");
    }
    const std::uint64_t table = static_cast<std::uint64_t>(nvars) * kDcpTableEntry;
    if (table + kDcpLayerFooter > layer.size) corrupt(path, layer, "its variable table overruns it");
    std::vector<std::byte> t(static_cast<std::size_t>(table));
    file.read_exact_at(t, layer.offset + layer.size - kDcpLayerFooter - table);
    for (std::uint32_t i = 0; i < nvars; ++i) {
        const std::byte* at = t.data() + static_cast<std::size_t>(i) * kDcpTableEntry;
        VarRecord v;
        v.id = load_le<std::int32_t>(at);
        v.size = load_le<std::uint64_t>(at + 4);
        v.crc32 = load_le<std::uint32_t>(at + 12);
        info.vars.push_back(v);
    }
    return info;
}

void check_dcp_layer(const File& file, const DcpLayer& layer, std::size_t buffer_bytes) {
    read_dcp_layer_footer(file, layer);
    if (crc_of_range(file, layer.offset, layer.size - 4, buffer_bytes) != layer.crc32) {
        corrupt(file.path(), layer, "its bytes do not match its CRC-32 " + crc32_hex(layer.crc32));
    }
}

bool ends_with_dcp_layer(const File& file) {
    const std::uint64_t size = file.size();
    if (size < kDcpLayerFooter) return false;
    std::array<std::byte, 4> magic{};
    file.read_exact_at(magic, size - kDcpLayerFooter);
    return std::memcmp(magic.data(), kLayersMagic.data(), 4) == 0;
}

DcpLayerScan scan_dcp_layers(const File& file, std::size_t buffer_bytes) {
    DcpLayerScan scan;
    std::uint64_t end = file.size();
    while (end > 0) {
        if (end < kDcpLayerFooter) {
            scan.problem = "bytes 0.." + std::to_string(end) + " are no layer";
            break;
        }
        std::array<std::byte, kDcpLayerFooter> f{};
        file.read_exact_at(f, end - kDcpLayerFooter);
        const std::uint64_t size = load_le<std::uint64_t>(f.data() + 32);
        if (std::memcmp(f.data(), kLayersMagic.data(), 4) != 0 || size < kDcpLayerFooter || size > end) {
            scan.problem = "no layer footer ends at byte " + std::to_string(end);
            break;
        }
        const DcpLayer layer{load_le<std::uint64_t>(f.data() + 8), load_le<std::int32_t>(f.data() + 16), end - size,
                             size, load_le<std::uint32_t>(f.data() + 40)};
        try {
            check_dcp_layer(file, layer, buffer_bytes);
            scan.layers.insert(scan.layers.begin(), {layer, read_dcp_layer_footer(file, layer)});
        } catch (const Error& e) {
            scan.problem = e.what();
            break;
        }
        end = layer.offset;
    }
    return scan;
}

std::optional<std::size_t> newest_intact_dcp_layer(const std::filesystem::path& path,
                                                   const std::vector<DcpLayer>& layers, std::size_t buffer_bytes,
                                                   std::string& why) {
    std::optional<std::size_t> newest;
    try {
        const File file = File::open_read(path);
        for (std::size_t i = 0; i < layers.size(); ++i) {
            check_dcp_layer(file, layers[i], buffer_bytes);
            newest = i;
        }
        why.clear();
    } catch (const Error& e) {
        why = e.what();
    }
    return newest;
}

namespace {

struct LayerExtent {
    std::uint64_t var_offset;
    std::uint64_t length;
    std::uint64_t file_offset;
};

class DcpLayersReader final : public CheckpointReader {
  public:
    DcpLayersReader(const std::filesystem::path& path, const FileRecord& record) : file_(File::open_read(path)) {
        if (record.layers.empty()) fail(ErrorKind::corrupt, "'" + path.string() + "': no layers recorded");
        // The layers this checkpoint needs are every one of its file.
        DcpLayerInfo info;
        for (const DcpLayer& layer : record.layers) {
            info = read_dcp_layer_footer(file_, layer);
            const std::uint64_t data_end = layer.offset + layer.size - kDcpLayerFooter -
                                           static_cast<std::uint64_t>(info.vars.size()) * kDcpTableEntry;
            std::uint64_t pos = layer.offset;
            for (std::uint64_t e = 0; e < info.extents; ++e) {
                if (pos + kDcpExtentHeader > data_end) corrupt(path, layer, "its extents overrun it");
                std::array<std::byte, kDcpExtentHeader> h{};
                file_.read_exact_at(h, pos);
                const int id = load_le<std::int32_t>(h.data());
                const std::uint64_t off = load_le<std::uint64_t>(h.data() + 4);
                const std::uint64_t len = load_le<std::uint64_t>(h.data() + 12);
                pos += kDcpExtentHeader;
                if (len > data_end - pos) corrupt(path, layer, "its extents overrun it");
                extents_[id].push_back({off, len, pos});
                pos += len;
            }
            if (pos != data_end) corrupt(path, layer, "its extents do not fill it");
        }
        for (const VarRecord& v : info.vars) table_[v.id] = v;
        path_ = path;
    }

    void read(const VarRecord& var, std::span<std::byte> out) const override {
        auto it = table_.find(var.id);
        if (it == table_.end()) {
            fail(ErrorKind::corrupt,
                 "'" + path_.string() + "': variable " + std::to_string(var.id) + " is not in its newest layer");
        }
        if (it->second.size != out.size()) {
            fail(ErrorKind::corrupt, "'" + path_.string() + "': variable " + std::to_string(var.id) + " has " +
                                         std::to_string(it->second.size) + " bytes, not " + std::to_string(out.size()));
        }
        std::vector<bool> covered;
        auto ex = extents_.find(var.id);
        if (ex != extents_.end()) {
            for (const LayerExtent& e : ex->second) {
                if (e.var_offset >= out.size()) continue;  // the variable has shrunk since
                const std::uint64_t n = std::min<std::uint64_t>(e.length, out.size() - e.var_offset);
                file_.read_exact_at(out.subspan(static_cast<std::size_t>(e.var_offset), static_cast<std::size_t>(n)),
                                    e.file_offset);
            }
        }
        if (crc32_of(out) != it->second.crc32) {
            fail(ErrorKind::corrupt, "'" + path_.string() + "': variable " + std::to_string(var.id) +
                                         " does not match its CRC-32 " + crc32_hex(it->second.crc32) +
                                         " once its layers are applied");
        }
    }

  private:
    File file_;
    std::filesystem::path path_;
    std::map<int, std::vector<LayerExtent>> extents_;
    std::map<int, VarRecord> table_;
};

}  // namespace

std::unique_ptr<CheckpointReader> open_dcp_layers_reader(const std::filesystem::path& path, const FileRecord& record) {
    return std::make_unique<DcpLayersReader>(path, record);
}

void verify_dcp_layers(const std::filesystem::path& path, const FileRecord& record, std::size_t buffer_bytes) {
    const File file = File::open_read(path);
    for (const DcpLayer& layer : record.layers) check_dcp_layer(file, layer, buffer_bytes);
}

FileRecord dcp_record_at_layer(const std::filesystem::path& path, const FileRecord& record, std::size_t index) {
    FileRecord out = record;
    out.layers.resize(index + 1);
    const DcpLayer& layer = out.layers.back();
    const DcpLayerInfo info = read_dcp_layer_footer(File::open_read(path), layer);
    out.size = layer.offset + layer.size;
    out.crc32 = layer.crc32;
    std::map<int, std::string> names;
    for (const VarRecord& v : record.vars) names[v.id] = v.name;
    out.vars.clear();
    for (VarRecord v : info.vars) {
        v.name = names[v.id];
        out.vars.push_back(std::move(v));
    }
    return out;
}

}  // namespace mlckpt::core
