#include "registry/registry.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "common/error.hpp"
#include "expect_error.hpp"

namespace mlckpt::core {
namespace {

template <typename F>
std::string usage_error(F&& f) {
    return test::error_message(ErrorKind::usage, std::forward<F>(f));
}

TEST(Registry, PrimitiveSizes) {
    TypeTable t;
    EXPECT_EQ(t.at(kChar).size, 1u);
    EXPECT_EQ(t.at(kInt).size, sizeof(int));
    EXPECT_EQ(t.at(kDouble).size, 8u);
    EXPECT_EQ(t.at(kLongDouble).size, sizeof(long double));
    EXPECT_EQ(t.add_opaque(24), kPrimitiveCount);
}

TEST(Registry, ProtectRegistersAndUpdatesInOrder) {
    Registry r(100);
    int a[4];
    double b[3];
    r.protect(7, a, 4, kInt);
    r.protect(2, b, 3, kDouble);
    ASSERT_EQ(r.variables().size(), 2u);
    EXPECT_EQ(r.variables()[0].id, 7);
    EXPECT_EQ(r.variables()[0].bytes(), 4 * sizeof(int));
    EXPECT_EQ(r.total_bytes(), 4 * sizeof(int) + 24);
    double bigger[10];
    r.protect(7, bigger, 10, kDouble);  // re-protect: new pointer, count and type
    ASSERT_EQ(r.variables().size(), 2u);
    EXPECT_EQ(r.at(7).ptr, bigger);
    EXPECT_EQ(r.at(7).bytes(), 80u);
    r.protect(3, nullptr, 0, kChar);  // zero-size variables are fine
    EXPECT_EQ(r.at(3).bytes(), 0u);
}

TEST(Registry, ErrorBoundsForFloatAndDoubleVariablesOnly) {
    Registry r(100);
    double d[4] = {};
    float f[4] = {};
    int i[4] = {};
    r.protect(1, d, 4, kDouble);
    r.protect(2, f, 4, kFloat);
    r.protect(3, i, 4, kInt);
    r.set_error_bound(1, 1e-6);
    r.set_error_bound(2, 0.5);
    EXPECT_EQ(r.at(1).error_bound, 1e-6);
    EXPECT_EQ(r.at(2).error_bound, 0.5);
    auto message = [&](int id, double bound) {
        try {
            r.set_error_bound(id, bound);
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::usage);
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message(3, 1e-3).find("variable 3 is not of type FTI_SFLT or FTI_DBLE"), std::string::npos);
    EXPECT_NE(message(9, 1e-3).find("variable 9 is not protected"), std::string::npos);
    EXPECT_NE(message(1, -1).find("allowed: a finite number > 0, or 0"), std::string::npos);
    EXPECT_NE(message(1, std::nan("")).find("is invalid"), std::string::npos);
    r.protect(1, d, 2, kDouble);
    EXPECT_EQ(r.at(1).error_bound, 1e-6) << "kept when protected again as a double";
    r.protect(2, i, 4, kInt);
    EXPECT_EQ(r.at(2).error_bound, 0) << "dropped when no longer a float";
    r.set_error_bound(1, 0);
    EXPECT_EQ(r.at(1).error_bound, 0);
}

TEST(Registry, InvalidArgumentsAreNamed) {
    Registry r(10);
    int x = 0;
    EXPECT_EQ(usage_error([&] { r.protect(11, &x, 1, kInt); }),
              "variable id 11 is invalid; allowed: 0 to 10 ([basic] max_var_id)");
    EXPECT_EQ(usage_error([&] { r.protect(-1, &x, 1, kInt); }),
              "variable id -1 is invalid; allowed: 0 to 10 ([basic] max_var_id)");
    EXPECT_EQ(usage_error([&] { r.protect(1, &x, -5, kInt); }),
              "variable 1: count -5 is negative; allowed: count >= 0");
    EXPECT_EQ(usage_error([&] { r.protect(1, nullptr, 5, kInt); }),
              "variable 1: null pointer for 5 elements; allowed: a valid buffer, or NULL with count 0");
    EXPECT_NE(usage_error([&] { r.protect(1, &x, 1, 99); }).find("unknown data type handle 99"), std::string::npos);
    EXPECT_NE(usage_error([&] { r.protect(1, &x, INT64_MAX / 2, kDouble); }).find("overflow"), std::string::npos);
    EXPECT_EQ(usage_error([&] { r.at(4); }), "variable id 4 is not protected; call FTI_Protect first");
}

TEST(Registry, NamesBindFreeIdsAndAreStable) {
    Registry r(100);
    int x = 0;
    r.protect(0, &x, 1, kInt);
    int a = r.bind_name("temperature");
    int b = r.bind_name("pressure");
    EXPECT_EQ(a, 1);
    EXPECT_EQ(b, 2);
    EXPECT_EQ(r.bind_name("temperature"), a);
    EXPECT_EQ(r.id_of("pressure"), b);
    EXPECT_FALSE(r.id_of("nothing").has_value());
    EXPECT_EQ(r.name_of(a), "temperature");
    EXPECT_EQ(r.name_of(0), "");
    r.restore_name("old", 40);
    EXPECT_EQ(r.id_of("old"), 40);
    EXPECT_NE(usage_error([&] { r.bind_name(""); }).find("1 to 255 characters"), std::string::npos);
    EXPECT_NE(usage_error([&] { r.bind_name("a\nb"); }).find("control character"), std::string::npos);
}

TEST(Registry, CompositeTypes) {
    TypeTable t;
    int pair = t.add_composite("pair", 16, 3);
    t.add_field(pair, "a", kDouble, 0, {});
    t.add_field(pair, "b", kInt, 8, {2});
    EXPECT_EQ(t.at(pair).fields.size(), 2u);
    EXPECT_EQ(t.at(pair).group, 3);
    // The names of their HDF5 named datatypes, as FTI's: given, else "Type<id>".
    EXPECT_EQ(t.at(pair).name, "pair");
    EXPECT_EQ(t.at(t.add_composite("", 8, 0)).name, "Type" + std::to_string(pair + 1));
    EXPECT_EQ(t.at(t.add_opaque(8)).name, "Type" + std::to_string(pair + 2));
    EXPECT_NE(usage_error([&] { t.add_field(pair, "c", kDouble, 12, {}); }).find("ends at byte 20"), std::string::npos);
    EXPECT_NE(usage_error([&] { t.add_field(kInt, "c", kInt, 0, {}); }).find("not a composite type"),
              std::string::npos);
    EXPECT_NE(usage_error([&] { t.add_field(pair, "c", kInt, 0, {0}); }).find("dimension 0"), std::string::npos);
    EXPECT_NE(usage_error([&] { t.add_opaque(0); }).find("type size 0 is invalid"), std::string::npos);
}

}  // namespace
}  // namespace mlckpt::core
