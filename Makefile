# rdma-core-rs: build, test and install libibverbs.so.1 and librdmacm.so.1.
#
#   make                 libraries into build/lib, headers into include/
#   make test            everything: cargo tests, header/layout/export checks, and the Soft-RoCE guest suite as the
#                        budgeted matrix (docs/testing.md: kernels 6.1/6.12/7.2, userlands bookworm/trixie/sid)
#   make test-matrix     the same with the full cross product (every kernel with every userland and case; ~1.5 h)
#   make install PREFIX=/usr/local   libraries, headers and pkg-config files
#   make deb             Debian packages of the two libraries into build/deb (docs/packaging.md)
#   make headers         regenerate include/ from the Rust definitions (cbindgen) + cbindgen/ fragments, and
#                        common/src/abi/enums.rs (the C enums' integer constants)
#   make deps            install what the tests need (qemu, Debian kernel, rdma-core 44 for comparison, siw.ko, ...)

CARGO    ?= cargo
PROFILE  ?= release
PREFIX   ?= /usr/local
LIBDIR   ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig

BUILD    := build
LIBOUT   := $(BUILD)/lib
TARGET   := target/$(if $(filter release,$(PROFILE)),release,debug)
CARGOFLAGS := $(if $(filter release,$(PROFILE)),--release,)

HEADERS  := $(shell sed -n 's/^\([a-z].*\.h\) .*/\1/p' cbindgen/headers.txt)

.PHONY: all lib libibverbs librdmacm headers headers-check install uninstall deb test test-matrix test-host test-guest deps clean demo examples bench

all: lib headers

lib: libibverbs librdmacm

# librdmacm links against the libibverbs.so.1 just built, so the order matters.
libibverbs:
	$(CARGO) build $(CARGOFLAGS) -p ibverbs
	@mkdir -p $(LIBOUT)
	@install -m 0755 $(TARGET)/libibverbs.so $(LIBOUT)/libibverbs.so.1.tmp && mv -f $(LIBOUT)/libibverbs.so.1.tmp $(LIBOUT)/libibverbs.so.1
	@ln -sf libibverbs.so.1 $(LIBOUT)/libibverbs.so

librdmacm: libibverbs
	RDMA_CORE_RS_LIBDIR=$(CURDIR)/$(LIBOUT) $(CARGO) build $(CARGOFLAGS) -p rdmacm
	@install -m 0755 $(TARGET)/librdmacm.so $(LIBOUT)/librdmacm.so.1.tmp && mv -f $(LIBOUT)/librdmacm.so.1.tmp $(LIBOUT)/librdmacm.so.1
	@ln -sf librdmacm.so.1 $(LIBOUT)/librdmacm.so

headers:
	$(CARGO) run -q -p gen-headers -- .

headers-check:
	$(CARGO) run -q -p gen-headers -- --check .

install: all
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/infiniband $(DESTDIR)$(INCLUDEDIR)/rdma $(DESTDIR)$(PKGCONFIGDIR)
	install -m 0755 $(LIBOUT)/libibverbs.so.1 $(LIBOUT)/librdmacm.so.1 $(DESTDIR)$(LIBDIR)/
	ln -sf libibverbs.so.1 $(DESTDIR)$(LIBDIR)/libibverbs.so
	ln -sf librdmacm.so.1 $(DESTDIR)$(LIBDIR)/librdmacm.so
	for h in $(HEADERS); do install -m 0644 include/$$h $(DESTDIR)$(INCLUDEDIR)/$$h; done
	for pc in libibverbs librdmacm; do \
	  sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    pkgconfig/$$pc.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/$$pc.pc; done

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libibverbs.so* $(DESTDIR)$(LIBDIR)/librdmacm.so*
	rm -f $(DESTDIR)$(PKGCONFIGDIR)/libibverbs.pc $(DESTDIR)$(PKGCONFIGDIR)/librdmacm.pc
	for h in $(HEADERS); do rm -f $(DESTDIR)$(INCLUDEDIR)/$$h; done

# Debian packages libibverbs1-rs and librdmacm1-rs (packaging/deb/build.sh; docs/packaging.md), built from build/lib
# with dpkg's tools (dpkg-dev: tools/install-deps.sh installs it when missing).
deb: all
	@command -v dpkg-shlibdeps > /dev/null && command -v dpkg-deb > /dev/null || tools/install-deps.sh
	packaging/deb/build.sh $(LIBOUT) $(BUILD)/deb

deps:
	tools/install-deps.sh

# The whole suite: one runner, one summary line ("N passed, N failed") at the end. build/deb for guest case 75-deb.
test: deps all examples deb
	RDMA_CORE_RS_LIBDIR=$(CURDIR)/$(LIBOUT) python3 tests/runner.py

# The full matrix: each of the three guest kernels boots once for the whole bookworm suite and the release cases of
# trixie and sid (tests/runner.py --matrix full; docs/testing.md, "The test matrix").
test-matrix: deps all examples deb
	RDMA_CORE_RS_LIBDIR=$(CURDIR)/$(LIBOUT) python3 tests/runner.py --matrix full

# Host-only part (no guest boot), for quick iteration.
test-host: all examples
	RDMA_CORE_RS_LIBDIR=$(CURDIR)/$(LIBOUT) python3 tests/runner.py --no-guest

clean:
	$(CARGO) clean
	rm -rf $(BUILD) tests/out

# Our teaching programs (c-examples/*.c, see c-examples/README.md), compiled like any user program against include/
# and build/lib, with a RUNPATH to build/lib: they use our libraries unless LD_LIBRARY_PATH says otherwise.
EXAMPLE_CFLAGS ?= -std=gnu11 -O2 -g -Wall -Wextra -Werror
examples: lib
	@mkdir -p $(BUILD)/examples
	@for src in c-examples/*.c; do \
	  prog=$$(basename $$src .c); \
	  $(CC) $(EXAMPLE_CFLAGS) -I include -o $(BUILD)/examples/$$prog $$src -L $(LIBOUT) \
	    -Wl,--enable-new-dtags,-rpath,$(CURDIR)/$(LIBOUT) -lrdmacm -libverbs || exit 1; \
	  echo "  CC  $(BUILD)/examples/$$prog"; \
	done

# The main job: build, boot the Soft-RoCE guest, run an example pair over our libraries (tools/demo.sh).
demo:
	@tools/demo.sh

# Benchmarks side by side with rdma-core in one guest boot (docs/bench.md); results in bench/results/.
# Knobs: BENCH_REPS=N, BENCH_QUICK=1, BENCH_OURS=stock (noise check: rdma-core in both columns).
bench:
	bench/run.sh
