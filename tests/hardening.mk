# Sanitizer and valgrind passes over the test suite; included by the top-level
# Makefile (any tests/*.mk).
#
#   make check-asan       the whole `make check` suite with everything built
#                         with -fsanitize=address,undefined, in a copy of the
#                         tree under build/asan (the normal build is left alone)
#   make check-tsan       the CLI tests of the commands that read with threads
#                         (record, count, hist, latency, stream, serve) and the
#                         unit test of stream's reading thread (tests/unit/merge), with
#                         everything built with -fsanitize=thread, under
#                         build/tsan; a data race fails its test (exit 86)
#   make check-valgrind   the CLI tests with every tpctl run under valgrind
#                         (memcheck errors or definite leaks: exit 99, test fails)
#
# Sanitizer reports make the process exit 86 (not 1 or 2, which tests expect
# for ordinary failures), so a report always fails the test that caused it.
# Allocation stacks are unwound the slow way: the system libraries have no
# frame pointers, and tests/lsan.supp must see through them to the library
# call that lost the memory.

ASAN_DIR     ?= build/asan
ASAN_CC      ?= gcc
ASAN_FLAGS   := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
		-fno-omit-frame-pointer
# handle_segv/sigbus/sigfpe=0: report decodes in a child whose death by a
# fault inside libtracecmd/libtraceevent it reports as a damaged file; ASan
# must let the signal kill the child as it does outside ASan.  A fault
# anywhere else still kills tpctl and fails its test.
ASAN_OPTS    := exitcode=86:abort_on_error=0:allocator_may_return_null=1:fast_unwind_on_malloc=0:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:suppressions=$(CURDIR)/tests/asan.supp
# Leaks count for tpctl itself (the CLI tests); the unit-test drivers keep
# their fixtures until exit and are checked for everything else.
ASAN_OPTS_UNIT := $(ASAN_OPTS):detect_leaks=0
ASAN_ENV     := ASAN_OPTIONS=$(ASAN_OPTS):detect_leaks=1 \
		LSAN_OPTIONS=exitcode=86:suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
		UBSAN_OPTIONS=exitcode=86:halt_on_error=1:print_stacktrace=1
# Build products and scratch that must not be copied into the sanitizer tree.
ASAN_EXCLUDE := --exclude=./build --exclude=./.git --exclude='*.o' --exclude='*.d' \
		--exclude='*.so' --exclude=./tpctl --exclude=./tests/unit/bin \
		--exclude=./tests/fuzz/build --exclude=./tests/vm/work --exclude=./bench/out \
		--exclude=./bench/gen

VALGRIND     ?= valgrind
VALGRIND_CMD := $(VALGRIND) -q --error-exitcode=99 --num-callers=50 --leak-check=full \
		--errors-for-leak-kinds=definite --show-leak-kinds=definite \
		--suppressions=$(CURDIR)/tests/valgrind.supp

TSAN_DIR     ?= build/tsan
TSAN_FLAGS   := -fsanitize=thread -fno-omit-frame-pointer
TSAN_ENV     := TSAN_OPTIONS=exitcode=86:halt_on_error=1:second_deadlock_stack=1
# (tests/unit/merge: the reading thread's hand-over, src/readq.c)
TSAN_UNIT    := tests/unit/merge.t
TSAN_TESTS   := $(wildcard tests/cli/record*.t tests/cli/count*.t tests/cli/hist*.t \
		tests/cli/latency*.t tests/cli/stream*.t tests/cli/threads*.t tests/cli/serve*.t)

.PHONY: check-asan check-valgrind check-tsan
# $(call sanitized_tree,DIR,FLAGS): a fresh copy of the tree in DIR (files
# removed or renamed in the tree must not linger there), built with FLAGS
define sanitized_tree
	rm -rf $(1)
	@mkdir -p $(1)
	@printf '*\n' > build/.gitignore
	tar -c $(ASAN_EXCLUDE) . | tar -x -C $(1)
	$(MAKE) -C $(1) CC=$(ASAN_CC) CFLAGS="-O1 -g $(2)" LDFLAGS="$(2)" all $(UNIT_BINS) bench/gen
endef

check-asan:
	$(call sanitized_tree,$(ASAN_DIR),$(ASAN_FLAGS))
	cd $(ASAN_DIR) && env $(ASAN_ENV) ASAN_OPTIONS=$(ASAN_OPTS_UNIT) $(PROVE) $(PROVE_ARGS) \
		tests/unit/*.t
	cd $(ASAN_DIR) && env $(ASAN_ENV) $(PROVE) $(PROVE_ARGS) tests/cli/*.t tests/zz-final.t

check-valgrind: all
	TPCTL_WRAPPER="$(VALGRIND_CMD)" $(PROVE) $(PROVE_ARGS) tests/cli/*.t tests/zz-final.t

check-tsan:
	$(call sanitized_tree,$(TSAN_DIR),$(TSAN_FLAGS))
	cd $(TSAN_DIR) && env $(TSAN_ENV) $(PROVE) $(PROVE_ARGS) $(TSAN_UNIT) $(TSAN_TESTS)
