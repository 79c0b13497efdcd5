#!/bin/sh
# Self-test of the layout test's machinery, independent of our real headers:
#   1. "ours" = an exact copy of the system's rdma-core 44 headers          -> must pass with 0 differences;
#      (every case compares with /usr/include alone: --system)
#   2. "ours" = a copy with deliberate ABI breaks (field type, dropped enum
#      constant/macro/field, macro value and type, prototype, linkage,
#      nested anonymous member, alias macro, missing header)              -> must fail and name each of them;
#   3. "ours" = a copy with a syntax error                                   -> must fail, reporting the error;
#   4. a synthetic reference tree (system headers + bitfields, a packed
#      struct, typedef'd anonymous struct/enum, flexible array of anonymous
#      structs, string macro), against an identical and a broken copy       -> 0 differences / named differences;
#   5. the Rust check against a copy of rdma-core-common with a reordered
#      enum and a shrunk array (needs cargo; LAYOUT_SELFTEST_RUST=0 skips)   -> must name both;
#   6. known differences (--known): a grown struct listed with its sizes    -> passes, counted as known;
#      the same with other sizes listed, a member moved relative to the
#      anchor of a `from` rule                                               -> must fail and name both.
# Usage: tests/layout/selftest.sh [-v]   (exit 0 when every case behaves)
set -u
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/layout-selftest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
verbose=${1:-}
fails=0

headers="infiniband/verbs.h infiniband/verbs_api.h infiniband/ib_user_ioctl_verbs.h infiniband/tm_types.h
infiniband/sa.h infiniband/sa-kern-abi.h infiniband/ib.h infiniband/opcode.h infiniband/arch.h
rdma/rdma_cma.h rdma/rdma_verbs.h rdma/rsocket.h"

copy_headers() { # copy_headers FROM TO
	mkdir -p "$2/infiniband" "$2/rdma"
	for h in $headers; do cp "$1/$h" "$2/$h" || exit 2; done
}

# edit FILE PYTHON_REGEX REPLACEMENT: exactly one substitution, or the self-test itself is broken
edit() {
	"$py" - "$1" "$2" "$3" <<'EOF' || { echo "selftest: edit of $1 failed: $2" >&2; exit 2; }
import re, sys
path, pat, rep = sys.argv[1:]
text = open(path).read()
new, n = re.subn(pat, lambda m: m.expand(rep), text, flags=re.S | re.M)
if n != 1:
    sys.exit("pattern matched %d times" % n)
open(path, "w").write(new)
EOF
}

# insert FILE TEXT: before the file's last #endif (inside its include guard)
insert() {
	"$py" - "$1" "$2" <<'EOF' || exit 2
import sys
path, add = sys.argv[1:]
text = open(path).read()
i = text.rindex("#endif")
open(path, "w").write(text[:i] + add + "\n" + text[i:])
EOF
}

# expect NAME WANT_RC OUTPUT_FILE PATTERN... : every (extended, grep -E) pattern must occur in the output
expect() {
	name=$1 want=$2 out=$3
	shift 3
	rc=$(cat "$out.rc")
	ok=1
	if [ "$want" = 0 ] && [ "$rc" != 0 ]; then ok=0; echo "  $name: exit $rc, expected 0"; fi
	if [ "$want" != 0 ] && [ "$rc" = 0 ]; then ok=0; echo "  $name: exit 0, expected failure"; fi
	for pat in "$@"; do
		if ! grep -Eq -- "$pat" "$out"; then ok=0; echo "  $name: report lacks /$pat/"; fi
	done
	if [ $ok = 1 ]; then
		echo "selftest: ok:   $name ($(tail -n 1 "$out"))"
	else
		echo "selftest: FAIL: $name; its output:"
		sed 's/^/    | /' "$out"
		fails=$((fails + 1))
	fi
	if [ -n "$verbose" ]; then sed 's/^/    | /' "$out"; fi
}

layout() { # layout OUT ARGS...
	out=$1
	shift
	"$py" "$here/layout.py" --work "$tmp/work-$(basename "$out")" "$@" >"$out" 2>&1
	echo $? >"$out.rc"
}

# ---- 1. exact copy
copy_headers /usr/include "$tmp/same"
sys44="--system /usr/include --label rdma-core-44"
layout "$tmp/out-same" $sys44 --ours "$tmp/same"
expect "exact copy of the system headers" 0 "$tmp/out-same" 'facts compared, 0 differences'

