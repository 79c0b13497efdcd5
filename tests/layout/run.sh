#!/bin/sh
# The layout test: are our generated headers (<repo>/include) rdma-core 65's, and ABI-compatible with 56.1's and 44's?
# For each reference it generates a probe from the reference's installed headers, compiles it against the
# reference and against ours, and compares the facts; see README.md.
#   rdma-core 65    $RDMA_ROOTS_DIR/sid/usr/include     every fact equal
#   rdma-core 56.1  $RDMA_ROOTS_DIR/trixie/usr/include  every fact equal but those known-56.txt lists, each with its reason
#   rdma-core 44    /usr/include                        every fact equal but those known-44.txt lists
# RDMA_ROOTS_DIR defaults to <repo>/build/roots (the Debian roots tools/install-deps.sh makes).
#   tests/layout/run.sh               exit 0 = no difference; last line "layout: N facts compared, M differences (...)"
#   tests/layout/run.sh --rust        also the Rust #[repr(C)] definitions of rdma_common::abi (needs cargo)
#   tests/layout/run.sh --ref 44      one reference only (repeatable)
#   tests/layout/run.sh --help        all options (--ours DIR, --system DIR, --work DIR, --facts FILE, -v, ...)
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
for tool in "$py" "${CC:-gcc}" "${CLANG:-clang}" "${NM:-nm}"; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "layout: $tool not found (needs: gcc clang python3 binutils libibverbs-dev librdmacm-dev)" >&2
		exit 2
	fi
done
exec "$py" "$here/layout.py" "$@"
