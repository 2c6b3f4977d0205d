#!/bin/sh
# Every manual page renders without a warning (man --warnings), and its
# rendered text has no glued words, the mark of broken alternating-font
# markup (".IR a b c" glues "b" to what follows): no ")" or ";" directly
# followed by a letter, no word that starts in lower case and runs on
# into capitals and lower case again ("theSMitpolls"), no font escape or
# request shown as text.
set -u
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
command -v man >/dev/null || { echo "man_pages: SKIP: man not installed"; exit 77; }
command -v col >/dev/null || { echo "man_pages: SKIP: col not installed"; exit 77; }
t=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-man.XXXXXX") || exit 99
trap 'rm -rf "$t"' EXIT
bad=0
n=0
for page in "$top"/man/*.[0-9]; do
	[ -e "$page" ] || continue
	n=$((n + 1))
	name=$(basename "$page")
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$page" \
	    >"$t/out" 2>"$t/warn"
	if [ -s "$t/warn" ]; then
		echo "man_pages: FAIL: $name: man --warnings says:"
		sed 's/^/  /' "$t/warn"
		bad=1
	fi
	col -b <"$t/out" >"$t/text"
	if grep -nE '[);][A-Za-z]|(^|[^A-Za-z])[a-z]{2,}[A-Z]{2,}[a-z]{2,}|\\f[BIRP]|^[[:space:]]*\.(B|I|BR|RB|IR|RI|BI|IB|TP|PP|SH)( |$)' \
	    "$t/text" >"$t/glued"; then
		echo "man_pages: FAIL: $name: glued words or markup shown as text:"
		sed 's/^/  /' "$t/glued"
		bad=1
	fi
done
[ "$n" -gt 0 ] || { echo "man_pages: FAIL: no page in $top/man"; exit 1; }
[ "$bad" = 0 ] && echo "man_pages: $n pages render cleanly, no glued words"
exit "$bad"
