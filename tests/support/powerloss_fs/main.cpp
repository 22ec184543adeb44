// mlckpt_powerloss_fs: mounts the power-loss file system of the tests.
//   mlckpt_powerloss_fs [--model data|strict] [--torn] [--seed N] [--label NAME]
//                       BACKING MOUNTPOINT [FUSE options, e.g. -f]
// docs/power-loss.md describes the models and the control file.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "powerloss_fs.hpp"

namespace {

int usage(const char* problem) {
    std::fprintf(stderr,
                 "mlckpt_powerloss_fs: %s\n"
                 "usage: mlckpt_powerloss_fs [--model data|strict] [--torn] [--seed N] [--label NAME] "
                 "BACKING MOUNTPOINT [FUSE options]\n",
                 problem);
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    powerloss::Settings settings;
    std::string backing;
    std::vector<char*> fuse_args{argv[0]};
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool has_value = i + 1 < argc;
        if (arg == "--model" && has_value) {
            const std::string model = argv[++i];
            if (model == "data")
                settings.model = powerloss::Model::data;
            else if (model == "strict")
                settings.model = powerloss::Model::strict;
            else
                return usage("--model is data or strict");
        } else if (arg == "--torn") {
            settings.torn = true;
        } else if (arg == "--seed" && has_value) {
            char* end = nullptr;
            settings.seed = std::strtoull(argv[++i], &end, 10);
            if (*end != '\0') return usage("--seed takes a number");
        } else if (arg == "--label" && has_value) {
            settings.label = argv[++i];
        } else if (backing.empty() && arg[0] != '-') {
            backing = arg;
        } else if (settings.mountpoint.empty() && arg[0] != '-') {
            char* absolute = realpath(argv[i], nullptr);
            settings.mountpoint = absolute != nullptr ? absolute : arg;
            std::free(absolute);
            fuse_args.push_back(argv[i]);
        } else {
            fuse_args.push_back(argv[i]);
        }
    }
    if (backing.empty()) return usage("no backing folder");

    // Opened before the mount, which may be made over the backing folder itself.
    const int root_fd = open(backing.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root_fd < 0) {
        std::fprintf(stderr, "mlckpt_powerloss_fs: cannot open the backing folder %s: %s\n", backing.c_str(),
                     std::strerror(errno));
        return 1;
    }
    // Modes come from the kernel with the caller's umask applied already.
    umask(0);
    powerloss::PowerLossFs fs(root_fd, settings);
    const fuse_operations operations = powerloss::powerloss_operations();
    return fuse_main(static_cast<int>(fuse_args.size()), fuse_args.data(), &operations, &fs);
}
