#!/bin/sh
# Builds the Debian package from a copy of the source tree with
# dpkg-buildpackage -us -uc -b (debian/: dh, autoreconf, the unit suites)
# and checks the .deb:
#   - its files (dpkg-deb -c): exactly the expected list, with modes;
#   - /etc/ibsmd/ibsmd.conf is a conffile and is contrib/ibsmd.conf;
#   - the units start programs the package holds, at the paths they name;
#   - it depends on the libraries ibsmd links (libibumad, libibmad, libev,
#     libyaml) and on libsystemd0 (loaded for the units' notifications),
#     and recommends libmicrohttpd12 (loaded for metrics_listen);
# and prints how long the build took and what the package holds.
#
#   sh tests/pkg/debian.sh         (from anywhere; .ci/run runs it)
#
# Skips (77) only where dpkg-buildpackage is missing; missing build
# dependencies fail (dpkg-buildpackage names them; Debian: apt-get install
# dpkg-dev debhelper and the Build-Depends of debian/control). KEEP_DEB=DIR
# copies the built packages there.
set -eu

: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"

if ! command -v dpkg-buildpackage >/dev/null 2>&1; then
	echo "SKIP: dpkg-buildpackage not found: the Debian package is not built (Debian: apt-get install dpkg-dev debhelper)"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/debian.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# The source files only: a git checkout's tracked and not ignored files
# (not its build trees), or the whole of an unpacked release.
src=$tmp/ibsmd-src
mkdir "$src"
if git -C "$TOP_SRCDIR" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$TOP_SRCDIR" && git ls-files -z --cached --others --exclude-standard |
	    xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
	    xargs -0 cp --parents -p -t "$src")
else
	cp -pR "$TOP_SRCDIR/." "$src/"
fi
[ -f "$src/debian/control" ] || { echo "FAIL: no debian/control in the copy of $TOP_SRCDIR"; exit 1; }

# Its own make, not the make check or CI that may run this.
start=$(date +%s)
if ! (cd "$src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
    DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-parallel=$(nproc 2>/dev/null || echo 2)}" \
    dpkg-buildpackage -us -uc -b >"$tmp/build.log" 2>&1); then
	tail -40 "$tmp/build.log"
	echo "FAIL: dpkg-buildpackage -us -uc -b failed (log above, last 40 lines)"
	exit 1
fi
secs=$(($(date +%s) - start))

deb=$(ls "$tmp"/ibsmd_*.deb 2>/dev/null | grep -v dbgsym || true)
[ -n "$deb" ] && [ "$(printf '%s\n' "$deb" | wc -l)" -eq 1 ] ||
    { echo "FAIL: expected one ibsmd_*.deb, found: $(ls "$tmp")"; exit 1; }
