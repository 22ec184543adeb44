// Deterministic fault injection for tests of the commit protocol. When the
// environment variable MLCKPT_FAULT_INJECT is "<point>:<rank>:<seq>", the
// process working for application rank <rank> (the rank itself, or the head
// of its node in asynchronous mode) kills itself with SIGKILL on reaching <point>
// while committing the checkpoint with sequence number <seq> (the commit
// order within the execution: 1 for its first checkpoint, continuing across
// restarts; the L4 copy made by keep_last_ckpt reuses its source's number).
// Points: after_data_write (its file is written, nothing committed yet),
// during_redundancy (L2/L3: partner copies or parity being made at a
// checkpoint; for L3 also while parity is rebuilt at a restart),
// before_shared_commit (ckpt_io 2 and 4 at L4: the rank's data is durable in
// the shared file, which is still incomplete under its .tmp name),
// before_meta_commit (rank 0: all files written, metadata not yet renamed),
// during_dcp_update (L4 differential: a variable's changed blocks were just
// journaled, the update is not complete), during_dcp_apply (L4
// differential, after the commit: the first record of the sealed journal
// was just applied to the file, on the rank's background thread),
// during_global_write (FTI_L4_H5_SINGLE, with the checkpoint id as <seq>:
// the subsets are written into the .partial file, its table's rows and
// HDF5's last records are not), during_flush (scr.h: a dataset's files were
// copied to the prefix, that copy is not committed), promotion_started and
// promotion_written (background promotion without heads: the rank's
// worker begins on a committed checkpoint; its part of the promoted level
// is durable, the promotion not committed). Datasets of scr.h pass
// after_data_write (their files sealed), during_redundancy and
// before_meta_commit as checkpoints do.
#pragma once

#include <cstdint>

namespace mlckpt::core {

void fault_point(const char* point, int app_rank, std::uint64_t seq);
// Whether MLCKPT_FAULT_INJECT names this point (it may name several,
// separated by commas), for faults that are not a kill. For the global
// HDF5 file of FTI_L4_H5_SINGLE, with its ckpt_id as <seq>:
// lost_global_write: once the file is written and synced, a byte of the
// rank's first subset changes in it, as a write that MPI-IO lost without
// an error would leave it; only a file without a reservation can lose one,
// so it goes with no_space_reservation (rank 0: the file system cannot
// reserve the file's storage). reservation_full (rank 0): the reservation
// meets a full disk.
bool fault_requested(const char* point, int app_rank, std::uint64_t seq);

}  // namespace mlckpt::core
