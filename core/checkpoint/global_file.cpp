#include "checkpoint/global_file.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>

#include "checkpoint/hdf5_schema.hpp"
#include "common/plural.hpp"
#include "hash/crc32.hpp"
#include "io/file.hpp"
#include "mpi/collective.hpp"

namespace mlckpt::core {

namespace {

std::string global_path(const Registry& registry, const GlobalDataset& d) {
    const std::string group = h5::path_text(registry.groups().path(d.group));
    return (group == "/" ? group : group + "/") + d.name;
}

std::string describe(int did, const std::string& path) {
    return "global dataset " + std::to_string(did) + " ('" + path + "')";
}

// A subset must lie inside its dataset and hold exactly its variable's
// elements, of the dataset's element size: else HDF5 would read or write
// past the variable's memory.
void check_subset(const std::string& dataset, const std::vector<std::uint64_t>& dims, std::size_t element_size,
                  const Subset& s, const Variable& var, ErrorKind kind) {
    const std::string where = "variable " + std::to_string(var.id) + " in " + dataset;
    if (s.count.size() != dims.size()) {
        fail(kind, where + ": the subset has rank " + std::to_string(s.count.size()) + ", the dataset " +
                       std::to_string(dims.size()) + "; move it with FTI_UpdateSubset");
    }
    for (std::size_t k = 0; k < dims.size(); ++k) {
        if (s.offset[k] > dims[k] || s.count[k] > dims[k] - s.offset[k]) {
            fail(kind, where + ": the subset at offset " + shape_text(s.offset) + " of " + shape_text(s.count) +
                           " elements exceeds the dataset's shape " + shape_text(dims));
        }
    }
    if (s.elements() != static_cast<std::uint64_t>(var.count)) {
        fail(kind, where + ": the subset " + shape_text(s.count) + " holds " + std::to_string(s.elements()) +
                       " elements, the variable " + std::to_string(var.count) +
                       "; the subset's count must describe the variable's elements");
    }
    if (var.element_size != element_size) {
        fail(kind, where + ": the variable's elements have " + std::to_string(var.element_size) +
                       " bytes, the dataset's type " + std::to_string(element_size));
    }
}

// A text that differs when any declaration differs: ids, paths, shapes, types.
void describe_type(std::string& out, const h5::Type& t) {
    out += "(" + std::to_string(static_cast<int>(t.kind)) + " " + std::to_string(t.primitive) + " " +
           std::to_string(t.size);
    for (const h5::Type::Member& m : t.members) {
        out += " " + m.name + "@" + std::to_string(m.offset) + shape_text(m.dims);
        describe_type(out, *m.type);
    }
    out += ")";
}

std::string declarations(const h5::GlobalSchema& schema) {
    std::string out;
    for (const h5::GroupPath& g : schema.groups) out += h5::path_text(g) + "\n";
    for (const h5::GlobalDatasetSpec& d : schema.datasets) {
        out += std::to_string(d.id) + " " + d.path() + " " + shape_text(d.dims);
        describe_type(out, *d.type);
        out += "\n";
    }
    return out;
}

struct Box {
    int rank = 0;
    int var = 0;
    std::vector<std::uint64_t> lo;
    std::vector<std::uint64_t> hi;  // exclusive
};

bool intersect(const Box& a, const Box& b) {
    for (std::size_t k = 0; k < a.lo.size(); ++k) {
        if (a.hi[k] <= b.lo[k] || b.hi[k] <= a.lo[k]) return false;
    }
    return true;
}

// Rank 0: no two subsets of a dataset overlap (sorted by their first
// coordinate, each is compared only with those that start before it ends).
void check_disjoint(std::vector<Box> boxes, const std::string& dataset) {
    std::sort(boxes.begin(), boxes.end(), [](const Box& a, const Box& b) { return a.lo[0] < b.lo[0]; });
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        for (std::size_t j = i + 1; j < boxes.size() && boxes[j].lo[0] < boxes[i].hi[0]; ++j) {
            if (intersect(boxes[i], boxes[j])) {
                fail(ErrorKind::usage, dataset + ": the subsets of variable " + std::to_string(boxes[i].var) +
                                           " on rank " + std::to_string(boxes[i].rank) + " and of variable " +
                                           std::to_string(boxes[j].var) + " on rank " + std::to_string(boxes[j].rank) +
                                           " overlap; every element must belong to exactly one subset");
            }
        }
    }
}

}  // namespace

