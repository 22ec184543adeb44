// Layered L4 differential files (ckpt_io = 1, FTI's POSIX dCP): each dCP
// checkpoint appends one layer to the rank's file, dcp-id<N>-rank<R>.fti,
// that holds the blocks changed since the layer before; the first layer of
// a file (a new stack) holds every block. A checkpoint's data is its layer
// applied over all the layers before it in the file. The file holds up to
// dcp_stack_size layers; the next checkpoint starts file <N>+1 whole.
//
// A layer, appended at the end of the layer before it:
//
//   extent*:  id(i32) offset(u64) length(u64) bytes[length]
//             `length` bytes of variable `id` from its byte `offset`
//   table:    nvars x ( id(i32) size(u64) crc32(u32) )
//             every variable of the checkpoint: its size, the CRC-32 of
//             its whole data
//   footer:   "MLDL" version(u32)=1 seq(u64) ckpt_id(i32) nvars(u32)
//             nextents(u64) layer_size(u64) crc32(u32)
//
// All integers little-endian. The footer's CRC-32 covers every byte of the
// layer before it; layer_size counts every byte, footer included. The
// metadata records each layer (FileRecord::layers): sequence number, id,
// offset, size and that CRC-32, so that a restart checks any layer, and can
// fall back to an older one, without the metadata of older checkpoints.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "format/checkpoint_meta.hpp"
#include "format/checkpoint_reader.hpp"
#include "format/dcp/dcp_writer.hpp"
#include "io/file.hpp"

namespace mlckpt::core {

inline constexpr std::size_t kDcpExtentHeader = 20;
inline constexpr std::size_t kDcpTableEntry = 16;
inline constexpr std::size_t kDcpLayerFooter = 44;

// Appends one layer to a rank's layered dCP file.
class DcpLayerWriter {
  public:
    // Layer of checkpoint (`seq`, `ckpt_id`) at `offset` of file `name` in
    // `dir` (created when missing); what lies from `offset` on is cut off
    // first (an interrupted append, or layers given up at a restart).
    // Without `baseline` (its digests) every block counts as changed.
    DcpLayerWriter(const Directory& dir, const std::string& name, std::uint64_t offset, std::uint64_t seq, int ckpt_id,
                   const DcpBaseline* baseline, DcpOptions options);

    void add(int id, std::span<const std::byte> data, const std::string& name);
    bool has(int id) const { return vars_.contains(id); }
    // Writes the table and the footer and syncs the file: the layer is
    // durable when this returns.
    DcpLayer finish();
    // Cuts the file back to where the layer started (removes a new file).
    void abandon() noexcept;

    const std::map<int, std::vector<ftiff::Md5>>& digests() const { return digests_; }
    const std::vector<VarRecord>& vars() const { return records_; }
    std::uint64_t bytes_written() const { return bytes_written_; }
    std::uint64_t bytes_protected() const { return bytes_protected_; }

  private:
    void append(std::span<const std::byte> bytes);

    Directory dir_;
    std::string name_;
    File file_;
    std::uint64_t start_;
    std::uint64_t end_;
    std::uint64_t seq_;
    int ckpt_id_;
    std::optional<DcpBaseline> baseline_;
    DcpOptions options_;
    std::uint32_t crc_ = 0;
    std::uint64_t extents_ = 0;
    std::map<int, bool> vars_;
    std::vector<VarRecord> records_;
    std::map<int, std::vector<ftiff::Md5>> digests_;
    std::uint64_t bytes_written_ = 0;
    std::uint64_t bytes_protected_ = 0;
};

// A layer as its footer describes it.
struct DcpLayerInfo {
    std::uint64_t seq = 0;
    int ckpt_id = 0;
    std::uint64_t size = 0;
    std::uint32_t crc32 = 0;
    std::uint64_t extents = 0;
    std::vector<VarRecord> vars;  // the table: id, size, crc32
};

// Reads and checks the footer of `layer` in `file` (bounds, magic, size, CRC
// against the record); throws a corrupt Error naming the file.
DcpLayerInfo read_dcp_layer_footer(const File& file, const DcpLayer& layer);
// Checks `layer` whole: footer, and the CRC-32 of its bytes.
void check_dcp_layer(const File& file, const DcpLayer& layer, std::size_t buffer_bytes);

// The newest layer of `layers` that can be recovered from `path`: that
// layer and every one before it in the file are intact. nullopt when none
// is (or the file cannot be read); `why` then says why, else what was
// given up.
std::optional<std::size_t> newest_intact_dcp_layer(const std::filesystem::path& path,
                                                   const std::vector<DcpLayer>& layers, std::size_t buffer_bytes,
                                                   std::string& why);

// Reads the checkpoint of the newest layer of `record.layers` (the record's
// SIZE and CRC must be that layer's end and CRC-32). Each variable is
// checked against the layer's table (size and CRC-32 of its data).
std::unique_ptr<CheckpointReader> open_dcp_layers_reader(const std::filesystem::path& path, const FileRecord& record);
// Checks every layer of `record` whole.
void verify_dcp_layers(const std::filesystem::path& path, const FileRecord& record, std::size_t buffer_bytes);

// `record` cut back to its layer `index`: layers, SIZE, CRC and variables
// as that layer's checkpoint was committed (read from the file's table).
FileRecord dcp_record_at_layer(const std::filesystem::path& path, const FileRecord& record, std::size_t index);

// A layered file read without its metadata (mlckpt inspect): its layers,
// found back from its end, footer by footer, each checked whole. `problem`
// says where the walk stopped before the file's first byte, "" when it
// reached it.
struct DcpLayerScan {
    std::vector<std::pair<DcpLayer, DcpLayerInfo>> layers;  // oldest first
    std::string problem;
};
// Whether the file ends with a layer footer.
bool ends_with_dcp_layer(const File& file);
DcpLayerScan scan_dcp_layers(const File& file, std::size_t buffer_bytes);

}  // namespace mlckpt::core
