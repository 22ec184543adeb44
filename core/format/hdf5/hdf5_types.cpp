#include "format/hdf5/hdf5_types.hpp"

#include <vector>

namespace mlckpt::core::h5 {

namespace {

// In the order of FTI's handles FTI_CHAR .. FTI_LDBE.
hid_t native(int primitive) {
    const hid_t table[] = {H5T_NATIVE_CHAR,  H5T_NATIVE_SHORT,  H5T_NATIVE_INT,    H5T_NATIVE_LONG,
                           H5T_NATIVE_UCHAR, H5T_NATIVE_USHORT, H5T_NATIVE_UINT,   H5T_NATIVE_ULONG,
                           H5T_NATIVE_FLOAT, H5T_NATIVE_DOUBLE, H5T_NATIVE_LDOUBLE};
    return table[primitive];
}

Handle member_type(const Type::Member& m, const Site& site) {
    Handle element = make_datatype(*m.type, site);
    if (m.dims.empty()) return element;
    std::vector<hsize_t> dims(m.dims.begin(), m.dims.end());
    return site.own(H5Tarray_create2(element.get(), static_cast<unsigned>(dims.size()), dims.data()), H5Tclose,
                    "array type of member '" + m.name + "'");
}

}  // namespace

Handle make_datatype(const Type& type, const Site& site) {
    switch (type.kind) {
        case Type::Kind::primitive:
            return site.own(H5Tcopy(native(type.primitive)), H5Tclose, "native type");
        case Type::Kind::opaque: {
            // FTI's: a char widened to the type's size (8-bit precision), so
            // that h5dump shows the files of both alike.
            Handle t = site.own(H5Tcopy(H5T_NATIVE_CHAR), H5Tclose, "opaque type");
            site.check(H5Tset_size(t.get(), type.size), "size of an opaque type");
            return t;
        }
        case Type::Kind::compound: {
            Handle t = site.own(H5Tcreate(H5T_COMPOUND, type.size), H5Tclose, "compound type");
            for (const Type::Member& m : type.members) {
                Handle mt = member_type(m, site);
                site.check(H5Tinsert(t.get(), m.name.c_str(), m.offset, mt.get()),
                           "member '" + m.name + "' of a compound type");
            }
            return t;
        }
    }
    site.raise("unknown element type");
}

}  // namespace mlckpt::core::h5
