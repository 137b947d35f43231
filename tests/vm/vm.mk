# SPDX-License-Identifier: GPL-2.0-or-later
# Included by the top-level Makefile: the VM test with the sample-trace module.
#
#   make check-vm      boot Debian's kernel in qemu, run tpctl on sample-trace
#                      inside, check the results on the host (TAP)
#   make vm-demo       the same VM with an interactive shell
#   make vm-fixtures   copy the raw pages and formats captured by the last
#                      check-vm run into tests/unit/fixtures/vm-6.1
#   make vm-clean      remove tests/vm/work (downloads, builds, results)

VM_ENV = TPCTL=$(CURDIR)/tpctl PLUGINDIR='$(PLUGINDIR)' PLUGINS='$(abspath $(PLUGINS))'
VM_FIXTURES := tests/unit/fixtures/vm-6.1

.PHONY: check-vm vm-run vm-demo vm-prepare vm-fixtures vm-clean

check-vm: vm-run
	$(PROVE) $(PROVE_ARGS) tests/vm/*.t

vm-run: all
	$(VM_ENV) tests/vm/run-vm.sh check

vm-demo: all
	$(VM_ENV) tests/vm/run-vm.sh demo

vm-prepare: all
	$(VM_ENV) tests/vm/run-vm.sh prepare

vm-fixtures:
	tests/vm/save-fixtures.sh tests/vm/work/out $(VM_FIXTURES)

vm-clean:
	rm -rf tests/vm/work
