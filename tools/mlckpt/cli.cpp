#include "cli.hpp"

#include <exception>
#include <new>

#include "extract.hpp"
#include "inspect.hpp"
#include "scr_index.hpp"
#include "verify.hpp"

namespace mlckpt::tools {

namespace {

constexpr const char* kUsage =
    "usage: mlckpt inspect [--json] [--] FILE\n"
    "         dump and check an FTI-FF file or a container (ckpt_io = 4)\n"
    "       mlckpt inspect [--json] --meta META [--] FILE\n"
    "         show and check any other checkpoint file (POSIX, HDF5, compressed) by its metadata\n"
    "       mlckpt extract [--] CONTAINER --rank R [--output FILE]\n"
    "         write one rank's data out of a container\n"
    "       mlckpt verify [--json] [--exec-id ID] [--] CONFIG\n"
    "         check every file of every recorded checkpoint against its metadata\n"
    "       mlckpt index --prefix DIR [--cache DIR] [--json] [--verify|--rebuild NAME|ID]\n"
    "         list, check or rebuild the datasets written through scr.h (mlckpt index --help)\n"
    "       mlckpt --help | --version\n";

int run_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    const std::string command = args.empty() ? "" : args[0];
    const std::vector<std::string> rest(args.begin() + (args.empty() ? 0 : 1), args.end());
    if (command == "inspect") return inspect(rest, out, err);
    if (command == "extract") return extract(rest, out, err);
    if (command == "verify") return verify(rest, out, err);
    if (command == "index") return scr_index(rest, out, err);
    if ((command == "--help" || command == "-h" || command == "help") && rest.empty()) {
        out << kUsage;
        return 0;
    }
    if (command == "--version" && rest.empty()) {
        out << "mlckpt " << MLCKPT_TOOL_VERSION << "\n";
        return 0;
    }
    if (!command.empty()) err << "mlckpt: unknown command '" << command << "'\n";
    err << kUsage;
    return 2;
}

}  // namespace

bool asks_for_help(const std::vector<std::string>& args) {
    for (const std::string& a : args) {
        if (a == "--") return false;
        if (a == "--help" || a == "-h") return true;
    }
    return false;
}

int run_command_line(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    // The commands report what they expect (usage, a damaged file); nothing
    // else may end the tool without a message, whatever the file holds.
    try {
        return run_command(args, out, err);
    } catch (const std::bad_alloc&) {
        err << "mlckpt: out of memory (a size or count in the file is larger than the file can hold)\n";
    } catch (const std::exception& e) {
        err << "mlckpt: internal error: " << e.what() << "\n";
    }
    return 2;
}

}  // namespace mlckpt::tools
