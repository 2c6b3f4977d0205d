#!/bin/sh
# make install into a DESTDIR, as configure --prefix=/usr --sysconfdir=/etc
# --localstatedir=/var lays it out (the installation directories given to
# make install), then checks the installed tree:
#   - exactly the expected files, with the expected modes;
#   - the units start programs that are in the tree, at the paths the units
#     name, and systemd-analyze verify has nothing to say about them (the
#     template, an instance, ibsmd.service; skipped with a message when
#     systemd-analyze is missing);
#   - the installed ibsmd accepts the installed example configuration
#     (ibsmd -n), the installed ibsmd-instances runs the installed ibsmd;
#   - a second make install keeps an edited ibsmd.conf, make uninstall
#     leaves no file but that edited ibsmd.conf;
#   - under another prefix (/opt/ibsmd) the units name that prefix's
#     programs.
# Needs a configured and built tree (TOP_BUILDDIR, set by make check); no
# simulator, no root.
set -eu
umask 022

: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${TOP_BUILDDIR:=$(pwd)}"
if [ ! -f "$TOP_BUILDDIR/Makefile" ]; then
	echo "install: no Makefile in $TOP_BUILDDIR (set TOP_BUILDDIR)" >&2
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# A make of its own, not the make check running this (its flags, its job
# server, a TESTS= on its command line).
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
	    "${MAKE_PROGRAM:-make}" -s -C "$TOP_BUILDDIR" "$@" >"$tmp/make.out" 2>&1 ||
	    { cat "$tmp/make.out"; echo "FAIL: make $*"; exit 1; }
}
# Every directory given, so that none set at configure time (a package
# build's --libexecdir, say) moves a file.
dirs() {
	echo "prefix=$1 exec_prefix=$1 bindir=$1/bin sbindir=$1/sbin" \
	    "libexecdir=$1/libexec datarootdir=$1/share mandir=$1/share/man" \
	    "sysconfdir=$2 localstatedir=$3 systemdsystemunitdir=$4"
}
layout=$(dirs /usr /etc /var /lib/systemd/system)
# shellcheck disable=SC2086 # $layout is a list of words
mk install DESTDIR="$tmp/root" $layout
root=$tmp/root

# Every file, and every empty directory, of the tree with its mode.
expected='f644 ./etc/ibsmd/ibsmd.conf
f644 ./lib/systemd/system/ibsmd.service
f644 ./lib/systemd/system/ibsmd@.service
f755 ./usr/bin/ibsmctl
f755 ./usr/libexec/ibsmd/ibsmd-instances
f755 ./usr/sbin/ibsmd
f644 ./usr/share/man/man5/ibsmd.conf.5
f644 ./usr/share/man/man5/partitions.conf.5
f644 ./usr/share/man/man5/qos-policy.conf.5
f644 ./usr/share/man/man8/ibsmctl.8
f644 ./usr/share/man/man8/ibsmd.8
d755 ./var/lib/ibsmd'
got=$(cd "$root" && find . -mindepth 1 \( -type f -o -type d -empty \) \
    -printf '%y%m %p\n' | LC_ALL=C sort)
if [ "$got" = "$(printf '%s\n' "$expected" | LC_ALL=C sort)" ]; then
	echo "ok: installed tree ($(printf '%s\n' "$expected" | wc -l) entries)"
else
	bad "installed tree differs (- expected, + installed):"
	printf '%s\n' "$expected" | LC_ALL=C sort > "$tmp/want"
	printf '%s\n' "$got" > "$tmp/got"
	diff -u "$tmp/want" "$tmp/got" | sed -n '3,$p' || true
fi

# What the units and the helper start, and where.
cmp -s "$TOP_SRCDIR/contrib/ibsmd.conf" "$root/etc/ibsmd/ibsmd.conf" ||
    bad "etc/ibsmd/ibsmd.conf is not contrib/ibsmd.conf"
