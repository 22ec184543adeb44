// The description of the protected variables that an HDF5 checkpoint
// (ckpt_io = 5) follows, taken from the registry: FTI_DefineDataset's names
// and shapes, FTI_InitGroup's groups, FTI_SetAttribute's attributes and the
// variables' types.
#pragma once

#include <memory>

#include "format/hdf5_schema.hpp"
#include "registry/registry.hpp"

namespace mlckpt::core {

std::shared_ptr<const h5::Schema> hdf5_schema(const Registry& registry);

}  // namespace mlckpt::core