std::string GlobalFile::file_name(int ckpt_id) const {
    char id[32];
    std::snprintf(id, sizeof id, "-ID%08d.h5", ckpt_id);
    return ctx_.config.h5_single_file_prefix + id;
}

std::vector<h5::Piece> GlobalFile::own_pieces(const Registry& registry, const h5::GlobalSchema& schema,
                                              const DataOf& data_of) const {
    std::map<int, std::size_t> index_of;
    for (std::size_t i = 0; i < schema.datasets.size(); ++i) index_of[schema.datasets[i].id] = i;
    std::vector<h5::Piece> pieces;
    for (const auto& [var_id, s] : registry.global_datasets().subsets()) {
        const Variable& var = registry.at(var_id);
        const std::size_t i = index_of.at(s.dataset);
        const h5::GlobalDatasetSpec& d = schema.datasets[i];
        check_subset(describe(d.id, d.path()), d.dims, d.type->size, s, var, ErrorKind::usage);
        pieces.push_back({i, var_id, s.offset, s.count, data_of(var)});
    }
    return pieces;
}

void GlobalFile::check_same_declarations(const h5::GlobalSchema& schema) const {
    const std::string text = declarations(schema);
    const std::uint64_t mine =
        (std::uint64_t{crc32_of(std::as_bytes(std::span(text)))} << 32) | (text.size() & 0xffffffffu);
    std::uint64_t in[2] = {mine, ~mine};
    std::uint64_t out[2] = {0, 0};
    allreduce(in, out, 2, MPI_UINT64_T, MPI_MAX, ctx_.app, "the global datasets every rank declares");
    if (out[0] != ~out[1]) {
        fail(ErrorKind::usage,
             "the ranks declare different global datasets or groups (FTI_DefineGlobalDataset, "
             "FTI_UpdateGlobalDataset, FTI_InitGroup); every rank must declare the same ids, names, groups, shapes "
             "and types");
    }
}

void GlobalFile::check_coverage(const h5::GlobalSchema& schema, const std::vector<h5::Piece>& pieces) const {
    std::vector<std::uint64_t> mine(schema.datasets.size(), 0);
    for (const h5::Piece& p : pieces) mine[p.dataset] += elements_of(p.count);
    std::vector<std::uint64_t> total(mine.size(), 0);
    allreduce(mine.data(), total.data(), static_cast<int>(mine.size()), MPI_UINT64_T, MPI_SUM, ctx_.app,
              "the elements of each global dataset's subsets");
    // The boxes go to rank 0, which checks that none overlap.
    std::vector<std::uint64_t> flat;
    for (const h5::Piece& p : pieces) {
        flat.push_back(p.dataset);
        flat.push_back(static_cast<std::uint64_t>(static_cast<std::int64_t>(p.var)));
        flat.insert(flat.end(), p.offset.begin(), p.offset.end());
        flat.insert(flat.end(), p.count.begin(), p.count.end());
    }
    const std::vector<std::string> gathered = gather_strings(
        ctx_.app, std::string(reinterpret_cast<const char*>(flat.data()), flat.size() * sizeof(std::uint64_t)), 0);
    run_collectively(ctx_.app, [&] {
        for (std::size_t i = 0; i < schema.datasets.size(); ++i) {
            const h5::GlobalDatasetSpec& d = schema.datasets[i];
            if (total[i] != elements_of(d.dims)) {
                fail(ErrorKind::usage, describe(d.id, d.path()) + ": the subsets of all ranks hold " +
                                           std::to_string(total[i]) + " elements, the dataset " + shape_text(d.dims) +
                                           " has " + std::to_string(elements_of(d.dims)) +
                                           "; every element must belong to exactly one subset (FTI_AddSubset)");
            }
        }
        if (ctx_.rank() != 0) return;
        std::vector<std::vector<Box>> boxes(schema.datasets.size());
        for (std::size_t r = 0; r < gathered.size(); ++r) {
            std::vector<std::uint64_t> v(gathered[r].size() / sizeof(std::uint64_t));
            std::memcpy(v.data(), gathered[r].data(), v.size() * sizeof(std::uint64_t));
            for (std::size_t at = 0; at < v.size();) {
                const std::size_t i = v[at];
                const std::size_t rank = schema.datasets[i].dims.size();
                Box b{static_cast<int>(r), static_cast<int>(static_cast<std::int64_t>(v[at + 1])), {}, {}};
                b.lo.assign(v.begin() + static_cast<std::ptrdiff_t>(at + 2),
                            v.begin() + static_cast<std::ptrdiff_t>(at + 2 + rank));
                b.hi = b.lo;
                bool empty = false;
                for (std::size_t k = 0; k < rank; ++k) {
                    b.hi[k] += v[at + 2 + rank + k];
                    empty = empty || b.hi[k] == b.lo[k];
                }
                if (!empty) boxes[i].push_back(std::move(b));
                at += 2 + 2 * rank;
            }
        }
        for (std::size_t i = 0; i < boxes.size(); ++i) {
            check_disjoint(std::move(boxes[i]), describe(schema.datasets[i].id, schema.datasets[i].path()));
        }
    });
}

