# SPDX-License-Identifier: GPL-2.0
#
# NDP for Linux: out-of-tree build of ndp.ko and sch_ndp.ko, the tools,
# the checks and the VM test runs.
#
#   make                 modules against the Debian 6.12 cloud headers
#   make KDIR=<tree>     modules against any other kernel tree or headers
#   make W=1             extra compiler warnings (must stay clean)
#   make check           W=1 build, sparse and checkpatch --strict
#                        (kernel and user-space C), wire-check
#   make tools           user-space tools and selftest helpers
#   make test            selftests in a qemu VM (KERNEL=6.12|6.1|debug)
#   make vmnet-test      NDP between two VMs' kernels over virtio-net
#   make demo            the main job: build, boot, show NDP working
#   make fuzz            long fuzzing run in a VM (FUZZ_PACKETS, FUZZ_SEED)
#   make bench           NDP vs TCP benchmarks (BENCH_SET=full|short|fabric|fct|ops|servers)
#   make netlink-gen     regenerate net/ndp/netlink_gen.[ch] (kernel's YNL)
#   make install         modules, UAPI headers, tools, tc plugin, man pages
#                        (DESTDIR, PREFIX, KDIR; see ndp.rst "Installing")
#   make uninstall       removes exactly what install installed
#                        (install-modules, install-tools: either half)
#

KVER_612	:= $(lastword $(sort $(notdir $(wildcard /lib/modules/6.12*-cloud-amd64))))
KDIR		?= /lib/modules/$(KVER_612)/build
# The release the modules are built for and installed under: UTS_RELEASE
# (Debian's headers say "6.1.192" in include/config/kernel.release).
KREL		?= $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
			$(KDIR)/include/generated/utsrelease.h 2>/dev/null)
NDP_CACHE	?= /var/cache/ndp
KERNEL		?= 6.12
TESTS		?=
PROJECT		:= $(CURDIR)

export CONFIG_NDP := m
export CONFIG_NET_SCH_NDP := m
# KUnit tests only where the kernel has KUnit (the debug kernel).
ifneq ($(shell grep -s '^CONFIG_KUNIT=y' $(KDIR)/.config),)
export CONFIG_NDP_KUNIT_TEST := m
endif

SOURCES := $(shell find net include -name '*.[ch]' ! -name '*.mod.c' 2>/dev/null)
# The user-space C (tools, selftest helpers) for checkpatch; not the
# generated (*.mod.c, the YNL copy in selftests/net/ndp/ynl/).
USER_SOURCES := $(shell find tools selftests -name '*.[ch]' ! -name '*.mod.c' \
		! -path 'selftests/net/ndp/ynl/*' 2>/dev/null | sort)

.PHONY: all modules clean check sparse checkpatch tools test vmnet-test demo bench help fuzz \
	install uninstall install-modules uninstall-modules clean-modules \
	install-tools uninstall-tools \
	install-dkms-src uninstall-dkms-src netlink-gen man-check wire-check

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(PROJECT) modules

clean: clean-modules
	$(MAKE) -C tools clean
	$(MAKE) -C selftests/net/ndp clean

clean-modules:
	$(MAKE) -C $(KDIR) M=$(PROJECT) clean

tools:
	$(MAKE) -C tools
	$(MAKE) -C selftests/net/ndp

# sparse through kbuild (C=2 checks every file, built or not).  Debian 12's
# sparse 0.6.4 is older than the 6.12 headers and warns about some of them:
# only reports about this project's files count.  SPARSE=<path> picks
# another sparse (7.x headers need a newer one: tools/vm/debian-kernel
# --print names the one it built).
SPARSE		?=
sparse:
	$(MAKE) -C $(KDIR) M=$(PROJECT) clean >/dev/null
	$(MAKE) -C $(KDIR) M=$(PROJECT) C=2 CF="-D__CHECK_ENDIAN__" \
		$(if $(SPARSE),CHECK=$(SPARSE)) modules 2>&1 | tee .sparse.log
	@! grep -E '^$(PROJECT)/.*(warning|error):' .sparse.log

