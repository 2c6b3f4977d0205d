#!/bin/sh
# Fuzz the ibsmd.conf loader (config/) with libFuzzer, AddressSanitizer
# and UBSan, seeded with the corpus in tests/config/.
#
#   FUZZ_SECONDS=600 tests/fuzz/run_config.sh
#
# Variables and exit codes: see tests/fuzz/lib.sh.
set -eu
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

fuzz_setup config
# config/ reads YAML with libyaml; core/ decodes MAD fields with libibmad.
fuzz_build fuzz_config "$here/fuzz_config.c" "$top"/config/*.c \
    "$top"/core/*.c -lyaml -libmad
# valid/ and invalid/ may hold files of the same name: prefix each seed.
for f in "$top"/tests/config/valid/*.conf "$top"/tests/config/invalid/*.conf; do
	d=${f%/*}
	cp "$f" "$work/corpus/${d##*/}_${f##*/}"
done
fuzz_run fuzz_config 8192 "$here/config.dict"
