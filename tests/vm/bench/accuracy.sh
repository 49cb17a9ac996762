#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: bookworm
# numa: yes
# timeout: 1500
# make bench, VM part: the accuracy harness's full scenario table
# (tests/vm/accuracy.sh with ACCURACY_FULL=1; make check runs only its
# guard). Prints "# ACCURACY ..." per aggregation and
# "# ACCURACY-SUMMARY ..." per scenario and split mode; scripts/bench.sh
# tabulates them. ACCURACY_ONLY=name,... (kernel command line): a subset.
ACCURACY_FULL=1
export ACCURACY_FULL
exec /bin/sh /tests/accuracy.sh
