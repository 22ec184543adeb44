#!/usr/bin/env bash
# mpiexec with a private Open MPI session directory, for every launch of the
# test suite. Open MPI keeps its session files under $TMPDIR/ompi.HOST.UID,
# one directory for all launches of a user: when ctest runs launches side by
# side, one that ends removes it while another creates it, and the second
# fails in orte_init ("mkdir ... File exists"). A launch of its own TMPDIR
# cannot race. Arguments and exit code are mpiexec's; the directory is
# removed also when a timeout stops the launch.
set -u
session=$(mktemp -d /tmp/mlckpt-mpi.XXXXXX)
trap 'rm -rf "$session"' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
TMPDIR=$session mpiexec "$@"
