#include "extract.hpp"

#include "cli.hpp"

#include <charconv>
#include <cstdio>
#include <optional>

#include "common/error.hpp"
#include "format/shared/container_layout.hpp"
#include "io/file.hpp"
#include "json.hpp"

namespace mlckpt::tools {

namespace {

using namespace mlckpt::core;

struct Arguments {
    std::string container;
    long rank = -1;
    std::string output;
};

std::optional<Arguments> parse(const std::vector<std::string>& args, std::ostream& err) {
    Arguments a;
    bool options_done = false;
    std::optional<std::string> rank_text;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        bool has_value = i + 1 < args.size();
        if (!options_done && arg == "--") {
            options_done = true;
        } else if (!options_done && arg == "--rank" && has_value && !rank_text) {
            rank_text = args[++i];
        } else if (!options_done && arg == "--output" && has_value && a.output.empty()) {
            a.output = args[++i];
        } else if (a.container.empty() && !arg.empty() && (options_done || arg[0] != '-')) {
            a.container = arg;
        } else {
            err << "mlckpt extract: unexpected argument '" << arg << "'\n";
            return std::nullopt;
        }
    }
    if (rank_text) {
        auto [end, ec] = std::from_chars(rank_text->data(), rank_text->data() + rank_text->size(), a.rank);
        if (ec != std::errc() || end != rank_text->data() + rank_text->size() || a.rank < 0) {
            err << "mlckpt extract: --rank '" << *rank_text << "' is not a rank; allowed: an integer >= 0\n";
            return std::nullopt;
        }
    }
    if (a.container.empty() || a.rank < 0) return std::nullopt;
    if (a.output.empty()) a.output = "rank" + std::to_string(a.rank) + ".bin";
    return a;
}

// The physical file that holds `rank`: the one given, or, through the
// mapping of file 0, one of its siblings.
fs::path file_of_rank(const fs::path& given, const container::ContainerFile& c, long rank) {
    if (c.task_of(rank) >= 0) return given;
    if (!c.mapping) {
        std::string hint = c.header.nfiles > 1 ? "; give file 0 ('" + c.header.prefix + "') to find it" : "";
        fail(ErrorKind::usage, "rank " + std::to_string(rank) + " is not in '" + given.string() + "'" + hint);
    }
    if (rank >= static_cast<long>(c.mapping->size())) {
        fail(ErrorKind::usage, "rank " + std::to_string(rank) + " is not in the container; its ranks are 0 to " +
                                   std::to_string(c.mapping->size() - 1));
    }
    int number = (*c.mapping)[static_cast<std::size_t>(rank)].file;
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, ".%06d", number);
    return given.parent_path() / (c.header.prefix + suffix);
}

}  // namespace

int extract(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    const char* usage = "usage: mlckpt extract [--] CONTAINER --rank R [--output FILE]\n";
    if (asks_for_help(args)) {
        out << usage;
        return 0;
    }
    std::optional<Arguments> a = parse(args, err);
    if (!a) {
        err << usage;
        return 2;
    }
    // The output's directory, opened once: the temporary file and the
    // rename happen in it, whatever becomes of its name meanwhile.
    Directory dir;
    const std::string name = fs::path(a->output).filename().string();
    const std::string tmp = name + ".tmp";
    try {
        dir = Directory::open(fs::path(a->output).parent_path());
        File given = File::open_read(a->container);
        container::ContainerFile c = container::read_container(given);
        fs::path path = file_of_rank(a->container, c, a->rank);
        File file = File::open_read(path);
        container::ContainerFile holder = path == fs::path(a->container) ? c : container::read_container(file);
        int task = holder.task_of(a->rank);
        if (task < 0 || holder.header.prefix != c.header.prefix) {
            fail(ErrorKind::corrupt, "'" + path.string() + "' does not hold rank " + std::to_string(a->rank) +
                                         " as the mapping of '" + a->container + "' says");
        }
        File target = File::create(dir, tmp);
        Extents extents = holder.extents_of(static_cast<std::size_t>(task));
        for_each_piece(file, extents, 1 << 20, [&](std::span<const std::byte> piece) { target.write_all(piece); });
        const std::uint64_t total = total_length(extents);
        target.sync();
        target.close();
        dir.rename(tmp, name);
        out << "wrote " << total << " bytes of rank " << a->rank << " from '" << path.string() << "' to '" << a->output
            << "'\n";
        return 0;
    } catch (const Error& e) {
        dir.remove(tmp);
        err << "mlckpt extract: " << shown(e.what()) << "\n";
        return 1;
    }
}

}  // namespace mlckpt::tools
