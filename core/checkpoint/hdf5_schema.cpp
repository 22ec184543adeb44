#include "checkpoint/hdf5_schema.hpp"

#include <map>

namespace mlckpt::core {

namespace {

class TypeDescriber {
  public:
    TypeDescriber(const TypeTable& types, const GroupTree& groups) : types_(types), groups_(groups) {}

    std::shared_ptr<const h5::Type> describe(int id) {
        if (auto it = done_.find(id); it != done_.end()) return it->second;
        const TypeInfo& info = types_.at(id);
        auto t = std::make_shared<h5::Type>();
        t->size = info.size;
        if (id < kPrimitiveCount) {
            t->kind = h5::Type::Kind::primitive;
            t->primitive = id;
        } else if (info.composite && !info.fields.empty()) {
            t->kind = h5::Type::Kind::compound;
            for (std::size_t i = 0; i < info.fields.size(); ++i) t->members.push_back(member(info.fields[i], i));
        }  // else opaque: FTI_InitType, or a composite type without fields
        if (id >= kPrimitiveCount) {
            t->name = info.name;
            t->group = groups_.path(info.group);
        }
        done_.emplace(id, t);
        return t;
    }

  private:
    // As FTI: a field of one dimension of length 1 is a scalar member.
    h5::Type::Member member(const TypeField& f, std::size_t index) {
        h5::Type::Member m;
        m.name = f.name.empty() ? "field" + std::to_string(index) : f.name;
        m.offset = f.offset;
        if (!(f.dims.size() == 1 && f.dims[0] == 1)) m.dims.assign(f.dims.begin(), f.dims.end());
        m.type = describe(f.type);
        return m;
    }

    const TypeTable& types_;
    const GroupTree& groups_;
    std::map<int, std::shared_ptr<const h5::Type>> done_;
};

}  // namespace

h5::GlobalSchema global_schema(const Registry& registry) {
    h5::GlobalSchema schema;
    const GroupTree& groups = registry.groups();
    for (int g = 1; g < groups.size(); ++g) schema.groups.push_back(groups.path(g));
    TypeDescriber types(registry.types(), groups);
    for (const auto& [id, d] : registry.global_datasets().datasets()) {
        schema.datasets.push_back({id, d.name, groups.path(d.group), d.dims, types.describe(d.type)});
    }
    return schema;
}

std::shared_ptr<const h5::Type> hdf5_type(const Registry& registry, int type) {
    return TypeDescriber(registry.types(), registry.groups()).describe(type);
}

std::shared_ptr<const h5::Schema> hdf5_schema(const Registry& registry) {
    auto schema = std::make_shared<h5::Schema>();
    const GroupTree& groups = registry.groups();
    for (int g = 1; g < groups.size(); ++g) schema->groups.push_back(groups.path(g));  // parents come first
    TypeDescriber types(registry.types(), groups);
    for (const Variable& v : registry.variables()) {
        h5::Dataset d;
        d.name = "Dataset_" + std::to_string(v.id);
        d.dims = {static_cast<std::uint64_t>(v.count)};
        d.type = types.describe(v.type);
        if (const DatasetDefinition* def = registry.find_dataset(v.id)) {
            if (!def->name.empty()) d.name = def->name;
            if (!def->dims.empty()) d.dims = def->dims;
            d.group = groups.path(def->group);
            d.has_attribute_name = def->attribute_name.has_value();
            d.attribute_name = def->attribute_name.value_or("");
            d.has_attribute_dim = def->attribute_dim.has_value();
            d.attribute_dim = def->attribute_dim.value_or(std::vector<std::uint64_t>{});
        }
        schema->datasets.emplace(v.id, std::move(d));
    }
    return schema;
}

}  // namespace mlckpt::core
