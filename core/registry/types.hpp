// Data types known to the session: FTI's eleven primitives (handles 0..10,
// fixed so that they are valid before FTI_Init), opaque types and composite
// types with named fields.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace mlckpt::core {

enum PrimitiveType : int {
    kChar = 0,
    kShort,
    kInt,
    kLong,
    kUChar,
    kUShort,
    kUInt,
    kULong,
    kFloat,
    kDouble,
    kLongDouble,
    kPrimitiveCount
};

struct TypeField {
    std::string name;
    int type = 0;
    std::size_t offset = 0;
    std::vector<int> dims;  // empty for a scalar field
};

struct TypeInfo {
    std::string name;  // FTI's: the composite's name, else "Type<id>" (its HDF5 named datatype)
    std::size_t size = 0;
    bool composite = false;
    int group = 0;  // the FTI_InitGroup group given with a composite type (0: the root)
    std::vector<TypeField> fields;
};

class TypeTable {
  public:
    TypeTable();

    int add_opaque(std::size_t size);
    int add_composite(const std::string& name, std::size_t size, int group);
    void add_field(int composite, const std::string& name, int field_type, std::size_t offset, std::vector<int> dims);

    const TypeInfo& at(int id) const;  // throws a usage Error for an unknown handle
    bool contains(int id) const { return id >= 0 && id < static_cast<int>(types_.size()); }

  private:
    std::vector<TypeInfo> types_;
};

}  // namespace mlckpt::core
