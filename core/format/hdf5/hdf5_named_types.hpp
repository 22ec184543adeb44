// The named datatypes of one HDF5 file, as FTI commits them: the type of a
// dataset, when it is FTI_InitType's or FTI_InitCompositeType's, is
// committed once, at its first dataset, under its name ("Type<id>" without
// one) in its group (the composite's FTI_InitGroup group, else the root);
// the datasets of that type refer to it. Types inside others stay inline.
#pragma once

#include <map>
#include <set>
#include <string>

#include "format/hdf5/hdf5_handle.hpp"
#include "format/hdf5/hdf5_schema.hpp"

namespace mlckpt::core::h5 {

class NamedTypes {
  public:
    // `reserved`: the paths of the file's datasets, which a type's name
    // must not take.
    NamedTypes(hid_t file, const Site& site, std::set<std::string> reserved)
        : file_(file), site_(site), reserved_(std::move(reserved)) {}

    // The type to create a dataset of `type` with: the committed one when
    // `type` is committed in this file (here, at its first dataset), else
    // a transient one. A name HDF5 cannot link (a '/' in it, or taken in
    // its group by another object or a dataset to come) leaves the type
    // inline, as FTI does when its commit fails.
    hid_t dataset_type(const std::shared_ptr<const Type>& type);

  private:
    hid_t file_;
    const Site& site_;
    std::set<std::string> reserved_;
    std::map<const Type*, Handle> made_;  // keyed by the schema's types, which outlive the file
    Handle transient_;
};

}  // namespace mlckpt::core::h5
