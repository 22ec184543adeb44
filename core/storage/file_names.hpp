// The names of an execution's files and directories, as FTI names them
// where FTI has them (Ckpt<id>-Rank<r>.fti, -Pcof, -RSed, dCP-Rank<r>.fti)
// and mlckpt's own (ckpt<seq>.l<L>.meta, ckpt<seq>/), and their parsers,
// which refuse any other name. Where the files lie is StorageLayout's
// (storage/layout.hpp).
#pragma once

#include <cstdint>
#include <string>

#include "format/io_mode.hpp"

namespace mlckpt::core {

// The extension of files of `format`: ".h5" for HDF5, as FTI, else ".fti".
const char* file_extension(IoMode format);
// The names of a checkpoint's files of `format` (file_format()).
std::string data_file_name(int ckpt_id, int rank, IoMode format);
std::string dcp_file_name(int rank);
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
