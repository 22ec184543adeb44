// mlckpt/mlckpt.hpp - the C++ interface of mlckpt: header-only, over the C
// API of fti.h, C++17 or later (std::span overloads with C++20).
//
//   mlckpt::Session s{"config.fti", MPI_COMM_WORLD};
//   std::vector<double> field(n);
//   s.protect(1, field);                       // type deduced from the element
//   if (s.status() != 0) s.recover();
//   s.checkpoint(1, mlckpt::Level::L2);
//
// Failures throw mlckpt::Error with the library's code and message. One
// Session at a time: it owns the library from FTI_Init to FTI_Finalize.
// See docs/cpp.md.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

#include "fti.h"

#if __cplusplus >= 202002L && __has_include(<span>)
#include <span>
#define MLCKPT_HAS_SPAN 1
#endif

namespace mlckpt {

// Checkpoint levels. L4_H5_SINGLE writes the global datasets (see
// GlobalDataset) into one HDF5 file shared by all ranks.
enum class Level : int {
    L1 = FTI_L1,
    L2 = FTI_L2,
    L3 = FTI_L3,
    L4 = FTI_L4,
    L4_DCP = FTI_L4_DCP,
    L4_H5_SINGLE = FTI_L4_H5_SINGLE,
};

// The state of a staging request (FTI_GetStageStatus).
enum class StageStatus : int {
    none = FTI_SI_NINI,
    pending = FTI_SI_PEND,
    active = FTI_SI_ACTV,
    succeeded = FTI_SI_SCES,
    failed = FTI_SI_FAIL,
};

// A failed library call: code() is the C API's result (FTI_NSCS, FTI_NREC),
// what() is the library's message, which names the call.
class Error : public std::runtime_error {
  public:
    // After a failed C call: the message is FTI_LastError().
    Error(const std::string& call, int code) : std::runtime_error(message(call, code)), code_(code) {}
    // A failure the wrapper detects itself: "<call>: <text>".
    Error(const std::string& call, int code, const std::string& text)
        : std::runtime_error(call + ": " + text), code_(code) {}

    int code() const noexcept { return code_; }

