// FTI_L4_H5_SINGLE and FTI's variate processor restart ([restart]
// failure = 3): the global datasets written into one HDF5 file shared by
// all application ranks, <h5_single_file_dir>/<prefix>-ID<8 digits>.h5,
// and a restart from the newest such file on any number of ranks. The file
// is beside the levels: no metadata, no catalog entry, never the source of
// an ordinary restart. See docs/hdf5.md.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "config/api_level.hpp"
#include "format/hdf5/hdf5_global_file.hpp"
#include "registry/registry.hpp"
#include "store/context.hpp"

namespace mlckpt::core {

class GlobalFile {
  public:
    explicit GlobalFile(const Context& ctx) : ctx_(ctx) {}

    // The bytes a checkpoint takes of a variable: its own memory, or a copy
    // made when an incremental checkpoint added it.
    using DataOf = std::function<std::span<const std::byte>(const Variable&)>;
    // Collective over the application ranks: every global dataset into the
    // file of `ckpt_id`, written under a temporary name and renamed once
    // every rank succeeded. Every rank throws the same Error, and then no
    // file of that name was made or replaced.
    void checkpoint(int ckpt_id, const Registry& registry, const DataOf& data_of);

    // Collective, at FTI_Init with failure = 3: selects the newest file that
    // verifies whole (every subset's checksum, the ranks sharing the
    // reads); older files are tried when one fails. Returns why there is
    // none, or nothing when one was selected.
    std::optional<std::string> select_restart();
    bool restarting() const { return restart_.has_value(); }
    const std::filesystem::path& restart_file() const { return restart_->file; }
    // FTI_RecoverDatasetDimension: the shape of global dataset `did` in the
    // file restarted from.
    std::vector<std::uint64_t> stored_dims(const Registry& registry, int did) const;

    // This rank's reads of a recovery: each variable in `ids` that is a
    // subset of a global dataset is filled from the file; the others keep
    // their values, with a warning (the file does not hold them). Throws on
    // this rank alone.
    void read(const Registry& registry, const std::vector<int>& ids) const;
    void finish_restart() { restart_.reset(); }

  private:
    std::string file_name(int ckpt_id) const;
    std::vector<h5::Piece> own_pieces(const Registry& registry, const h5::GlobalSchema& schema,
                                      const DataOf& data_of) const;
    void check_same_declarations(const h5::GlobalSchema& schema) const;                               // collective
    void check_coverage(const h5::GlobalSchema& schema, const std::vector<h5::Piece>& pieces) const;  // collective
    std::vector<std::string> candidates() const;  // collective: newest first
    void verify_shared(const std::filesystem::path& file, const h5::GlobalIndex& index) const;  // collective

    const Context& ctx_;
    std::optional<std::string> last_written_;  // by this run; replaced unless h5_single_file_keep
    struct Restart {
        std::filesystem::path file;
        h5::GlobalIndex index;
    };
    std::optional<Restart> restart_;
};

}  // namespace mlckpt::core
