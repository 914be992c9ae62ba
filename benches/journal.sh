#!/usr/bin/env bash
# The journal's cost, side by side in one run (loopback sandbox): verify with a journal vs
# the same run with --no-journal, then a large run's journal size, time and peak memory.
#
#   bash benches/journal.sh                     # 20,000 references x 3, then 1,000,000 once
#   BIG=0 bash benches/journal.sh               # only the side-by-side part
#   N=5000 REPS=1 BIG=100000 bash benches/journal.sh   # a quick look
#
# Both sides run -j $JOBS -q -o jsonl against one external `payverify sandbox` with no added
# latency, so the figures are payverify's own cost per reference; each journal run starts
# from a new journal file (the schema is made, the file grows), and a third side appends
# every run to one kept journal, as a shop's daily runs do (it then pays for the checkpoints
# that copy earlier runs' pages into the file, which a new file never has). Reported:
# medians of wall time and peak RSS (GNU time's %M) and journal / no-journal ratios (the
# issue's bar: wall within 1.2x). Then $BIG references into one new journal, and the same
# with --no-journal: wall, peak RSS (bar: under 40 MB), the journal's size on disk (the
# file and its -wal and -shm) and bytes per check, and its entries counted.
set -euo pipefail
trap 'echo "benches/journal.sh: failed at line $LINENO" >&2' ERR
cd "$(dirname "$0")/.."

N=${N:-20000}
JOBS=${JOBS:-16}
REPS=${REPS:-3}
BIG=${BIG:-1000000}

cargo build --release --quiet
BIN=target/release/payverify
work=$(mktemp -d)
sandbox_pid=
cleanup() {
  [ -n "$sandbox_pid" ] && kill -TERM "$sandbox_pid" 2>/dev/null || true
  sleep 0.2; rm -rf "$work"
}
trap cleanup EXIT

"$BIN" sandbox --port 0 -q >"$work/sandbox.out" 2>/dev/null &
sandbox_pid=$!
for _ in $(seq 200); do [ -s "$work/sandbox.out" ] && break; sleep 0.05; done
URL=$(head -n1 "$work/sandbox.out")
export PAYVERIFY_BASE_URL=$URL PAYVERIFY_CLIENT_ID=sandbox PAYVERIFY_CLIENT_SECRET=sandbox-secret
unset PAYVERIFY_JOURNAL

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
mb() { echo "$1 * 1024 / 1000000" | bc -l; }

run() { # $1 result file, $2 expected lines, then the command: appends "wall_s peak_rss_kb"
  local out=$1 want=$2; shift 2
  # Exit 0 is required: every reference is SANDBOX-OK.
  if ! /usr/bin/time -f '%e %M' -o "$work/time" "$@" >"$work/stdout" 2>"$work/stderr"; then
    echo "failed: $*" >&2; tail -n 5 "$work/stderr" >&2; exit 1
  fi
  local lines; lines=$(wc -l <"$work/stdout")
  [ "$lines" -eq "$want" ] || { echo "expected $want lines, got $lines: $*" >&2; exit 1; }
  cat "$work/time" >>"$out"
}

checks_in() { # the entries a journal holds, read by payverify's own history of one ref
  "$BIN" --journal "$1" history -o json -- "$2" | grep -c '"checked_at"'
}

echo "machine: $(nproc) cores, $(uname -sr); load average at start: $(load)"
seq -f "SANDBOX-OK-%.0f" 1 "$N" >"$work/refs"
# The kept journal holds a run's checks before the first measured one.
"$BIN" --journal "$work/kept.sqlite3" verify --from "$work/refs" -j "$JOBS" -q >/dev/null
for _ in $(seq "$REPS"); do
  rm -f "$work"/j.sqlite3*
  run "$work/journal.t" "$N" "$BIN" --journal "$work/j.sqlite3" verify --from "$work/refs" \
    -j "$JOBS" -q -o jsonl
  run "$work/off.t" "$N" "$BIN" --no-journal verify --from "$work/refs" -j "$JOBS" -q -o jsonl
  run "$work/kept.t" "$N" "$BIN" --journal "$work/kept.sqlite3" verify --from "$work/refs" \
    -j "$JOBS" -q -o jsonl
