#!/usr/bin/env bash
# ctest/check-format.sh on a scratch repository (ctest repo.format_untracked): a new file git does
# not track yet is checked, and --fix formats it; an ignored file is left alone.
#   ctest/expect-check-format.sh SOURCE_DIR   (CLANG_FORMAT names the formatter)
set -u
source_dir=${1:?usage: expect-check-format.sh SOURCE_DIR}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "expect-check-format: FAIL: $*"; printf '%s\n' "${output:-}"; exit 1; }
cd "$scratch" || exit 1
git init -q . && git config user.email t@example.com && git config user.name test
mkdir ctest build new
cp "$source_dir/ctest/check-format.sh" ctest/
cp "$source_dir/.clang-format" .
echo "build/" > .gitignore
printf 'int tracked() { return 1; }\n' > tracked.cpp
git add -A && git commit -qm scratch
unformatted='int   untracked( ) {return 2;}'
printf '%s\n' "$unformatted" > new/untracked.hpp
printf '%s\n' "$unformatted" > build/ignored.cpp

output=$(bash ctest/check-format.sh 2>&1); code=$?
[ "$code" = 1 ] || fail "an unformatted untracked file: exit $code, expected 1"
grep -q 'new/untracked.hpp' <<<"$output" || fail "the untracked file is not named"
grep -q 'ignored.cpp' <<<"$output" && fail "an ignored file was checked"
output=$(bash ctest/check-format.sh --fix 2>&1) || fail "--fix failed"
[ "$(cat new/untracked.hpp)" != "$unformatted" ] || fail "--fix left the untracked file as it was"
[ "$(cat build/ignored.cpp)" = "$unformatted" ] || fail "--fix rewrote an ignored file"
rm tracked.cpp  # a tracked file deleted from the work tree is not an error
output=$(bash ctest/check-format.sh 2>&1) || fail "after --fix the check still fails"
echo "expect-check-format: ok: untracked files are checked and fixed, ignored ones left alone"
