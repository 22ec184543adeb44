// A rank's file of one checkpoint as the checkpoint engine handles it,
// whatever its format: variables go in, finish() makes it durable under its
// final name and describes it, discard() removes what an uncommitted
// checkpoint left of it, and once the checkpoint is committed the file says
// where the next one starts. One class per way a file reaches its final
// name: renamed from a temporary name (POSIX, FTI-FF), shared by every rank
// (MPI-IO, container), or updated in place through a redo journal (L4
// differential). open_checkpoint_file() chooses.
#pragma once

#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "format/dcp/dcp_writer.hpp"
#include "format/ftiff/ftiff_layout.hpp"
#include "format/hdf5/hdf5_schema.hpp"
#include "registry/registry.hpp"
#include "store/context.hpp"

namespace mlckpt::core {

// What a rank's next checkpoint file continues from.
struct FormatState {
    ftiff::Layout layout;  // FTI-FF: this rank's containers
    DcpBaseline dcp;       // what its L4 differential file holds
    // HDF5: how the variables appear in the file, as of the checkpoint's start.
    std::shared_ptr<const h5::Schema> hdf5;
};

// How this rank's L4 differential checkpoints cut and hash its data.
DcpOptions dcp_options(const Context& ctx);

class CheckpointFile {
  public:
    virtual ~CheckpointFile() = default;

    // Written before it returns, unless the file was opened for buffers
    // that stay untouched until finish() (a shared file).
    virtual void add(int id, std::span<const std::byte> data, const std::string& name) = 0;
    virtual bool has(int id) const = 0;
    // A shared file is finished by every rank or by none.
    virtual bool collective() const { return false; }
    // Makes the file durable under its final name; its record (file name,
    // size, CRC-32, variables) for the metadata.
    virtual FileRecord finish() = 0;
    // An uncommitted checkpoint's file goes; a file that still holds a
    // committed checkpoint (L4 differential) stays as it was. May be called
    // more than once.
    virtual void discard() noexcept = 0;

    // Once committed: where this rank's next checkpoint starts.
    virtual void update_state(FormatState& state) const = 0;
    // Once committed and past the checkpoint's last collective step: work
    // left to the rank's background thread (the L4 differential file takes
    // its journaled update).
    virtual void leave_to_background(BackgroundWork&) {}
    // L4 differential: data bytes rewritten, and protected, by this rank.
    virtual std::optional<std::pair<std::uint64_t, std::uint64_t>> dcp_bytes() const { return std::nullopt; }
};

// Collective: every rank opens its file of checkpoint `ref`, or all fail.
// The format follows ckpt_io and the level (storage/layout.hpp:
// file_format); FTI-FF files continue `state` for `vars` (every protected
// variable, in protection order). Unless `incremental`, the variables'
// buffers stay untouched until finish(), so a shared file is written then.
// `read_back`: the file is read right after it is written (by the node's
// head, or for the L2 copy or L3 parity of an incremental checkpoint), so
// it goes through the page cache.
std::unique_ptr<CheckpointFile> open_checkpoint_file(Context& ctx, const CheckpointRef& ref,
                                                     const std::vector<Variable>& vars, const FormatState& state,
                                                     bool incremental, bool read_back);

// Finishes `file` and completes its record with this rank's identity into
// `record`. A failure is returned, not thrown, for the ranks to agree on.
std::exception_ptr finish_checkpoint_file(const Context& ctx, const CheckpointRef& ref, CheckpointFile& file,
                                          FileRecord& record) noexcept;

}  // namespace mlckpt::core
