#!/usr/bin/env bash
# Installs the Debian packages needed to build and test mlckpt, if any is
# missing. Safe to run repeatedly: prints one line when everything is there.
set -euo pipefail

packages=(
    cmake ninja-build g++ gfortran python3 pkg-config
    libopenmpi-dev openmpi-bin
    libssl-dev libiniparser-dev libisal-dev libgtest-dev
    # Compression of checkpoint files (c-blosc: shuffle, LZ4, Zstandard).
    libblosc-dev
    # Error-bounded lossy compression of the variables that ask for it.
    libzfp-dev
    clang-format
    # The stacks of a hung test launch (tests/support/capture_stacks.sh).
    gdb
    # The HDF5 format (ckpt_io = 5); its tests read files with h5dump and h5py.
    libhdf5-openmpi-dev hdf5-tools python3-h5py
    # The fuzz targets: libFuzzer and the sanitizers' runtimes come with
    # libclang-rt-dev, which clang only recommends.
    clang libclang-rt-dev
    # The power-loss file system of the tests (tests/support/powerloss_fs),
    # which forgets at a simulated power cut every write not made durable.
    libfuse3-dev fuse3
)

missing=()
for pkg in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    if [[ "$status" != "install ok installed" ]]; then
        missing+=("$pkg")
    fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
    echo "install-deps: all ${#packages[@]} packages are installed"
    exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=()
if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
        sudo=(sudo)
    else
        echo "install-deps: not root and sudo is not available; install as root:" >&2
        echo "  apt-get install ${missing[*]}" >&2
        exit 1
    fi
fi
${sudo[@]+"${sudo[@]}"} apt-get update
${sudo[@]+"${sudo[@]}"} env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
echo "install-deps: done"