  private:
    // The library's message names the call already ("FTI_Recover: ...").
    static std::string message(const std::string& call, int code) {
        std::string text = FTI_LastError();
        if (text.empty()) return call + " failed with code " + std::to_string(code);
        if (text.compare(0, call.size(), call) != 0) text = call + ": " + text;
        return text;
    }
    int code_;
};

namespace detail {

inline void check(int rc, const char* call, int expected = FTI_SCES) {
    if (rc != expected) throw Error(call, rc);
}

template <typename>
inline constexpr bool always_false = false;

// One diagnostic per broken rule (a chain, so that only the first shows).
template <typename T>
constexpr void require_protectable() {
    if constexpr (std::is_const_v<T> || std::is_volatile_v<T>) {
        static_assert(always_false<T>,
                      "mlckpt: protected data must be writable (not const or volatile): recovery writes into it");
    } else if constexpr (std::is_pointer_v<T> || std::is_member_pointer_v<T>) {
        static_assert(always_false<T>,
                      "mlckpt: a protected pointer would save an address, meaningless after a restart; "
                      "protect the data it points to: protect(id, pointer, count)");
    } else if constexpr (!std::is_trivially_copyable_v<T>) {
        static_assert(always_false<T>,
                      "mlckpt: protected data must be trivially copyable: it is saved and restored as raw bytes");
    } else if constexpr (sizeof(T) > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
        static_assert(always_false<T>, "mlckpt: a protected type cannot exceed INT_MAX bytes (FTI_InitType)");
    }
}

// The C type whose fti.h handle describes T, decided at compile time by
// size and signedness (none: T gets an opaque type of sizeof(T) bytes).
enum class CType { none, char_, uchar, short_, ushort, int_, uint, long_, ulong, float_, double_, long_double };

template <typename T>
constexpr CType c_type_of() noexcept {
    using U = std::remove_cv_t<T>;
    constexpr bool is_signed_int = std::is_integral_v<U> && std::is_signed_v<U> && !std::is_same_v<U, bool>;
    constexpr bool is_unsigned_int = std::is_integral_v<U> && std::is_unsigned_v<U> && !std::is_same_v<U, bool>;
    if constexpr (std::is_enum_v<U>) {
        return c_type_of<std::underlying_type_t<U>>();
    } else if constexpr (std::is_same_v<U, char> || (is_signed_int && sizeof(U) == sizeof(signed char))) {
        return CType::char_;
    } else if constexpr (is_unsigned_int && sizeof(U) == sizeof(unsigned char)) {
        return CType::uchar;
    } else if constexpr (is_signed_int && sizeof(U) == sizeof(short)) {
        return CType::short_;
    } else if constexpr (is_unsigned_int && sizeof(U) == sizeof(unsigned short)) {
        return CType::ushort;
    } else if constexpr (is_signed_int && sizeof(U) == sizeof(int)) {
        return CType::int_;
    } else if constexpr (is_unsigned_int && sizeof(U) == sizeof(unsigned)) {
        return CType::uint;
    } else if constexpr (is_signed_int && sizeof(U) == sizeof(long)) {
        return CType::long_;  // long, and long long where it has the same size
    } else if constexpr (is_unsigned_int && sizeof(U) == sizeof(unsigned long)) {
        return CType::ulong;
    } else if constexpr (std::is_same_v<U, float>) {
        return CType::float_;
    } else if constexpr (std::is_same_v<U, double>) {
        return CType::double_;
    } else if constexpr (std::is_same_v<U, long double>) {
        return CType::long_double;
    } else {
        return CType::none;  // bool, structs, std::complex, ...
    }
}

// The fti.h handle of a C type; -1 for CType::none. (A switch at run time:
// the handles are variables of the library.)
inline fti_id_t handle_of_c_type(CType t) noexcept {
    switch (t) {
        case CType::char_:
            return FTI_CHAR;
        case CType::uchar:
            return FTI_UCHR;
        case CType::short_:
            return FTI_SHRT;
        case CType::ushort:
            return FTI_USHT;
        case CType::int_:
            return FTI_INTG;
        case CType::uint:
            return FTI_UINT;
        case CType::long_:
            return FTI_LONG;
        case CType::ulong:
            return FTI_ULNG;
        case CType::float_:
            return FTI_SFLT;
        case CType::double_:
            return FTI_DBLE;
        case CType::long_double:
            return FTI_LDBE;
        case CType::none:
            break;
    }
    return -1;
}

// The C library's handle for T when C has exactly that type; -1 otherwise.
template <typename T>
fti_id_t primitive_handle() {
    return handle_of_c_type(c_type_of<T>());
}

template <typename T>
struct is_std_vector : std::false_type {};
template <typename T, typename A>
struct is_std_vector<std::vector<T, A>> : std::true_type {};
template <typename T>
struct is_std_array : std::false_type {};
template <typename T, std::size_t N>
struct is_std_array<std::array<T, N>> : std::true_type {};
#ifdef MLCKPT_HAS_SPAN
template <typename T>
struct is_std_span : std::false_type {};
template <typename T, std::size_t E>
struct is_std_span<std::span<T, E>> : std::true_type {};
#endif

// A single object (not a container the other overloads take).
template <typename T>
constexpr bool is_single_object = !is_std_vector<T>::value && !is_std_array<T>::value && !std::is_array_v<T>
#ifdef MLCKPT_HAS_SPAN
                                  && !is_std_span<T>::value
#endif
    ;

// The session that owns the library in this process (at most one), by its
// serial number; 0 when there is none. Handles (Group, Dataset,
// GlobalDataset) keep the serial of the session that made them, so that a
// handle that outlived its session is refused instead of naming whatever the
// next session has under that id.
inline std::uint64_t& active_session() noexcept {
    static std::uint64_t serial = 0;
    return serial;
}
inline std::uint64_t next_session_serial() noexcept {
    static std::uint64_t last = 0;
    return ++last;
}
inline void require_session(std::uint64_t serial, const char* member) {
    if (serial == 0 || serial != active_session()) {
        throw Error(member, FTI_NSCS, "the session this handle was made in has ended (finalized or destroyed)");
    }
}

// A name for the C API, which reads up to the first NUL: one inside would cut
// it silently.
inline const char* c_name(const std::string& name, const char* member, const char* what) {
    if (name.find('\0') != std::string::npos) {
        throw Error(member, FTI_NSCS, std::string(what) + " contains a NUL character");
    }
    return name.c_str();
}

// The rank argument of the C API for `dims` values: beyond int, any count is
// refused by the library as more than 32 dimensions.
inline int rank_of(std::size_t dims) noexcept {
    return static_cast<int>(std::min<std::size_t>(dims, static_cast<std::size_t>(std::numeric_limits<int>::max())));
}

// The C API finds a group by its id alone.
inline FTIT_H5Group c_group(int id) noexcept {
    FTIT_H5Group g{};
    g.id = id;
    g.h5groupID = -1;
    return g;
}

}  // namespace detail

// One 64-bit value per dimension, slowest-varying first (C order): a shape,
// or the offset or count of a hyperslab. Made from a braced list
// ({6, 10}), or a std::vector, a std::array or, with C++20, a std::span of
// unsigned integers (std::uint64_t, std::size_t, FTIT_hsize_t, ...); it
// holds a copy of the values. Signed values are refused at compile time.
class Dims {
    // An unsigned integer type of at most 64 bits, not bool (only integers
    // are unsigned).
    template <typename T>
    static constexpr bool is_length = std::is_unsigned_v<T> && !std::is_same_v<T, bool> && sizeof(T) <= 8;

