# Sourced by the install tests, with BUILD_DIR SOURCE_DIR [EXTRA_FLAGS...]
# (a sanitized library needs the programs built with the same sanitizers):
#   source "$2/tests/install/scratch_prefix.sh" BUILD_DIR SOURCE_DIR [FLAGS...]
# Installs BUILD_DIR into a new scratch prefix (removed on exit) and sets
#   build, source, flags  its arguments;
#   scratch  the scratch folder;  prefix  the installed tree in it;
#   run PROGRAM [ARGS...]  runs PROGRAM at one rank in $scratch with a
#                          configuration for one rank ($scratch/config.fti);
#   installed_only PROGRAM fails unless PROGRAM links the installed library
#                          and none of the build tree's;
#   configure_against_prefix SRC BIN  configures the CMake project SRC in BIN
#                          against $prefix, with MPI's compiler wrappers and
#                          $flags.
build=$1 source=$2
shift 2
flags="$*"
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
configure_against_prefix() {
    cmake -S "$1" -B "$2" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_C_COMPILER=mpicc -DCMAKE_CXX_COMPILER=mpicxx -DCMAKE_Fortran_COMPILER=mpifort \
        -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_Fortran_FLAGS="$flags" \
        -DCMAKE_EXE_LINKER_FLAGS="$flags"
}
