#!/bin/sh
# Fuzz the partitions.conf parser and policy with libFuzzer, AddressSanitizer
# and UBSan, seeded with the corpus in tests/partitions/.
#
#   FUZZ_SECONDS=600 tests/fuzz/run.sh
#
# Variables and exit codes: see tests/fuzz/lib.sh. Its siblings run_mad.sh
# (the MAD receive path) and run_config.sh (the ibsmd.conf loader) take the
# same variables and exit the same way.
set -eu
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

fuzz_setup partitions
# core/ decodes MAD fields with libibmad.
fuzz_build fuzz_partitions "$here/fuzz_partitions.c" "$top"/partitions/*.c \
    "$top"/core/*.c -libmad
cp "$top"/tests/partitions/valid/*.conf "$top"/tests/partitions/invalid/*.conf \
    "$work/corpus/"
fuzz_run fuzz_partitions 8192 "$here/partitions.dict"
