#!/usr/bin/env bash
# Fails when a C or C++ file of the repository differs from what
# clang-format makes of it with the repository's .clang-format, naming the
# files (run `clang-format -i FILE` to fix one).
#   check_format.sh CLANG_FORMAT REPOSITORY
set -euo pipefail
clang_format=$1 repo=$2
cd "$repo"
if [[ -d .git || -f .git ]]; then
    mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' '*.hpp')
else
    mapfile -t files < <(find . -path './build*' -prune -o -type f \( -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.hpp' \) -print)
fi
differ=()
for f in "${files[@]}"; do
    "$clang_format" --dry-run --Werror "$f" > /dev/null 2>&1 || differ+=("$f")
done
if [[ ${#differ[@]} -gt 0 ]]; then
    echo "${#differ[@]} of ${#files[@]} files differ from $("$clang_format" --version | head -1) with .clang-format:" >&2
    printf '  %s\n' "${differ[@]}" >&2
    exit 1
fi
echo "${#files[@]} files formatted as .clang-format says"
