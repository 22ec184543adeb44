// The exported C API. Each entry point validates its arguments, forwards to
// the core session and converts every exception into an FTI return code and
// a message (FTI_LastError); nothing is thrown across this boundary.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <new>
#include <string>

#include "all_configuration.hpp"
#include "format/hdf5/hdf5_schema.hpp"
#include "fti.h"
#include "runtime/session.hpp"
#include "sessionless_log.hpp"

using mlckpt::core::Error;
using mlckpt::core::ErrorKind;
using mlckpt::core::fail;
using mlckpt::core::Session;

MPI_Comm FTI_COMM_WORLD = MPI_COMM_NULL;
fti_id_t FTI_CHAR = mlckpt::core::kChar;
fti_id_t FTI_SHRT = mlckpt::core::kShort;
fti_id_t FTI_INTG = mlckpt::core::kInt;
fti_id_t FTI_LONG = mlckpt::core::kLong;
fti_id_t FTI_UCHR = mlckpt::core::kUChar;
fti_id_t FTI_USHT = mlckpt::core::kUShort;
fti_id_t FTI_UINT = mlckpt::core::kUInt;
fti_id_t FTI_ULNG = mlckpt::core::kULong;
fti_id_t FTI_SFLT = mlckpt::core::kFloat;
fti_id_t FTI_DBLE = mlckpt::core::kDouble;
fti_id_t FTI_LDBE = mlckpt::core::kLongDouble;

namespace {

std::unique_ptr<Session> g_session;
thread_local std::string g_last_error;

// How a failure maps onto a return code differs per call: recovery calls
// report unrecoverable data as FTI_NREC, everything else as FTI_NSCS.
enum class Failure { nscs, nrec_on_data };

int code_for(ErrorKind kind, Failure policy) {
    bool data_problem = kind == ErrorKind::not_recoverable || kind == ErrorKind::corrupt;
    return policy == Failure::nrec_on_data && data_problem ? FTI_NREC : FTI_NSCS;
}

// `expected`: a condition the application is told to handle (a size that
// differs at recovery, nothing to recover from): a warning, as in FTI.
void report(const char* function, const std::string& message, bool print, bool expected = false) {
    g_last_error = std::string(function) + ": " + message;
    if (!print) return;
    if (g_session) {
        if (expected) {
            g_session->context().log.warning(g_last_error);
        } else {
            g_session->context().log.error(g_last_error);
        }
        return;
    }
    mlckpt::capi::print_sessionless_error("FTI", g_last_error);
}

template <typename Result, typename Body>
Result guarded(const char* function, Result on_failure, Failure policy, Body&& body) {
    g_last_error.clear();
    mlckpt::core::Activity activity(function);  // named when another rank asks where this one waits
    try {
        return body();
    } catch (const Error& e) {
        // Data that a recovery call finds damaged is what FTI warns about
        // (L2/L3 may rebuild it, an older checkpoint may serve).
        report(function, e.what(), !e.remote(),
               policy == Failure::nrec_on_data &&
                   (e.kind() == ErrorKind::not_recoverable || e.kind() == ErrorKind::corrupt));
        if constexpr (std::is_same_v<Result, int>) {
            return on_failure == FTI_NSCS ? code_for(e.kind(), policy) : on_failure;
        } else {
            return on_failure;
        }
    } catch (const std::bad_alloc&) {
        report(function, "out of memory", true);
    } catch (const std::exception& e) {
        report(function, std::string("internal error: ") + e.what(), true);
    } catch (...) {
        report(function, "internal error", true);
    }
    return on_failure;
}

template <typename Body>
int guarded(const char* function, Body&& body) {
    return guarded<int>(function, FTI_NSCS, Failure::nscs, std::forward<Body>(body));
}

template <typename Body>
int guarded_recovery(const char* function, Body&& body) {
    return guarded<int>(function, FTI_NSCS, Failure::nrec_on_data, std::forward<Body>(body));
}

// The session of an application rank. A head rank (FTI_Init returned
// FTI_HEAD) has done its work: only FTI_Finalize (head_allowed) is left.
Session& session(bool head_allowed = false) {
    if (!g_session) {
        fail(ErrorKind::usage, "the library is not initialized: call FTI_Init first");
    }
    if (g_session->is_head() && !head_allowed) {
        fail(ErrorKind::usage,
             "this is a head rank (FTI_Init returned FTI_HEAD): its work is done; "
             "allowed: FTI_Finalize");
    }
    return *g_session;
}

void require(bool ok, const std::string& message) {
    if (!ok) fail(ErrorKind::usage, message);
}

// A shape or position of `rank` (1..32) values given by the application.
std::vector<std::uint64_t> shape(int rank, const FTIT_hsize_t* values, const char* what) {
    require(
        rank >= 1 && rank <= mlckpt::core::kMaxDatasetRank,
        "rank " + std::to_string(rank) + " is invalid; allowed: 1 to " + std::to_string(mlckpt::core::kMaxDatasetRank));
    require(values != nullptr, std::string(what) + " is NULL");
    return std::vector<std::uint64_t>(values, values + rank);
}

// FTI_DefineDataset in both of FTI's forms (int or int64_t lengths).
template <typename Length>
int define_dataset(int id, int rank, const Length* dimLength, const char* name, const FTIT_H5Group* h5group) {
    return guarded("FTI_DefineDataset", [&] {
        require(rank >= 0 && rank <= 32, "rank " + std::to_string(rank) + " is invalid; allowed: 0 to 32");
        require(rank == 0 || dimLength != nullptr, "dimLength is NULL for rank " + std::to_string(rank));
        std::vector<std::uint64_t> dims;
        for (int i = 0; i < rank; ++i) {
            require(dimLength[i] >= 0, "dimLength[" + std::to_string(i) + "] = " + std::to_string(dimLength[i]) +
                                           " is invalid; allowed: >= 0");
            dims.push_back(static_cast<std::uint64_t>(dimLength[i]));
        }
        session().registry().define_dataset(
            id, std::move(dims), name ? std::string(name, ::strnlen(name, FTI_BUFS)) : "", h5group ? h5group->id : -1);
        return FTI_SCES;
    });
}
}  // namespace

