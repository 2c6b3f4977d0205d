#!/bin/sh
# Fuzz the qos-policy.conf parser (partitions/qos) with libFuzzer,
# AddressSanitizer and UBSan, seeded with the corpus in tests/qos/.
# Variables and exit codes: see tests/fuzz/lib.sh.
set -eu
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

fuzz_setup qos
fuzz_build fuzz_qos "$here/fuzz_qos.c" "$top"/partitions/*.c \
    "$top"/core/*.c -libmad
for f in "$top"/tests/qos/valid/*.conf "$top"/tests/qos/invalid/*.conf; do
	d=${f%/*}
	cp "$f" "$work/corpus/${d##*/}_${f##*/}"
done
fuzz_run fuzz_qos 8192
