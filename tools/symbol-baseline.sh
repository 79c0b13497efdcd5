#!/bin/sh
# Prints the exported symbol@version list of a shared library, one per line, sorted:
#   name@@VERSION [object]   default version
#   name@VERSION  [object]   compat (hidden) version
# Used to record abi/*.symbols from rdma-core 44 and by tests/exports to diff ours against the system's.
set -eu
lib=$1
objdump -T "$lib" | awk '
  $0 ~ /\*UND\*/ { next }
  NF >= 6 && ($3 == "DF" || $3 == "DO" || $2 == "DF" || $2 == "DO") {
    name = $NF; ver = $(NF-1); kind = ($0 ~ / DO /) ? " object" : "";
    if (ver == "Base" || name == ver) next;          # version definition entries
    if (ver ~ /^\(/) { gsub(/[()]/, "", ver); print name "@" ver kind }
    else print name "@@" ver kind
  }' | sort -u
