#include "registry/types.hpp"

#include <limits>

#include "common/error.hpp"

namespace mlckpt::core {

namespace {

TypeInfo simple(const char* name, std::size_t size) {
    TypeInfo t;
    t.name = name;
    t.size = size;
    return t;
}

}  // namespace

TypeTable::TypeTable() {
    types_ = {
        simple("char", sizeof(char)),
        simple("short", sizeof(short)),
        simple("int", sizeof(int)),
        simple("long", sizeof(long)),
        simple("unsigned char", sizeof(unsigned char)),
        simple("unsigned short", sizeof(unsigned short)),
        simple("unsigned int", sizeof(unsigned int)),
        simple("unsigned long", sizeof(unsigned long)),
        simple("float", sizeof(float)),
        simple("double", sizeof(double)),
        simple("long double", sizeof(long double)),
    };
}

int TypeTable::add_opaque(std::size_t size) {
    if (size == 0 || size > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
        fail(ErrorKind::usage, "type size " + std::to_string(size) + " is invalid; allowed: 1 to " +
                                   std::to_string(std::numeric_limits<int>::max()) + " bytes");
    }
    types_.push_back(simple("", size));
    types_.back().name = "Type" + std::to_string(types_.size() - 1);
    return static_cast<int>(types_.size() - 1);
}

int TypeTable::add_composite(const std::string& name, std::size_t size, int group) {
    int id = add_opaque(size);
    TypeInfo& t = types_.back();
    if (!name.empty()) t.name = name;
    t.composite = true;
    t.group = group;
    return id;
}

void TypeTable::add_field(int composite, const std::string& name, int field_type, std::size_t offset,
                          std::vector<int> dims) {
    const TypeInfo& parent = at(composite);
    if (!parent.composite) {
        fail(ErrorKind::usage, "type " + std::to_string(composite) +
                                   " is not a composite type; fields can only be added to types "
                                   "made by FTI_InitCompositeType");
    }
    const TypeInfo& field = at(field_type);
    std::size_t elements = 1;
    for (int d : dims) {
        if (d <= 0) {
            fail(ErrorKind::usage,
                 "field '" + name + "': dimension " + std::to_string(d) + " is invalid; allowed: sizes >= 1");
        }
        elements *= static_cast<std::size_t>(d);
    }
    std::size_t end = offset + elements * field.size;
    if (end > parent.size) {
        fail(ErrorKind::usage, "field '" + name + "' of type '" + parent.name + "' ends at byte " +
                                   std::to_string(end) + ", beyond the type's " + std::to_string(parent.size) +
                                   " bytes");
    }
    types_[static_cast<std::size_t>(composite)].fields.push_back({name, field_type, offset, std::move(dims)});
}

const TypeInfo& TypeTable::at(int id) const {
    if (!contains(id)) {
        fail(ErrorKind::usage, "unknown data type handle " + std::to_string(id) +
                                   "; allowed: FTI_CHAR..FTI_LDBE or a handle from FTI_InitType/"
                                   "FTI_InitCompositeType");
    }
    return types_[static_cast<std::size_t>(id)];
}

}  // namespace mlckpt::core
