// Checkpoint metadata: self-describing key/value text with the fields of the
// SCR meta record (FILE, TYPE, COMPLETE, SIZE, CRC, CKPT, RANKS) plus the
// per-variable table (id, offset, size, CRC, name). The text ends with a
// CHECKSUM line (CRC-32 of everything before it), so a damaged metadata file
// is detected rather than trusted.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "format/io_mode.hpp"

namespace mlckpt::core {

struct VarRecord {
    int id = 0;
    std::uint64_t offset = 0;
    std::uint64_t size = 0;
    std::uint32_t crc32 = 0;
    std::string name;  // "" when the variable has no name
    // HDF5 files (ckpt_io = 5): the path of the variable's dataset, "" in
    // metadata written before it was recorded (the dataset then carries
    // the variable's id as its attribute "mlckpt_id").
    std::string dataset;
    // Packed (compressed) variables: the bytes of their frame from
    // `offset` (compress/packed_frame.hpp), 0 for a variable stored as it
    // is (`size` bytes from `offset`). `size` and `crc32` always describe
    // the variable's own bytes.
    std::uint64_t stored = 0;
    // The size of one element (the shuffle unit of its compression), 0 when
    // not recorded.
    std::uint32_t elem = 0;

    bool packed() const { return stored != 0; }
    // The bytes the variable takes in its rank's data.
    std::uint64_t stored_bytes() const { return packed() ? stored : size; }
};

// One layer of a layered L4 differential file (ckpt_io = 1,
// format/dcp/dcp_layers.hpp): the dCP checkpoint it holds and where its bytes
// are in the file. Recorded for every layer of the file, so that a restart
// can fall back to an older layer without that checkpoint's metadata.
struct DcpLayer {
    std::uint64_t seq = 0;  // the checkpoint's sequence number
    int ckpt_id = 0;        // and its id
    std::uint64_t offset = 0;
    std::uint64_t size = 0;
    std::uint32_t crc32 = 0;  // of the layer's bytes
    bool operator==(const DcpLayer&) const = default;
};

struct FileRecord {
    int rank = 0;    // application rank whose data it holds (FULL, PARTNER) or that computed it (PARITY)
    int holder = 0;  // application rank that stores it
    int node = 0;    // node it is stored on
    std::string file;
    std::string type = "FULL";  // FULL (application data), PARTNER (L2 copy), PARITY (L3)
    bool complete = false;
    std::uint64_t size = 0;
    std::uint32_t crc32 = 0;
    // Shared L4 files (ckpt_io 2 and 4): where the rank's bytes start in
    // `file`; SIZE and CRC then describe those bytes, not the whole file.
    std::uint64_t offset = 0;
    std::vector<VarRecord> vars;
    // A layered L4 differential file: its layers, oldest first (LAYER
    // lines); empty for every other file. SIZE is then the end of the
    // newest layer and CRC its CRC-32.
    std::vector<DcpLayer> layers;
    // Files an application wrote itself (scr.h): the name it routed
    // (ORIG), that name's directory made absolute (ORIGPATH) and its last
    // component (ORIGNAME), as SCR records them. Empty for the library's
    // own checkpoint files.
    std::string orig;
    std::string origpath;
    std::string origname;

    // The first record of variable `id`, or nullptr; constant time, so that
    // writing or recovering V variables costs O(V), not O(V^2). It extends
    // an index: like a change of `vars`, not to be called on one record
    // from two threads at once (its callers are the session's thread).
    const VarRecord* find_var(int id) const;

  private:
    // `vars` by id, extended as records are appended and rebuilt when
    // `vars` shrank or a hit no longer matches. Records are appended or
    // replaced whole; one whose id is changed in place is not found by
    // its new id until `vars` is rebuilt.
    mutable std::unordered_map<int, std::size_t> by_id_;
    mutable std::size_t indexed_ = 0;
};

struct CheckpointMeta {
    std::string exec_id;
    int ckpt_id = 0;        // the application's id (FTI_Checkpoint's first argument)
    std::uint64_t seq = 0;  // commit order within the execution: newest is largest
    int level = 1;
    // Its files are in l<L>/ckpt<seq>/ rather than l<L>/ (CheckpointRef).
    bool own_dir = false;
    IoMode io = IoMode::posix;
    int ranks = 0;       // application ranks of the run that wrote it
    int node_size = 0;   // [basic] node_size of the run (heads included)
    int group_size = 0;  // nodes per group (L2, L3)
    // L3: 0 for FTI's parity, k for Reed-Solomon sets surviving k lost nodes
    // (config/levels.hpp RedundancyScheme). Written only when not 0.
    int set_failures = 0;
    std::int64_t time_ns = 0;
    bool complete = false;
    // Datasets of application files (scr.h): the name given at
    // SCR_Start_output, its SCR_FLAG_* bits and the application's verdict
    // at SCR_Complete_output (a set that is not valid is never restarted
    // from). Empty name and flags 0 for FTI checkpoints.
    std::string name;
    int flags = 0;
    bool valid = true;
    // FULL: one per application rank, by rank (datasets of application
    // files: one per file, by rank, any number per rank)
    std::vector<FileRecord> files;
    std::vector<FileRecord> redundancy;  // PARTNER, PARITY or XOR: one per holder, by holder

    bool is_dataset() const { return flags != 0; }

    const FileRecord* redundancy_held_by(int holder) const;
    // Every file record of application rank `rank` (a dataset's rank may have several).
    std::vector<FileRecord> files_of_rank(int rank) const;
    // The FULL record of application rank `rank`; a corrupt Error when the
    // metadata (or the part of it this rank holds) has none.
    const FileRecord& file_of(int rank) const;
};

std::string serialize_file_record(const FileRecord& record);
FileRecord parse_file_record(std::string_view text, const std::string& source);
// Any number of concatenated records.
std::vector<FileRecord> parse_file_records(std::string_view text, const std::string& source);

std::string serialize_meta(const CheckpointMeta& meta);
// Throws a corrupt Error naming `source` and the line for any defect.
CheckpointMeta parse_meta(std::string_view text, const std::string& source);

}  // namespace mlckpt::core
