// The configuration file (INI, FTI's keys). load_config() validates every key
// and throws a config Error naming file, section, key, value and what is allowed.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "common/wait_bound.hpp"
#include "compress/block_codec.hpp"
#include "format/io_mode.hpp"

namespace mlckpt::core {

// [injection]: the bit flips FTI_BitFlip makes (FTI's keys and defaults).
struct Injection {
    int rank = 0;        // the application rank that flips
    int index = 0;       // the element of the variable
    int position = 0;    // the bit of that element, 0 = least significant
    int number = 0;      // flips in all; 0 = none
    int frequency = -1;  // seconds that must pass after FTI_Init or the last flip
};

// What the configuration file sets for one of FTI's four levels (the
// rules they feed are config/levels.hpp's).
struct LevelSettings {
    double interval_minutes = 0.0;  // [basic] ckpt_l<L>; 0 = off
    bool inline_work = true;        // [basic] inline_l<L> (L2 to L4)
    Codec codec = Codec::none;      // [compression] l<L>
};

struct Config {
    std::string path;  // the file it was read from

    // [basic]
    bool head = false;
    int node_size = 1;
    std::string ckpt_dir;          // node-local storage (L1-L3)
    std::string glbl_dir;          // parallel file system (L4)
    std::string meta_dir;          // checkpoint metadata (reliable, shared)
    LevelSettings l1, l2, l3, l4;  // ckpt_l<L>, inline_l<L>, [compression] l<L>
    bool keep_last_ckpt = false;
    bool keep_l4_ckpt = false;
    bool keep_heads_alive = false;
    int group_size = 4;
    // mlckpt only: 0 = FTI's L3 parity; k >= 1 = Reed-Solomon sets that
    // survive any k lost nodes of a group (config/levels.hpp RedundancyScheme).
    int l3_failures = 0;
    int verbosity = 2;
    IoMode ckpt_io = IoMode::posix;
    bool enable_dcp = false;
    bool enable_staging = false;  // FTI_SendFile and friends
    // FTI_Checkpoint copies the protected data into library memory of at
    // most async_snapshot_mb MiB per rank and returns; the checkpoint is
    // written from the copy in the background (checkpoint/snapshot_copy.hpp).
    bool async_snapshot = false;
    int async_snapshot_mb = 4096;
    DcpMode dcp_mode = DcpMode::md5;
    int dcp_mode_value = 1;      // as written: 1 MD5, 2 CRC-32
    int dcp_block_size = 16384;  // bytes
    int dcp_stack_size = 5;      // ckpt_io = 1: dCP checkpoints (layers) per file, then a new file
    int max_var_id = 1048575;
    int max_sync_intv = 512;  // FTI_Snapshot: most iterations between time syncs
    // The global HDF5 file of FTI_L4_H5_SINGLE: <dir>/<prefix>-ID<8 digits>.h5.
    bool h5_single_file_enable = false;
    std::string h5_single_file_dir;  // "" (unset or empty): glbl_dir
    std::string h5_single_file_prefix = "VPR-h5";
    bool h5_single_file_keep = false;  // false: a run's new file replaces its previous one

    // [restart]
    int failure = 0;  // 0, 1 or 2; failure = 3 sets variate_restart and leaves 0 here
    std::string exec_id;
    // failure = 3: a fresh execution that restarts from the newest global
    // HDF5 file, on any number of ranks (FTI's variate processor restart).
    bool variate_restart = false;

    // [advanced]
    int block_size_kb = 1024;
    int transfer_size_mb = 16;  // MPI-IO: the most bytes a rank moves per call
    // ckpt_io = 4: chunk alignment in bytes (0: the file system's, which
    // FTI_Init reads into Context::container_block_size) and the number of
    // physical files.
    int container_block_size = 0;
    int container_files = 1;
    bool local_test = false;
    int general_tag = 2612;
    int ckpt_tag = 711;
    int stage_tag = 406;
    int final_tag = 3107;
    int fast_forward = 1;  // FTI_Snapshot: the intervals, in iterations, divided by this
    // Seconds a rank waits inside the library for another before it reports
    // whom it waits for and aborts the job; 0: no bound.
    int wait_timeout = kDefaultWaitBoundSeconds;
    // As FTI: FTI_Init reads the restart's data and redundancy whole and
    // checks them, so that FTI_Recover only reads (each rank alone). false:
    // the data is checked once, while FTI_Recover reads it, and FTI_Recover
    // settles the outcome with the other ranks (collective).
    bool verify_at_init = true;

    Injection injection;

    // [compression] (mlckpt's own): the raw bytes of each independently
    // compressed block (each level's codec is in l1..l4).
    int compression_block_kb = 1024;

    // Values FTI accepts and replaces (or settings it turns off), with what
    // was done instead: logged by rank 0 at FTI_Init.
    std::vector<std::string> warnings;

    const std::string& single_file_dir() const { return h5_single_file_dir.empty() ? glbl_dir : h5_single_file_dir; }
};

Config load_config(const std::string& path);

// Whether a mode writes one file (or container) for all ranks at L4.
bool is_shared(IoMode mode);

// The human-readable name of a checkpoint I/O mode ("POSIX", "FTI-FF", ...).
const char* io_mode_name(IoMode mode);

}  // namespace mlckpt::core
