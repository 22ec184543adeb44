# Sourced by the install tests: installs BUILD_DIR into a new scratch prefix
# (removed on exit) and sets
#   scratch  the scratch folder;  prefix  the installed tree in it;
#   run PROGRAM [ARGS...]  runs PROGRAM at one rank in $scratch with a
#                          configuration for one rank ($scratch/config.fti);
#   installed_only PROGRAM fails unless PROGRAM links the installed library
#                          and none of the build tree's.
# Expects $build and $source (the build and source folders).
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
prefix=$scratch/prefix
cmake --install "$build" --prefix "$prefix" > "$scratch/install.log"
bash "$source/tests/support/write_config.sh" "$scratch/config.fti" "$scratch" 1
run() { (cd "$scratch" && timeout 60 "$source/tests/support/mpiexec.sh" -n 1 "$@" "$scratch/config.fti"); }
installed_only() {
    local linked
    linked=$(ldd "$1") # captured: grep -q must not cut ldd's pipe
    grep -q "$prefix/lib/libmlckpt.so" <<< "$linked"
    if grep -q "$build" <<< "$linked"; then
        echo "$1 links the build tree's libraries:" >&2
        echo "$linked" >&2
        exit 1
    fi
}
