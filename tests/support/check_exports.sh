#!/usr/bin/env bash
# Checks a shared library's exported symbols:
#   check_exports.sh LIBRARY ALLOWED_REGEX REQUIRED_SYMBOL...
# Fails when nm fails, when a REQUIRED_SYMBOL is not exported, or when an
# exported symbol does not match ALLOWED_REGEX (an extended regular
# expression), listing them.
set -euo pipefail
library=$1 allowed=$2
shift 2
if ! symbols=$(nm -D --defined-only "$library" | awk '{print $3}'); then
    echo "nm cannot read the dynamic symbols of '$library'" >&2
    exit 1
fi
for wanted in "$@"; do
    if ! grep -qx -- "$wanted" <<< "$symbols"; then
        echo "'$library' does not export $wanted" >&2
        exit 1
    fi
done
others=$(grep -Ev -- "$allowed" <<< "$symbols" || true)
if [[ -n $others ]]; then
    echo "'$library' exports symbols beyond $allowed:" >&2
    echo "$others" >&2
    exit 1
fi
echo "'$library': $(wc -l <<< "$symbols") exported symbols, all matching $allowed"