done
[ "$(checks_in "$work/j.sqlite3" "SANDBOX-OK-$N")" -eq 1 ] ||
  { echo "the journal does not hold the last reference" >&2; exit 1; }
jw=$(cut -d' ' -f1 "$work/journal.t" | median); jm=$(cut -d' ' -f2 "$work/journal.t" | median)
ow=$(cut -d' ' -f1 "$work/off.t" | median); om=$(cut -d' ' -f2 "$work/off.t" | median)
kw=$(cut -d' ' -f1 "$work/kept.t" | median); km=$(cut -d' ' -f2 "$work/kept.t" | median)
printf 'journal     %d refs, -j %d: %.2f s (%.0f refs/s), peak RSS %.1f MB\n' \
  "$N" "$JOBS" "$jw" "$(echo "$N / $jw" | bc -l)" "$(mb "$jm")"
printf 'no journal  %d refs, -j %d: %.2f s (%.0f refs/s), peak RSS %.1f MB\n' \
  "$N" "$JOBS" "$ow" "$(echo "$N / $ow" | bc -l)" "$(mb "$om")"
printf 'kept journal %d refs, -j %d: %.2f s (%.0f refs/s), peak RSS %.1f MB\n' \
  "$N" "$JOBS" "$kw" "$(echo "$N / $kw" | bc -l)" "$(mb "$km")"
printf 'journal / no journal (median of %d): wall %.3fx, peak RSS %.3fx\n' \
  "$REPS" "$(echo "$jw / $ow" | bc -l)" "$(echo "$jm / $om" | bc -l)"
printf 'kept journal / no journal (median of %d): wall %.3fx, peak RSS %.3fx\n' \
  "$REPS" "$(echo "$kw / $ow" | bc -l)" "$(echo "$km / $om" | bc -l)"

if [ "$BIG" -gt 0 ]; then
  seq -f "SANDBOX-OK-%.0f" 1 "$BIG" >"$work/big"
  rm -f "$work"/big.sqlite3*
  run "$work/big.t" "$BIG" "$BIN" --journal "$work/big.sqlite3" verify --from "$work/big" \
    -j "$JOBS" -q -o jsonl
  read -r bw bm <"$work/big.t"
  # The -wal is gone when the run's close checkpointed it into the file.
  bytes=$(find "$work" -maxdepth 1 -name 'big.sqlite3*' -printf '%s\n' | awk '{s += $1} END {print s}')
  [ "$(checks_in "$work/big.sqlite3" "SANDBOX-OK-$BIG")" -eq 1 ] ||
    { echo "the big journal does not hold the last reference" >&2; exit 1; }
  printf 'journal     %d refs, -j %d: %.1f s (%.0f refs/s), peak RSS %.1f MB\n' \
    "$BIG" "$JOBS" "$bw" "$(echo "$BIG / $bw" | bc -l)" "$(mb "$bm")"
  printf 'journal size on disk: %.1f MB (%.0f bytes a check, the file and its -wal)\n' \
    "$(echo "$bytes / 1000000" | bc -l)" "$(echo "$bytes / $BIG" | bc -l)"
  rm -f "$work"/big.sqlite3*
  run "$work/bigoff.t" "$BIG" "$BIN" --no-journal verify --from "$work/big" -j "$JOBS" -q -o jsonl
  read -r ow om <"$work/bigoff.t"
  printf 'no journal  %d refs, -j %d: %.1f s (%.0f refs/s), peak RSS %.1f MB\n' \
    "$BIG" "$JOBS" "$ow" "$(echo "$BIG / $ow" | bc -l)" "$(mb "$om")"
fi
echo "load average at end: $(load)"
