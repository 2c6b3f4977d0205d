#!/bin/sh
# contrib/ibsmd-instances against a fake ibsmd (its --list-ports output is
# a file the test writes) and a fake systemctl (it logs its arguments and
# lists the instances a file names as running). No systemd needed.
set -eu

: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd_instances.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

cat > "$tmp/ibsmd" <<'EOS'
#!/bin/sh
[ "$1" = --list-ports ] || { echo "fake ibsmd: $*" >&2; exit 2; }
echo "$*" > "$T/ibsmd.args"
[ -f "$T/fail" ] && { echo "ibsmd: ibsmd.conf:1:8: ports: bad" >&2; exit 2; }
cat "$T/ports"
EOS
cat > "$tmp/systemctl" <<'EOS'
#!/bin/sh
case $1 in
list-units)
	for g in $(cat "$T/running"); do
		echo "ibsmd@$g.service loaded active running InfiniBand subnet manager on port $g"
	done
	;;
*)
	echo "$*" >> "$T/calls"
	;;
esac
EOS
chmod +x "$tmp/ibsmd" "$tmp/systemctl"

T=$tmp IBSMD=$tmp/ibsmd SYSTEMCTL=$tmp/systemctl
export T IBSMD SYSTEMCTL
run() { : > "$tmp/calls"; sh "$TOP_SRCDIR/contrib/ibsmd-instances" "$@"; }
A=0x0002c90300001001 B=0x0002c90300001002 C=0x0002c90300002001
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass_if() {	# what, command: ok when the command succeeds
	what=$1
	shift
	if "$@"; then echo "ok: $what"; else fail "$what"; fi
}
not() { ! "$@"; }
calls_are() {	# what, expected calls (one per line)
	if [ "$(cat "$tmp/calls")" = "$2" ]; then
		echo "ok: $1"
		return
	fi
	fail "$1: systemctl calls were:"
	sed 's/^/    /' "$tmp/calls"
	echo "  expected:"
	printf '%s\n' "$2" | sed 's/^/    /'
}

printf '%s\n%s\n' "$B" "$A" > "$tmp/ports"
: > "$tmp/running"
run start
calls_are "start starts every listed port" "start --no-block ibsmd@$A.service
start --no-block ibsmd@$B.service"

echo "$A $C" > "$tmp/running"
run reload 2> "$tmp/err"
calls_are "reload stops what is no longer listed, starts the rest" \
    "stop --no-block ibsmd@$C.service
start --no-block ibsmd@$A.service
start --no-block ibsmd@$B.service"
pass_if "reload says what it stops" grep -q "stopping ibsmd@$C.service" \
    "$tmp/err"

pass_if "list" test "$(run list)" = "$A
$B"
IBSMD_CONF=/etc/other.conf run list > /dev/null
pass_if "IBSMD_CONF is passed as -c" \
    test "$(cat "$tmp/ibsmd.args")" = "--list-ports -c /etc/other.conf"

: > "$tmp/ports"
run start 2> "$tmp/err"
calls_are "no port: nothing started" ""
pass_if "no port: it says so" grep -q "no port" "$tmp/err"

# Anything wrong with the list: nothing at all is started or stopped.
touch "$tmp/fail"
pass_if "--list-ports fails: reload fails" not run reload 2> "$tmp/err"
rm "$tmp/fail"
calls_are "--list-ports fails: no change" ""
printf '%s\n%s\n' "$A" "eth0" > "$tmp/ports"
pass_if "a line that is not a GUID: start fails" not run start 2> "$tmp/err"
calls_are "a line that is not a GUID: no change" ""
pass_if "the bad line is named" grep -q "'eth0', not a port GUID" "$tmp/err"
printf '%s\n' '*' > "$tmp/ports"
pass_if "a glob is not a GUID" not run start 2> "$tmp/err"
calls_are "a glob: no change" ""
pass_if "unknown command refused" not run bogus 2> /dev/null

[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }
