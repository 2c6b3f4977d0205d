#!/bin/sh
# Every file a build and make check leave in the build tree is one
# .gitignore ignores, so that a build in the source tree (the Debian
# package's) leaves git status clean. Skipped outside a git checkout (a
# release tarball).
set -u
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
build=${TOP_BUILDDIR:-$PWD}
command -v git >/dev/null || { echo "gitignore: SKIP: no git"; exit 77; }
git -C "$top" rev-parse --git-dir >/dev/null 2>&1 ||
    { echo "gitignore: SKIP: $top is not a git checkout"; exit 77; }
cd "$build" || exit 99
# what make built (programs, objects, libraries, the fixture) and what
# configure wrote; not the tests' own temporary files
bad=$(find . -type f ! -path './sys-*' ! -path './tests/*/*.log' \
    ! -path './tests/*/*.trs' ! -name '*.tmp' | sed 's|^\./||' |
    while read -r f; do
	git -C "$top" check-ignore -q --no-index "$f" || echo "$f"
    done)
if [ -n "$bad" ]; then
	echo "gitignore: FAIL: .gitignore does not cover:"
	echo "$bad" | sed 's/^/  /'
	exit 1
fi
echo "gitignore: every file of the build tree is ignored"
