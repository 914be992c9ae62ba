#!/usr/bin/env bash
# -o xlsx vs -o csv on the same orders file, side by side in one run (loopback sandbox):
# the peak RSS of writing the workbook against the csv run's, the anchor.
#
#   bash benches/xlsx_memory.sh              # 100,000 rows, 3 alternating repetitions
#   N=20000 REPS=1 bash benches/xlsx_memory.sh   # a quick look
#
# reconcile reads one CSV of N rows (reference, amount, a customer's name) and writes every
# row with -j $JOBS against one sandbox with no added latency. The xlsx rows go to
# temporary files as they come (rust_xlsxwriter's constant-memory mode) and the workbook to
# stdout at the end. Reported: medians of wall time and peak RSS (GNU time's %M), and the
# xlsx / csv ratios (issue 39's bar: peak RSS within 1.5x). Not part of CI.
set -euo pipefail
# The journal's own cost is benches/journal.sh's to measure; here it is off, so no run
# writes the tester's own journal and the baseline builds (which had none) compare alike.
export PAYVERIFY_JOURNAL=off
cd "$(dirname "$0")/.."

N=${N:-100000}
JOBS=${JOBS:-16}
REPS=${REPS:-3}

[ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
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

{
  echo "reference,amount,customer"
  seq -f "SANDBOX-OK-%g" 1 "$N" | sed 's/$/,40000,Okafor Ada/'
} >"$work/orders.csv"

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

run() { # $1 result file, $2 format: appends "wall_s peak_rss_kb"
  local out=$1 format=$2
  # Exit 0 is required: every row is SANDBOX-OK and MATCHED.
  if ! /usr/bin/time -f '%e %M' -o "$work/time" "$BIN" reconcile "$work/orders.csv" \
      -j "$JOBS" -o "$format" >"$work/stdout.$format" 2>"$work/stderr"; then
    echo "failed: -o $format" >&2; tail -n 5 "$work/stderr" >&2; exit 1
  fi
  cat "$work/time" >>"$out"
}

echo "machine: $(nproc) cores, $(uname -sr); load average at start: $(load)"
for _ in $(seq "$REPS"); do
  run "$work/csv.t" csv
  run "$work/xlsx.t" xlsx
done
lines=$(wc -l <"$work/stdout.csv")
[ "$lines" -eq $((N + 1)) ] || { echo "csv: expected $((N + 1)) lines, got $lines" >&2; exit 1; }
# The workbook is a whole zip: its directory, at the end, lists the three sheets.
unzip -l "$work/stdout.xlsx" | grep -q 'xl/worksheets/sheet3.xml' ||
  { echo "xlsx: not a whole workbook" >&2; exit 1; }
cw=$(cut -d' ' -f1 "$work/csv.t" | median); cm=$(cut -d' ' -f2 "$work/csv.t" | median)
xw=$(cut -d' ' -f1 "$work/xlsx.t" | median); xm=$(cut -d' ' -f2 "$work/xlsx.t" | median)
mb() { echo "$1 * 1024 / 1000000" | bc -l; }
printf 'reconcile %d rows -o csv : %.2f s, peak RSS %.1f MB, output %s bytes\n' \
  "$N" "$cw" "$(mb "$cm")" "$(wc -c <"$work/stdout.csv")"
printf 'reconcile %d rows -o xlsx: %.2f s, peak RSS %.1f MB, output %s bytes\n' \
  "$N" "$xw" "$(mb "$xm")" "$(wc -c <"$work/stdout.xlsx")"
printf 'xlsx / csv (median of %d): wall %.3fx, peak RSS %.3fx (bar: <= 1.5)\n' \
  "$REPS" "$(echo "$xw / $cw" | bc -l)" "$(echo "$xm / $cm" | bc -l)"
echo "load average at end: $(load)"