  public:
    Dims(std::initializer_list<std::uint64_t> values) : values_(values) {}
    template <typename T, typename A, std::enable_if_t<is_length<T>, int> = 0>
    Dims(const std::vector<T, A>& values) : values_(values.begin(), values.end()) {}
    template <typename T, std::size_t N, std::enable_if_t<is_length<T>, int> = 0>
    Dims(const std::array<T, N>& values) : values_(values.begin(), values.end()) {}
#ifdef MLCKPT_HAS_SPAN
    template <typename T, std::size_t E, std::enable_if_t<is_length<std::remove_const_t<T>>, int> = 0>
    Dims(std::span<T, E> values) : values_(values.begin(), values.end()) {}
#endif

    std::size_t size() const noexcept {
        return values_.size();
    }
    bool empty() const noexcept {
        return values_.empty();
    }
    std::uint64_t operator[](std::size_t i) const noexcept {
        return values_[i];
    }
    const std::vector<std::uint64_t>& values() const noexcept {
        return values_;
    }
    // As the C API's global-dataset calls take them (FTIT_hsize_t is
    // unsigned long long, which std::uint64_t need not be).
    std::vector<FTIT_hsize_t> hsize() const {
        return {values_.begin(), values_.end()};
    }
    // "{6, 10}": for messages.
    std::string text() const {
        std::string t = "{";
        for (std::size_t i = 0; i < values_.size(); ++i) t += (i ? ", " : "") + std::to_string(values_[i]);
        return t + "}";
    }

  private:
    std::vector<std::uint64_t> values_;
};

class Session;

// A group of the HDF5 checkpoint files (ckpt_io = 5, and the global file of
// Level::L4_H5_SINGLE), made by Session::create_group. A handle: copies
// refer to the same group, so a rename through one shows in every copy and
// in the paths of the groups below it. A default-constructed Group is the
// root group "/".
class Group {
  public:
    Group() = default;

    bool is_root() const noexcept { return !node_; }
    // The library's id of the group (0: the root group).
    int id() const noexcept { return node_ ? node_->id : 0; }
    std::string name() const { return node_ ? node_->name : "/"; }
    // "/fields/physics": the names from the root down, as they are now.
    std::string path() const {
        if (!node_) return "/";
        std::string p;
        for (const Node* n = node_.get(); n != nullptr; n = n->parent.get()) p = "/" + n->name + p;
        return p;
    }
    Group parent() const { return node_ ? Group(node_->parent) : Group(); }

    // FTI_RenameGroup: the next checkpoint writes the group, with its
    // datasets and subgroups, under the new name.
    void rename(const std::string& name) {
        static constexpr const char* member = "mlckpt::Group::rename";
        if (!node_) throw Error(member, FTI_NSCS, "the root group \"/\" cannot be renamed");
        detail::require_session(node_->session, member);
        FTIT_H5Group g = detail::c_group(node_->id);
        detail::check(FTI_RenameGroup(&g, detail::c_name(name, member, "the group name")), "FTI_RenameGroup");
        node_->name = name;
    }

    friend bool operator==(const Group& a, const Group& b) noexcept { return a.node_ == b.node_; }
    friend bool operator!=(const Group& a, const Group& b) noexcept { return !(a == b); }

  private:
    friend class Session;
    friend class Dataset;
    struct Node {
        int id;
        std::string name;
        std::shared_ptr<Node> parent;  // null: the root group
        std::uint64_t session;
    };
    explicit Group(std::shared_ptr<Node> node) : node_(std::move(node)) {}

    // The root group belongs to every session.
    void require_session(const char* member) const {
        if (node_) detail::require_session(node_->session, member);
    }

    std::shared_ptr<Node> node_;
};

// The HDF5 dataset of protected variable id (ckpt_io = 5): returned by
// Session::protect and Session::dataset. Each setter takes effect at once
// (FTI_DefineDataset, FTI_SetAttribute), throws Error on failure and returns
// the handle, so that calls chain:
//
//   s.protect(0, temperature).name("temperature").shape({6, 10}).group(physics);
//
// What is set stays with the variable when it is protected again (a new
// pointer or count; the shape only while it still holds count elements).
class Dataset {
  public:
    int id() const noexcept { return id_; }

