// How a checkpoint's files are written: the configuration chooses it
// (ckpt_io, dcp_mode), the metadata records it, the formats implement it.
#pragma once

namespace mlckpt::core {

// ckpt_io: 1 POSIX, 2 MPI-IO (one shared L4 file), 3 FTI-FF, 4 container in
// the SIONlib layout (one shared L4 file, or container_files files), 5 HDF5
// (one file per rank).
enum class IoMode { posix = 1, mpiio = 2, ftiff = 3, container = 4, hdf5 = 5 };
// dcp_mode: the block hash of L4 differential checkpoints.
enum class DcpMode { md5 = 1, crc32 = 2 };

}  // namespace mlckpt::core
