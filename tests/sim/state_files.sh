#!/bin/bash
# A state file that is not a regular file is reported and neither read nor
# replaced blindly (issue 13 point 7). ft2_8, three starts of ibsmd whose
# state directory's guid2lid is in turn a symbolic link to /dev/zero (read,
# it would never end), a FIFO without a writer (opened, it would block the
# daemon) and a directory. Each time the subnet must come up and fabcheck
# find it right; the log must say why guid2lid was not read; and the link,
# the FIFO and the directory must still be there, untouched.
. "$(dirname "$0")/lib.sh"
skip_unless_sim
[ "$SM" = ibsmd ] || skip "ibsmd's state directory"

sim_start "$FABRICS/ft2_8.net"
mkdir -p "$T/state"
G=$T/state/guid2lid
for kind in zero fifo dir; do
	rm -rf "$G"
	case $kind in
	zero) ln -s /dev/zero "$G"; want='a character device' ;;
	fifo) mkfifo "$G"; want='a FIFO' ;;
	dir) mkdir "$G"; want='a directory' ;;
	esac
	sm_start -c /dev/null -P /dev/null -R ftree --sweep-interval 1
	wait_subnet_up 30
	fabcheck --updown >/dev/null || fail "$kind: fabric wrong"
	grep -q "cannot read $G: not a regular file ($want); starting with no remembered LIDs" "$SM_LOG" ||
	    fail "$kind: no line says why guid2lid was not read: $(grep guid2lid "$SM_LOG" | tail -2)"
	poll_until 10 grep -q "cannot save $G: not a regular file ($want): not replaced" "$SM_LOG" >/dev/null ||
	    fail "$kind: no line says guid2lid is not replaced"
	sleep 2         # more sweeps: the warning is not repeated
	n=$(grep -c "cannot save $G" "$SM_LOG")
	[ "$n" -eq 1 ] || fail "$kind: 'cannot save' logged $n times"
	case $kind in
	zero) [ "$(readlink "$G")" = /dev/zero ] || fail "the link to /dev/zero was replaced" ;;
	fifo) [ -p "$G" ] || fail "the FIFO was replaced" ;;
	dir) [ -d "$G" ] || fail "the directory was replaced" ;;
	esac
	sm_stop || fail "$kind: ibsmd did not exit cleanly"
	mv "$SM_LOG" "$T/ibsmd.$kind.log"
	log "guid2lid as $want: reported, not read, not replaced; subnet up"
done
