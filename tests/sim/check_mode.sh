#!/bin/bash
# ibsmd -n and -nv: configuration and partitions checked without a fabric.
#
# No simulator: only files in $T, named with -c (configuration) and -P
# (partitions); -n needs no port, and says nothing about one.
#   - a valid pair: -n exits 0 and prints nothing;
#   - a partitions file with four mistakes: -n exits 1 and stderr holds
#     exactly four errors, each as file:line:col, in file order;
#   - a configuration with five mistakes (unknown option with "did you
#     mean", out of range, not among the allowed names, a quoted number,
#     an unknown routing engine in a list), and one with an option set
#     twice and a YAML syntax error: exit 1, every error as file:line:col;
#     -c naming a missing file: exit 1, naming it;
#   - -nv on the valid pair prints the configuration, every option with
#     its source (default, -c file and line, command line), then the
#     normalized policy; each half is itself valid input (-n exits 0 on
#     it), and the policy printed again from the printed policy is the
#     same text (normalizing is idempotent);
#   - -nv on a broken file prints nothing on stdout;
#   - the QoS policy file (qos_policy_file): not read with qos off; with
#     two mistakes, exit 1 and both as file:line:col; -nv prints it
#     normalized, and printed again from that it is the same text.
. "$(dirname "$0")/lib.sh"
[ "$SM" = ibsmd ] || skip "-n and -nv are ibsmd's"
[ -x "$IBSMD" ] || fail "IBSMD=$IBSMD is not an executable (build ibsmd first)"
# Files are named relative to $T, where the test works: errors then name
# them exactly as written here.
IBSMD=$(cd "$(dirname "$IBSMD")" && pwd)/$(basename "$IBSMD")

# nck RC ARGS...: ibsmd ARGS with stdout in $T/out, stderr in $T/err; fail
# unless it exits RC. No simulator, no preload: -n needs no port.
nck() {
	local want=$1 rc
	shift
	env -u LD_PRELOAD "$IBSMD" "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	[ "$rc" = "$want" ] || fail "ibsmd $* exited $rc, not $want: $(head -5 "$T/err")"
}
# errors_are FILE: stderr is exactly the lines of FILE (in order).
errors_are() {
	diff -u "$1" "$T/err" >&2 || fail "the errors are not the expected ones"
}

cd "$T" || fail "cannot cd to $T"

cat >ok.yaml <<'EOF'
# a valid configuration
sm_priority: 7
sweep_interval: 2.5
routing_engine: [ftree, minhop]
log_level: warn
allow_both_pkeys: true
EOF
cat >ok.conf <<'EOF'
# a valid partitions file, with ibsmd's additions (a GUID range, a node
# description) and a partition over two statements
Default=0x7fff, ipoib : ALL=full;
storage=0x0010, ipoib, mtu=5, rate=16 :
	0x0002c90300001000-0x0002c903000010ff=full,
	"compute[0-9][0-9][0-9] HCA-1";
backup=0x0020, defmember=full : 0x0002c90300000041, SELF;
backup=0x0020 : 0x0002c90300000042=both;
EOF

# ---- valid
nck 0 -n -c ok.yaml -P ok.conf
[ ! -s "$T/out" ] && [ ! -s "$T/err" ] || fail "-n on valid files printed: $(cat "$T/out" "$T/err" | head -5)"
log "-n: valid configuration and partitions, exit 0, silent"

# ---- a broken partitions file
cat >bad.conf <<'EOF'
# four mistakes
Default=0x7fff, ipoib : ALL=full;
storage=0x0010, mtu=9 : 0x0002c90300001000=limi;
backup=0x0000 : SELF;
extra=0x0030 : 0x0002c9030000zz42;
EOF
nck 1 -n -c ok.yaml -P bad.conf
cat >want <<'EOF'
bad.conf:3:21: bad mtu '9': expected an MTU code, 1 (256 bytes) to 5 (4096 bytes)
bad.conf:3:44: bad membership 'limi': expected full, limited or both (did you mean 'limited'?)
bad.conf:4:8: bad P_Key '0x0000': its low 15 bits must not be 0
bad.conf:5:16: bad GUID '0x0002c9030000zz42': not a number
EOF
errors_are want
nck 1 -nv -c ok.yaml -P bad.conf
errors_are want
[ ! -s "$T/out" ] || fail "-nv on a broken partitions file printed on stdout: $(head -3 "$T/out")"
log "-n: a partitions file with four mistakes, exit 1, all four as file:line:col"

# ---- broken configurations
cat >bad.yaml <<'EOF'
# five mistakes
sm_priorty: 7
sweep_interval: -1
routing_engine: [ftree, bogus]
log_level: verbose
sm_priority: "7"
EOF
nck 1 -n -c bad.yaml -P ok.conf
cat >want <<'EOF'
bad.yaml:2:1: unknown option "sm_priorty" (did you mean sm_priority?)
bad.yaml:3:17: sweep_interval: -1 is out of range (0 for off, or 0.1 to 86400 seconds)
bad.yaml:4:25: routing_engine: "bogus" is not one of ftree, updn, minhop, dfsssp
bad.yaml:5:12: log_level: "verbose" is not one of error, warn, info, debug
bad.yaml:6:14: sm_priority: expected an integer, got the string "7" (write it without quotes)
EOF
errors_are want
printf 'sm_priority: 3\nsm_priority: 4\nlog_level: [a\n' >bad2.yaml
nck 1 -n -c bad2.yaml -P ok.conf
grep -q '^bad2.yaml:2:1: sm_priority: set twice (first on line 1)$' "$T/err" ||
    fail "an option set twice: $(cat "$T/err")"
