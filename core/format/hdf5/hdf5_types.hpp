// The HDF5 datatype of an h5::Type, as FTI builds it: FTI's primitives are
// HDF5's native types, opaque types a char of their size, composite types
// compounds of their named fields at their offsets (array fields as HDF5
// array types), of the composite's full size. The in-memory layout is the file's, so HDF5 stores the
// application's bytes as they are, padding included.
#pragma once

#include "format/hdf5/hdf5_handle.hpp"
#include "format/hdf5/hdf5_schema.hpp"

namespace mlckpt::core::h5 {

Handle make_datatype(const Type& type, const Site& site);

}  // namespace mlckpt::core::h5
