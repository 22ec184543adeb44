// Where every file of an execution lives.
//
//   <ckpt_dir>/node<N>/<exec_id>/l<L>/Ckpt<id>-Rank<r>.fti        L1-L3, node-local, as FTI keeps them
//   <ckpt_dir>/node<N>/<exec_id>/l2/Ckpt<id>-Pcof<r>.fti          (.h5 for HDF5 files, as FTI, and their
//   <ckpt_dir>/node<N>/<exec_id>/l3/Ckpt<id>-RSed<r>.fti           partner copies and parity)
//   <ckpt_dir>/node<N>/<exec_id>/l<L>/ckpt<seq>/...               the same, for a checkpoint in a
//                                                                 directory of its own (CheckpointRef)
//   <ckpt_dir>/node<N>/<exec_id>/l<L>/ckpt<seq>/rank<r>/<name>     L1-L3, files routed with scr.h
//   <ckpt_dir>/node<N>/<exec_id>/l<L>/.retired/                   retired files awaiting their removal
//                                                                 (l4/.retired/ likewise; kRetiredDir)
//   <ckpt_dir>/node<N>/<exec_id>/stage/                           staging (FTI_GetStageDir)
//   <ckpt_dir>/node<N>/<exec_id>/meta/ckpt<seq>.l<L>.meta          copy of an L1-L3 checkpoint's metadata,
//                                                                 for a restart that lost meta_dir
//   <glbl_dir>/<exec_id>/l4/Ckpt<id>-Rank<r>.fti                  L4 (or l4/ckpt<seq>/, as above)
//   <glbl_dir>/<exec_id>/l4/Ckpt<id>-mpiio.fti                    L4, ckpt_io = 2 (all ranks)
//   <glbl_dir>/<exec_id>/l4/Ckpt<id>-sionlib.fti[.<f>]            L4, ckpt_io = 4 (all ranks)
//   <glbl_dir>/<exec_id>/meta/ckpt<seq>.l<L>.meta                 copy of an L4 checkpoint's metadata
//   <glbl_dir>/<exec_id>/l4_archive/Ckpt<id>-Rank<r>.fti,         keep_l4_ckpt: flat, as FTI's
//                                   ckpt<seq>.l4.meta             (each checkpoint's files, its metadata copy)
//   <glbl_dir>/<exec_id>/dCP/dcp-id0-rank<r>.fti                  L4 differential (level 8), ckpt_io = 1,
//   <glbl_dir>/<exec_id>/dCP/dCPFile-Rank<r>.fti                  other ckpt_io; updated in place
//                                                                 (FTI's names, DcpNames; earlier versions':
//                                                                 dcp/dCP-Rank<r>.fti, still read)
//   <meta_dir>/<exec_id>/ckpt<seq>.l<L>.meta                      metadata (commit point)
//   <meta_dir>/<exec_id>/archive/ckpt<seq>.l4.meta
//
// Everything below the three configured directories is the library's own:
// created with kDirectoryMode, never through a symbolic link (make_dir).
//
// FTI's names carry the checkpoint id: a checkpoint whose id repeats that
// of a live one goes in a directory named by its commit sequence number, so
// that an application that reuses an id never overwrites a committed
// checkpoint (Catalog::place).
//
// The <r> in a file's name is the rank FTI names it after: the rank in
// FTI_Init's communicator, heads included. Without heads it is the
// application rank.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "format/checkpoint_meta.hpp"
#include "io/directory_cache.hpp"
#include "io/file.hpp"
#include "storage/checkpoint_ref.hpp"
#include "storage/file_names.hpp"

