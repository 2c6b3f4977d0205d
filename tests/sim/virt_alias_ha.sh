#!/bin/bash
# VF alias GUIDs across a takeover. Each ibsmd keeps its own alias_guids
# in its own state directory: the standby s never saw the Sets its master
# m answered, so it must learn them from the adapter (discovery reads
# GUIDInfo of alias-capable ports) and adopt them, not overwrite them.
#
# ft2_8 with a simulated alias-capable HCA on h1 (tests/fixture/vdev.c,
# GUIDCap 32); m (priority 12) on h0 and s (priority 5) on h17, both with
# virtualization enabled. h1 asks m for 7 alias GUIDs with 0 (guidreq);
# smpquery reads them from the adapter. m is killed; once sminfo says s
# is MASTER: the adapter still holds the same GUIDs, s's alias_guids file
# has them active, a Set of 0 at the same indices (sent to s) gives the
# same GUIDs back, a Set of 0 at a new index gets a GUID none of them
# has, and s's status counts them as adopted. With virtualization off a
# standby would not read the table (virt_alias_dev.sh and check_discover
# cover what is read when).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vdev_lib.sh"
. "$(dirname "$0")/ha_lib.sh"
skip_unless_sim
skip_unless_vdev
ha_skip_unless

POLL="-O sm_poll_interval=0.5 -O sm_poll_retries=3"
H1=0,1,2
guids() { printf '%s\n' "$1" | awk '$1 ~ /^[0-7]$/ { printf "%s ", $2 }'; }
device() {
	diag smpquery -D GI $H1 2>/dev/null |
	    awk -v b="$1" '$1 ~ /:$/ { i = substr($1, 1, length($1) - 1) + 0;
	        if (i >= b * 8 && i < b * 8 + 8) printf "%s %s ", $2, $3 }'
}
wait_device() { # BLOCK WANT
	local i got
	for i in $(seq 1 40); do
		got=$(device "$1")
		[ "$got" = "$2" ] && return 0
		sleep 0.5
	done
	fail "device block $1 reads '$got', want '$2'"
}

sim_start "$FABRICS/ft2_8.net"
vdev_start h1 -g 32
ha_start m h0 -p 12 --virtualization enabled $POLL
ha_wait_up m 60
ha_start s h17 -p 5 --virtualization enabled $POLL
ha_wait_state s STANDBY 60
read -r guid_s lid_s <<<"$(ha_port h17)"
[ -n "$lid_s" ] || fail "no LID for h17"

out=$(guidreq h1 set 0 1=0 2=0 3=0 4=0 5=0 6=0 7=0) || fail "Set block 0 to m: $out"
b0=$(guids "$out")
log "m gave block 0: $b0"
[ "$(printf '%s\n' $b0 | sed 1d | grep -vc '^0x0000000000000000$')" = 7 ] || fail "not 7 alias GUIDs: $b0"
wait_device 0 "$b0"
grep -q 0x0014 "$T/s/state/alias_guids" 2>/dev/null &&
    fail "the standby's file knows alias GUIDs before the takeover"

ha_kill m
ha_wait_sminfo "$lid_s" SMINFO_MASTER 30
ha_wait_up s 30
log "s is MASTER"
wait_device 0 "$b0"
for i in $(seq 1 20); do
	n=$(awk '$4 == "active"' "$T/s/state/alias_guids" 2>/dev/null | wc -l)
	[ "$n" = 7 ] && break
	sleep 0.25
done
[ "$n" = 7 ] || fail "s's alias_guids has $n active entries, want 7: $(cat "$T/s/state/alias_guids" 2>&1)"
for g in $(printf '%s\n' $b0 | sed 1d); do
	grep -q "$g active" "$T/s/state/alias_guids" || fail "s's alias_guids lacks $g"
done
out=$(guidreq h1 -S "$lid_s" set 0 1=0 2=0 3=0 4=0 5=0 6=0 7=0) || fail "Set block 0 to s: $out"
[ "$(guids "$out")" = "$b0" ] || fail "after the takeover: $(guids "$out"), before: $b0"
out=$(guidreq h1 -S "$lid_s" set 1 0=0) || fail "Set block 1 to s: $out"
new=$(printf '%s\n' "$out" | awk '$1 == 0 { print $2 }')
[ -n "$new" ] && [ "$new" != 0x0000000000000000 ] || fail "no GUID for index 8: $(guids "$out")"
case " $b0 " in *" $new "*) fail "s gave $new again, already index $(printf '%s\n' $b0 | grep -n "$new")" ;; esac
wait_device 0 "$b0"
n=$(ha_status s alias_guids adopted)
[ "$n" -ge 7 ] || fail "s's status: $n adopted, want 7 or more"
log "s adopted $n alias GUIDs from the adapter, gave $new to a new index; PASS"
