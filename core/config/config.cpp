#include "config/config.hpp"

#include <iniparser.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "common/error.hpp"
#include "config/ini_structure.hpp"
#include "config/levels.hpp"
#include "format/file_formats.hpp"
#include "format/hdf5/hdf5_library.hpp"

namespace mlckpt::core {

namespace {

// Where a value came from, for error messages.
struct Where {
    const std::string& file;
    std::string section;
    std::string key;
    std::string value;
};

[[noreturn]] void bad_value(const Where& w, const std::string& problem, const std::string& allowed) {
    fail(ErrorKind::config,
         w.file + ": [" + w.section + "] " + w.key + " = '" + w.value + "': " + problem + "; allowed: " + allowed);
}

long parse_integer(const Where& w, long lo, long hi) {
    const std::string& v = w.value;
    std::string allowed = "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
    long out = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (v.empty() || ec == std::errc::invalid_argument || end != v.data() + v.size()) {
        bad_value(w, "not an integer", allowed);
    }
    if (ec == std::errc::result_out_of_range || out < lo || out > hi) {
        bad_value(w, "out of range", allowed);
    }
    return out;
}

// The spellings iniparser's boolean reader accepts.
bool parse_flag(const Where& w) {
    std::string v;
    for (char ch : w.value) v += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (v == "1" || v == "y" || v == "yes" || v == "t" || v == "true") return true;
    if (v == "0" || v == "n" || v == "no" || v == "f" || v == "false") return false;
    bad_value(w, "not a flag", "0 or 1 (also yes/no, true/false)");
}

double parse_minutes(const Where& w) {
    const char* allowed = "a number of minutes (0 or less disables the level; decimals allowed)";
    errno = 0;
    char* end = nullptr;
    double out = std::strtod(w.value.c_str(), &end);
    if (w.value.empty() || end != w.value.c_str() + w.value.size() || errno != 0) {
        bad_value(w, "not a number", allowed);
    }
    if (std::isnan(out) || out > 1e9) bad_value(w, "out of range", allowed);
    return std::max(out, 0.0);  // FTI's templates write -1 for a level that is off
}

struct KeySpec {
    const char* section;
    const char* key;
    bool required;
    std::function<void(Config&, const Where&)> apply;
};

KeySpec int_key(const char* sec, const char* key, int Config::*field, long lo, long hi) {
    return {sec, key, false, [=](Config& c, const Where& w) { c.*field = static_cast<int>(parse_integer(w, lo, hi)); }};
}

KeySpec flag_key(const char* sec, const char* key, bool Config::*field) {
    return {sec, key, false, [=](Config& c, const Where& w) { c.*field = parse_flag(w); }};
}

KeySpec dir_key(const char* key, std::string Config::*field) {
    return {"basic", key, true, [=](Config& c, const Where& w) {
                if (w.value.empty()) bad_value(w, "empty", "a directory path");
                c.*field = w.value;
            }};
}

KeySpec interval_key(const char* key, LevelSettings Config::*level) {
    return {"basic", key, false, [=](Config& c, const Where& w) { (c.*level).interval_minutes = parse_minutes(w); }};
}

// Where FTI reads any integer and replaces what it does not use, mlckpt
// does the same and says so.
std::string replaced(const Where& w, const std::string& why, const std::string& instead) {
    return w.file + ": [" + w.section + "] " + w.key + " = '" + w.value + "': " + why + "; " + instead;
}

// FTI reads inline_l<L> as an integer and takes any value but 0 as 1.
KeySpec inline_key(const char* key, LevelSettings Config::*level) {
    return {"basic", key, false, [=](Config& c, const Where& w) {
                bool& is_inline = (c.*level).inline_work;
                long v = 0;
                auto [end, ec] = std::from_chars(w.value.data(), w.value.data() + w.value.size(), v);
                if (ec == std::errc() && end == w.value.data() + w.value.size() && v != 0 && v != 1) {
                    c.warnings.push_back(replaced(w, "not 0 or 1", "taken as 1 (inline), as FTI does"));
                    is_inline = true;
                    return;
                }
                is_inline = parse_flag(w);
            }};
}

// ckpt_io: a value no format has falls back to POSIX with a warning, as in
// FTI (which does so for an unset value).
void apply_ckpt_io(Config& c, const Where& w) {
    long v = parse_integer(w, std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
    if (is_registered_format(v)) {
        c.ckpt_io = static_cast<IoMode>(v);
        return;
    }
    c.warnings.push_back(replaced(w, "no checkpoint format has this number",
                                  "writing POSIX files (ckpt_io = 1); the formats are 1 POSIX, 2 MPI-IO, "
                                  "3 FTI-FF, 4 container, 5 HDF5"));
    c.ckpt_io = IoMode::posix;
}

// FTI turns any group_size below 1 into 1 and refuses more than 32 only
// where Reed-Solomon is used (check_consistency).
void apply_group_size(Config& c, const Where& w) {
    long v = parse_integer(w, std::numeric_limits<int>::min(), 4096);
    c.group_size = static_cast<int>(std::max(v, 1L));
}

// FTI accepts any transfer size and uses 16 MiB outside 8 to 64.
void apply_transfer_size(Config& c, const Where& w) {
    long v = parse_integer(w, std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
    if (v < 1 || v > 65536) {
        c.warnings.push_back(replaced(w, "outside 1 to 65536 MiB", "using 16 MiB"));
        v = 16;
    }
    c.transfer_size_mb = static_cast<int>(v);
}

// failure = 3 starts a fresh execution that restarts from the newest global
// HDF5 file (FTI's variate processor restart).
void apply_failure(Config& c, const Where& w) {
    long v = parse_integer(w, 0, 3);
    c.variate_restart = v == 3;
    c.failure = v == 3 ? 0 : static_cast<int>(v);
}

// The global file's name starts with the prefix: one name component.
void apply_single_file_prefix(Config& c, const Where& w) {
    if (w.value.empty()) {
        c.h5_single_file_prefix = "VPR-h5";  // as FTI
        return;
    }
    const bool printable = std::all_of(w.value.begin(), w.value.end(),
                                       [](unsigned char ch) { return ch > 0x20 && ch != 0x7f && ch != '/'; });
    if (!printable || w.value.size() > 200) {
        bad_value(w, "not a file name prefix", "1 to 200 printable characters without '/' or spaces");
    }
    c.h5_single_file_prefix = w.value;
}

// FTI's heads assemble the global file from per-rank files when
// h5_single_file_inline = 0; here the application ranks always write it
// together, with collective MPI-IO, which needs no head.
void apply_single_file_inline(Config& c, const Where& w) {
    if (!parse_flag(w)) {
        c.warnings.push_back(replaced(w, "the heads do not assemble the global HDF5 file",
                                      "the application ranks write it together (as with h5_single_file_inline = 1)"));
    }
}

// [compression] l<L>: a codec's name.
KeySpec codec_key(const char* key, LevelSettings Config::*level) {
    return {"compression", key, false, [=](Config& c, const Where& w) {
                const std::optional<Codec> codec = codec_named(w.value);
                // Lossy compression is asked for per variable (FTI_SetErrorBound), never per level.
                if (!codec || *codec == Codec::zfp) bad_value(w, "not a codec", "none, lz4 (fast) or zstd (smaller)");
                (c.*level).codec = *codec;
            }};
}

// FTI keys with no meaning here (GPU, Lustre striping, FTI's internal dCP): accepted so
// that existing FTI configurations load unchanged.
bool is_ignored_fti_key(const std::string& section, const std::string& key) {
    static const char* const ignored[] = {"basic:gpu_host_bufsize",
                                          "basic:transfer_size",
                                          "basic:ckpt_type",
                                          "basic:dcp_l4",
                                          "basic:cacheddcp",
                                          "advanced:gpu_host_bufsize",
                                          "advanced:lustre_striping_unit",
                                          "advanced:lustre_striping_factor",
                                          "advanced:lustre_striping_offset",
                                          "advanced:lustre_stiping_unit",
                                          "advanced:lustre_stiping_factor",
                                          "advanced:lustre_stiping_offset",
                                          "advanced:mpi_tag"};
    std::string full = section + ":" + key;
    for (const char* k : ignored) {
        if (full == k) return true;
    }
    return false;
}

const std::vector<KeySpec>& key_specs() {
    static const std::vector<KeySpec> specs = [] {
        std::vector<KeySpec> s;
        s.push_back(flag_key("basic", "head", &Config::head));
        KeySpec node_size = int_key("basic", "node_size", &Config::node_size, 1, 4096);
        node_size.required = true;
        s.push_back(node_size);
        s.push_back(dir_key("ckpt_dir", &Config::ckpt_dir));
        s.push_back(dir_key("glbl_dir", &Config::glbl_dir));
        s.push_back(dir_key("meta_dir", &Config::meta_dir));
        s.push_back(interval_key("ckpt_l1", &Config::l1));
        s.push_back(interval_key("ckpt_l2", &Config::l2));
        s.push_back(interval_key("ckpt_l3", &Config::l3));
        s.push_back(interval_key("ckpt_l4", &Config::l4));
        s.push_back(inline_key("inline_l2", &Config::l2));
        s.push_back(inline_key("inline_l3", &Config::l3));
        s.push_back(inline_key("inline_l4", &Config::l4));
        s.push_back(flag_key("basic", "keep_last_ckpt", &Config::keep_last_ckpt));
        s.push_back(flag_key("basic", "keep_l4_ckpt", &Config::keep_l4_ckpt));
        s.push_back(flag_key("basic", "keep_heads_alive", &Config::keep_heads_alive));
        s.push_back({"basic", "group_size", false, apply_group_size});
        s.push_back(int_key("basic", "l3_failures", &Config::l3_failures, 0, kMaxParityGroup - 1));
        s.push_back(int_key("basic", "verbosity", &Config::verbosity, 1, 3));
        s.push_back({"basic", "ckpt_io", false, apply_ckpt_io});
        s.push_back(flag_key("basic", "enable_dcp", &Config::enable_dcp));
        s.push_back(flag_key("basic", "enable_staging", &Config::enable_staging));
        s.push_back(flag_key("basic", "async_snapshot", &Config::async_snapshot));
        s.push_back(int_key("basic", "async_snapshot_mb", &Config::async_snapshot_mb, 1, 1 << 24));
        s.push_back(flag_key("basic", "h5_single_file_enable", &Config::h5_single_file_enable));
        s.push_back(
            {"basic", "h5_single_file_dir", false, [](Config& c, const Where& w) { c.h5_single_file_dir = w.value; }});
        s.push_back({"basic", "h5_single_file_prefix", false, apply_single_file_prefix});
        s.push_back(flag_key("basic", "h5_single_file_keep", &Config::h5_single_file_keep));
        s.push_back({"basic", "h5_single_file_inline", false, apply_single_file_inline});
        s.push_back(int_key("basic", "dcp_mode", &Config::dcp_mode_value, std::numeric_limits<int>::min(),
                            std::numeric_limits<int>::max()));
        s.push_back(int_key("basic", "dcp_block_size", &Config::dcp_block_size, std::numeric_limits<int>::min(),
                            std::numeric_limits<int>::max()));
        s.push_back(int_key("basic", "dcp_stack_size", &Config::dcp_stack_size, std::numeric_limits<int>::min(),
                            std::numeric_limits<int>::max()));
        s.push_back(int_key("basic", "max_var_id", &Config::max_var_id, 0, 2147483646));
        s.push_back({"basic", "max_sync_intv", false, [](Config& c, const Where& w) {
                         // FTI's own example files say 0, meaning the default, and
                         // FTI takes a negative value as unset.
                         long v = parse_integer(w, std::numeric_limits<int>::min(), 1 << 30);
                         c.max_sync_intv = v <= 0 ? 512 : static_cast<int>(v);
                     }});
        s.push_back({"restart", "failure", false, apply_failure});
        s.push_back({"restart", "exec_id", false, [](Config& c, const Where& w) {
                         for (char ch : w.value) {
                             bool ok =
                                 std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.';
                             if (!ok) bad_value(w, "invalid character", "letters, digits, - _ .");
                         }
                         // It names directories: "." and ".." would name others.
                         if (w.value == "." || w.value == "..") {
                             bad_value(w, "not a directory name", "letters, digits, - _ ., other than . and ..");
                         }
                         c.exec_id = w.value;
                     }});
        s.push_back(int_key("advanced", "block_size", &Config::block_size_kb, 1, 1048576));
        s.push_back({"advanced", "transfer_size", false, apply_transfer_size});
        s.push_back(flag_key("advanced", "local_test", &Config::local_test));
        s.push_back({"advanced", "container_block_size", false, [](Config& c, const Where& w) {
                         long v = parse_integer(w, 0, 1L << 30);
                         if (v != 0 && (v < 512 || (v & (v - 1)) != 0)) {
                             bad_value(w, "not a power of two of at least 512",
                                       "0 (the file system's block size) or a power of two from 512 to 1073741824");
                         }
                         c.container_block_size = static_cast<int>(v);
                     }});
        s.push_back(int_key("advanced", "container_files", &Config::container_files, 1, 1 << 20));
        s.push_back(int_key("advanced", "general_tag", &Config::general_tag, 0, 32767));
        s.push_back(int_key("advanced", "ckpt_tag", &Config::ckpt_tag, 0, 32767));
        s.push_back(int_key("advanced", "stage_tag", &Config::stage_tag, 0, 32767));
        s.push_back(int_key("advanced", "final_tag", &Config::final_tag, 0, 32767));
        s.push_back(int_key("advanced", "fast_forward", &Config::fast_forward, 1, 10));
        s.push_back(int_key("advanced", "wait_timeout", &Config::wait_timeout, 0, 31536000));
        s.push_back(flag_key("advanced", "verify_at_init", &Config::verify_at_init));
        s.push_back(codec_key("l1", &Config::l1));
        s.push_back(codec_key("l2", &Config::l2));
        s.push_back(codec_key("l3", &Config::l3));
        s.push_back(codec_key("l4", &Config::l4));
        s.push_back(int_key("compression", "block_size", &Config::compression_block_kb, 1, 65536));
        // FTI reads any integer; FTI_BitFlip says which do not fit the variable.
        const auto any_int = [&s](const char* key, int Injection::*field) {
            s.push_back({"injection", key, false, [=](Config& c, const Where& w) {
                             c.injection.*field = static_cast<int>(
                                 parse_integer(w, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
                         }});
        };
        any_int("rank", &Injection::rank);
        any_int("index", &Injection::index);
        any_int("position", &Injection::position);
        any_int("number", &Injection::number);
        any_int("frequency", &Injection::frequency);
        return s;
    }();
    return specs;
}

const KeySpec* find_spec(const std::string& section, const std::string& key) {
    for (const KeySpec& spec : key_specs()) {
        if (section == spec.section && key == spec.key) return &spec;
    }
    return nullptr;
}

std::string allowed_keys(const std::string& section) {
    std::string out;
    for (const KeySpec& spec : key_specs()) {
        if (section != spec.section) continue;
        if (!out.empty()) out += ", ";
        out += spec.key;
    }
    return out;
}

// iniparser reports syntax errors through a printf-like callback.
thread_local std::string g_parse_errors;

int collect_parse_error(const char* format, ...) {
    char buf[1024];
    va_list args;
    va_start(args, format);
    int n = std::vsnprintf(buf, sizeof buf, format, args);
    va_end(args);
    g_parse_errors += buf;
    return n;
}

struct DictionaryDeleter {
    void operator()(dictionary* d) const { iniparser_freedict(d); }
};

// FTI checks the differential checkpoint settings only when dCP is on, and
// turns dCP off (with a warning) when they are wrong: FTI_L4_DCP then takes
// a full L4 checkpoint.
void check_dcp_settings(Config& c) {
    if (!c.enable_dcp) return;
    const std::string where = c.path + ": [basic] ";
    if (c.dcp_mode_value != 1 && c.dcp_mode_value != 2) {
        c.warnings.push_back(where + "dcp_mode = " + std::to_string(c.dcp_mode_value) +
                             ": not 1 (MD5) or 2 (CRC-32); differential checkpoints are off");
        c.enable_dcp = false;
    } else if (c.dcp_block_size < 512 || c.dcp_block_size > 65536) {
        c.warnings.push_back(where + "dcp_block_size = " + std::to_string(c.dcp_block_size) +
                             ": not from 512 to 65536 bytes; differential checkpoints are off");
        c.enable_dcp = false;
    }
    c.dcp_mode = static_cast<DcpMode>(c.dcp_mode_value);
    // As FTI: a stack of POSIX dCP layers holds up to 10 checkpoints (FTI
    // takes 5 above 10; below 1 it would divide by zero: 5 here too).
    if (c.enable_dcp && (c.dcp_stack_size < 1 || c.dcp_stack_size > 10)) {
        c.warnings.push_back(where + "dcp_stack_size = " + std::to_string(c.dcp_stack_size) +
                             ": not from 1 to 10; the default, 5, is used");
        c.dcp_stack_size = 5;
    }
}

// Compressed variables change size from one checkpoint to the next, and
// their sizes are known only once compressed: formats that place bytes
// before they are written cannot hold them.
void check_compression(Config& c) {
    const Levels levels(c);
    for (int number : kBaseLevels) {
        const LevelDescriptor& level = levels[number];
        if (level.codec == Codec::none) continue;
        const std::string what = c.path + ": [compression] l" + std::to_string(number) + " = " +
                                 std::string(codec_name(level.codec)) +
                                 " with [basic] ckpt_io = " + std::to_string(static_cast<int>(c.ckpt_io)) + " (" +
                                 io_mode_name(c.ckpt_io) + "): ";
        if (level.format == IoMode::ftiff) {
            fail(ErrorKind::config, what +
                                        "FTI-FF files keep each variable at the same place from one checkpoint to "
                                        "the next (their layout and block hashes carry over), which compressed "
                                        "variables cannot; allowed: none, or ckpt_io = 1, 2, 4 or 5");
        }
        if (is_shared(level.format)) {
            fail(ErrorKind::config, what +
                                        "the shared L4 file places every rank's bytes by sizes exchanged before "
                                        "writing, and compressed sizes are known only after; allowed at l4: none "
                                        "(L1-L3 files may be compressed, and are flushed into the shared file as "
                                        "they are), or ckpt_io = 1");
        }
    }
    // HDF5 files are promoted by copy, as they are (store copy_for_level).
    const Codec l1 = levels[kL1].codec, l4 = levels[kL4].codec;
    if (c.ckpt_io == IoMode::hdf5 && (l1 == Codec::none) != (l4 == Codec::none)) {
        c.warnings.push_back(c.path + ": [compression] l1 = " + std::string(codec_name(l1)) +
                             " and l4 = " + std::string(codec_name(l4)) +
                             " with ckpt_io = 5: HDF5 files promoted from L1 to L4 (heads, background promotion, "
                             "keep_last_ckpt) are copied as L1 wrote them");
    }
    if (c.enable_dcp && l4 != Codec::none) {
        c.warnings.push_back(c.path + ": [compression] l4 = " + std::string(codec_name(l4)) +
                             " with [basic] enable_dcp = 1: differential checkpoints (FTI_L4_DCP) are written "
                             "uncompressed; their FTI-FF file is updated in place, block by block, and a "
                             "compressed block would not fit its place; other L4 checkpoints are compressed");
    }
}

// A build without HDF5 (MLCKPT_HDF5=OFF) writes neither HDF5 format.
void check_built_formats(const Config& c) {
    if (h5::library_built()) return;
    const std::string why = ": this mlckpt was built without HDF5 (MLCKPT_HDF5=OFF; Spack: mlckpt~hdf5)";
    if (c.ckpt_io == IoMode::hdf5) {
        fail(ErrorKind::config, c.path + ": [basic] ckpt_io = 5 (HDF5)" + why +
                                    "; allowed here: 1 (POSIX), 2 (MPI-IO), 3 (FTI-FF) or 4 (container)");
    }
    if (c.h5_single_file_enable) {
        fail(ErrorKind::config,
             c.path + ": [basic] h5_single_file_enable = 1 (FTI_L4_H5_SINGLE)" + why + "; allowed here: 0");
    }
}

void check_consistency(Config& c) {
    check_built_formats(c);
    check_dcp_settings(c);
    check_compression(c);
    const std::string& f = c.path;
    for (int number : kBaseLevels) {
        if (settings_of(c, number).interval_minutes <= 0) continue;
        if (const auto problem = group_size_problem(scheme_of(c, number), c.group_size)) {
            fail(ErrorKind::config,
                 f + ": [basic] group_size = " + std::to_string(c.group_size) + " with ckpt_l" +
                     std::to_string(number) + " > 0: " + *problem + "; allowed: " + std::to_string(c.l3_failures + 1) +
                     " to " + std::to_string(kMaxParityGroup) + ", or ckpt_l" + std::to_string(number) + " = 0");
        }
    }
    if (c.head && c.node_size < 2) {
        fail(ErrorKind::config, f +
                                    ": [basic] head = 1 needs node_size >= 2 (one rank per node "
                                    "is the head), but node_size = " +
                                    std::to_string(c.node_size));
    }
    if (c.failure > 0 && c.exec_id.empty()) {
        fail(ErrorKind::config, f + ": [restart] failure = " + std::to_string(c.failure) +
                                    " asks for a restart but exec_id is empty; allowed: set "
                                    "exec_id to the execution to restart, or failure = 0");
    }
}

}  // namespace

bool is_shared(IoMode mode) {
    return file_format_of(mode).shared;
}

const char* io_mode_name(IoMode mode) {
    return file_format_of(mode).name;
}

Config load_config(const std::string& path) {
    FILE* probe = std::fopen(path.c_str(), "r");
    if (probe == nullptr) {
        fail(ErrorKind::config, "cannot read configuration file '" + path + "': " + std::strerror(errno));
    }
    std::fclose(probe);
    check_ini_structure(path);

    g_parse_errors.clear();
    iniparser_set_error_callback(collect_parse_error);
    std::unique_ptr<dictionary, DictionaryDeleter> dict(iniparser_load(path.c_str()));
    iniparser_set_error_callback(nullptr);
    if (!dict) {
        std::string detail = g_parse_errors.empty() ? "not a valid INI file" : g_parse_errors;
        while (!detail.empty() && (detail.back() == '\n' || detail.back() == ' ')) detail.pop_back();
        fail(ErrorKind::config, "cannot parse configuration file '" + path + "': " + detail);
    }

    Config config;
    config.path = path;
    std::vector<const KeySpec*> seen;
    int nsec = iniparser_getnsec(dict.get());
    for (int i = 0; i < nsec; ++i) {
        std::string section = iniparser_getsecname(dict.get(), i);
        bool known_section = section == "basic" || section == "restart" || section == "advanced" ||
                             section == "injection" || section == "compression";
        if (!known_section) {
            fail(ErrorKind::config, path + ": unknown section [" + section +
                                        "]; allowed: [basic], [restart], [advanced], [injection], [compression]");
        }
        int nkeys = iniparser_getsecnkeys(dict.get(), section.c_str());
        std::vector<const char*> keys(static_cast<std::size_t>(nkeys));
        if (nkeys > 0) iniparser_getseckeys(dict.get(), section.c_str(), keys.data());
        for (const char* full_key : keys) {
            std::string key = std::string(full_key).substr(section.size() + 1);
            const char* raw = iniparser_getstring(dict.get(), full_key, "");
            Where where{path, section, key, raw ? raw : ""};
            const KeySpec* spec = find_spec(section, key);
            if (spec == nullptr) {
                if (is_ignored_fti_key(section, key)) continue;
                std::string allowed = allowed_keys(section);
                fail(ErrorKind::config, path + ": [" + section + "] unknown key '" + key + "'" +
                                            (allowed.empty() ? std::string() : "; allowed keys: " + allowed));
            }
            spec->apply(config, where);
            seen.push_back(spec);
        }
    }
    for (const KeySpec& spec : key_specs()) {
        if (!spec.required) continue;
        bool found = false;
        for (const KeySpec* s : seen) found = found || s == &spec;
        if (!found) {
            fail(ErrorKind::config, path + ": [" + spec.section + "] " + spec.key + " is required but missing");
        }
    }
    check_consistency(config);
    return config;
}

}  // namespace mlckpt::core
