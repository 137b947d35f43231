#!/bin/sh
# plugins/plugin_sample_trace.so on the sample-trace pages captured in the VM:
# with it libtraceevent prints every record as the kernel did (the kernel's
# own `trace` text for the same pages is the oracle), without it it cannot.
cd "$(dirname "$0")/../.." || exit 1
exec tests/unit/bin/plugin_sample_trace tests/unit/fixtures/vm-6.1 plugins
