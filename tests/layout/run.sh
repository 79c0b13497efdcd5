#!/bin/sh
# The layout test: are our generated headers (<repo>/include) ABI-identical to rdma-core 44's installed ones?
# Generates a probe from the system headers, compiles it against both, compares the facts; see README.md.
#   tests/layout/run.sh               C headers (exit 0 = identical; last line "layout: N facts compared, M differences")
#   tests/layout/run.sh --rust        also the Rust #[repr(C)] definitions of rdma_common::abi (needs cargo)
#   tests/layout/run.sh --help        all options (--ours DIR, --work DIR, --facts FILE, -v, ...)
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
for tool in "$py" "${CC:-gcc}" "${CLANG:-clang}" "${NM:-nm}"; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "layout: $tool not found (needs: gcc clang python3 binutils libibverbs-dev librdmacm-dev)" >&2
		exit 2
	fi
done
exec "$py" "$here/layout.py" "$@"