    // The dataset's name (default "Dataset_<id>").
    Dataset& name(const std::string& name) {
        static constexpr const char* member = "mlckpt::Dataset::name";
        detail::require_session(session_, member);
        if (name.empty()) {
            throw Error(member, FTI_NSCS,
                        "variable " + std::to_string(id_) +
                            ": the name is empty; allowed: 1 to 255 printable characters, no '/', not '.'");
        }
        detail::check(FTI_DefineDataset(id_, 0, nullptr, detail::c_name(name, member, "the dataset name"), nullptr),
                      "FTI_DefineDataset");
        return *this;
    }
    // Its shape, whose product must be the variable's element count
    // (default: one dimension of count elements).
    Dataset& shape(const Dims& dims) {
        static constexpr const char* member = "mlckpt::Dataset::shape";
        detail::require_session(session_, member);
        if (dims.empty()) {
            throw Error(member, FTI_NSCS, "variable " + std::to_string(id_) + ": a shape needs at least one dimension");
        }
        std::vector<int> lengths;
        for (std::size_t i = 0; i < dims.size(); ++i) {
            if (dims[i] > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
                throw Error(member, FTI_NSCS,
                            "variable " + std::to_string(id_) + ": dimension " + std::to_string(i) + " of " +
                                dims.text() + " exceeds the int lengths of FTI_DefineDataset");
            }
            lengths.push_back(static_cast<int>(dims[i]));
        }
        detail::check(FTI_DefineDataset(id_, detail::rank_of(lengths.size()), lengths.data(), nullptr, nullptr),
                      "FTI_DefineDataset");
        return *this;
    }
    // The group it is written in (default: the root group).
    Dataset& group(const Group& g) {
        static constexpr const char* member = "mlckpt::Dataset::group";
        detail::require_session(session_, member);
        g.require_session(member);
        FTIT_H5Group c = detail::c_group(g.id());
        detail::check(FTI_DefineDataset(id_, 0, nullptr, nullptr, &c), "FTI_DefineDataset");
        return *this;
    }
    // The dataset's attribute "name", a string (FTI_ATTRIBUTE_NAME).
    Dataset& name_attribute(const std::string& text) {
        static constexpr const char* member = "mlckpt::Dataset::name_attribute";
        detail::require_session(session_, member);
        detail::c_name(text, member, "the attribute");
        FTIT_attribute a{};
        if (text.size() >= sizeof a.name) {
            throw Error(member, FTI_NSCS,
                        "variable " + std::to_string(id_) + ": the attribute has " + std::to_string(text.size()) +
                            " characters; allowed: at most " + std::to_string(sizeof a.name - 1));
        }
        text.copy(a.name, text.size());
        detail::check(FTI_SetAttribute(id_, a, FTI_ATTRIBUTE_NAME), "FTI_SetAttribute");
        return *this;
    }
    // The dataset's attribute "dim", 64-bit unsigned integers
    // (FTI_ATTRIBUTE_DIM; an empty list writes none).
    Dataset& dim_attribute(const Dims& dims) {
        static constexpr const char* member = "mlckpt::Dataset::dim_attribute";
        detail::require_session(session_, member);
        FTIT_attribute a{};
        constexpr std::size_t most = sizeof a.dim.count / sizeof a.dim.count[0];
        if (dims.size() > most) {
            throw Error(member, FTI_NSCS,
                        "variable " + std::to_string(id_) + ": the attribute has " + std::to_string(dims.size()) +
                            " values; allowed: at most " + std::to_string(most));
        }
        a.dim.ndims = static_cast<int>(dims.size());
        for (std::size_t i = 0; i < dims.size(); ++i) a.dim.count[i] = dims[i];
        detail::check(FTI_SetAttribute(id_, a, FTI_ATTRIBUTE_DIM), "FTI_SetAttribute");
        return *this;
    }
    // Any format: lets the checkpoints of levels that compress store this
    // float or double variable within `bound` of each value (absolute error;
    // 0: exact again), FTI_SetErrorBound:
    //   s.protect(2, pressure).error_bound(1e-6);
    Dataset& error_bound(double bound) {
        detail::require_session(session_, "mlckpt::Dataset::error_bound");
        detail::check(FTI_SetErrorBound(id_, bound), "FTI_SetErrorBound");
        return *this;
    }

  private:
    friend class Session;
    Dataset(int id, std::uint64_t session) noexcept : id_(id), session_(session) {}

    int id_;
    std::uint64_t session_;
};

// A global dataset (FTI_DefineGlobalDataset): an array that spans the
// application ranks, to which each rank adds its protected variables as
// hyperslabs (subsets). Level::L4_H5_SINGLE writes the global datasets
// into one HDF5 file. Made by Session::define_global_dataset, or
// Session::global_dataset for one defined before. Failures throw Error.
class GlobalDataset {
  public:
    int id() const noexcept { return id_; }