echo "ok: built $(basename "$deb") in ${secs}s ($(du -k "$deb" | cut -f1) KiB)"
# What dh_auto_test ran (nothing under DEB_BUILD_OPTIONS=nocheck).
sed -n 's/^# \(TOTAL\|PASS\|SKIP\|XFAIL\|FAIL\|XPASS\|ERROR\): */    tests \1: /p' "$tmp/build.log"
[ -z "${KEEP_DEB:-}" ] || cp "$tmp"/*.deb "$KEEP_DEB/"

# Files, their modes; directories only where nothing is installed in them
# (/var/lib/ibsmd). Documentation debhelper adds (changelog, copyright) is
# listed as well.
expected='-rw-r--r-- ./etc/ibsmd/ibsmd.conf
-rw-r--r-- ./lib/systemd/system/ibsmd.service
-rw-r--r-- ./lib/systemd/system/ibsmd@.service
-rwxr-xr-x ./usr/bin/ibsmctl
-rwxr-xr-x ./usr/libexec/ibsmd/ibsmd-instances
-rwxr-xr-x ./usr/sbin/ibsmd
-rw-r--r-- ./usr/share/doc/ibsmd/changelog.gz
-rw-r--r-- ./usr/share/doc/ibsmd/copyright
-rw-r--r-- ./usr/share/man/man5/ibsmd.conf.5.gz
-rw-r--r-- ./usr/share/man/man5/partitions.conf.5.gz
-rw-r--r-- ./usr/share/man/man5/qos-policy.conf.5.gz
-rw-r--r-- ./usr/share/man/man8/ibsmctl.8.gz
-rw-r--r-- ./usr/share/man/man8/ibsmd.8.gz
drwxr-xr-x ./var/lib/ibsmd/'
dpkg-deb -c "$deb" > "$tmp/contents"
echo "contents of $(basename "$deb") (dpkg-deb -c):"
sed 's/^/    /' "$tmp/contents"
# Mode and path; directories kept only when empty in the package.
awk '{ print $1, $6 }' "$tmp/contents" | LC_ALL=C sort > "$tmp/all"
got=$(awk '
	{ line[NR] = $0; path[NR] = $2 }
	END {
		for (i = 1; i <= NR; i++) {
			if (substr(line[i], 1, 1) != "d") { print line[i]; continue }
			inner = 0
			for (j = 1; j <= NR; j++)
				if (j != i && index(path[j], path[i]) == 1) { inner = 1; break }
			if (!inner) print line[i]
		}
	}' "$tmp/all" | LC_ALL=C sort)
if [ "$got" = "$(printf '%s\n' "$expected" | LC_ALL=C sort)" ]; then
	echo "ok: package contents ($(printf '%s\n' "$expected" | wc -l) entries)"
else
	printf '%s\n' "$expected" | LC_ALL=C sort > "$tmp/want"
	printf '%s\n' "$got" > "$tmp/got"
	bad "package contents differ (- expected, + in the .deb):"
	diff -u "$tmp/want" "$tmp/got" | sed -n '3,$p' || true
fi

conffiles=$(dpkg-deb -I "$deb" conffiles 2>/dev/null || true)
[ "$conffiles" = /etc/ibsmd/ibsmd.conf ] ||
    bad "conffiles is '$conffiles', not /etc/ibsmd/ibsmd.conf"
depends=$(dpkg-deb -f "$deb" Depends)
# libsystemd0: loaded at run time for the units' READY=1 (Type=notify)
for lib in libibumad3 libibmad5 libev4 libyaml-0-2 libsystemd0; do
	case ", $depends," in
	*", $lib "*|*", $lib,"*) ;;
	*) bad "Depends does not name $lib: $depends" ;;
	esac
done
echo "ok: Depends: $depends"
# libmicrohttpd12: loaded at run time, only for metrics_listen
recommends=$(dpkg-deb -f "$deb" Recommends)
case ", $recommends," in
*", libmicrohttpd12,"*|*", libmicrohttpd12 "*) ;;
*) bad "Recommends does not name libmicrohttpd12: $recommends" ;;
esac

root=$tmp/root
dpkg-deb -x "$deb" "$root"
cmp -s "$TOP_SRCDIR/contrib/ibsmd.conf" "$root/etc/ibsmd/ibsmd.conf" ||
    bad "/etc/ibsmd/ibsmd.conf is not contrib/ibsmd.conf"
for unit in "$root"/lib/systemd/system/*.service; do
	for prog in $(sed -n 's/^Exec[A-Za-z]*=-\{0,1\}\([^ ]*\).*/\1/p' "$unit"); do
		case $prog in
		/bin/kill) ;;	# procps, a dependency
		*) [ -x "$root$prog" ] ||
			bad "$(basename "$unit") runs $prog, not in the package" ;;
		esac
	done
done
grep -qx 'IBSMD=${IBSMD:-/usr/sbin/ibsmd}' "$root/usr/libexec/ibsmd/ibsmd-instances" ||
    bad "ibsmd-instances does not run /usr/sbin/ibsmd"
"$root/usr/sbin/ibsmd" -n -c "$root/etc/ibsmd/ibsmd.conf" -P "$tmp/none.conf" ||
    bad "the packaged ibsmd rejects the packaged ibsmd.conf"

[ $fail -eq 0 ] && echo "ok: debian package"
exit $fail