# ---- 2. deliberately broken copy
b="$tmp/broken"
copy_headers /usr/include "$b"
edit "$b/infiniband/verbs.h" '^(\tuint32_t\t\t)vendor_err;' '\tuint64_t\t\tvendor_err;'
edit "$b/infiniband/verbs.h" '^\tIBV_WC_LOC_LEN_ERR,\n' ''
edit "$b/infiniband/verbs.h" '(#define IBV_DEVICE_RAW_SCATTER_FCS \(1)ULL( << 34\))' '\1UL\2'
edit "$b/infiniband/verbs.h" '(\t\tstruct \{\n\t\t\tuint64_t\tremote_addr;\n\t\t\t)uint32_t(\trkey;\n\t\t\} rdma;)' '\1uint16_t\2'
edit "$b/infiniband/verbs_api.h" '^(#define ibv_flow_action_esp\s+)ib_uverbs_flow_action_esp$' '\1ib_uverbs_flow_action_esp_encap'
edit "$b/infiniband/sa.h" '^#define IBV_PATH_FLAG_GMP[^\n]*\n' ''
edit "$b/infiniband/ib.h" '^\t__u64\t\t\tsib_scope_id;\n' ''
edit "$b/rdma/rdma_cma.h" '(#define RAI_PASSIVE\t\t0x0000000)1' '\g<1>2'
edit "$b/rdma/rdma_cma.h" '^int rdma_get_request\(struct rdma_cm_id \*listen, struct rdma_cm_id \*\*id\);' \
	'int rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id *id);'
edit "$b/rdma/rdma_verbs.h" '^static inline int rdma_seterrno\(int ret\)\n\{.*?\n\}\n' 'int rdma_seterrno(int ret);\n'
edit "$b/rdma/rsocket.h" '^int rsocket\(int domain, int type, int protocol\);' \
	'static inline int rsocket(int domain, int type, int protocol) { return domain + type + protocol; }'
edit "$b/infiniband/verbs.h" '^(\tenum ibv_wc_status\tstatus;\n\t)enum ibv_wc_opcode(\topcode;)' '\1uint32_t\2'
edit "$b/rdma/rdma_cma.h" '^(int rdma_notify\(struct rdma_cm_id \*id, )enum ibv_event_type( event\);)' '\1unsigned int\2'
rm "$b/infiniband/tm_types.h"
layout "$tmp/out-broken" $sys44 --ours "$b"
expect "broken copy" 1 "$tmp/out-broken" \
	'type struct ibv_wc\.vendor_err: system uint32_t, ours uint64_t \(incompatible\)' \
	'sizeof struct ibv_wc\.vendor_err: system 4, ours 8' \
	'^  1 undeclared in ours:$' '^    enum IBV_WC_LOC_LEN_ERR$' \
	'enum IBV_WC_LOC_QP_OP_ERR: system 2, ours 1' \
	'macro-type IBV_DEVICE_RAW_SCATTER_FCS: system unsigned long long, ours unsigned long' \
	'sizeof struct ibv_send_wr\.wr\.rdma\.rkey: system 4, ours 2' \
	'type struct ibv_send_wr\.wr\.rdma\.rkey: system uint32_t, ours uint16_t' \
	'macro ibv_flow_action_esp: system -> ib_uverbs_flow_action_esp, ours -> ib_uverbs_flow_action_esp_encap' \
	'macro IBV_PATH_FLAG_GMP: system 1, ours <undefined>' \
	'struct sockaddr_ib: 3 facts do not compile .*sib_scope_id' \
	'sizeof struct sockaddr_ib: system 48, ours 40' \
	'macro RAI_PASSIVE: system 1, ours 2' \
	'func rdma_get_request: system int \(struct rdma_cm_id \*, struct rdma_cm_id \*\*\), ours int \(struct rdma_cm_id \*, struct rdma_cm_id \*\) \(conflicting types\)' \
	'func rdma_seterrno: .*static declaration of .rdma_seterrno. follows non-static' \
	'linkage rsocket: system extern, ours static' \
	'type struct ibv_wc\.opcode: system enum ibv_wc_opcode, ours uint32_t \(compatible for gcc, but not the same enum type\)' \
	'func rdma_notify: system int \(struct rdma_cm_id \*, enum ibv_event_type\), ours int \(struct rdma_cm_id \*, unsigned int\) \(compatible' \
	'the header is missing from .*: none of its [0-9]+ facts could be checked' \
	'infiniband/tm_types\.h +[0-9]+ / [0-9]+ +\(header missing\)' \
	'^== infiniband/verbs\.h: [0-9]+ differences ==$' \
	'^== rdma/rdma_cma\.h: 3 differences ==$' \
	'rdma-core-44: [0-9]+ facts, [1-9][0-9]* differences \(1 missing header\)$'

# ---- 3. a header with a syntax error
s="$tmp/syntax"
copy_headers /usr/include "$s"
edit "$s/rdma/rsocket.h" '^(int rsocket\(int domain, int type, int protocol\));' '\1 oops;'
layout "$tmp/out-syntax" $sys44 --ours "$s"
expect "syntax error in a header" 1 "$tmp/out-syntax" \
	'our headers do not compile' 'rsocket\.h:[0-9]+:.*error' 'our headers have compile errors'

