// The names of an execution's files and directories, as FTI names them
// where FTI has them (Ckpt<id>-Rank<r>.fti, -Pcof, -RSed, dcp-id0-rank<r>.fti,
// dCPFile-Rank<r>.fti) and mlckpt's own (ckpt<seq>.l<L>.meta, ckpt<seq>/), and their parsers,
// which refuse any other name. Where the files lie is StorageLayout's
// (storage/layout.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "format/io_mode.hpp"

namespace mlckpt::core {

// The extension of files of `format`: ".h5" for HDF5, as FTI, else ".fti".
const char* file_extension(IoMode format);
// The names of a checkpoint's files of `format` (file_format()).
std::string data_file_name(int ckpt_id, int rank, IoMode format);

// The names of a rank's L4 differential file, and of its directory below
// <glbl_dir>/<exec_id>/. The file is FTI-FF whatever ckpt_io says; it takes
// the name FTI gives its own dCP file under that ckpt_io, so that what
// finds (or damages) FTI's file finds mlckpt's.
enum class DcpNames {
    posix,   // dCP/dcp-id<N>-rank<r>.fti: FTI's POSIX dCP file (ckpt_io = 1), a stack
             // of layers (format/dcp/dcp_layers.hpp), <N> the stack; dcp_file_name gives stack 0
    ftiff,   // dCP/dCPFile-Rank<r>.fti: FTI's FTI-FF dCP file (ckpt_io = 3), and
             // mlckpt's under the modes FTI has no dCP for (2, 4, 5)
    legacy,  // dcp/dCP-Rank<r>.fti: mlckpt before it took FTI's names; read,
             // never written
};
inline constexpr DcpNames kAllDcpNames[] = {DcpNames::posix, DcpNames::ftiff, DcpNames::legacy};
// The names the L4 differential files of a run with ckpt_io `configured` take.
DcpNames dcp_names(IoMode configured);
const char* dcp_dir_name(DcpNames names);
std::string dcp_file_name(int rank, DcpNames names);
// Parses an L4 differential file's name, of any DcpNames (dcp-id<k>-rank<r>.fti
// with any stack number k); false for any other name.
bool parse_dcp_file_name(const std::string& name, int& rank, DcpNames& names);
// The stack number of a dcp-id<N>-rank<R>.fti name; nullopt for another.
std::optional<int> dcp_stack_of(const std::string& name);
// L2: the copy `holder` keeps of its left neighbour's file, named after
// the holder, as FTI names it.
std::string partner_file_name(int ckpt_id, int holder, IoMode format);
std::string parity_file_name(int ckpt_id, int holder, IoMode format);  // L3 parity kept by `holder`
// Parses "ckpt<seq>.l<L>.meta"; false for any other name.
bool parse_meta_file_name(const std::string& name, std::uint64_t& seq, int& level);
// "ckpt<seq>", the directory of a checkpoint that has one.
std::string own_dir_name(std::uint64_t seq);
// Parses "ckpt<seq>"; false for any other name.
bool parse_own_dir_name(const std::string& name, std::uint64_t& seq);
// The id in a checkpoint file's name, "Ckpt<id>-..."; false for a name
// of another form.
bool parse_file_name_id(const std::string& name, int& ckpt_id);
// The rank in a data file's name, "Ckpt<id>-Rank<r>.<ext>"; false for a
// name of another form.
bool parse_data_file_rank(const std::string& name, int& rank);

}  // namespace mlckpt::core