# The genetlink policies and ops from Documentation/netlink/specs/ndp.yaml,
# by the kernel's own YNL generator (tools/ynl-gen; --check compares).
netlink-gen:
	tools/ynl-gen

# Kernel and user-space code alike (scripts/checkpatch: the three checks
# that do not apply to user space).
checkpatch:
	scripts/checkpatch $(SOURCES) $(USER_SOURCES)

# Man pages: groff warnings (through man, as a reader sees them).
man-check:
	@rc=0; for m in Documentation/man/*.[1-9]; do \
		out=$$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l $$m 2>&1 >/dev/null); \
		[ -z "$$out" ] || { echo "$$m: $$out"; rc=1; }; \
	done; exit $$rc

# The Python and Lua copies of the wire header against the UAPI header.
wire-check:
	tools/wire-check

check: sparse checkpatch man-check wire-check
	$(MAKE) -C tools CFLAGS_EXTRA=-Werror
	$(MAKE) -C selftests/net/ndp CFLAGS_EXTRA=-Werror

test:
	tools/vm/ndp-vm --kernel $(KERNEL) --build -- /ndp/selftests/run_tests.sh $(TESTS)

# Two guests, each its own kernel, joined by virtio-net through a bridge
# in a host network namespace; runs on the host (ndp-testing.rst,
# "Separate kernels").
vmnet-test:
	NDP_VMNET_KERNEL=$(KERNEL) selftests/net/ndp/vmnet.sh

demo:
	tools/vm/ndp-vm --kernel $(KERNEL) --build -- /ndp/demo.sh

# The mutation fuzzer for long (a million mutants by default), without
# the per-test timeout of run_tests.sh; the VM fails on any kernel splat.
FUZZ_PACKETS	?= 1000000
FUZZ_SEED	?= 1
FUZZ_RATE	?= 1000
fuzz:
	tools/vm/ndp-vm --kernel $(KERNEL) --build --timeout 14400 -- \
		bash -c 'cd /ndp/selftests && NDP_FUZZ_PACKETS=$(FUZZ_PACKETS) \
		NDP_FUZZ_SEED=$(FUZZ_SEED) NDP_FUZZ_RATE=$(FUZZ_RATE) ./fuzz.sh'

# NDP against TCP, every scenario (Documentation/networking/ndp-bench.rst);
# results, table and plots in results/.  BENCH_SET=fabric: the fat-tree;
# BENCH_SET=fct: flow completion times with detours and DASR (leaf-spine);
# BENCH_SET=ops: work per GB; BENCH_SET=servers: sendfile, iperf3, redis.
BENCH_SET	?= full
bench:
	tools/bench/ndp-bench --set $(BENCH_SET) --kernel $(KERNEL)

# Installation (GNU conventions: DESTDIR for staging, PREFIX for the
# user-space part).  The modules go where modprobe looks first,
# /lib/modules/$(KREL)/updates, through kbuild's modules_install (which
# compresses them as the kernel's own modules are); q_ndp.so goes to
# the directory tc searches (compiled into Debian's tc: TC_LIB_DIR,
# /usr/lib/<multiarch>/tc), not under PREFIX.  depmod runs only for a
# real install: with DESTDIR set, a package's postinst does it.
DESTDIR		?=
PREFIX		?= /usr/local
BINDIR		?= $(PREFIX)/bin
SBINDIR		?= $(PREFIX)/sbin
LIBDIR		?= $(PREFIX)/lib
INCLUDEDIR	?= $(PREFIX)/include
MANDIR		?= $(PREFIX)/share/man
MULTIARCH	:= $(shell $(CC) -print-multiarch 2>/dev/null)
TCLIBDIR	?= /usr/lib$(if $(MULTIARCH),/$(MULTIARCH))/tc
MODDIR		:= /lib/modules/$(KREL)/updates
NDP_MODULES	:= net/ndp/ndp net/ndp/ndp_diag net/sched/sch_ndp
UAPI_HEADERS	:= ndp.h ndp_sched.h
MAN_PAGES	:= $(notdir $(wildcard Documentation/man/*.[1-9]))
INSTALL		?= install

install-modules: modules
	@test -n "$(KREL)" || { echo "no kernel release in $(KDIR)" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(PROJECT) INSTALL_MOD_PATH=$(DESTDIR) \
		INSTALL_MOD_DIR=updates CONFIG_MODULE_SIG_ALL= DEPMOD=true \
		modules_install
ifeq ($(DESTDIR),)
	depmod -a $(KREL)
endif

install: install-modules install-tools

install-tools: tools
	$(INSTALL) -d $(DESTDIR)$(INCLUDEDIR)/linux $(DESTDIR)$(SBINDIR) \
		$(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/ndpize \
		$(DESTDIR)$(TCLIBDIR)
	$(INSTALL) -m 0644 $(addprefix include/uapi/linux/,$(UAPI_HEADERS)) \
		$(DESTDIR)$(INCLUDEDIR)/linux/
	$(INSTALL) -m 0755 tools/ndpctl/ndpctl $(DESTDIR)$(SBINDIR)/ndpctl
	$(INSTALL) -m 0755 tools/ndpize/ndpize $(DESTDIR)$(BINDIR)/ndpize
	$(INSTALL) -m 0644 tools/ndpize/libndpize.so \
		$(DESTDIR)$(LIBDIR)/ndpize/libndpize.so
	$(INSTALL) -m 0644 tools/tc/q_ndp.so $(DESTDIR)$(TCLIBDIR)/q_ndp.so
	for m in $(MAN_PAGES); do \
		s=$${m##*.}; \
		$(INSTALL) -d $(DESTDIR)$(MANDIR)/man$$s || exit 1; \
		$(INSTALL) -m 0644 Documentation/man/$$m \
			$(DESTDIR)$(MANDIR)/man$$s/$$m || exit 1; \
	done

# DKMS: the module sources and dkms.conf in /usr/src/ndp-<version>.
NDP_VERSION	:= $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
DKMS_SRC	:= /usr/src/ndp-$(NDP_VERSION)
DKMS_FILES	:= dkms.conf Makefile Kbuild Kconfig \
		   $(shell find net include -name '*.[ch]' ! -name '*.mod.c') \
		   $(wildcard net/ndp/Makefile net/sched/Makefile)

install-dkms-src:
	for f in $(sort $(DKMS_FILES)); do \
		$(INSTALL) -D -m 0644 $$f $(DESTDIR)$(DKMS_SRC)/$$f || exit 1; \
	done

uninstall-dkms-src:
	rm -rf $(DESTDIR)$(DKMS_SRC)

uninstall-modules:
	@test -n "$(KREL)" || { echo "no kernel release in $(KDIR)" >&2; exit 1; }
	for m in $(NDP_MODULES); do \
		rm -f $(addprefix $(DESTDIR)$(MODDIR)/$$m.ko,'' .xz .gz .zst); \
	done
	-rmdir -p $(sort $(dir $(addprefix $(DESTDIR)$(MODDIR)/,$(NDP_MODULES)))) \
		2>/dev/null
ifeq ($(DESTDIR),)
	depmod -a $(KREL)
endif

uninstall: uninstall-modules uninstall-tools

uninstall-tools:
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/linux/,$(UAPI_HEADERS))
	rm -f $(DESTDIR)$(SBINDIR)/ndpctl $(DESTDIR)$(BINDIR)/ndpize
	rm -f $(DESTDIR)$(LIBDIR)/ndpize/libndpize.so
	-rmdir $(DESTDIR)$(LIBDIR)/ndpize 2>/dev/null
	rm -f $(DESTDIR)$(TCLIBDIR)/q_ndp.so
	for m in $(MAN_PAGES); do \
		rm -f $(DESTDIR)$(MANDIR)/man$${m##*.}/$$m; \
	done

help:
	@sed -n '3,21p' Makefile