void GlobalFile::checkpoint(int ckpt_id, const Registry& registry, const DataOf& data_of) {
    const Config& c = ctx_.config;
    h5::GlobalSchema schema;
    std::vector<h5::Piece> pieces;
    run_collectively(ctx_.app, [&] {
        if (!c.h5_single_file_enable) {
            fail(ErrorKind::usage, "FTI_L4_H5_SINGLE needs [basic] h5_single_file_enable = 1 in " + c.path);
        }
        if (ckpt_id < 0) {
            fail(ErrorKind::usage, "checkpoint id " + std::to_string(ckpt_id) +
                                       " is invalid for FTI_L4_H5_SINGLE; "
                                       "allowed: 0 and above (it names the file)");
        }
        schema = global_schema(registry);
        pieces = own_pieces(registry, schema, data_of);
    });
    check_same_declarations(schema);
    check_coverage(schema, pieces);

    const fs::path dir_path = c.single_file_dir();
    const std::string name = file_name(ckpt_id);
    const std::string temp = name + ".partial";
    Directory dir;
    run_collectively(ctx_.app, [&] {
        if (ctx_.rank() != 0) return;
        dir = make_dirs(dir_path, dir_path);
        if (!dir.remove(temp)) fail(ErrorKind::io, "cannot remove the leftover '" + dir.path_of(temp).string() + "'");
    });
    try {
        run_collectively(ctx_.app,
                         [&] { h5::write_global_file(ctx_.app, dir_path / temp, schema, std::move(pieces), ckpt_id); });
    } catch (const Error&) {
        if (ctx_.rank() == 0) dir.remove(temp);  // nothing of a failed file stays
        throw;
    }
    run_collectively(ctx_.app, [&] {
        if (ctx_.rank() != 0) return;
        dir.rename(temp, name);
        dir.sync();
        if (!c.h5_single_file_keep && last_written_ && *last_written_ != name && !dir.remove(*last_written_)) {
            ctx_.log.warning("cannot remove the previous global HDF5 file '" + dir.path_of(*last_written_).string() +
                             "' (h5_single_file_keep = 0)");
        }
    });
    last_written_ = name;
}

std::vector<std::string> GlobalFile::candidates() const {
    const std::string& prefix = ctx_.config.h5_single_file_prefix;
    std::string listing;
    if (ctx_.rank() == 0) {
        std::vector<std::pair<long long, std::string>> found;
        std::error_code ec;
        for (const fs::directory_entry& e : fs::directory_iterator(ctx_.config.single_file_dir(), ec)) {
            const std::string n = e.path().filename().string();
            const std::string head = prefix + "-ID";
            if (n.size() < head.size() + 8 + 3 || n.compare(0, head.size(), head) != 0 ||
                n.compare(n.size() - 3, 3, ".h5") != 0) {
                continue;
            }
            const std::string digits = n.substr(head.size(), n.size() - head.size() - 3);
            if (digits.size() > 10 || !std::all_of(digits.begin(), digits.end(), ::isdigit)) continue;
            found.emplace_back(std::stoll(digits), n);
        }
        std::sort(found.rbegin(), found.rend());
        for (const auto& f : found) listing += f.second + "\n";
    }
    listing = bcast_string(ctx_.app, listing, 0);
    std::vector<std::string> names;
    for (std::size_t at = 0; at < listing.size();) {
        const std::size_t end = listing.find('\n', at);
        names.push_back(listing.substr(at, end - at));
        at = end + 1;
    }
    return names;
}

