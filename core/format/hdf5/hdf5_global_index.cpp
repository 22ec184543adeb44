// The parts of a global file's description that need no HDF5: dataset
// paths, looking datasets up in an index, and an index's text form for
// sending it between ranks.
#include <algorithm>
#include <sstream>

#include "common/error.hpp"
#include "format/hdf5/hdf5_global_file.hpp"

namespace mlckpt::core::h5 {

std::string GlobalDatasetSpec::path() const {
    const std::string g = path_text(group);
    return (g == "/" ? g : g + "/") + name;
}

const StoredDataset* GlobalIndex::find(const std::string& path) const {
    for (const StoredDataset& d : datasets) {
        if (d.path == path) return &d;
    }
    return nullptr;
}

const StoredDataset* GlobalIndex::find(int id) const {
    for (const StoredDataset& d : datasets) {
        if (d.id == id) return &d;
    }
    return nullptr;
}

namespace {

void put_list(std::ostream& out, const std::vector<std::uint64_t>& v) {
    out << ' ' << v.size();
    for (std::uint64_t x : v) out << ' ' << x;
}

std::vector<std::uint64_t> get_list(std::istream& in) {
    std::size_t n = 0;
    in >> n;
    std::vector<std::uint64_t> v(std::min<std::size_t>(n, 64));
    for (std::uint64_t& x : v) in >> x;
    return v;
}

}  // namespace

std::string serialize_index(const GlobalIndex& index) {
    std::ostringstream out;
    out << index.ckpt_id << ' ' << index.writers << ' ' << index.datasets.size() << ' ' << index.subsets.size() << '\n';
    for (const StoredDataset& d : index.datasets) {
        out << d.id;
        put_list(out, d.dims);
        out << ' ' << d.path.size() << ' ' << d.path << '\n';
    }
    for (const SubsetRecord& s : index.subsets) {
        out << s.dataset_id << ' ' << s.writer << ' ' << s.var << ' ' << s.crc32;
        put_list(out, s.offset);
        put_list(out, s.count);
        out << '\n';
    }
    return out.str();
}

GlobalIndex parse_index(const std::string& text) {
    std::istringstream in(text);
    GlobalIndex index;
    std::size_t datasets = 0;
    std::size_t subsets = 0;
    in >> index.ckpt_id >> index.writers >> datasets >> subsets;
    index.datasets.resize(datasets);
    for (StoredDataset& d : index.datasets) {
        std::size_t length = 0;
        in >> d.id;
        d.dims = get_list(in);
        in >> length;
        in.get();
        d.path.resize(length);
        in.read(d.path.data(), static_cast<std::streamsize>(length));
    }
    index.subsets.resize(subsets);
    for (SubsetRecord& s : index.subsets) {
        in >> s.dataset_id >> s.writer >> s.var >> s.crc32;
        s.offset = get_list(in);
        s.count = get_list(in);
    }
    if (!in) fail(ErrorKind::mpi, "a global file's index did not survive its transfer between ranks");
    return index;
}

}  // namespace mlckpt::core::h5
