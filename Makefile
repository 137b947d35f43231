# tpctl - a command-line trace frontend over tracefs
#
#   make deps        install the Debian packages needed to build, test and benchmark
#   make             build ./tpctl and the libtraceevent plugins
#   make check       run the whole test suite under prove (TAP)
#   make install     install into $(DESTDIR)$(PREFIX)
#   make uninstall   remove what install put there
#   make deb         build tpctl_VERSION_ARCH.deb (debian/, dpkg-buildpackage) in a copy
#                    of the tree under build/deb, copied here
#   make check-deb   build, lint, install, run and purge that package (tests/deb/)

# The one version: tpctl --version prints it, debian/changelog must say it (make deb).
VERSION    := 0.1.0
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
LIBDIR     ?= $(PREFIX)/lib
PLUGINDIR  ?= $(LIBDIR)/tpctl/plugins
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/vendor-completions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d

CC         ?= cc
PKGS       := libtracefs libtraceevent libtracecmd libbpf libzstd libmicrohttpd libxcrypt
# Deferred (=) so that "make deps" works before pkg-config and the -dev packages exist.
PKG_CFLAGS  = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS    = $(shell pkg-config --libs $(PKGS))
# elfutils, for naming user stack frames (src/usym.c); tpctl only, not the plugins
DW_LIBS     = $(shell pkg-config --libs libdw)

CFLAGS     ?= -O2 -g
WARN       := -Wall -Wextra -Werror
ALL_CFLAGS  = $(WARN) -std=gnu11 -D_GNU_SOURCE $(PKG_CFLAGS) \
	      -DTPCTL_VERSION='"$(VERSION)"' -DTPCTL_PLUGIN_DIR='"$(PLUGINDIR)"' \
	      -MMD -MP $(CPPFLAGS) $(CFLAGS)
LDLIBS     += $(PKG_LIBS) $(DW_LIBS) -lm -pthread

