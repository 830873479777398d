#!/usr/bin/env bash
# lesson08.mps: the lesson's MPS daemon on a GPU host, through its whole life.
#  1. A run with --mps starts a daemon of its own, its clients reach a server, and nothing of
#     MPS is left running afterwards.
#  2. A run killed with SIGKILL while its daemon runs cannot stop it: the daemon stays.
#  3. The next run still works (exit 0), reports that daemon (it did not start it) and leaves it
#     running. Then this script, not the lesson, stops the daemon the killed run left behind.
# Skips (77) without root, without nvidia-cuda-mps-control, when MPS is already running, and
# when the lesson skips (no GPU).
#   mps_lifecycle.sh LESSON_BINARY
set -u
lesson=${1:?usage: mps_lifecycle.sh LESSON_BINARY}
skip() { echo "skipped: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
mps_pids() { pgrep -x nvidia-cuda-mps || true; }
[ "$(id -u)" = 0 ] || skip "the lesson starts MPS only as root"
command -v nvidia-cuda-mps-control > /dev/null || skip "nvidia-cuda-mps-control is not on PATH"
[ -n "$(mps_pids)" ] && skip "an MPS daemon is already running"
logs=$(mktemp -d)

"$lesson" --check --mps > "$logs/clean.log" 2>&1
rc=$?
[ $rc = 77 ] && skip "$(grep -m1 skipped "$logs/clean.log")"
[ $rc = 0 ] || { cat "$logs/clean.log"; fail "the run with --mps exited $rc"; }
grep -q "check   ok    the lesson's MPS daemon started a server" "$logs/clean.log" ||
  { cat "$logs/clean.log"; fail "no MPS server for the lesson's clients"; }
# The lesson waits for its daemon and server to end; give a slow exit 5 s more before failing.
for _ in $(seq 50); do [ -z "$(mps_pids)" ] && break; sleep 0.1; done
[ -z "$(mps_pids)" ] || fail "MPS still runs 5 s after the lesson ended: $(mps_pids) ($(ps -o pid=,args= -p "$(mps_pids | paste -sd,)"))"
echo "ok    a run with --mps started its daemon, reached a server, and stopped it"

"$lesson" --check --mps > "$logs/killed.log" 2>&1 &
lesson_pid=$!
pipe=""
for _ in $(seq 600); do
  for pid in $(mps_pids); do
    pipe=$(tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | sed -n 's/^CUDA_MPS_PIPE_DIRECTORY=//p')
    [ -n "$pipe" ] && break 2
  done
  sleep 0.1
done
kill -KILL $lesson_pid 2> /dev/null
wait $lesson_pid 2> /dev/null
[ -n "$pipe" ] || fail "the daemon of the second run never appeared"
sleep 3  # its tenants end on their own: the victim after its launches, the aggressor at EOF
echo "ok    a run killed with SIGKILL left its daemon (pipe folder $pipe)"

"$lesson" --check --mps > "$logs/after.log" 2>&1
rc=$?
still=$(mps_pids)
echo quit | CUDA_MPS_PIPE_DIRECTORY=$pipe nvidia-cuda-mps-control > /dev/null 2>&1
[ $rc = 0 ] || { cat "$logs/after.log"; fail "the run after the killed one exited $rc"; }
grep -q "did not start is running" "$logs/after.log" && grep -q -- "$pipe" "$logs/after.log" ||
  { cat "$logs/after.log"; fail "the run after did not report the daemon it found"; }
[ -n "$still" ] || fail "the run after stopped a daemon it did not start"
echo "ok    the next run reported that daemon, left it running, and passed its other checks"
# The killed run's daemon got "quit" above; its server may take a moment longer.
for _ in $(seq 100); do [ -z "$(mps_pids)" ] && break; sleep 0.1; done
[ -z "$(mps_pids)" ] || fail "the killed run's MPS did not stop 10 s after quit: $(mps_pids)"
rm -rf "$logs"
