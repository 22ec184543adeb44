// The description of the protected variables that an HDF5 checkpoint
// (ckpt_io = 5) follows, taken from the registry: FTI_DefineDataset's names
// and shapes, FTI_InitGroup's groups, FTI_SetAttribute's attributes and the
// variables' types.
#pragma once

#include <memory>

#include "format/hdf5/hdf5_global_file.hpp"
#include "format/hdf5/hdf5_schema.hpp"
#include "registry/registry.hpp"

namespace mlckpt::core {

std::shared_ptr<const h5::Schema> hdf5_schema(const Registry& registry);
// The global datasets (FTI_DefineGlobalDataset), by id, and every group.
h5::GlobalSchema global_schema(const Registry& registry);
// The HDF5 description of one of the registry's types.
std::shared_ptr<const h5::Type> hdf5_type(const Registry& registry, int type);

}  // namespace mlckpt::core