# ---- 4. synthetic reference tree: bitfields, packed, anonymous typedefs, flexible arrays, string macro
synth='
struct layout_st_bits { unsigned int a : 3; int b : 5; unsigned long long c : 40; unsigned char d; };
struct layout_st_packed { char a; int b; } __attribute__((packed));
typedef struct { int x; union { char c[3]; short s; }; struct { int k; } arr[2]; } layout_st_anon_t;
typedef enum { LAYOUT_ST_NEG = -1, LAYOUT_ST_POS = 5 } layout_st_enum_t;
struct layout_st_fam { int n; struct { int k; short j; } e[]; };
typedef int layout_st_int_t;
enum { LAYOUT_ST_LONE = 7 };
#define LAYOUT_ST_STR "hello"
#define LAYOUT_ST_NEGMAC (-3L)
'
r="$tmp/ref"
copy_headers /usr/include "$r"
insert "$r/infiniband/tm_types.h" "$synth"
copy_headers "$r" "$tmp/ref-same"
layout "$tmp/out-synth-same" --system "$r" --ours "$tmp/ref-same" --facts "$tmp/synth.facts"
expect "synthetic tree, identical copy" 0 "$tmp/out-synth-same" 'facts compared, 0 differences'
echo 0 >"$tmp/synth.facts.rc"
expect "synthetic tree, facts generated" 0 "$tmp/synth.facts" \
	'^bitfield struct layout_st_bits\.b = bit 3 width 5 signed$' \
	'^bitfield struct layout_st_bits\.c = bit 8 width 40 unsigned$' \
	'^sizeof struct layout_st_packed = 5$' '^alignof struct layout_st_packed = 1$' \
	'^offsetof layout_st_anon_t\.s = 4$' '^offsetof layout_st_anon_t\.arr\[0\]\.k = 8$' \
	'^elemsize layout_st_anon_t\.arr = 4$' '^signed layout_st_enum_t = 1$' '^enum LAYOUT_ST_NEG = -1$' \
	'^elemsize struct layout_st_fam\.e = 8$' '^offsetof struct layout_st_fam\.e\[0\]\.j = 8$' \
	'^type typedef layout_st_int_t = int$' '^enum LAYOUT_ST_LONE = 7$' \
	'^macro LAYOUT_ST_STR = "hello"$' '^macro-type LAYOUT_ST_STR = string$' \
	'^macro LAYOUT_ST_NEGMAC = -3$' '^macro-type LAYOUT_ST_NEGMAC = long$'
sb="$tmp/ref-broken"
copy_headers "$r" "$sb"
edit "$sb/infiniband/tm_types.h" 'unsigned long long c : 40;' 'unsigned long long c : 41;'
edit "$sb/infiniband/tm_types.h" '(struct layout_st_packed \{ char a; int b; \}) __attribute__\(\(packed\)\);' '\1;'
edit "$sb/infiniband/tm_types.h" 'union \{ char c\[3\]; short s; \}' 'union { char c[3]; int s; }'
edit "$sb/infiniband/tm_types.h" 'LAYOUT_ST_NEG = -1' 'LAYOUT_ST_NEG = 1'
edit "$sb/infiniband/tm_types.h" 'struct \{ int k; short j; \} e\[\];' 'struct { int k; int j; } e[];'
edit "$sb/infiniband/tm_types.h" 'typedef int layout_st_int_t;' 'typedef long layout_st_int_t;'
edit "$sb/infiniband/tm_types.h" '"hello"' '"hellO"'
layout "$tmp/out-synth-broken" --system "$r" --ours "$sb"
expect "synthetic tree, broken copy" 1 "$tmp/out-synth-broken" \
	'bitfield struct layout_st_bits\.c: system bit 8 width 40 unsigned, ours bit 8 width 41 unsigned' \
	'sizeof struct layout_st_packed: system 5, ours 8' 'offsetof struct layout_st_packed\.b: system 1, ours 4' \
	'type layout_st_anon_t\.s: system short, ours int \(incompatible\)' \
	'sizeof layout_st_anon_t\.s: system 2, ours 4' 'alignof layout_st_anon_t: system 4, ours 4|sizeof layout_st_anon_t\.s' \
	'signed layout_st_enum_t: system 1, ours 0' 'enum LAYOUT_ST_NEG: system -1, ours 1' \
	'type struct layout_st_fam\.e\[0\]\.j: system short, ours int \(incompatible\)' \
	'type typedef layout_st_int_t: system int, ours long \(incompatible\)' \
	'macro LAYOUT_ST_STR: system "hello", ours "hellO"'