for want in 'ibsmd@.service:ExecStart=/usr/sbin/ibsmd --guid %i' \
    'ibsmd.service:ExecStart=/usr/libexec/ibsmd/ibsmd-instances start' \
    'ibsmd.service:ExecReload=/usr/libexec/ibsmd/ibsmd-instances reload'; do
	unit=${want%%:*} line=${want#*:}
	grep -qxF "$line" "$root/lib/systemd/system/$unit" ||
	    bad "$unit has no line '$line'"
done
for unit in "$root"/lib/systemd/system/*.service; do
	for prog in $(sed -n 's/^Exec[A-Za-z]*=-\{0,1\}\([^ ]*\).*/\1/p' "$unit"); do
		case $prog in
		/bin/kill) ;;	# procps, not ours
		/*) [ -x "$root$prog" ] ||
			bad "$(basename "$unit") runs $prog, not installed" ;;
		*) bad "$(basename "$unit") runs $prog: not an absolute path" ;;
		esac
	done
done
grep -qx 'IBSMD=${IBSMD:-/usr/sbin/ibsmd}' "$root/usr/libexec/ibsmd/ibsmd-instances" ||
    bad "ibsmd-instances does not default to /usr/sbin/ibsmd"

# The installed programs run, on the installed files.
if out=$("$root/usr/sbin/ibsmd" -n -c "$root/etc/ibsmd/ibsmd.conf" \
    -P "$tmp/no-partitions.conf" 2>&1); then
	echo "ok: installed ibsmd -n accepts the installed ibsmd.conf"
else
	bad "installed ibsmd -n rejects the installed ibsmd.conf: $out"
fi
printf '#!/bin/sh\necho 0x0002c90300001001\n' > "$tmp/ibsmd-stub"
chmod +x "$tmp/ibsmd-stub"
out=$(IBSMD=$tmp/ibsmd-stub "$root/usr/libexec/ibsmd/ibsmd-instances" list 2>&1) &&
    [ "$out" = 0x0002c90300001001 ] ||
    bad "installed ibsmd-instances list: '$out'"
"$root/usr/bin/ibsmctl" -h >/dev/null 2>&1 || bad "installed ibsmctl -h fails"

# systemd-analyze verify on the installed units: ExecStart= paths are
# resolved on this host, so a copy names the programs in the tree
# (--root would look for systemd's own units and /bin/kill there too).
if ! command -v systemd-analyze >/dev/null 2>&1; then
	echo "SKIP (part): systemd-analyze not found, installed units not verified (apt-get install systemd)"
else
	mkdir "$tmp/units"
	kill=/bin/kill
	[ -x "$kill" ] || kill=/bin/true	# procps not installed
	for unit in "$root"/lib/systemd/system/*.service; do
		sed -e "s|=/usr/|=$root/usr/|" -e "s|/bin/kill|$kill|" "$unit" \
		    > "$tmp/units/$(basename "$unit")"
	done
	cp "$tmp/units/ibsmd@.service" "$tmp/units/ibsmd@0x0002c90300001001.service"
	man=--man=yes
	command -v man >/dev/null 2>&1 || man=--man=no
	for unit in ibsmd.service ibsmd@.service ibsmd@0x0002c90300001001.service; do
		# The installed pages first, then the system's.
		if ! out=$(cd "$tmp/units" && MANPATH="$root/usr/share/man:" \
		    systemd-analyze verify "$man" "./$unit" 2>&1); then
			bad "systemd-analyze verify $unit failed: $out"
		elif [ -n "$out" ]; then
			bad "systemd-analyze verify $unit complained: $out"
		else
			echo "ok: systemd-analyze verify $unit (installed)"
		fi
	done
fi

# An administrator's ibsmd.conf survives make install and make uninstall.
echo '# edited' >> "$root/etc/ibsmd/ibsmd.conf"
# shellcheck disable=SC2086
mk install DESTDIR="$root" $layout
grep -qx '# edited' "$root/etc/ibsmd/ibsmd.conf" ||
    bad "make install overwrote an existing ibsmd.conf"
# shellcheck disable=SC2086
mk uninstall DESTDIR="$root" $layout
left=$(cd "$root" && find . -type f | LC_ALL=C sort)
[ "$left" = ./etc/ibsmd/ibsmd.conf ] ||
    bad "after make uninstall, files left: $(echo $left)"

# Another prefix: the units and the helper name its programs.
# shellcheck disable=SC2046
mk install DESTDIR="$tmp/opt" $(dirs /opt/ibsmd /opt/ibsmd/etc /opt/ibsmd/var \
    /opt/ibsmd/lib/systemd/system)
u=$tmp/opt/opt/ibsmd/lib/systemd/system
grep -qxF 'ExecStart=/opt/ibsmd/sbin/ibsmd --guid %i' "$u/ibsmd@.service" &&
    grep -qxF 'ExecStart=/opt/ibsmd/libexec/ibsmd/ibsmd-instances start' "$u/ibsmd.service" &&
    grep -qx 'IBSMD=${IBSMD:-/opt/ibsmd/sbin/ibsmd}' \
	"$tmp/opt/opt/ibsmd/libexec/ibsmd/ibsmd-instances" &&
    [ -x "$tmp/opt/opt/ibsmd/sbin/ibsmd" ] ||
    bad "with prefix=/opt/ibsmd the units or the helper do not name /opt/ibsmd"

[ $fail -eq 0 ] && echo "ok: install"
exit $fail