void GlobalFile::verify_shared(const fs::path& file, const h5::GlobalIndex& index) const {
    run_collectively(ctx_.app, [&] {
        const int size = ctx_.topo.app_size;
        const h5::GlobalFileReader reader(file);
        for (std::size_t i = static_cast<std::size_t>(ctx_.rank()); i < index.subsets.size();
             i += static_cast<std::size_t>(size)) {
            const h5::SubsetRecord& s = index.subsets[i];
            const h5::StoredDataset* d = index.find(s.dataset_id);
            if (d == nullptr) {
                fail(ErrorKind::corrupt, "global HDF5 file '" + file.string() + "': no global dataset has id " +
                                             std::to_string(s.dataset_id));
            }
            reader.verify(d->path, s);
        }
    });
}

std::optional<std::string> GlobalFile::select_restart() {
    const Config& c = ctx_.config;
    const fs::path dir = c.single_file_dir();
    const std::vector<std::string> names = candidates();
    if (names.empty()) {
        return "[restart] failure = 3 (variate restart), but '" + dir.string() + "' holds no global HDF5 file '" +
               c.h5_single_file_prefix + "-ID<8 digits>.h5' (FTI_Checkpoint with FTI_L4_H5_SINGLE writes them)";
    }
    std::string problems;
    for (const std::string& name : names) {
        const fs::path file = dir / name;
        try {
            std::string text;
            run_collectively(ctx_.app, [&] {
                if (ctx_.rank() == 0) text = h5::serialize_index(h5::GlobalFileReader(file).index());
            });
            h5::GlobalIndex index = h5::parse_index(bcast_string(ctx_.app, text, 0));
            verify_shared(file, index);
            ctx_.log.info("Variate restart from '" + file.string() + "' (checkpoint " + std::to_string(index.ckpt_id) +
                          ", written by " + plural(index.writers, "rank") + "; this run has " +
                          plural(ctx_.topo.app_size, "application rank") + ").");
            restart_ = Restart{file, std::move(index)};
            return std::nullopt;
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::corrupt && e.kind() != ErrorKind::io) throw;
            if (ctx_.rank() == 0) {
                ctx_.log.warning("cannot restart from the global HDF5 file '" + file.string() + "': " + e.what() +
                                 (&name != &names.back() ? "; trying an older one" : ""));
            }
            problems += std::string(problems.empty() ? "" : "; ") + e.what();
        }
    }
    return "[restart] failure = 3 (variate restart), but none of the " + plural(names.size(), "global HDF5 file") +
           " in '" + dir.string() + "' verifies: " + problems;
}

std::vector<std::uint64_t> GlobalFile::stored_dims(const Registry& registry, int did) const {
    const GlobalDataset& d = registry.global_datasets().at(did);
    const std::string path = global_path(registry, d);
    const h5::StoredDataset* stored = restart_ ? restart_->index.find(path) : nullptr;
    if (stored == nullptr) {
        fail(ErrorKind::not_recoverable,
             describe(did, path) + " is not in '" + (restart_ ? restart_->file.string() : std::string()) + "'");
    }
    return stored->dims;
}

void GlobalFile::read(const Registry& registry, const std::vector<int>& ids) const {
    const h5::GlobalFileReader reader(restart_->file);
    std::vector<int> absent;
    for (int id : ids) {
        const Variable& var = registry.at(id);
        const Subset* s = registry.global_datasets().subset_of(id);
        if (s == nullptr) {
            absent.push_back(id);
            continue;
        }
        const GlobalDataset& d = registry.global_datasets().at(s->dataset);
        const std::string path = global_path(registry, d);
        const std::vector<std::uint64_t> stored = stored_dims(registry, d.id);
        if (stored != d.dims) {
            fail(ErrorKind::not_recoverable, describe(d.id, path) + " is declared " + shape_text(d.dims) +
                                                 " but has the shape " + shape_text(stored) + " in '" +
                                                 restart_->file.string() +
                                                 "'; FTI_RecoverDatasetDimension takes the stored shape");
        }
        const std::shared_ptr<const h5::Type> type = hdf5_type(registry, d.type);
        check_subset(describe(d.id, path), d.dims, type->size, *s, var, ErrorKind::not_recoverable);
        reader.read(path, s->offset, s->count, *type, var.data());
    }
    if (absent.empty()) return;
    std::string list;
    for (int id : absent) list += (list.empty() ? "" : ", ") + std::to_string(id);
    const bool one = absent.size() == 1;
    ctx_.log.warning(std::string(one ? "variable " : "variables ") + list + " of this rank " +
                     (one ? "belongs" : "belong") +
                     " to no global dataset (FTI_AddSubset): the global HDF5 file does not hold " +
                     (one ? "it, and it keeps its value" : "them, and they keep their values"));
}

}  // namespace mlckpt::core
