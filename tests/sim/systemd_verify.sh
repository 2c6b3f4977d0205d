#!/bin/sh
# systemd-analyze verify on contrib/systemd/*.service (the template both as
# such and as a real instance), in a temporary copy whose ExecStart= paths
# point at files that exist here, and whose Documentation= pages are the
# ones in man/. Any message from systemd-analyze fails the test: it reports
# unknown keys only as warnings. Needs no simulator, no root; skips (77)
# without systemd-analyze (Debian: apt-get install systemd).
set -eu

: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
IBSMD_GIVEN=${IBSMD:-}	# set by make check: then the daemon must exist
: "${IBSMD:=./ibsmd}"

if ! command -v systemd-analyze >/dev/null 2>&1; then
	echo "SKIP: systemd-analyze not found (apt-get install systemd)"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/systemd_verify.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# The programs the units run, where this build has them.
ibsmd=$IBSMD
case $ibsmd in /*) ;; *) ibsmd=$(pwd)/$ibsmd ;; esac
# Under make check the daemon must be there: verifying the units against a
# stand-in would pass with the real ExecStart broken.
if [ ! -x "$ibsmd" ]; then
	[ -z "${IBSMD_GIVEN:-}" ] || { echo "systemd_verify: no ibsmd at $ibsmd" >&2; exit 1; }
	ibsmd=/bin/true
fi
cp "$TOP_SRCDIR/contrib/ibsmd-instances" "$tmp/ibsmd-instances"
chmod +x "$tmp/ibsmd-instances"
kill=/bin/kill
[ -x "$kill" ] || kill=/bin/true	# procps not installed

mkdir "$tmp/units" "$tmp/man" "$tmp/man/man5" "$tmp/man/man8"
cp "$TOP_SRCDIR/man/ibsmd.8" "$tmp/man/man8/"
cp "$TOP_SRCDIR/man/ibsmd.conf.5" "$tmp/man/man5/"
for unit in "$TOP_SRCDIR"/contrib/systemd/*.service; do
	sed -e "s|/usr/sbin/ibsmd|$ibsmd|g" \
	    -e "s|/usr/libexec/ibsmd/ibsmd-instances|$tmp/ibsmd-instances|g" \
	    -e "s|/bin/kill|$kill|g" \
	    "$unit" > "$tmp/units/$(basename "$unit")"
done
cp "$tmp/units/ibsmd@.service" "$tmp/units/ibsmd@0x0002c90300001001.service"

# Documentation=man:... is checked with man(1) when there is one.
man=--man=yes
command -v man >/dev/null 2>&1 || man=--man=no

status=0
for unit in ibsmd.service ibsmd@.service ibsmd@0x0002c90300001001.service; do
	# Our pages first, then the system's (for systemd.service(5) & co).
	if ! out=$(cd "$tmp/units" && MANPATH="$tmp/man:" \
	    systemd-analyze verify "$man" "./$unit" 2>&1); then
		echo "FAIL: systemd-analyze verify $unit failed:"
		status=1
	elif [ -n "$out" ]; then
		echo "FAIL: systemd-analyze verify $unit complained:"
		status=1
	else
		echo "ok: $unit"
	fi
	[ -z "$out" ] || printf '%s\n' "$out" | sed "s|$tmp/units/||g"
done
exit $status