    // Protected variable var is the hyperslab that starts at offset and
    // spans count elements per dimension (FTI_AddSubset; it replaces any
    // subset var had).
    GlobalDataset& add_subset(int var, const Dims& offset, const Dims& count) {
        static constexpr const char* member = "mlckpt::GlobalDataset::add_subset";
        int rank = subset_rank(member, offset, count);
        std::vector<FTIT_hsize_t> o = offset.hsize(), c = count.hsize();
        detail::check(FTI_AddSubset(var, rank, o.data(), c.data(), id_), "FTI_AddSubset");
        return *this;
    }
    // A new place for the subset var added before (FTI_UpdateSubset).
    GlobalDataset& update_subset(int var, const Dims& offset, const Dims& count) {
        static constexpr const char* member = "mlckpt::GlobalDataset::update_subset";
        int rank = subset_rank(member, offset, count);
        std::vector<FTIT_hsize_t> o = offset.hsize(), c = count.hsize();
        detail::check(FTI_UpdateSubset(var, rank, o.data(), c.data(), id_), "FTI_UpdateSubset");
        return *this;
    }
    // A new shape; the rank may change too (FTI_UpdateGlobalDataset).
    GlobalDataset& update(const Dims& dims) {
        detail::require_session(session_, "mlckpt::GlobalDataset::update");
        std::vector<FTIT_hsize_t> d = dims.hsize();
        detail::check(FTI_UpdateGlobalDataset(id_, detail::rank_of(dims.size()), d.data()), "FTI_UpdateGlobalDataset");
        return *this;
    }
    // In a restart on another number of ranks (status() 3): takes the
    // shape the dataset has in the file restarted from, and returns it
    // (FTI_RecoverDatasetDimension).
    std::vector<std::uint64_t> recover_dimension() {
        detail::require_session(session_, "mlckpt::GlobalDataset::recover_dimension");
        detail::check(FTI_RecoverDatasetDimension(id_), "FTI_RecoverDatasetDimension");
        return shape();
    }
    // The number of dimensions (FTI_GetDatasetRank).
    int rank() const {
        detail::require_session(session_, "mlckpt::GlobalDataset::rank");
        int r = FTI_GetDatasetRank(id_);
        if (r < 0) throw Error("FTI_GetDatasetRank", r);
        return r;
    }
    // The length of each dimension, slowest-varying first (FTI_GetDatasetSpan).
    std::vector<std::uint64_t> shape() const {
        const int r = rank();
        const FTIT_hsize_t* span = FTI_GetDatasetSpan(id_, r);
        if (span == nullptr) throw Error("FTI_GetDatasetSpan", FTI_NSCS);
        return std::vector<std::uint64_t>(span, span + r);
    }

  private:
    friend class Session;
    GlobalDataset(int id, std::uint64_t session) noexcept : id_(id), session_(session) {}

    int subset_rank(const char* member, const Dims& offset, const Dims& count) const {
        detail::require_session(session_, member);
        if (offset.size() != count.size()) {
            throw Error(member, FTI_NSCS,
                        "global dataset " + std::to_string(id_) + ": the offset " + offset.text() + " has " +
                            std::to_string(offset.size()) + " dimensions, the count " + count.text() + " " +
                            std::to_string(count.size()) + "; both need one value per dimension of the dataset");
        }
        return detail::rank_of(count.size());
    }

    int id_;
    std::uint64_t session_;
};

class Session {
  public:
    // FTI_Init. Throws Error when it fails (bad configuration, ...). Two
    // outcomes do not throw: on a head rank (head = 1, keep_heads_alive = 1)
    // the call returns once the application ranks have finalized, and
    // is_head() is true: the rank has nothing left to do but finalize (every
    // other call throws). When a restart was requested but nothing can be
    // recovered, restart_failed() is true, restart_error() says why, and the
    // session works for a fresh run.
    // A second Session while one is active throws: FTI_Init would start
    // the library over under the first one.
    Session(const std::string& config, MPI_Comm comm) {
        if (detail::active_session() != 0) {
            throw Error("mlckpt::Session", FTI_NSCS,
                        "a Session is already active in this process; finalize it (or let it end) first");
        }
        int rc = FTI_Init(config.c_str(), comm);
        if (rc == FTI_HEAD) {
            head_ = true;
        } else if (rc == FTI_NREC) {
            restart_failed_ = true;
            restart_error_ = FTI_LastError();  // the next call clears it
        } else {
            detail::check(rc, "FTI_Init");
        }
        owning_ = true;
        serial_ = detail::active_session() = detail::next_session_serial();
    }

    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    Session(Session&& other) noexcept : unwinding_base_(std::uncaught_exceptions()) { take(other); }
    // Finalizes this session first (errors ignored, as in the destructor).
    Session& operator=(Session&& other) noexcept {
        if (this != &other) {
            finalize_quietly();
            take(other);
        }
        return *this;
    }

