#!/usr/bin/env bash
# Standard input to standard output with each FROM replaced by its TO,
# literally (paths may hold regex characters), the pairs in the order given
# (give the longest path first when one may hold another). The peers' suite
# runners use it to write their raw output with names in place of paths.
#   replace_literally.sh [FROM TO]...
exec awk 'BEGIN { for (i = 1; i < ARGC; i++) p[i] = ARGV[i]; n = ARGC - 1; ARGC = 1 }
    { line = $0
      for (i = 1; i < n; i += 2) {
        out = ""
        while ((k = index(line, p[i])) > 0) { out = out substr(line, 1, k - 1) p[i + 1]; line = substr(line, k + length(p[i])) }
        line = out line
      }
      print line }' "$@"
