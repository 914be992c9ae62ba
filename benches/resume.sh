#!/usr/bin/env bash
# --resume: a run of N references in which all but NOT_FINAL_EVERY-th are final, then the same
# run resumed from its output (needs GNU time and bc). Counts the requests the sandbox served in each phase (its
# request log, one line per request) and reports both times and their ratio, side by side in
# one run, REPS times alternating (medians). Loopback only.
#
#   bash benches/resume.sh                 # 100,000 references, 1,000 of them PENDING
#   N=10000 REPS=1 bash benches/resume.sh  # a quick look
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-100000}
NOT_FINAL_EVERY=${NOT_FINAL_EVERY:-100}   # every 100th reference is PENDING: 1% asked again
JOBS=${JOBS:-16}
LATENCY=${LATENCY:-0}     # ms the sandbox adds to every response
REPS=${REPS:-3}

cargo build --release --quiet
BIN=target/release/payverify
work=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null; sleep 0.2; rm -rf "$work"; }
trap cleanup EXIT

"$BIN" sandbox --port 0 --latency-ms "$LATENCY" >"$work/sandbox.out" 2>"$work/sandbox.log" &
pid=$!
for _ in $(seq 200); do [ -s "$work/sandbox.out" ] && break; sleep 0.05; done
url=$(head -n1 "$work/sandbox.out")

for i in $(seq 1 "$N"); do
  if (( i % NOT_FINAL_EVERY == 0 )); then echo "SANDBOX-PENDING-$i"; else echo "SANDBOX-OK-$i"; fi
done >"$work/refs.txt"

export PAYVERIFY_BASE_URL=$url PAYVERIFY_CLIENT_ID=sandbox PAYVERIFY_CLIENT_SECRET=sandbox-secret
requests() { grep -c 'sandbox: GET' "$work/sandbox.log" || true; }
now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$work/full.times"; : >"$work/resumed.times"
for rep in $(seq 1 "$REPS"); do
  before=$(requests); t0=$(now)
  /usr/bin/time -f %M -o "$work/full.rss" \
    "$BIN" -q verify --from "$work/refs.txt" -o jsonl -j "$JOBS" >"$work/run1.jsonl" || true
  t1=$(now); full_requests=$(( $(requests) - before ))
  before=$(requests); t2=$(now)
  /usr/bin/time -f %M -o "$work/resumed.rss" \
    "$BIN" verify --from "$work/refs.txt" -o jsonl -j "$JOBS" --resume "$work/run1.jsonl" \
    >"$work/run2.jsonl" 2>"$work/resumed.err" || true
  t3=$(now); resumed_requests=$(( $(requests) - before ))
  echo "$t1 - $t0" | bc -l >>"$work/full.times"
  echo "$t3 - $t2" | bc -l >>"$work/resumed.times"
  same=$(cmp -s "$work/run1.jsonl" "$work/run2.jsonl" && echo yes || echo NO)
  printf 'rep %d: full run %d requests, resumed run %d requests, same output: %s\n' \
    "$rep" "$full_requests" "$resumed_requests" "$same"
  printf '  resumed summary: %s\n' "$(tail -n1 "$work/resumed.err")"
  printf '  peak RSS: full run %s KB, resumed run %s KB (run1.jsonl: %s bytes)\n' \
    "$(tail -n1 "$work/full.rss")" "$(tail -n1 "$work/resumed.rss")" "$(stat -c %s "$work/run1.jsonl")"
done
full=$(median <"$work/full.times"); resumed=$(median <"$work/resumed.times")
printf 'N=%d, final=%d, jobs=%d, latency=%dms\n' "$N" $(( N - N / NOT_FINAL_EVERY )) "$JOBS" "$LATENCY"
printf 'median full run: %.3fs, median resumed run: %.3fs, resumed/full: %.3f\n' \
  "$full" "$resumed" "$(echo "$resumed / $full" | bc -l)"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
