#!/bin/bash
# `make install PREFIX=<tmp>` installs libraries, headers and pkg-config files where rdma-core puts them (relative
# to the prefix), and `pkg-config --cflags --libs libibverbs librdmacm` then builds and links a program against
# the installed copy (not the system's rdma-core).
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d /tmp/rdma-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL install: $*"; exit 1; }

make -s install PREFIX="$tmp" > "$tmp.log" 2>&1 || { cat "$tmp.log"; fail "make install failed"; }
for f in lib/libibverbs.so.1 lib/libibverbs.so lib/librdmacm.so.1 lib/librdmacm.so lib/pkgconfig/libibverbs.pc \
         lib/pkgconfig/librdmacm.pc include/infiniband/verbs.h include/infiniband/verbs_api.h include/infiniband/sa.h \
         include/rdma/rdma_cma.h include/rdma/rdma_verbs.h; do
    [[ -e $tmp/$f ]] || fail "missing $f"
done
flags=$(PKG_CONFIG_PATH=$tmp/lib/pkgconfig PKG_CONFIG_LIBDIR=$tmp/lib/pkgconfig pkg-config --cflags --libs libibverbs librdmacm) \
    || fail "pkg-config failed"
[[ $flags == *"-I$tmp/include"* && $flags == *"-L$tmp/lib"* ]] || fail "pkg-config flags do not point at the prefix: $flags"
cat > "$tmp/app.c" <<'C'
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <stdio.h>
int main(void)
{
	printf("%s %s\n", ibv_wc_status_str(IBV_WC_SUCCESS), rdma_event_str(RDMA_CM_EVENT_ESTABLISHED));
	return 0;
}
C
# shellcheck disable=SC2086
gcc -Wall -Wextra -Werror -o "$tmp/app" "$tmp/app.c" $flags -Wl,-rpath,"$tmp/lib" || fail "build with pkg-config flags failed"
out=$("$tmp/app") || fail "program failed"
[[ $out == "success RDMA_CM_EVENT_ESTABLISHED" ]] || fail "unexpected output '$out'"
ldd "$tmp/app" | grep -q "libibverbs.so.1 => $tmp/lib/libibverbs.so.1" || fail "not linked to the installed libibverbs"
ldd "$tmp/app" | grep -q "librdmacm.so.1 => $tmp/lib/librdmacm.so.1" || fail "not linked to the installed librdmacm"
echo "PASS install (make install PREFIX, pkg-config, build and run against the prefix)"
