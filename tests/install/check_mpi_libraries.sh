#!/bin/sh
# The libraries use MPI's C interface only: none may need the C++ bindings'
# library (libmpi_cxx, deleted from the MPI standard and absent from Open
# MPI 5), whatever the MPI's C++ wrapper target brings.
# usage: check_mpi_libraries.sh LIBRARY...
status=0
for library in "$@"; do
    needed=$(readelf -d "$library" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    if [ -z "$needed" ]; then
        echo "FAIL: $library: no NEEDED entries read (is it a shared library?)"
        status=1
    fi
    case "$needed" in
    *libmpi_cxx*)
        echo "FAIL: $library needs the MPI C++ bindings: $(echo "$needed" | grep mpi_cxx)"
        status=1
        ;;
    *libmpi*) echo "ok: $library needs $(echo "$needed" | grep libmpi | tr '\n' ' ')" ;;
    esac
done
exit $status