# ---- 5. the Rust check (--rust): a copy of rdma-core-common with a reordered enum and a shrunk array must
#         show both (skipped without cargo, or with LAYOUT_SELFTEST_RUST=0; building the copy takes ~30 s)
repo=$(cd "$here/../.." && pwd)
if [ "${LAYOUT_SELFTEST_RUST:-1}" != 0 ] && command -v cargo >/dev/null 2>&1 && [ -d "$repo/common/src/abi" ]; then
	# a fixed place next to the Rust probe's build products, so that reruns rebuild incrementally
	ws="${LAYOUT_RUST_TARGET_DIR:-$repo/target/layout-rust}/selftest-ws"
	rm -rf "$ws"
	mkdir -p "$ws"
	cp -r "$repo/common" "$ws/common"
	rm -rf "$ws/common/target"
	# a workspace root giving the copy what it inherits (workspace.package / .dependencies / .lints)
	"$py" - "$repo/Cargo.toml" "$ws/Cargo.toml" <<'EOF2' || exit 2
import re, sys
src = open(sys.argv[1]).read()
keep = [m.group(0) for m in re.finditer(r"^\[workspace\.(?:package|dependencies|lints(?:\.\w+)?)\]\n(?:(?!\[).*\n?)*",
                                       src, re.M)]
open(sys.argv[2], "w").write('[workspace]\nmembers = ["common"]\nresolver = "2"\n\n' + "\n".join(keep))
EOF2
	[ -f "$repo/Cargo.lock" ] && cp "$repo/Cargo.lock" "$ws/Cargo.lock"
	edit "$ws/common/src/abi/verbs/cq.rs" '(\n\s*)IBV_WC_LOC_LEN_ERR,(\n\s*)IBV_WC_LOC_QP_OP_ERR,' '\1IBV_WC_LOC_QP_OP_ERR,\2IBV_WC_LOC_LEN_ERR,'
	edit "$ws/common/src/abi/tm_types.rs" '(pub reserved: \[u8; )3\]' '\g<1>2]'
	layout "$tmp/out-rust-broken" $sys44 --rust-only --rust-crate "$ws/common"
	expect "Rust definitions, broken copy" 1 "$tmp/out-rust-broken" \
		'enum IBV_WC_LOC_LEN_ERR: C 1, Rust 2' 'enum IBV_WC_LOC_QP_OP_ERR: C 2, Rust 1' \
		'sizeof struct ibv_tmh\.reserved: C 3, Rust 2' 'layout-rust: [0-9]+ facts compared, [1-9][0-9]* differences'
else
	echo "selftest: skip: Rust definitions (no cargo, no common/src/abi, or LAYOUT_SELFTEST_RUST=0)"
fi

# ---- 6. known differences: a struct grown at its end, a verbs_context member moved relative to `context` (a
#         member inserted after query_port)
k="$tmp/known"
copy_headers /usr/include "$k"
edit "$k/infiniband/verbs.h" '(\tuint16_t\t\tport_cap_flags2;\n)' '\1\tuint32_t\t\tlayout_grown;\n'
cat >"$tmp/known-ok.txt" <<'EOF3'
# a comment
sizeof struct ibv_port_attr | 52 | 56 | grown at its end
offsetof struct verbs_context.* | from context | from context | every member at its distance from context
EOF3
layout "$tmp/out-known-ok" $sys44 --known "$tmp/known-ok.txt" --ours "$k"
expect "known difference listed" 0 "$tmp/out-known-ok" \
	'sizeof struct ibv_port_attr: rdma-core-44 52, ours 56: grown at its end' \
	'rdma-core-44: [0-9]+ facts, 0 differences, 1 known$'
sed 's/| 56 |/| 60 |/' "$tmp/known-ok.txt" >"$tmp/known-wrong.txt"
edit "$k/infiniband/verbs.h" '(struct verbs_context \{\n(?:[^\n]*\n)*?)(\tint \(\*query_port\)\(struct ibv_context \*context, uint8_t port_num,\n\t\t\t  struct ibv_port_attr \*port_attr,\n\t\t\t  size_t port_attr_len\);\n)' '\1\2\tvoid *layout_middle;\n'
layout "$tmp/out-known-wrong" $sys44 --known "$tmp/known-wrong.txt" --ours "$k"
expect "known difference with other values, a member moved" 1 "$tmp/out-known-wrong" \
	'sizeof struct ibv_port_attr: system 52, ours 56; a known difference expects 52, ours 60' \
	'offsetof struct verbs_context\.query_port: system -320 from context, ours -328 from context' \
	'sizeof struct verbs_context: system 648, ours 656'

if [ $fails = 0 ]; then
	echo "selftest: all cases passed"
	exit 0
fi
echo "selftest: $fails case(s) failed"
exit 1