    // FTI_Finalize unless finalize() was called or the session was moved
    // from. Never throws: call finalize() to see errors. When the session is
    // destroyed by an exception, FTI_Finalize is not called: it would
    // remove the checkpoints that a relaunch needs to restart.
    ~Session() {
        if (std::uncaught_exceptions() > unwinding_base_) {
            if (owning_) detail::active_session() = 0;
            return;
        }
        finalize_quietly();
    }

    // FTI_Finalize; throws Error when it fails. Idempotent.
    void finalize() {
        if (!owning_) return;
        owning_ = false;
        detail::active_session() = 0;
        detail::check(FTI_Finalize(), "FTI_Finalize");
    }

    bool is_head() const noexcept { return head_; }
    bool restart_failed() const noexcept { return restart_failed_; }
    // FTI_Init's message when restart_failed().
    const std::string& restart_error() const noexcept { return restart_error_; }
    // The application communicator (FTI_COMM_WORLD: head ranks excluded);
    // MPI_COMM_NULL on a head rank and once the session ended or moved.
    MPI_Comm comm() const noexcept { return owning_ && !head_ ? FTI_COMM_WORLD : MPI_COMM_NULL; }
    // 0: a fresh run; 1: a restart; 2: a restart from a kept checkpoint; 3: a
    // restart from the global HDF5 file ([restart] failure = 3), on any
    // number of ranks.
    int status() const {
        require_application("mlckpt::Session::status");
        int s = FTI_Status();
        if (s < 0) throw Error("FTI_Status", s);
        return s;
    }

    // Each protect() returns the variable's HDF5 dataset, to name, shape and
    // place it (see Dataset): s.protect(1, field).name("field").shape({n, m});
    //
    // count elements at data (C++17 and later).
    template <typename T>
    Dataset protect(int id, T* data, std::size_t count) {
        detail::require_protectable<T>();
        if constexpr (!std::is_const_v<T> && !std::is_volatile_v<T>) {  // else only the assertion's message
            require_application("mlckpt::Session::protect");
            if constexpr (sizeof(std::size_t) >= sizeof(std::int64_t)) {
                if (count > static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max())) {
                    throw Error("mlckpt::Session::protect", FTI_NSCS,
                                "variable " + std::to_string(id) + ": " + std::to_string(count) +
                                    " elements exceed the 64-bit count of FTI_Protect");
                }
            }
            detail::check(FTI_Protect(id, data, static_cast<std::int64_t>(count), handle_of<T>()), "FTI_Protect");
        }
        return Dataset(id, serial_);
    }
    // The vector's current storage: protect it again after it reallocates.
    template <typename T, typename A>
    Dataset protect(int id, std::vector<T, A>& v) {
        if constexpr (std::is_same_v<T, bool>) {
            static_assert(detail::always_false<T>,
                          "mlckpt: std::vector<bool> packs bits and has no bool array to protect; "
                          "use std::vector<unsigned char> or std::vector<std::uint8_t>");
            return Dataset(id, serial_);
        } else {
            return protect(id, v.data(), v.size());
        }
    }
    template <typename T, std::size_t N>
    Dataset protect(int id, std::array<T, N>& a) {
        return protect(id, a.data(), N);
    }
    template <typename T, std::size_t N>
    Dataset protect(int id, T (&a)[N]) {
        return protect(id, a, N);
    }
#ifdef MLCKPT_HAS_SPAN
    template <typename T, std::size_t E>
    Dataset protect(int id, std::span<T, E> s) {
        return protect(id, s.data(), s.size());
    }
#endif
    // A single object: a scalar or a trivially copyable struct.
    template <typename T, std::enable_if_t<detail::is_single_object<T>, int> = 0>
    Dataset protect(int id, T& value) {
        return protect(id, &value, 1);
    }

    // The HDF5 dataset of variable id, protected before (the setters of
    // Dataset fail, naming id, when it is not).
    Dataset dataset(int id) {
        require_application("mlckpt::Session::dataset");
        return Dataset(id, serial_);
    }

    // FTI_InitGroup: group `name` under `parent` (default: the root group).
    // Throws Error when parent already has a child of that name or the name
    // is not one HDF5 can take (1 to 255 printable characters, no '/', not
    // ".").
    Group create_group(const std::string& name, const Group& parent = Group()) {
        static constexpr const char* member = "mlckpt::Session::create_group";
        require_application(member);
        parent.require_session(member);
        FTIT_H5Group made{};
        FTIT_H5Group up = detail::c_group(parent.id());
        detail::check(
            FTI_InitGroup(&made, detail::c_name(name, member, "the group name"), parent.is_root() ? nullptr : &up),
            "FTI_InitGroup");
        return Group(std::make_shared<Group::Node>(Group::Node{made.id, name, parent.node_, serial_}));
    }