grep -q '^bad2.yaml:4:1: YAML syntax: ' "$T/err" || fail "a YAML syntax error: $(cat "$T/err")"
[ "$(wc -l <"$T/err")" = 2 ] || fail "bad2.yaml: not two errors: $(cat "$T/err")"
nck 1 -n -c missing.yaml -P ok.conf
grep -q 'missing.yaml' "$T/err" || fail "-c of a missing file does not name it: $(cat "$T/err")"
log "-n: configurations with mistakes, exit 1, every error as file:line:col"

# ---- -nv
nck 0 -nv -c ok.yaml -P ok.conf
[ ! -s "$T/err" ] || fail "-nv on valid files wrote on stderr: $(head -3 "$T/err")"
cp "$T/out" nv
for want in \
    '^# -c file: ok.yaml$' \
    '^sm_priority: 7  *# -c file, line 2$' \
    '^sweep_interval: 2.5  *# -c file, line 3$' \
    '^routing_engine: \[ftree, minhop\]  *# -c file, line 4$' \
    '^allow_both_pkeys: true  *# -c file, line 6$' \
    '^partitions_file: ok.conf  *# command line$' \
    '^smp_retries: 3  *# default$' \
    '^# partitions: ok.conf$' \
    '^storage=0x0010, ipoib, mtu=5, rate=16 :$' \
    '^	"compute\[0-9\]\[0-9\]\[0-9\] HCA-1"=limited;$' \
    '^	0x0002c90300000042=both;$' \
    '^Default=0x7fff, ipoib :$'; do
	grep -q -- "$want" nv || fail "-nv has no line matching $want"
done
# the configuration half, then the policy half, as input again
sed -n '/^$/q;p' nv >nv.yaml
sed -n '/^# partitions: /,$p' nv >nv.conf
[ -s nv.yaml ] && [ -s nv.conf ] || fail "cannot split -nv's output"
nck 0 -n -c nv.yaml -P ok.conf
nck 0 -nv -c ok.yaml -P nv.conf
sed -n '/^# partitions: /,$p' "$T/out" | tail -n +2 >nv2.conf
tail -n +2 nv.conf | diff -u - nv2.conf >&2 || fail "-nv of -nv's policy is not the same text"
nck 0 -nv -c nv.yaml -P ok.conf
sed -n '/^$/q;p' "$T/out" | sed 's/ *#.*//' >nv2.yaml
sed 's/ *#.*//' nv.yaml | diff -u - nv2.yaml >&2 || fail "-nv of -nv's configuration has other values"
log "-nv: options with their sources, the normalized policy; both are valid input, normalizing is idempotent"

# ---- the QoS policy file (issue 27 point 2): read with qos on only,
# checked against the partitions, every error as file:line:col, -nv prints
# it normalized and that text reads back to itself
cat >qos.conf <<'EOF'
port-groups
    port-group
        name: Storage Targets
        partition: storage
        port-name: "stor1 HCA-1/P1"
    end-port-group
end-port-groups
qos-levels
    qos-level
        name: DEFAULT
        sl: 1
    end-qos-level
    qos-level
        name: stor
        sl: 5
        mtu-limit: 4
    end-qos-level
end-qos-levels
qos-match-rules
    qos-match-rule
        destination: storagetargets
        qos-level-name: STOR
    end-qos-match-rule
end-qos-match-rules
qos-ulps
    ipoib, pkey 0x0010 : 3
end-qos-ulps
EOF
cat >qos_bad.conf <<'EOF'
qos-levels
    qos-level
        name: DEFAULT
        sl: 16
    end-qos-level
end-qos-levels
port-groups
    port-group
        name: g
        partition: nosuch
    end-port-group
end-port-groups
EOF
nck 0 -n -c ok.yaml -P ok.conf -O qos_policy_file=qos_bad.conf
nck 1 -n -c ok.yaml -P ok.conf -O qos=true -O qos_policy_file=qos_bad.conf
cat >want <<'EOF'
qos_bad.conf:4:13: bad sl '16': expected 0 to 15
qos_bad.conf:10:20: partition 'nosuch' is not in the partitions file
EOF
errors_are want
nck 1 -nv -c ok.yaml -P ok.conf -O qos=true -O qos_policy_file=qos_bad.conf
[ ! -s "$T/out" ] || fail "-nv on a broken QoS policy printed on stdout: $(head -3 "$T/out")"
nck 0 -nv -c ok.yaml -P ok.conf -O qos=true -O qos_policy_file=qos.conf
[ ! -s "$T/err" ] || fail "-nv on a valid QoS policy wrote on stderr: $(head -3 "$T/err")"
grep -q '^# qos: on; qos_policy_file qos.conf: 1 port groups' "$T/out" ||
    fail "-nv does not say the QoS policy was read: $(grep qos "$T/out")"
sed -n '/^# qos: /,$p' "$T/out" >nvq.conf
for want in '^        partition: storage$' '^        qos-level-name: stor$' \
    '^    ipoib, pkey 0x0010 : 3$' '^# default level: DEFAULT (SL 1)$'; do
	grep -q -- "$want" nvq.conf || fail "-nv's QoS policy has no line matching $want"
done
nck 0 -nv -c ok.yaml -P ok.conf -O qos=true -O qos_policy_file=nvq.conf
sed -n '/^# qos: /,$p' "$T/out" | tail -n +2 >nvq2.conf
tail -n +2 nvq.conf | diff -u - nvq2.conf >&2 || fail "-nv of -nv's QoS policy is not the same text"
log "QoS policy: not read with qos off; two mistakes, exit 1, both as file:line:col; -nv normalized and idempotent"
exit 0
