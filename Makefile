# SPDX-License-Identifier: GPL-2.0
#
# NDP for Linux: out-of-tree build of ndp.ko and sch_ndp.ko, the tools,
# the checks and the VM test runs.
#
#   make                 modules against the Debian 6.12 cloud headers
#   make KDIR=<tree>     modules against any other kernel tree or headers
#   make W=1             extra compiler warnings (must stay clean)
#   make check           W=1 build, sparse and checkpatch --strict
#   make tools           user-space tools and selftest helpers
#   make test            selftests in a qemu VM (KERNEL=6.12|6.1|debug)
#   make demo            the main job: build, boot, show NDP working
#   make fuzz            long fuzzing run in a VM (FUZZ_PACKETS, FUZZ_SEED)
#   make bench           NDP vs TCP benchmarks (BENCH_SET=full|short|fabric)
#

KVER_612	:= $(lastword $(sort $(notdir $(wildcard /lib/modules/6.12*-cloud-amd64))))
KDIR		?= /lib/modules/$(KVER_612)/build
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

.PHONY: all modules clean check sparse checkpatch tools test demo bench help fuzz

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(PROJECT) modules

clean:
	$(MAKE) -C $(KDIR) M=$(PROJECT) clean
	$(MAKE) -C tools clean
	$(MAKE) -C selftests/net/ndp clean

tools:
	$(MAKE) -C tools
	$(MAKE) -C selftests/net/ndp

# sparse through kbuild (C=2 checks every file, built or not).  Debian 12's
# sparse 0.6.4 is older than the 6.12 headers and warns about some of them:
# only reports about this project's files count.
sparse:
	$(MAKE) -C $(KDIR) M=$(PROJECT) clean >/dev/null
	$(MAKE) -C $(KDIR) M=$(PROJECT) C=2 CF="-D__CHECK_ENDIAN__" \
		modules 2>&1 | tee .sparse.log
	@! grep -E '^$(PROJECT)/.*(warning|error):' .sparse.log

checkpatch:
	scripts/checkpatch $(SOURCES)

check: sparse checkpatch
	$(MAKE) -C tools CFLAGS_EXTRA=-Werror
	$(MAKE) -C selftests/net/ndp CFLAGS_EXTRA=-Werror

test:
	tools/vm/ndp-vm --kernel $(KERNEL) --build -- /ndp/selftests/run_tests.sh $(TESTS)

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
# results, table and plots in results/.  BENCH_SET=fabric: the fat-tree.
BENCH_SET	?= full
bench:
	tools/bench/ndp-bench --set $(BENCH_SET) --kernel $(KERNEL)

help:
	@sed -n '3,15p' Makefile
