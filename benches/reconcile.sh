#!/usr/bin/env bash
# reconcile vs verify on the same references, side by side in one run (loopback sandbox).
#
#   bash benches/reconcile.sh              # 100,000 references, 3 alternating repetitions
#   N=20000 REPS=1 bash benches/reconcile.sh   # a quick look
#
# verify reads the references one per line (--from); reconcile reads the same references
# from a CSV with an amount column, and classifies, totals and writes each row. Both run
# -j $JOBS -o jsonl against one sandbox with no added latency, so the figures are payverify's
# own cost per reference. Reported: medians of wall time, references/s and peak RSS
# (GNU time's %M), and reconcile / verify ratios (the issue's bar: within 10%, i.e. <= 1.10
# for time and RSS).
set -euo pipefail
# The journal's own cost is benches/journal.sh's to measure; here it is off, so no run
# writes the tester's own journal and the baseline builds (which had none) compare alike.
export PAYVERIFY_JOURNAL=off
cd "$(dirname "$0")/.."

N=${N:-100000}
JOBS=${JOBS:-16}
REPS=${REPS:-3}

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

seq -f "SANDBOX-OK-%g" 1 "$N" >"$work/refs"
{ echo "reference,amount"; sed 's/$/,40000/' "$work/refs"; } >"$work/orders.csv"

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

run() { # $1 result file, then the command: appends "wall_s peak_rss_kb"
  local out=$1; shift
  # Exit 0 is required: every reference is SANDBOX-OK and every row MATCHED.
  if ! /usr/bin/time -f '%e %M' -o "$work/time" "$@" >"$work/stdout" 2>"$work/stderr"; then
    echo "failed: $*" >&2; tail -n 5 "$work/stderr" >&2; exit 1
  fi
  local lines; lines=$(wc -l <"$work/stdout")
  [ "$lines" -eq "$N" ] || { echo "expected $N lines, got $lines: $*" >&2; exit 1; }
  cat "$work/time" >>"$out"
}

echo "machine: $(nproc) cores, $(uname -sr); load average at start: $(load)"
for _ in $(seq "$REPS"); do
  run "$work/verify.t" "$BIN" verify --from "$work/refs" -j "$JOBS" -o jsonl
  run "$work/reconcile.t" "$BIN" reconcile "$work/orders.csv" -j "$JOBS" -o jsonl
done
vw=$(cut -d' ' -f1 "$work/verify.t" | median); vm=$(cut -d' ' -f2 "$work/verify.t" | median)
rw=$(cut -d' ' -f1 "$work/reconcile.t" | median); rm_=$(cut -d' ' -f2 "$work/reconcile.t" | median)
printf 'verify    %d refs, -j %d, -o jsonl: %.2f s (%.0f refs/s), peak RSS %.1f MB\n' \
  "$N" "$JOBS" "$vw" "$(echo "$N / $vw" | bc -l)" "$(echo "$vm * 1024 / 1000000" | bc -l)"
printf 'reconcile %d rows, -j %d, -o jsonl: %.2f s (%.0f rows/s), peak RSS %.1f MB\n' \
  "$N" "$JOBS" "$rw" "$(echo "$N / $rw" | bc -l)" "$(echo "$rm_ * 1024 / 1000000" | bc -l)"
printf 'reconcile / verify (median of %d): wall %.3fx, throughput %.3fx, peak RSS %.3fx\n' \
  "$REPS" "$(echo "$rw / $vw" | bc -l)" "$(echo "$vw / $rw" | bc -l)" "$(echo "$rm_ / $vm" | bc -l)"
echo "load average at end: $(load)"
