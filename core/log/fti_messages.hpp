// FTI's information lines, in FTI's words, printed where the same event
// happens: FTI's test suites and its users' job scripts look for them
// (mlckpt's own lines come beside them).
#pragma once

#include <cstdint>
#include <string>

namespace mlckpt::core::fti_messages {

// FTI_Init.
std::string execution_id(const std::string& exec_id, bool restart);
std::string recovering_from(int level, int ckpt_id);
inline const char* const kInitialized = "FTI has been initialized.";
// A restart that finds nothing to recover, on every rank, as FTI warns
// (FTI's suites look for the word "Error" in the second line).
inline const char* const kRecoveryFailed = "FTI failed to recover the checkpoint files.";
inline const char* const kRecoveryFailedReason = "Error => no recoverable checkpoint";

// FTI_Protect: the first protection of an id (named or not), and again.
std::string protect_first(int id, const std::string& name, double mb_per_rank);
std::string protect_again(int id, double mb_per_rank);

// FTI_Checkpoint: `level` as FTI reports it (reported_level: an L4
// differential checkpoint is L4).
std::string checkpoint_taken(int ckpt_id, int level, double mb_per_rank, double seconds);
// The one process of each node that completes a checkpoint's level (the
// head, or the node's first application rank), at verbosity 1.
std::string node_flag(int node_id, int level);
// L4 differential checkpoints: the data of every rank and what was written.
std::string dcp_share(std::uint64_t protected_bytes, std::uint64_t written_bytes);

// FTI_Finalize.
inline const char* const kFinalized = "FTI has been finalized.";

}  // namespace mlckpt::core::fti_messages
