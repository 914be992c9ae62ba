#!/usr/bin/env bash
# payverify benchmarks against the embedded sandbox (loopback only; needs curl and GNU time).
#
#   bash benches/bench.sh            # full run (about a minute on 2 cores)
#   N=200 bash benches/bench.sh      # fewer references for a quick look
#
# Prints one line per measurement; the README's performance section quotes its output.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-1000}            # references in the batch comparisons
JOBS=${JOBS:-16}
LATENCY=${LATENCY:-20}  # ms the sandbox adds to every response
MEM_N=${MEM_N:-100000}  # references for the peak-memory run
REPS=${REPS:-30}        # repetitions for the single-call timings

cargo build --release --quiet
BIN=target/release/payverify
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

start_sandbox() { # $1 latency ms -> prints base URL
  "$BIN" sandbox --port 0 --latency-ms "$1" -q >"$work/sandbox-$1.out" 2>/dev/null &
  pids+=($!)
  for _ in $(seq 100); do
    if [ -s "$work/sandbox-$1.out" ]; then head -n1 "$work/sandbox-$1.out"; return; fi
    sleep 0.05
  done
  echo "sandbox did not start" >&2; exit 1
}

now() { date +%s.%N; }
elapsed() { echo "$(now) - $1" | bc -l; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

URL=$(start_sandbox "$LATENCY")
export PAYVERIFY_BASE_URL=$URL PAYVERIFY_CLIENT_ID=sandbox PAYVERIFY_CLIENT_SECRET=sandbox-secret
AUTH=sandbox:sandbox-secret

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)"
echo "sandbox: $URL, latency ${LATENCY} ms"

seq -f "SANDBOX-OK-%g" 1 "$N" >"$work/refs"
ideal=$(echo "$N * $LATENCY / 1000 / $JOBS" | bc -l)

t=$(now); "$BIN" verify - -j "$JOBS" -q <"$work/refs"; batch=$(elapsed "$t")
printf 'batch: %d refs, -j %d: %.3f s (ideal %.3f s, ratio %.2fx)\n' "$N" "$JOBS" "$batch" "$ideal" "$(echo "$batch / $ideal" | bc -l)"

t=$(now)
xargs -P "$JOBS" -I{} curl -s -o /dev/null -u "$AUTH" "$URL/api/payment/verify/{}" <"$work/refs"
xa=$(elapsed "$t")
printf 'xargs -P %d curl: %.3f s (payverify is %.2fx faster)\n' "$JOBS" "$xa" "$(echo "$xa / $batch" | bc -l)"

t=$(now)
while read -r ref; do curl -s -o /dev/null -u "$AUTH" "$URL/api/payment/verify/$ref"; done <"$work/refs"
loop=$(elapsed "$t")
printf 'shell loop of curl: %.3f s (payverify is %.1fx faster)\n' "$loop" "$(echo "$loop / $batch" | bc -l)"

for _ in $(seq "$REPS"); do t=$(now); "$BIN" verify -q SANDBOX-OK-single; elapsed "$t"; done | median >"$work/pv"
for _ in $(seq "$REPS"); do t=$(now); curl -s -o /dev/null -u "$AUTH" "$URL/api/payment/verify/SANDBOX-OK-single"; elapsed "$t"; done | median >"$work/curl"
printf 'single reference (median of %d): payverify %.1f ms, curl %.1f ms (ratio %.2fx)\n' "$REPS" \
  "$(echo "$(cat "$work/pv") * 1000" | bc -l)" "$(echo "$(cat "$work/curl") * 1000" | bc -l)" \
  "$(echo "$(cat "$work/pv") / $(cat "$work/curl")" | bc -l)"

for _ in $(seq "$REPS"); do t=$(now); "$BIN" --version >/dev/null; elapsed "$t"; done | median >"$work/ver"
printf 'payverify --version (median of %d): %.2f ms\n' "$REPS" "$(echo "$(cat "$work/ver") * 1000" | bc -l)"

FAST=$(start_sandbox 0)
seq -f "SANDBOX-OK-%g" 1 "$MEM_N" >"$work/many"
t=$(now)
PAYVERIFY_BASE_URL=$FAST /usr/bin/time -f '%M' -o "$work/rss" \
  "$BIN" verify - -j "$JOBS" -o jsonl <"$work/many" >"$work/out.jsonl" 2>/dev/null
rss=$(tail -n1 "$work/rss")
mem_t=$(elapsed "$t")
lines=$(wc -l <"$work/out.jsonl")
printf 'memory: %d refs at -o jsonl (latency 0): peak RSS %.1f MB, %d lines, %.1f s\n' "$MEM_N" "$(echo "$rss / 1024" | bc -l)" "$lines" "$mem_t"