    // FTI_DefineGlobalDataset: global dataset id (ids of their own, apart
    // from the variables') of shape `dims`, named `name` in `group`, whose
    // elements are T (mapped to the library's types as protect() maps
    // them). Every rank defines the same global datasets.
    template <typename T>
    GlobalDataset define_global_dataset(int id, const Dims& dims, const std::string& name,
                                        const Group& group = Group()) {
        static constexpr const char* member = "mlckpt::Session::define_global_dataset";
        detail::require_protectable<T>();
        require_application(member);
        group.require_session(member);
        FTIT_H5Group g = detail::c_group(group.id());
        std::vector<FTIT_hsize_t> d = dims.hsize();
        detail::check(
            FTI_DefineGlobalDataset(id, detail::rank_of(dims.size()), d.data(),
                                    detail::c_name(name, member, "the global dataset name"), &g, handle_of<T>()),
            "FTI_DefineGlobalDataset");
        return GlobalDataset(id, serial_);
    }
    // A global dataset defined before (its calls fail, naming id, when it
    // is not).
    GlobalDataset global_dataset(int id) {
        require_application("mlckpt::Session::global_dataset");
        return GlobalDataset(id, serial_);
    }

    // True when a checkpoint was taken (FTI_DONE; FTI_SCES for the global
    // file of Level::L4_H5_SINGLE, as in FTI); throws on failure.
    bool checkpoint(int id, Level level) {
        require_application("mlckpt::Session::checkpoint");
        int rc = FTI_Checkpoint(id, static_cast<int>(level));
        if (rc != FTI_DONE && !(level == Level::L4_H5_SINGLE && rc == FTI_SCES)) throw Error("FTI_Checkpoint", rc);
        return true;
    }
    // Collective: returns once the work that the last checkpoint left to the
    // background is done (inline_l<L> = 0: the level's copy, parity or L4
    // flush; [basic] async_snapshot: the writing of the snapshot), so that
    // the checkpoint survives what its level survives. Throws when that
    // work failed (the checkpoint then stays recoverable as committed).
    void wait() {
        require_application("mlckpt::Session::wait");
        detail::check(FTI_WaitBackground(), "FTI_WaitBackground");
    }
    // On a restart, recovers; otherwise checkpoints when an interval of the
    // configuration has elapsed (then returns true).
    bool snapshot() {
        require_application("mlckpt::Session::snapshot");
        int rc = FTI_Snapshot();
        if (rc != FTI_SCES && rc != FTI_DONE) throw Error("FTI_Snapshot", rc);
        return rc == FTI_DONE;
    }
    void recover() {
        require_application("mlckpt::Session::recover");
        detail::check(FTI_Recover(), "FTI_Recover");
    }
    void recover_var_init() {
        require_application("mlckpt::Session::recover_var_init");
        detail::check(FTI_RecoverVarInit(), "FTI_RecoverVarInit");
    }
    void recover_var(int id) {
        require_application("mlckpt::Session::recover_var");
        detail::check(FTI_RecoverVar(id), "FTI_RecoverVar");
    }
    void recover_var_finalize() {
        require_application("mlckpt::Session::recover_var_finalize");
        detail::check(FTI_RecoverVarFinalize(), "FTI_RecoverVarFinalize");
    }

    // Bytes stored for variable id in the checkpoint to recover from; 0 when
    // there is none or id is not in it.
    std::int64_t stored_size(int id) const {
        require_application("mlckpt::Session::stored_size");
        std::int64_t bytes = FTI_GetStoredSize(id);
        // 0 is also its failure value; the message tells the two apart.
        if (bytes < 0 || (bytes == 0 && FTI_LastError()[0] != '\0')) throw Error("FTI_GetStoredSize", FTI_NSCS);
        return bytes;
    }

    // On a restart: resizes v to the stored size of id and protects it (the
    // vector is resized, never passed to FTI_Realloc); recover() then loads
    // it. Throws FTI_NREC when there is no checkpoint to recover from
    // (status() is 0: v is left alone), on a restart from the global HDF5
    // file (status() is 3: a rank's share is the application's to compute,
    // from GlobalDataset::recover_dimension()) or when the stored size is
    // not a whole number of T. An id absent from the checkpoint gets size 0,
    // and recover() then names it.
    template <typename T, typename A>
    void realloc(int id, std::vector<T, A>& v) {
        static constexpr const char* name = "mlckpt::Session::realloc";
        detail::require_protectable<T>();
        const int restart = status();
        if (restart == 0) {
            throw Error(name, FTI_NREC,
                        "variable " + std::to_string(id) + ": there is no checkpoint to recover from (status() is 0)");
        }
        if (restart == 3) {
            throw Error(name, FTI_NREC,
                        "variable " + std::to_string(id) +
                            ": a restart from the global HDF5 file (status() is 3) keeps no size per rank; size the "
                            "variable from the shapes of GlobalDataset::recover_dimension()");
        }
        std::int64_t bytes = stored_size(id);
        if (bytes % static_cast<std::int64_t>(sizeof(T)) != 0) {
            throw Error(name, FTI_NREC,
                        "variable " + std::to_string(id) + ": the checkpoint holds " + std::to_string(bytes) +
                            " bytes, not a whole number of " + std::to_string(sizeof(T)) + "-byte elements");
        }
        v.resize(static_cast<std::size_t>(bytes) / sizeof(T));
        protect(id, v);
    }