extern "C" {

int FTI_Init(const char* configFile, MPI_Comm globalComm) {
    return guarded("FTI_Init", [&]() -> int {
        require(configFile != nullptr, "configuration file path is NULL");
        int mpi_ready = 0;
        MPI_Initialized(&mpi_ready);
        require(mpi_ready != 0, "MPI is not initialized: call MPI_Init before FTI_Init");
        require(globalComm != MPI_COMM_NULL, "the communicator is MPI_COMM_NULL");
        if (g_session) {
            // As FTI: a second FTI_Init starts over. Head ranks wait for
            // their application ranks' requests and would never join it.
            require(!g_session->context().config.head,
                    "FTI_Init was already called and this run has head ranks (head = 1), which serve the "
                    "first one until FTI_Finalize; call FTI_Finalize first");
            g_session->abandon();
            g_session.reset();
        }
        // As FTI: until the library's own communicator exists (and when
        // FTI_Init fails), FTI_COMM_WORLD is the one the application gave.
        FTI_COMM_WORLD = globalComm;

        auto s = std::make_unique<Session>(configFile, globalComm);
        if (s->is_head()) {
            FTI_COMM_WORLD = MPI_COMM_NULL;  // a head has no part in the application's communication
            s->run_head();
            if (s->context().config.keep_heads_alive) {
                g_session = std::move(s);
                return FTI_HEAD;
            }
            // FTI semantics: head ranks never return to the application.
            s.reset();
            MPI_Finalize();
            std::exit(0);
        }
        FTI_COMM_WORLD = s->app_comm();
        g_session = std::move(s);
        if (const auto& problem = g_session->recovery().init_problem()) {
            // The same verdict on every rank: printed once, by application rank 0.
            int app_rank = 0;
            MPI_Comm_rank(g_session->app_comm(), &app_rank);
            // A warning, as in FTI: the application goes on as a fresh run.
            report("FTI_Init", *problem, app_rank == 0, true);
            return FTI_NREC;
        }
        return FTI_SCES;
    });
}

int FTI_Status(void) {
    return guarded("FTI_Status", [] { return session().recovery().status(); });
}

int FTI_Finalize(void) {
    return guarded("FTI_Finalize", []() -> int {
        Session& s = session(true);
        struct Release {  // the session is released even when finalize fails
            ~Release() {
                g_session.reset();
                FTI_COMM_WORLD = MPI_COMM_NULL;
            }
        } release;
        s.finalize();
        return FTI_SCES;
    });
}

int FTI_InitType(fti_id_t* type, int size) {
    return guarded("FTI_InitType", [&] {
        require(type != nullptr, "type handle pointer is NULL");
        require(size > 0, "type size " + std::to_string(size) + " is invalid; allowed: > 0");
        *type = session().registry().types().add_opaque(static_cast<std::size_t>(size));
        return FTI_SCES;
    });
}

fti_id_t FTI_InitCompositeType(const char* name, size_t size, FTIT_H5Group* h5g) {
    return guarded("FTI_InitCompositeType", [&] {
        mlckpt::core::Registry& registry = session().registry();
        const int group = h5g ? h5g->id : 0;
        require(registry.groups().contains(group),
                "group id " + std::to_string(group) + " is unknown; make groups with FTI_InitGroup");
        return registry.types().add_composite(name ? std::string(name, ::strnlen(name, FTI_BUFS)) : "", size, group);
    });
}

int FTI_AddScalarField(fti_id_t id, const char* name, fti_id_t fid, size_t offset) {
    return guarded("FTI_AddScalarField", [&] {
        session().registry().types().add_field(id, name ? name : "", fid, offset, {});
        return FTI_SCES;
    });
}

int FTI_AddScalarField64(fti_id_t id, const char* name, fti_id_t fid, int64_t offset) {
    return guarded("FTI_AddScalarField", [&] {
        require(offset >= 0, "offset " + std::to_string(offset) + " is invalid; allowed: >= 0");
        session().registry().types().add_field(id, name ? name : "", fid, static_cast<std::size_t>(offset), {});
        return FTI_SCES;
    });
}

int FTI_AddVectorField(fti_id_t id, const char* name, fti_id_t tid, size_t offset, int ndims, int* dim_sizes) {
    return guarded("FTI_AddVectorField", [&] {
        require(ndims >= 1, "ndims " + std::to_string(ndims) + " is invalid; allowed: >= 1");
        require(dim_sizes != nullptr, "dim_sizes is NULL");
        std::vector<int> dims(dim_sizes, dim_sizes + ndims);
        session().registry().types().add_field(id, name ? name : "", tid, offset, std::move(dims));
        return FTI_SCES;
    });
}

// FTI's newest form: 64-bit offset and lengths, each length within what the
// type registry holds (an int, as in FTI 1.6).
int FTI_AddVectorField64(fti_id_t id, const char* name, fti_id_t tid, int64_t offset, int ndims, int64_t* dim_sizes) {
    return guarded("FTI_AddVectorField", [&] {
        require(offset >= 0, "offset " + std::to_string(offset) + " is invalid; allowed: >= 0");
        require(ndims >= 1, "ndims " + std::to_string(ndims) + " is invalid; allowed: >= 1");
        require(dim_sizes != nullptr, "dim_sizes is NULL");
        std::vector<int> dims;
        for (int i = 0; i < ndims; ++i) {
            require(dim_sizes[i] >= 0 && dim_sizes[i] <= INT_MAX,
                    "dim_sizes[" + std::to_string(i) + "] = " + std::to_string(dim_sizes[i]) +
                        " is invalid; allowed: 0 to " + std::to_string(INT_MAX));
            dims.push_back(static_cast<int>(dim_sizes[i]));
        }
        session().registry().types().add_field(id, name ? name : "", tid, static_cast<std::size_t>(offset),
                                               std::move(dims));
        return FTI_SCES;
    });
}

int FTI_Protect(int id, void* ptr, int64_t count, fti_id_t type) {
    return guarded("FTI_Protect", [&] {
        session().protect(id, ptr, count, type);
        return FTI_SCES;
    });
}

int FTI_Checkpoint(int id, int level) {
    return guarded("FTI_Checkpoint", [&] {
        session().checkpoint(id, level);
        return level == FTI_L4_H5_SINGLE ? FTI_SCES : FTI_DONE;  // as FTI
    });
}

int FTI_Snapshot(void) {
    return guarded_recovery("FTI_Snapshot", [] { return session().snapshot() ? FTI_DONE : FTI_SCES; });
}

int FTI_Recover(void) {
    return guarded_recovery("FTI_Recover", [] {
        session().recovery().recover();
        return FTI_SCES;
    });
}

int FTI_RecoverVarInit(void) {
    return guarded_recovery("FTI_RecoverVarInit", [] {
        session().recovery().recover_var_init();
        return FTI_SCES;
    });
}

int FTI_RecoverVar(int id) {
    return guarded_recovery("FTI_RecoverVar", [&] {
        session().recovery().recover_var(id);
        return FTI_SCES;
    });
}

int FTI_RecoverVarFinalize(void) {
    return guarded_recovery("FTI_RecoverVarFinalize", [] {
        session().recovery().recover_var_finalize();
        return FTI_SCES;
    });
}

int64_t FTI_GetStoredSize(int id) {
    return guarded<int64_t>("FTI_GetStoredSize", 0, Failure::nscs,
                            [&] { return session().recovery().stored_size(id); });
}

void* FTI_Realloc(int id, void* ptr) {
    return guarded<void*>("FTI_Realloc", nullptr, Failure::nscs,
                          [&] { return session().recovery().realloc_var(id, ptr); });
}

int FTI_setIDFromString(const char* name) {
    return guarded("FTI_setIDFromString", [&] {
        require(name != nullptr, "name is NULL");
        return session().registry().bind_name(name);
    });
}

int FTI_getIDFromString(const char* name) {
    return guarded("FTI_getIDFromString", [&] {
        require(name != nullptr, "name is NULL");
        auto id = session().registry().id_of(name);
        require(id.has_value(), std::string("no variable is named '") + name + "'");
        return *id;
    });
}

int FTI_InitICP(int id, int level, bool activate) {
    return guarded("FTI_InitICP", [&] {
        session().icp_init(id, level, activate);
        return FTI_SCES;
    });
}

int FTI_AddVarICP(int varID) {
    return guarded("FTI_AddVarICP", [&] {
        session().icp_add(varID);
        return FTI_SCES;
    });
}

int FTI_FinalizeICP(void) {
    return guarded("FTI_FinalizeICP", [] { return session().icp_finalize() ? FTI_DONE : FTI_SCES; });
}

/* ---- Staging ------------------------------------------------------------- */

static_assert(FTI_SI_NINI == static_cast<int>(mlckpt::core::StageStatus::none) &&
                  FTI_SI_PEND == static_cast<int>(mlckpt::core::StageStatus::pending) &&
                  FTI_SI_ACTV == static_cast<int>(mlckpt::core::StageStatus::active) &&
                  FTI_SI_SCES == static_cast<int>(mlckpt::core::StageStatus::succeeded) &&
                  FTI_SI_FAIL == static_cast<int>(mlckpt::core::StageStatus::failed),
              "the staging states of fti.h and of the core agree");

int FTI_GetStageDir(char* stageDir, int maxLen) {
    return guarded("FTI_GetStageDir", [&] {
        const std::string dir = session().staging().dir().string();
        require(stageDir != nullptr, "stageDir is NULL");
        require(maxLen >= 1, "maxLen " + std::to_string(maxLen) + " is invalid; allowed: >= 1");
        require(static_cast<std::size_t>(maxLen) > dir.size(),
                "maxLen " + std::to_string(maxLen) + " is too small for the stage directory '" + dir + "' (" +
                    std::to_string(dir.size() + 1) + " bytes with its NUL)");
        std::memcpy(stageDir, dir.c_str(), dir.size() + 1);
        return FTI_SCES;
    });
}

int FTI_GetStageStatus(int ID) {
    return guarded("FTI_GetStageStatus", [&] { return static_cast<int>(session().staging().status(ID)); });
}

int FTI_SendFile(const char* lpath, const char* rpath) {
    return guarded("FTI_SendFile", [&] {
        mlckpt::core::Staging& staging = session().staging();
        require(lpath != nullptr, "lpath is NULL");
        require(rpath != nullptr, "rpath is NULL");
        return staging.send_file(lpath, rpath);
    });
}

/* ---- end of staging ------------------------------------------------------ */

// ---- FTI_GetConfig, FTI_BitFlip ----------------------------------------------

FTIT_allConfiguration FTI_GetConfig(const char* configFile, MPI_Comm globalComm) {
    (void)globalComm;  // as in FTI: the session's communicators are reported
    FTIT_allConfiguration all{};
    guarded("FTI_GetConfig", [&] {
        const Session& s = session(true);
        const std::string& path = s.context().config.path;
        std::error_code ec;
        if (configFile != nullptr && configFile != path && !std::filesystem::equivalent(configFile, path, ec)) {
            // FTI ignores the argument too; a program that meant another file is told.
            s.context().log.warning(std::string("FTI_GetConfig: '") + configFile +
                                    "' is not the configuration file of this session; the configuration of '" + path +
                                    "' (read by FTI_Init) is returned");
        }
        all = mlckpt::capi::all_configuration(s);
        s.context().log.info("FTI configuration returned.");
        return FTI_SCES;
    });
    return all;
}

int FTI_BitFlip(int datasetID) {
    return guarded("FTI_BitFlip", [&] {
        mlckpt::core::BitFlipResult result = session().bit_flip(datasetID);
        if (result.flipped) return FTI_SCES;
        // As in FTI, a call with no flip due returns FTI_NSCS and prints nothing.
        g_last_error = std::string("FTI_BitFlip: ") + result.message;
        return FTI_NSCS;
    });
}

// ---- HDF5 datasets (ckpt_io = 5), one file per rank ------------------------

int FTI_InitGroup(FTIT_H5Group* h5group, const char* name, FTIT_H5Group* parent) {
    return guarded("FTI_InitGroup", [&] {
        require(h5group != nullptr, "group pointer is NULL");
        require(name != nullptr, "group name is NULL");
        mlckpt::core::GroupTree& groups = session().registry().groups();
        const int id = groups.add(std::string(name, ::strnlen(name, FTI_BUFS)), parent ? parent->id : 0);
        const std::string full = mlckpt::core::h5::path_text(groups.path(id));
        h5group->id = id;
        h5group->childrenNo = 0;
        ::snprintf(h5group->name, FTI_BUFS, "%s", groups.path(id).back().c_str());
        ::snprintf(h5group->fullName, FTI_BUFS, "%s", full.c_str());
        h5group->h5groupID = -1;
        return FTI_SCES;
    });
}

int FTI_RenameGroup(FTIT_H5Group* h5group, const char* name) {
    return guarded("FTI_RenameGroup", [&] {
        require(h5group != nullptr, "group pointer is NULL");
        require(name != nullptr, "group name is NULL");
        session().registry().groups().rename(h5group->id, std::string(name, ::strnlen(name, FTI_BUFS)));
        return FTI_SCES;
    });
}

int FTI_DefineDataset(int id, int rank, int* dimLength, const char* name, FTIT_H5Group* h5group) {
    return define_dataset(id, rank, dimLength, name, h5group);
}

int FTI_DefineDataset64(int id, int rank, int64_t* dimLength, const char* name, FTIT_H5Group* h5group) {
    return define_dataset(id, rank, dimLength, name, h5group);
}

int FTI_SetAttribute(int id, FTIT_attribute attribute, FTIT_attributeFlag flag) {
    return guarded("FTI_SetAttribute", [&] {
        mlckpt::core::DatasetDefinition& d = session().registry().dataset(id);
        if ((flag & FTI_ATTRIBUTE_NAME) != 0) {
            d.attribute_name = std::string(attribute.name, ::strnlen(attribute.name, FTI_BUFS));
        }
        if ((flag & FTI_ATTRIBUTE_DIM) != 0) {
            const int n = attribute.dim.ndims;
            require(n >= 0 && n <= 32, "attribute dim.ndims " + std::to_string(n) + " is invalid; allowed: 0 to 32");
            d.attribute_dim = std::vector<std::uint64_t>(attribute.dim.count, attribute.dim.count + n);
        }
        return FTI_SCES;
    });
}

// ---- Global datasets (FTI_L4_H5_SINGLE) ---------------------------------------

int FTI_DefineGlobalDataset(int id, int rank, FTIT_hsize_t* dimLength, const char* name, FTIT_H5Group* h5group,
                            fti_id_t tid) {
    return guarded("FTI_DefineGlobalDataset", [&] {
        mlckpt::core::Registry& registry = session().registry();
        require(name != nullptr, "global dataset " + std::to_string(id) + ": the name is NULL");
        const int group = h5group ? h5group->id : 0;
        require(registry.groups().contains(group),
                "group id " + std::to_string(group) + " is unknown; make groups with FTI_InitGroup");
        registry.types().at(tid);  // a usage Error for an unknown type
        registry.global_datasets().define(id, shape(rank, dimLength, "dimLength"),
                                          std::string(name, ::strnlen(name, FTI_BUFS)), group, tid);
        return FTI_SCES;
    });
}

int FTI_AddSubset(int id, int rank, FTIT_hsize_t* offset, FTIT_hsize_t* count, int did) {
    return guarded("FTI_AddSubset", [&] {
        mlckpt::core::Registry& registry = session().registry();
        registry.at(id);  // protected, or a usage Error
        registry.global_datasets().add_subset(id, did, shape(rank, offset, "offset"), shape(rank, count, "count"));
        return FTI_SCES;
    });
}

int FTI_UpdateGlobalDataset(int id, int rank, FTIT_hsize_t* dimLength) {
    return guarded("FTI_UpdateGlobalDataset", [&] {
        session().registry().global_datasets().update(id, shape(rank, dimLength, "dimLength"));
        return FTI_SCES;
    });
}

int FTI_UpdateSubset(int id, int rank, FTIT_hsize_t* offset, FTIT_hsize_t* count, int did) {
    return guarded("FTI_UpdateSubset", [&] {
        session().registry().global_datasets().update_subset(id, did, shape(rank, offset, "offset"),
                                                             shape(rank, count, "count"));
        return FTI_SCES;
    });
}

int FTI_RecoverDatasetDimension(int did) {
    return guarded("FTI_RecoverDatasetDimension", [&] {
        session().recovery().recover_dataset_dimension(did);
        return FTI_SCES;
    });
}

int FTI_GetDatasetRank(int did) {
    return guarded("FTI_GetDatasetRank",
                   [&] { return static_cast<int>(session().registry().global_datasets().at(did).dims.size()); });
}

FTIT_hsize_t* FTI_GetDatasetSpan(int did, int rank) {
    // As FTI: a static array, overwritten by the next call.
    static FTIT_hsize_t span[mlckpt::core::kMaxDatasetRank];
    return guarded<FTIT_hsize_t*>("FTI_GetDatasetSpan", nullptr, Failure::nscs, [&] {
        const mlckpt::core::GlobalDataset& d = session().registry().global_datasets().at(did);
        require(static_cast<std::size_t>(rank) == d.dims.size(), "global dataset " + std::to_string(did) +
                                                                     " has rank " + std::to_string(d.dims.size()) +
                                                                     ", not " + std::to_string(rank));
        std::copy(d.dims.begin(), d.dims.end(), span);
        return span;
    });
}

// ---- end of HDF5 datasets ----------------------------------------------------

int FTI_SetErrorBound(int id, double bound) {
    return guarded("FTI_SetErrorBound", [&] {
        session().registry().set_error_bound(id, bound);
        return FTI_SCES;
    });
}

int FTI_WaitBackground(void) {
    return guarded("FTI_WaitBackground", [] {
        session().wait_background();
        return FTI_SCES;
    });
}

const char* FTI_LastError(void) {
    return g_last_error.c_str();
}

const char* FTI_VersionString(void) {
#define MLCKPT_STR2(x) #x
#define MLCKPT_STR(x) MLCKPT_STR2(x)
    return MLCKPT_STR(MLCKPT_VERSION_MAJOR) "." MLCKPT_STR(MLCKPT_VERSION_MINOR) "." MLCKPT_STR(MLCKPT_VERSION_PATCH);
}

int FTI_VersionNumber(void) {
    return MLCKPT_VERSION_NUMBER;
}

}  // extern "C"
