#!/bin/sh
# The floors of ARCHITECTURE.md, checked on every #include:
#   core/                          includes only core/
#   mad/ routing/ partitions/ config/  include only core/ and their own folder
#   core/ routing/ partitions/ config/ never include libev or libibumad
#   sa/ includes only core/, mad/, partitions/, mcast/ and sa/
#   mcast/ includes only core/ and mcast/, never libev or libibumad
#   ctl/ (ibsmctl, and the command table sm/ shares) includes only ctl/,
#       and neither libev nor libibumad: ibsmctl links no floor
#   every project include is spelled with its folder ("core/fabric.h")
# Prints each violation as file:line: what is wrong, and fails if any.
set -u
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 99

bad=0
for f in core/*.[ch] mad/*.[ch] routing/*.[ch] partitions/*.[ch] config/*.[ch] \
    mcast/*.[ch] sa/*.[ch] sm/*.[ch] ctl/*.[ch]; do
	[ -e "$f" ] || continue
	floor=${f%%/*}
	# line number and the included name, quoted or angled
	out=$(awk -v floor="$floor" -v f="$f" '
	/^[ \t]*#[ \t]*include[ \t]*"/ {
		match($0, /"[^"]*"/)
		inc = substr($0, RSTART + 1, RLENGTH - 2)
		if (inc == "autoconfig.h") next
		if (index(inc, "/") == 0) {
			printf "%s:%d: \"%s\" is not spelled with its folder\n", f, NR, inc
			next
		}
		dir = inc; sub(/\/.*/, "", dir)
		if (floor == "core" && dir != "core")
			printf "%s:%d: core/ includes \"%s\" from outside core/\n", f, NR, inc
		else if (floor == "ctl" && dir != "ctl")
			printf "%s:%d: ctl/ includes \"%s\": ibsmctl links nothing outside ctl/\n", f, NR, inc
		else if (floor == "sa") {
			if (dir != "core" && dir != "mad" && dir != "partitions" && dir != "mcast" && dir != "sa")
				printf "%s:%d: sa/ includes \"%s\": only core/, mad/, partitions/ and mcast/ are below it\n", f, NR, inc
		} else if (floor != "core" && floor != "sm" && dir != "core" && dir != floor)
			printf "%s:%d: %s/ includes \"%s\": only core/ and %s/ are below it\n", f, NR, floor, inc, floor
		next
	}
	/^[ \t]*#[ \t]*include[ \t]*<(ev\.h|infiniband\/umad)/ {
		if (floor == "core" || floor == "routing" || floor == "partitions" || floor == "config" || floor == "mcast" || floor == "ctl") {
			match($0, /<[^>]*>/)
			printf "%s:%d: %s/ does no I/O on the loop or the port, yet includes %s\n", f, NR, floor, substr($0, RSTART, RLENGTH)
		}
	}' "$f")
	if [ -n "$out" ]; then
		printf '%s\n' "$out"
		bad=1
	fi
done

if [ "$bad" = 0 ]; then
	echo "layers: every include respects the floors"
	exit 0
fi
exit 1