    // The id bound to name (a free one is bound the first time).
    int id_of(const std::string& name) {
        require_application("mlckpt::Session::id_of");
        int id = FTI_setIDFromString(name.c_str());
        if (id < 0) throw Error("FTI_setIDFromString", id);
        return id;
    }

    // Incremental checkpoint: begin, add every protected variable, commit.
    void begin_incremental(int id, Level level) {
        require_application("mlckpt::Session::begin_incremental");
        detail::check(FTI_InitICP(id, static_cast<int>(level), true), "FTI_InitICP");
    }
    void add_incremental(int id) {
        require_application("mlckpt::Session::add_incremental");
        detail::check(FTI_AddVarICP(id), "FTI_AddVarICP");
    }
    bool commit_incremental() {
        require_application("mlckpt::Session::commit_incremental");
        int rc = FTI_FinalizeICP();
        if (rc != FTI_DONE) throw Error("FTI_FinalizeICP", rc);
        return true;
    }

    // Staging ([basic] enable_staging = 1; otherwise these throw). The
    // node-local directory to write files to be staged in.
    std::string stage_dir() const {
        require_application("mlckpt::Session::stage_dir");
        std::string dir(4096, '\0');  // PATH_MAX
        detail::check(FTI_GetStageDir(&dir[0], static_cast<int>(dir.size())), "FTI_GetStageDir");
        dir.resize(dir.find('\0'));
        return dir;
    }
    // Moves `from` to `to` in the background; returns the request's id.
    int send_file(const std::string& from, const std::string& to) {
        require_application("mlckpt::Session::send_file");
        int id = FTI_SendFile(from.c_str(), to.c_str());
        if (id < 0) throw Error("FTI_SendFile", id);
        return id;
    }
    // succeeded and failed are returned once; the id is then none.
    StageStatus stage_status(int id) {
        require_application("mlckpt::Session::stage_status");
        int s = FTI_GetStageStatus(id);
        if (s < 0) throw Error("FTI_GetStageStatus", s);
        return static_cast<StageStatus>(s);
    }

  private:
    // A moved-from or finalized session would otherwise reach whatever
    // session the library has, and on a head rank the collective calls
    // would run over a communicator the head is not in.
    void require_application(const char* member) const {
        if (!owning_) throw Error(member, FTI_NSCS, "the session is not active (moved from or finalized)");
        if (head_) {
            throw Error(member, FTI_NSCS,
                        "this is a head rank (FTI_Init returned FTI_HEAD): only finalize() is allowed");
        }
    }

    void take(Session& other) noexcept {
        owning_ = std::exchange(other.owning_, false);
        serial_ = other.serial_;
        head_ = other.head_;
        restart_failed_ = other.restart_failed_;
        restart_error_ = std::move(other.restart_error_);
        opaque_ = std::move(other.opaque_);
    }

    void finalize_quietly() noexcept {
        if (owning_) {
            owning_ = false;
            detail::active_session() = 0;
            FTI_Finalize();
        }
    }

    // The handle of T: the C library's for C types, else an opaque type of
    // sizeof(T) bytes registered once per session.
    template <typename T>
    fti_id_t handle_of() {
        fti_id_t h = detail::primitive_handle<T>();
        if (h >= 0) return h;
        auto it = opaque_.find(std::type_index(typeid(T)));
        if (it != opaque_.end()) return it->second;
        fti_id_t created = -1;
        detail::check(FTI_InitType(&created, static_cast<int>(sizeof(T))), "FTI_InitType");
        opaque_.emplace(std::type_index(typeid(T)), created);
        return created;
    }

    int unwinding_base_ = std::uncaught_exceptions();  // exceptions in flight at construction
    bool owning_ = false;
    std::uint64_t serial_ = 0;  // detail::active_session() while owning_
    bool head_ = false;
    bool restart_failed_ = false;
    std::string restart_error_;
    std::map<std::type_index, fti_id_t> opaque_;
};

}  // namespace mlckpt