SRCS       := $(wildcard src/*.c)
OBJS       := $(SRCS:.c=.o)
# Everything but main(): linked into the unit tests and fuzz targets as well.
CORE_OBJS  := $(filter-out src/tpctl.o,$(OBJS))

PLUGIN_SRCS := $(wildcard plugins/*.c)
PLUGINS     := $(PLUGIN_SRCS:.c=.so)

UNIT_SRCS  := $(wildcard tests/unit/*.c)
UNIT_BINS  := $(patsubst tests/unit/%.c,tests/unit/bin/%,$(UNIT_SRCS))

PROVE      ?= prove
PROVE_ARGS ?=

# Debian packages: build, tests, benchmarks, the VM test, the fuzzers and make deb.
DEB_PKGS := gcc libc6-dev make pkg-config libtracefs-dev libtraceevent-dev libtracecmd-dev \
	    libtraceevent1-plugin trace-cmd jq python3 perl mandoc man-db bash-completion \
	    zsh fish time valgrind clang llvm libclang-rt-14-dev \
	    qemu-system-x86 busybox-static cpio kmod linux-headers-amd64 util-linux \
	    libbpf-dev libzstd-dev libdw-dev protobuf-compiler strace \
	    libmicrohttpd-dev libcrypt-dev prometheus curl linux-perf python3-prometheus-client \
	    build-essential dpkg-dev debhelper fakeroot lintian chromium libxml2-utils

.PHONY: all deps check check-unit check-cli check-deb install uninstall clean deb
all: tpctl $(PLUGINS)

tpctl: $(OBJS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS)

src/%.o: src/%.c
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# strace's tables from this system's headers (src/gen/sysdec_gen.py), not in git
src/sysdec_tab.h: src/gen/sysdec_gen.py
	python3 $< $(CC) > $@.tmp && mv $@.tmp $@
src/sysdec.o: src/sysdec_tab.h
# errno names from this system's headers (src/gen/errname_gen.sh), not in git
src/errname_tab.h: src/gen/errname_gen.sh
	sh $< $(CC) > $@.tmp && mv $@.tmp $@
src/errname.o: src/errname_tab.h

plugins/%.so: plugins/%.c
	$(CC) $(ALL_CFLAGS) -fPIC -shared $(LDFLAGS) -o $@ $< $(PKG_LIBS)

tests/unit/bin/%: tests/unit/%.c $(CORE_OBJS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -iquote src $(LDFLAGS) -o $@ $< $(CORE_OBJS) $(LDLIBS)

deps:
	@missing=""; for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || \
			missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all packages installed"; exit 0; fi; \
	SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	echo "deps: installing$$missing"; \
	$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends $$missing

# tests/deb/ skips, saying so, where the Debian packaging tools are not installed;
# bench/gen is the CLI tests' event generator (a test without it would skip)
check: all $(UNIT_BINS) bench/gen
	$(PROVE) $(PROVE_ARGS) tests/unit/*.t tests/cli/*.t tests/deb/*.t tests/zz-final.t

check-unit: all $(UNIT_BINS)
	$(PROVE) $(PROVE_ARGS) tests/unit/*.t

check-cli: all bench/gen
	$(PROVE) $(PROVE_ARGS) tests/cli/*.t tests/zz-final.t

check-deb:
	$(PROVE) $(PROVE_ARGS) tests/deb/*.t

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(PLUGINDIR) \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 755 tpctl $(DESTDIR)$(BINDIR)/tpctl
	install -m 644 man/*.1 $(DESTDIR)$(MANDIR)/man1/
	$(if $(PLUGINS),install -m 644 $(PLUGINS) $(DESTDIR)$(PLUGINDIR)/)
	install -m 644 completions/tpctl.bash $(DESTDIR)$(BASHCOMPDIR)/tpctl
	install -m 644 completions/_tpctl $(DESTDIR)$(ZSHCOMPDIR)/_tpctl
	install -m 644 completions/tpctl.fish $(DESTDIR)$(FISHCOMPDIR)/tpctl.fish

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tpctl
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(wildcard man/*.1)))
	rm -f $(addprefix $(DESTDIR)$(PLUGINDIR)/,$(notdir $(PLUGINS)))
	-rmdir $(DESTDIR)$(PLUGINDIR) $(DESTDIR)$(LIBDIR)/tpctl 2>/dev/null
	rm -f $(DESTDIR)$(BASHCOMPDIR)/tpctl $(DESTDIR)$(ZSHCOMPDIR)/_tpctl \
		$(DESTDIR)$(FISHCOMPDIR)/tpctl.fish

clean:
	rm -f tpctl src/*.o src/*.d plugins/*.so plugins/*.d src/sysdec_tab.h src/errname_tab.h
	rm -rf tests/unit/bin build/deb

# The package is built in a copy of the tree (what git tracks, and new files it
# does not ignore; every file but build/ where there is no git): dpkg-buildpackage
# cleans and builds in place and writes beside its directory, and the tree's own
# build, its git status and its parent stay as they were.
DEB_DIR  ?= build/deb
DEB_OUT  ?= .
DEB_ARCH  = $(shell dpkg-architecture -qDEB_HOST_ARCH)
DEB_FILE  = tpctl_$(VERSION)_$(DEB_ARCH).deb
DEB_SRC   = $(DEB_DIR)/tpctl-$(VERSION)
deb:
	@v=$$(dpkg-parsechangelog -l debian/changelog -S Version) || exit 1; \
	if [ "$$v" != "$(VERSION)" ]; then \
		echo "deb: debian/changelog's version is $$v, the Makefile's VERSION $(VERSION):" \
			"add an entry (dch -v $(VERSION))" >&2; exit 1; fi
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_SRC)
	@if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then \
		git ls-files -z --cached --others --exclude-standard | \
			xargs -0 sh -c 'for f; do [ -e "$$f" ] && printf "%s\0" "$$f"; done' sh | \
			tar -c --null -T - -f - | tar -x -C $(DEB_SRC); \
	else \
		tar -c --exclude=./build --exclude-vcs . | tar -x -C $(DEB_SRC); \
	fi
	cd $(DEB_SRC) && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL dpkg-buildpackage -us -uc -b -Jauto
	cp $(DEB_DIR)/$(DEB_FILE) $(DEB_OUT)/
	@echo "deb: $(DEB_OUT)/$(DEB_FILE)"

# Optional fragments owned by other parts of the tree (VM test, benchmarks, fuzzing).
-include tests/vm/vm.mk bench/bench.mk tests/fuzz/fuzz.mk $(filter-out tests/vm/vm.mk bench/bench.mk,$(wildcard tests/*.mk bench/*.mk))

-include $(OBJS:.o=.d)
