#!/bin/bash
# tests/sim/promcheck.py, the exposition-format checker of the /metrics
# test, refuses what Prometheus would: each body below has one mistake.
set -u
: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
PC=$TOP_SRCDIR/tests/sim/promcheck.py
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
good='# HELP a_total An a.
# TYPE a_total counter
a_total{guid="0x1",port="1"} 3
a_total{guid="0x1",port="2"} 4
# TYPE b gauge
b{x="q\"u\\o\nte"} -1.5e3
b{x="y"} NaN
'
printf '%s' "$good" >"$T/good"
python3 "$PC" "$T/good" || { echo "a valid body refused"; exit 1; }
[ "$(python3 "$PC" "$T/good" 'a_total{port="2",guid="0x1"}' 'a_total{guid="9"}')" = "4
absent" ] || { echo "lookup wrong"; exit 1; }
n=0
while IFS= read -r bad; do
	printf '%b' "$bad" >"$T/bad"
	if python3 "$PC" "$T/bad" 2>/dev/null; then
		echo "accepted: $bad"
		exit 1
	fi
	n=$((n + 1))
done <<'EOF'
a 1
# TYPE a counter\na -1\n
# TYPE a counter\n# TYPE a counter\na 1\n
# TYPE a bogus\na 1\n
a{x="1"} 1\na{x="1"} 2\n
a 1\nb 2\na 3\n
a 1\n# TYPE a gauge\n
a{__x="1"} 1\n
a{x="\\q"} 1\n
a{x=1} 1\n
a 1 2 3\n
a one\n
9a 1\n
a{x="1"}1\n
a 1\r\n
EOF
echo "promcheck: a valid body passes, $n with one mistake each refused"
