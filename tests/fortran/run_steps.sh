#!/usr/bin/env bash
# Runs a Fortran test program in launches that share a work directory (a
# fresh one each time the test starts), with the configuration changed and
# other commands run between launches:
#   run_steps.sh PROGRAM WORKDIR STEP...
# Each STEP is one of
#   launch:RANKS:PHASE       mpiexec -n RANKS PROGRAM WORKDIR/config.fti PHASE (must exit with 0)
#   set:SECTION:KEY=VALUE    sets KEY in [SECTION] of the configuration (@W@ in VALUE is WORKDIR)
#   run:COMMAND ARG...       runs COMMAND (words split on blanks; @W@ is WORKDIR), must exit with 0
# The configuration starts as write_config.sh writes it (local_test, two
# ranks per node).
set -euo pipefail
program=$1 workdir=$2
shift 2
support=$(cd "$(dirname "$0")/../support" && pwd)
rm -rf "$workdir"
mkdir -p "$workdir"
config=$workdir/config.fti
bash "$support/write_config.sh" "$config" "$workdir" 2
cd "$workdir"
for step in "$@"; do
    case $step in
    launch:*)
        IFS=: read -r _ ranks phase <<< "$step"
        echo "=== $(basename "$program") phase $phase: $ranks ranks"
        timeout 120 "$support/mpiexec.sh" --oversubscribe -n "$ranks" "$program" "$config" "$phase"
        ;;
    set:*)
        IFS=: read -r _ section setting <<< "$step"
        key=${setting%%=*} value=${setting#*=}
        value=${value//@W@/$workdir}
        echo "=== [$section] $key = $value"
        if grep -q "^$key *=" "$config"; then
            sed -i "s|^$key *=.*|$key = $value|" "$config"
        elif grep -q "^\[$section\]" "$config"; then
            sed -i "s|^\[$section\]\$|[$section]\n$key = $value|" "$config"
        else
            printf '[%s]\n%s = %s\n' "$section" "$key" "$value" >> "$config"
        fi
        ;;
    run:*)
        read -r -a words <<< "${step#run:}"
        words=("${words[@]//@W@/$workdir}")
        echo "=== ${words[*]}"
        "${words[@]}"
        ;;
    *)
        echo "run_steps.sh: unknown step '$step'" >&2
        exit 2
        ;;
    esac
done
