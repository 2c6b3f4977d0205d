#!/bin/sh
# Fuzz the MAD receive path (the MAD engine, the SMP client, the SMInfo
# responder, the SM state machine and the SA, over the in-memory transport) with
# libFuzzer, AddressSanitizer and UBSan, seeded with tests/fuzz/mad_seeds/
# (made by tests/fuzz/mad_seeds.py).
#
#   FUZZ_SECONDS=600 tests/fuzz/run_mad.sh
#
# Variables and exit codes: see tests/fuzz/lib.sh.
set -eu
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

fuzz_setup mad
# The floors below sm/ and the two SM listeners, with the unit tests'
# in-memory transport instead of mad/transport.c; libibmad decodes MAD
# fields, libev runs the loop.
# sa/ includes autoconfig.h (configure's output, nothing the SA needs):
# an empty one stands in for it.
: >"$work/autoconfig.h"
fuzz_build fuzz_mad -I"$work" "$here/fuzz_mad.c" "$top"/tests/unit/fake_transport.c \
    "$top"/mad/mad.c "$top"/mad/smp.c "$top"/sm/sminfo.c \
    "$top"/sm/smstate.c "$top"/sa/*.c "$top"/mcast/*.c "$top"/partitions/*.c \
    "$top"/core/*.c \
    -lev -libmad -libumad -lm
cp "$top"/tests/fuzz/mad_seeds/* "$work/corpus/"
fuzz_run fuzz_mad 2056
