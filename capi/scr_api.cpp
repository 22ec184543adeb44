// The exported SCR interface (scr.h) over core's ScrSession. Each entry point
// checks its arguments and converts every exception into SCR's failure code
// and a message in the log; nothing is thrown across this boundary.
#include <mpi.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <new>
#include <string>

#include "scr.h"
#include "scr/scr_session.hpp"
#include "sessionless_log.hpp"

using mlckpt::core::Error;
using mlckpt::core::ErrorKind;
using mlckpt::core::fail;
using mlckpt::core::ScrSession;

namespace {

constexpr int kScrFailure = 1;  // SCR's own value for every failure

std::unique_ptr<ScrSession> g_scr;
mlckpt::core::ScrParameterTable g_parameters;  // SCR_Config before SCR_Init

void print_error(const char* function, const std::string& message) {
    const std::string line = std::string(function) + ": " + message;
    if (g_scr) {
        g_scr->log().error(line);
        return;
    }
    mlckpt::capi::print_sessionless_error("SCR", line);
}

// Runs `body`; any failure is printed (once for collective failures: by
// the rank it happened on) and becomes SCR's failure code.
template <typename Body>
int scr_call(const char* function, Body&& body) {
    mlckpt::core::Activity activity(function);
    try {
        body();
        return SCR_SUCCESS;
    } catch (const Error& e) {
        if (!e.remote()) print_error(function, e.what());
    } catch (const std::bad_alloc&) {
        print_error(function, "out of memory");
    } catch (const std::exception& e) {
        print_error(function, std::string("internal error: ") + e.what());
    } catch (...) {
        print_error(function, "internal error");
    }
    return kScrFailure;
}

ScrSession& scr(const char* function) {
    if (!g_scr) fail(ErrorKind::usage, std::string(function) + " before SCR_Init (or after SCR_Finalize)");
    return *g_scr;
}

void require(bool ok, const std::string& message) {
    if (!ok) fail(ErrorKind::usage, message);
}

// Copies `value` into the application's SCR_MAX_FILENAME buffer.
void copy_out(char* buffer, const std::string& value, const char* what) {
    require(value.size() < SCR_MAX_FILENAME, std::string(what) + " '" + value + "' does not fit in SCR_MAX_FILENAME (" +
                                                 std::to_string(SCR_MAX_FILENAME) + ") bytes");
    std::memcpy(buffer, value.c_str(), value.size() + 1);
}

std::string working_directory() {
    std::error_code ec;
    std::filesystem::path cwd = std::filesystem::current_path(ec);
    if (ec) fail(ErrorKind::io, "cannot read the working directory: " + ec.message());
    return cwd.string();
}

}  // namespace

