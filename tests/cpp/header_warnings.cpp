// Instantiates every member of the wrapper, compiled with -Werror and the
// warnings of tests/cpp/CMakeLists.txt as C++17 and as C++20: the header
// must stay warning-free in the programs that include it.
#include <array>
#include <complex>
#include <cstdint>
#include <vector>

#include "mlckpt/mlckpt.hpp"

namespace {

struct Cell {
    double value[2];
    std::int32_t flags;
};
enum class Phase : short { solid, liquid };

}  // namespace

void mlckpt_header_warnings(mlckpt::Session& s) {
    std::vector<int> ints;
    std::vector<Cell> cells;
    std::array<float, 3> floats{};
    std::complex<double> z;
    long long big = 0;
    bool flag = false;
    Phase phase = Phase::solid;
    std::int8_t tiny = 0;
    double raw[4] = {};
    s.protect(1, ints);
    s.protect(2, cells);
    s.protect(3, floats);
    s.protect(4, z);
    s.protect(5, big);
    s.protect(6, flag);
    s.protect(7, phase);
    s.protect(8, tiny);
    s.protect(9, raw);
    s.protect(10, ints.data(), ints.size());
#ifdef MLCKPT_HAS_SPAN
    s.protect(11, std::span(cells));
#endif
    s.realloc(1, ints);
    s.realloc(2, cells);
    (void)s.checkpoint(s.id_of("cells"), mlckpt::Level::L4_DCP);
    (void)s.snapshot();
    s.recover();
    s.recover_var_init();
    s.recover_var(1);
    s.recover_var_finalize();
    (void)s.stored_size(1);
    (void)s.status();
    s.begin_incremental(2, mlckpt::Level::L1);
    s.add_incremental(1);
    (void)s.commit_incremental();
    (void)s.comm();
    (void)s.is_head();
    (void)s.restart_failed();
    (void)s.restart_error();
    mlckpt::Group g = s.create_group("g");
    mlckpt::Group sub = s.create_group("sub", g);
    sub.rename("renamed");
    (void)sub.path();
    (void)sub.name();
    (void)(sub.parent() == g);
    (void)g.is_root();
    s.protect(12, cells).name("cells").shape({2, 3}).group(g).name_attribute("cells").dim_attribute({6});
    (void)s.dataset(12).id();
    const std::array<std::uint64_t, 2> shape{4, 6};
    mlckpt::GlobalDataset gd = s.define_global_dataset<Cell>(1, shape, "all", g);
    (void)s.define_global_dataset<double>(2, std::vector<unsigned>{8}, "values");
    gd.update(std::array<FTIT_hsize_t, 2>{4, 6});
#ifdef MLCKPT_HAS_SPAN
    const std::vector<std::size_t> sizes{4, 6};
    gd.update(std::span(sizes));
#endif
    gd.add_subset(12, {0, 0}, {2, 3}).update_subset(12, {2, 3}, {2, 3}).update({4, 6});
    (void)gd.recover_dimension();
    (void)gd.rank();
    (void)gd.shape();
    (void)s.global_dataset(2).id();
    (void)s.checkpoint(3, mlckpt::Level::L4_H5_SINGLE);
    mlckpt::Session moved{std::move(s)};
    s = std::move(moved);
    s.finalize();
}
