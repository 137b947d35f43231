# Fuzzing with libFuzzer (clang): included by the top-level Makefile.
#
#   make fuzz [FUZZ_SECONDS=N] [FUZZ_TARGETS="page format dat json flame sysdec
#             traceset stopon"] [FUZZ_JOBS=2]
#             [FUZZ_FORK=]
#       build every target, seed its corpus from the unit-test fixtures and
#       run it for N seconds (default 60), FUZZ_JOBS targets at a time, at
#       nice 19; crashes land in tests/fuzz/build/artifacts/<target>/
#   make fuzz-build      only build tests/fuzz/build/fuzz_<target>
#
# Targets (tests/fuzz/fuzz_<target>.c):
#   page    raw ring-buffer pages -> reader merge -> decode -> text / NDJSON
#   format  format-file parsing (print fmt rewriting) plus decode of one record
#   dat     trace.dat files through `tpctl report` (libtracecmd read path)
#   json    the JSON writer with arbitrary bytes in strings; output must parse
#   flame   the folded and SVG writers with any frame names and weights: the
#           folded lines split back into the same frames, the SVG is XML
#   sysdec  the syscall decoder: numbers, arguments, strings -> strace's text
#   traceset strace's -e trace=SET and signal=SET: a set taken prints back
#           and parses to the same set
#   stopon  record --flight's --stop-on 'EVENT [if FILTER]': split, written
#           back and split the same, the filter checked against the fixtures
#
# The same target code, built without libFuzzer, replays tests/fuzz/regress/
# in `make check` (tests/unit/fuzz-regress.c).

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_JOBS    ?= 2
FUZZ_TARGETS ?= page format dat json flame sysdec traceset stopon
# Fork mode keeps a run going past a crash (each is saved), so one bug in a
# system library does not end a long run; FUZZ_FORK= stops at the first.
FUZZ_FORK    ?= -fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1
FUZZ_OUT     := tests/fuzz/build
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS   = -g -O1 -fno-omit-frame-pointer $(FUZZ_SAN) -Wall -Wextra \
		-std=gnu11 -D_GNU_SOURCE $(PKG_CFLAGS) -iquote src -iquote tests/fuzz \
		-DTPCTL_VERSION='"$(VERSION)"' -DTPCTL_PLUGIN_DIR='"$(PLUGINDIR)"' \
		-DFUZZ_TOP='"$(CURDIR)"' -MMD -MP
FUZZ_CORE    := $(patsubst src/%.c,$(FUZZ_OUT)/obj/%.o,$(filter-out src/tpctl.c,$(SRCS)))
FUZZ_BINS    := $(patsubst %,$(FUZZ_OUT)/fuzz_%,$(FUZZ_TARGETS))
# Leaks are left to the valgrind pass (libtracecmd keeps what a failed open
# allocated, see cmd_report.c).  A size read from a damaged file may ask for
# terabytes: malloc then returns NULL as it would outside ASan, and the code
# must cope.  asan.supp lists what the system libraries do wrong.
FUZZ_RUN_ENV := ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1:suppressions=$(CURDIR)/tests/fuzz/asan.supp \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

.PHONY: fuzz fuzz-build fuzz-seeds
# made by pattern rules only as steps to the targets: keep them between runs
.SECONDARY: $(FUZZ_CORE) $(FUZZ_OUT)/obj/fuzz_common.o
fuzz-build: $(FUZZ_BINS)

$(FUZZ_OUT)/obj/%.o: src/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_OUT)/obj/sysdec.o: src/sysdec_tab.h
$(FUZZ_OUT)/obj/errname.o: src/errname_tab.h

$(FUZZ_OUT)/obj/fuzz_common.o: tests/fuzz/fuzz_common.c tests/fuzz/fuzz_common.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_OUT)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OUT)/obj/fuzz_common.o $(FUZZ_CORE)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< \
		$(FUZZ_OUT)/obj/fuzz_common.o $(FUZZ_CORE) $(PKG_LIBS) $(DW_LIBS) -lm

fuzz-seeds: tests/unit/bin/dat
	@mkdir -p $(FUZZ_OUT)/corpus
	python3 tests/fuzz/seeds.py $(CURDIR) $(FUZZ_OUT)/seeds tests/unit/bin/dat

# Each target: the seeds and the saved regressions as read-only corpora, new
# inputs into corpus/<target>; the last lines of its log say how it went.
fuzz: fuzz-build fuzz-seeds
	@printf '%s\n' $(FUZZ_TARGETS) | xargs -P $(FUZZ_JOBS) -I{} sh -c '\
		t={}; mkdir -p $(FUZZ_OUT)/corpus/$$t $(FUZZ_OUT)/artifacts/$$t; \
		reg=tests/fuzz/regress/$$t; [ -d $$reg ] || reg=; \
		seeds=$(FUZZ_OUT)/seeds/$$t; [ -d $$seeds ] || seeds=; \
		$(FUZZ_RUN_ENV) nice -n 19 $(FUZZ_OUT)/fuzz_$$t $(FUZZ_FORK) \
			-max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -timeout=20 \
			-rss_limit_mb=4096 -malloc_limit_mb=1048576 -artifact_prefix=$(FUZZ_OUT)/artifacts/$$t/ \
			$(FUZZ_OUT)/corpus/$$t $$seeds $$reg \
			> $(FUZZ_OUT)/$$t.log 2>&1; \
		echo "fuzz $$t: exit $$?, $$(grep -a -o "^#[0-9]*" $(FUZZ_OUT)/$$t.log | \
			tail -1 | tr -d "#") execs, \
			$$(ls $(FUZZ_OUT)/artifacts/$$t | wc -l) crash inputs"'

# The replay of tests/fuzz/regress/ includes the targets' sources.
tests/unit/bin/fuzz-regress: $(wildcard tests/fuzz/*.c tests/fuzz/*.h)

# the headers each object was built from (-MMD): a changed header rebuilds it
-include $(wildcard $(FUZZ_OUT)/obj/*.d)