namespace mlckpt::core {

namespace fs = std::filesystem;

class StorageLayout {
  public:
    // `file_ranks`: the rank each application rank's files are named after
    // (Topology::app_to_world); empty names them after application ranks.
    StorageLayout(const Config& config, std::string exec_id, std::vector<int> file_ranks = {});
    // The same directories, naming the files of checkpoints written under
    // ckpt_io `io` (a checkpoint's recorded mode, when it may differ from
    // the configured one).
    StorageLayout for_io(IoMode io) const;
    // The same directories, naming files as the run that wrote checkpoint
    // `meta` named them: its ckpt_io, the rank in each data file name its
    // metadata records (a run with heads placed otherwise, or an older
    // version, may have named them after other ranks), and the names of its
    // L4 differential files (those of another ckpt_io, or an older version's).
    StorageLayout for_checkpoint(const CheckpointMeta& meta) const;
    // The names this layout gives L4 differential files.
    DcpNames dcp_names() const { return dcp_names_; }
    // The rank in the names of application rank `app_rank`'s files.
    int file_rank(int app_rank) const;

    const std::string& exec_id() const { return exec_id_; }
    fs::path node_exec_dir(int node) const;
    // FTI_GetStageDir: files the node's ranks stage ([basic] enable_staging).
    fs::path stage_dir(int node) const { return node_exec_dir(node) / "stage"; }
    fs::path global_exec_dir() const;
    fs::path meta_exec_dir() const;

    // The directory of a level's checkpoints on `node` (L4: the global one).
    fs::path level_dir(int level, int node) const;
    // The directory of checkpoint `ref`'s files on `node`: level_dir(), or
    // its own directory below it.
    fs::path ckpt_dir(const CheckpointRef& ref, int node) const;
    // The data file of application rank `owner` kept on `node`.
    fs::path data_file(const CheckpointRef& ref, int owner, int node) const;
    // The redundancy file application rank `holder` keeps on `node`: the
    // partner copy of its left neighbour's file at L2, its parity at L3;
    // empty at other levels.
    fs::path redundancy_file(const CheckpointRef& ref, int holder, int node) const;
    // Where application rank `owner` keeps the files it routed into dataset
    // `ref` (scr.h) on `node`: <checkpoint directory>/rank<owner>/. Levels
    // 1-3 only: at L4 the files are at the paths the application named.
    fs::path routed_dir(const CheckpointRef& ref, int owner, int node) const;
    // Where application rank `owner`'s L4 differential file is under each
    // of the names it may have (kAllDcpNames): this layout's first. Only one
    // exists; the others are left by a run of another ckpt_io or version.
    std::vector<fs::path> dcp_files(int owner) const;
    // The directories of L4 differential files under any names.
    std::vector<fs::path> dcp_dirs() const;
    fs::path archive_dir() const;
    fs::path meta_file(int level, std::uint64_t seq) const;
    // The copy of meta_file() kept with the data: on `node` (the node of
    // the rank that commits) for L1-L3, in the global directory for L4.
    fs::path meta_copy(int level, std::uint64_t seq, int node) const;
    fs::path meta_copy_dir(int level, int node) const;
    fs::path archive_meta_file(std::uint64_t seq) const;

    // The configured directory (ckpt_dir, glbl_dir or meta_dir) that `dir`,
    // one of this layout's directories, lies in; the innermost if they nest.
    const fs::path& base_of(const fs::path& dir) const;
    // `dir`, one of this layout's directories, created if missing and open:
    // its configured directory may be (or lie behind) a symbolic link; the
    // components below it are the library's and never are (make_dirs).
    // Kept open for the next call (DirectoryCache), shared by the copies
    // of this layout.
    Directory make_dir(const fs::path& dir) const { return dirs_->make_dirs(base_of(dir), dir); }

  private:
    fs::path ckpt_dir_;
    fs::path glbl_dir_;
    fs::path meta_dir_;
    std::string exec_id_;
    IoMode io_ = IoMode::posix;
    DcpNames dcp_names_ = DcpNames::posix;  // from the configured ckpt_io, not io_ (for_io)
    std::vector<int> file_ranks_;           // by application rank; empty: the application rank
    std::shared_ptr<DirectoryCache> dirs_ = std::make_shared<DirectoryCache>();
};

}  // namespace mlckpt::core
