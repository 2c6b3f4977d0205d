#!/bin/sh
# configure in a build directory that already has the object directory
# core/ (any build after the first, and every re-run by make): no
# "rm: cannot remove 'core': Is a directory" on its output, however many
# compile tests it runs, and nothing of its own left behind (confdefs.h,
# conftest*), which its exit trap removes only if the rm before succeeds.
set -u
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
[ -x "$top/configure" ] || { echo "configure_quiet: SKIP: no $top/configure"; exit 77; }
# a source tree configured in place (the Debian package's build) refuses
# a configure elsewhere
[ -f "$top/config.status" ] && { echo "configure_quiet: SKIP: $top is configured in place"; exit 77; }
d=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-configure.XXXXXX") || exit 99
trap 'rm -rf "$d"' EXIT
mkdir "$d/core" || exit 99
cd "$d" || exit 99
if ! "$top/configure" --disable-sim-tests >out 2>err; then
	echo "configure_quiet: FAIL: configure failed: $(tail -3 err)"
	exit 1
fi
if grep -n "cannot remove" out err; then
	echo "configure_quiet: FAIL: configure printed rm's complaints"
	exit 1
fi
for f in confdefs.h conftest*; do
	[ -e "$f" ] && { echo "configure_quiet: FAIL: $f left behind"; exit 1; }
done
echo "configure_quiet: configure quiet about core/ and clean after itself"
exit 0
