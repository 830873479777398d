#!/usr/bin/env bash
# Test of how `quickstart.sh test` installs what CMake reports missing, with stand-ins for
# cmake, ctest, apt-get, sudo and id on a PATH that holds nothing else, so no package is
# installed and no privilege is used. No GPU needed. The rules (quickstart.sh's header):
#  - as a user, only the package install is privileged: sudo apt-get, when sudo can ask for a
#    password (a terminal) or needs none;
#  - without a usable sudo, or with --no-install, the exact apt-get command is printed and
#    nothing is installed (exit 1);
#  - as root in a container, apt-get itself;
#  - under sudo, nothing runs (exit 2): the build tree would belong to root.
#   expect-quickstart-install.sh SOURCE_DIR
set -uo pipefail
source_dir=${1:?usage: expect-quickstart-install.sh SOURCE_DIR}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
bin=$scratch/bin
mkdir -p "$bin"
for tool in awk basename cat dirname env fold grep mkdir nproc rm sed tail tee touch; do
  ln -s "$(command -v "$tool")" "$bin/$tool"
done
stub() {  # stub NAME BODY
  printf '#!%s\n%s\n' "$(command -v bash)" "$2" > "$bin/$1"
  chmod +x "$bin/$1"
}
log=$scratch/calls.log
stub id '[ "$1" = -u ] && echo "${FAKE_UID:-1000}"'
stub c++ 'exit 0'
stub ninja 'exit 0'
stub nvcc 'exit 0'
# configure fails, naming two packages, until apt-get has installed them
stub cmake "echo \"cmake \$*\" >> '$log'
[ \"\$1\" = --build ] && exit 0
while [ \$# -gt 0 ]; do [ \"\$1\" = -B ] && dir=\$2; shift; done
[ -f '$scratch/installed' ] && exit 0
echo 'libcli11-dev nlohmann-json3-dev' > \"\$dir/missing-debian-packages.txt\"
echo 'CMake Error at common/cmake/HipLessonsDependencies.cmake:41 (message):'
echo '-- Configuring incomplete, errors occurred!'
exit 1"
stub ctest 'echo "100% tests passed, 0 tests failed out of 3"'
stub apt-get "echo \"uid \${FAKE_UID:-1000}: apt-get \$*\" >> '$log'
[ \"\$1\" = install ] && touch '$scratch/installed'
exit 0"
# sudo -n true answers as SUDO_WORKS says (0: no password needed)
stub sudo "if [ \"\$1\" = -n ]; then exit \${SUDO_WORKS:-0}; fi
echo \"sudo \$*\" >> '$log'
FAKE_UID=0 exec \"\$@\""

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# run NAME WANT_CODE [VAR=value...] -- [quickstart arguments...]: runs quickstart.sh test with
# stdin from /dev/null (no terminal), leaving its output in $output and the calls in $calls.
run() {
  local name=$1 want=$2 code; shift 2
  local settings=()
  while [ "$1" != -- ]; do settings+=("$1"); shift; done
  shift
  rm -rf "$scratch/build" "$scratch/installed" "$log"
  mkdir -p "$scratch/build"
  : > "$log"
  output=$(env -i PATH="$bin" HOME="$scratch" ${settings[@]+"${settings[@]}"} \
           "$(command -v bash)" "$source_dir/ctest/quickstart.sh" test --platform nvidia \
           --build-dir "$scratch/build" "$@" 2>&1 </dev/null)
  code=$?
  calls=$(cat "$log")
  current=$name
  [ "$code" = "$want" ] || fail "$name: exit $code, expected $want; output:"$'\n'"$output"
}
# Here-strings, not `printf | grep -q`: grep -q exits at its first match, the writer's next line
# then meets a closed pipe, and under pipefail a match reads as a miss (seen failing in CI).
has() { grep -qF -- "$2" <<<"$1" || fail "$current: no '$2' in:"$'\n'"$1"; }
lacks() { ! grep -qF -- "$2" <<<"$1" || fail "$current: '$2' in:"$'\n'"$1"; }
command_line='sudo apt-get install libcli11-dev nlohmann-json3-dev'

before=$failures
run "user, sudo without a password" 0 FAKE_UID=1000 SUDO_WORKS=0 --
has "$calls" "sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libcli11-dev nlohmann-json3-dev"
has "$calls" "uid 0: apt-get install"
lacks "$calls" "uid 1000: apt-get"
has "$output" "3 passed, 0 failed, 0 skipped"
# Missing packages are a line of the quick start's, not CMake's error of the first configure.
has "$output" "configure stopped: these Debian packages are missing: libcli11-dev nlohmann-json3-dev"
lacks "$output" "CMake Error"
lacks "$output" "Configuring incomplete"
[ "$failures" = "$before" ] && echo "ok    $current"

before=$failures
run "user, sudo needs a password, no terminal" 1 FAKE_UID=1000 SUDO_WORKS=1 --
has "$output" "$command_line"
lacks "$calls" "apt-get"
[ "$failures" = "$before" ] && echo "ok    $current"

before=$failures
run "user, --no-install" 1 FAKE_UID=1000 SUDO_WORKS=0 -- --no-install
has "$output" "$command_line"
lacks "$output" "CMake Error"
lacks "$calls" "apt-get"
[ "$failures" = "$before" ] && echo "ok    $current"

before=$failures
run "root in a container" 0 FAKE_UID=0 SUDO_WORKS=1 --
has "$calls" "uid 0: apt-get install -y -qq --no-install-recommends libcli11-dev"
lacks "$calls" "sudo"
[ "$failures" = "$before" ] && echo "ok    $current"

before=$failures
run "under sudo" 2 FAKE_UID=0 SUDO_USER=tester --
has "$output" "run ctest/quickstart.sh as tester, without sudo"
lacks "$calls" "cmake"
[ "$failures" = "$before" ] && echo "ok    $current"

before=$failures
mv "$bin/sudo" "$scratch/sudo.away"
run "user, no sudo installed" 1 FAKE_UID=1000 --
mv "$scratch/sudo.away" "$bin/sudo"
has "$output" "$command_line"
lacks "$calls" "apt-get"
[ "$failures" = "$before" ] && echo "ok    $current"

if [ "$failures" -gt 0 ]; then exit 1; fi
echo "quickstart install ok"