extern "C" {

int SCR_Init(void) {
    return scr_call("SCR_Init", [] {
        int mpi_ready = 0;
        MPI_Initialized(&mpi_ready);
        require(mpi_ready != 0, "MPI is not initialized: call MPI_Init before SCR_Init");
        require(!g_scr, "SCR_Init was already called; call SCR_Finalize first");
        const std::string cwd = working_directory();
        mlckpt::core::ScrSettings settings;
        mlckpt::core::run_collectively(MPI_COMM_WORLD, [&] {
            settings = mlckpt::core::resolve_scr_settings(g_parameters, mlckpt::core::process_environment(), cwd);
        });
        g_scr = std::make_unique<ScrSession>(std::move(settings), MPI_COMM_WORLD, cwd);
    });
}

int SCR_Finalize(void) {
    return scr_call("SCR_Finalize", [] {
        struct Release {  // the session goes even when finalize fails
            ~Release() { g_scr.reset(); }
        } release;
        scr("SCR_Finalize").finalize();
    });
}

const char* SCR_Config(const char* config) {
    char* answer = nullptr;
    scr_call("SCR_Config", [&] {
        if (config == nullptr) return;  // SCR answers NULL, without a message
        const std::string text(config);
        const mlckpt::core::ScrConfigText parsed = mlckpt::core::parse_scr_config_text(text);
        if (parsed.key.empty()) return;
        std::optional<std::string> value;
        if (!parsed.is_query()) {
            require(!g_scr, "'" + text + "': parameters are set before SCR_Init");
            g_parameters.apply(text);
        } else if (!parsed.subkey.empty()) {  // "KEY=VALUE SUBKEY": one setting of a descriptor
            value = g_parameters.get_pair(parsed.key, *parsed.value, parsed.subkey);
        } else {  // a query, before or after SCR_Init
            value = mlckpt::core::lookup_scr_parameter(parsed.key, g_parameters, mlckpt::core::process_environment(),
                                                       working_directory());
        }
        if (value) {
            answer = static_cast<char*>(std::malloc(value->size() + 1));
            if (answer == nullptr) throw std::bad_alloc();
            std::memcpy(answer, value->c_str(), value->size() + 1);
        }
    });
    return answer;
}

const char* SCR_Configf(const char* format, ...) {
    if (format == nullptr) return SCR_Config(nullptr);
    va_list args;
    va_start(args, format);
    va_list again;
    va_copy(again, args);
    const int n = std::vsnprintf(nullptr, 0, format, args);
    va_end(args);
    std::string text(n > 0 ? static_cast<std::size_t>(n) : 0, '\0');
    if (n > 0) std::vsnprintf(text.data(), text.size() + 1, format, again);
    va_end(again);
    return SCR_Config(text.c_str());
}

int SCR_Route_file(const char* name, char* file) {
    return scr_call("SCR_Route_file", [&] {
        require(name != nullptr, "the file name is NULL");
        require(file != nullptr, "the buffer for the path is NULL");
        copy_out(file, scr("SCR_Route_file").route_file(name), "the path");
    });
}

int SCR_Have_restart(int* flag, char* name) {
    return scr_call("SCR_Have_restart", [&] {
        require(flag != nullptr, "flag is NULL");
        *flag = 0;
        std::optional<std::string> found = scr("SCR_Have_restart").have_restart();
        *flag = found ? 1 : 0;
        if (name != nullptr) copy_out(name, found.value_or(""), "the dataset name");
    });
}

int SCR_Start_restart(char* name) {
    return scr_call("SCR_Start_restart", [&] {
        std::string started = scr("SCR_Start_restart").start_restart();
        if (name != nullptr) copy_out(name, started, "the dataset name");
    });
}

int SCR_Complete_restart(int valid) {
    return scr_call("SCR_Complete_restart", [&] { scr("SCR_Complete_restart").complete_restart(valid != 0); });
}

int SCR_Need_checkpoint(int* flag) {
    return scr_call("SCR_Need_checkpoint", [&] {
        require(flag != nullptr, "flag is NULL");
        *flag = scr("SCR_Need_checkpoint").need_checkpoint() ? 1 : 0;
    });
}

// SCR's older checkpoint calls: an output phase flagged as a checkpoint.
int SCR_Start_checkpoint(void) {
    return scr_call("SCR_Start_checkpoint",
                    [] { scr("SCR_Start_checkpoint").start_output("", mlckpt::core::kScrCheckpoint); });
}

int SCR_Complete_checkpoint(int valid) {
    return scr_call("SCR_Complete_checkpoint", [&] { scr("SCR_Complete_checkpoint").complete_output(valid != 0); });
}

int SCR_Start_output(const char* name, int flags) {
    return scr_call("SCR_Start_output",
                    [&] { scr("SCR_Start_output").start_output(name != nullptr ? name : "", flags); });
}

int SCR_Complete_output(int valid) {
    return scr_call("SCR_Complete_output", [&] { scr("SCR_Complete_output").complete_output(valid != 0); });
}

int SCR_Current(const char* name) {
    return scr_call("SCR_Current", [&] {
        require(name != nullptr, "the dataset name is NULL");
        scr("SCR_Current").set_current(name);
    });
}

int SCR_Drop(const char* name) {
    return scr_call("SCR_Drop", [&] {
        require(name != nullptr, "the dataset name is NULL");
        scr("SCR_Drop").drop(name);
    });
}

int SCR_Delete(const char* name) {
    return scr_call("SCR_Delete", [&] {
        require(name != nullptr, "the dataset name is NULL");
        scr("SCR_Delete").remove(name);
    });
}

char* SCR_Get_version(void) {
    static char version[] = SCR_VERSION " (mlckpt)";
    return version;
}

int SCR_Should_exit(int* flag) {
    return scr_call("SCR_Should_exit", [&] {
        require(flag != nullptr, "flag is NULL");
        *flag = scr("SCR_Should_exit").should_exit() ? 1 : 0;
    });
}

}  // extern "C"
