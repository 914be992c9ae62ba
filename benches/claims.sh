#!/usr/bin/env bash
# What reconcile's held claims cost a checkout: K reconciles of N rows each at once on one
# journal (every row claims its payment), then 20 gates one after another, each timed.
#
#   bash benches/claims.sh                       # K = 1, 4 and 10, N = 6,000
#   KS="1 2" N=3000 bash benches/claims.sh       # a quick look
#   BIN=/path/to/other/payverify bash benches/claims.sh   # another build, side by side
#
# One external `payverify sandbox --latency-ms 40` serves all, so the reconciles run for
# the whole of the gates (checked: the line says how many were still running after them).
# Reported per K: the gates' median and largest wall time, and every gate's exit (0: each
# gate's payment is its own, for an order of its own).
set -euo pipefail
trap 'echo "benches/claims.sh: failed at line $LINENO" >&2' ERR
cd "$(dirname "$0")/.."

N=${N:-6000}
KS=${KS:-1 4 10}
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet
  BIN=target/release/payverify
fi
work=$(mktemp -d)
chmod 700 "$work"
sandbox_pid=
cleanup() {
  [ -n "$sandbox_pid" ] && kill -TERM "$sandbox_pid" 2>/dev/null || true
  sleep 0.2; rm -rf "$work"
}
trap cleanup EXIT

"$BIN" sandbox --port 0 -q --latency-ms 40 >"$work/sandbox.out" 2>/dev/null &
sandbox_pid=$!
for _ in $(seq 200); do [ -s "$work/sandbox.out" ] && break; sleep 0.05; done
export PAYVERIFY_BASE_URL=$(head -n1 "$work/sandbox.out")
export PAYVERIFY_CLIENT_ID=sandbox PAYVERIFY_CLIENT_SECRET=sandbox-secret
unset PAYVERIFY_JOURNAL

echo "machine: $(nproc) cores; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for k in $KS; do
  journal="$work/journal-$k.sqlite3"
  pids=()
  for i in $(seq "$k"); do
    { echo "order_id,reference,amount"
      seq "$N" | awk -v i="$i" -v k="$k" '{print "R" k "-" i "-" $1 ",SANDBOX-OK-C" k "-" i "-" $1 ",40000"}'
    } >"$work/orders-$k-$i.csv"
    "$BIN" --journal "$journal" reconcile "$work/orders-$k-$i.csv" -j 16 -q -o jsonl \
      >/dev/null 2>&1 &
    pids+=("$!")
  done
  sleep 1
  : >"$work/gates"
  for g in $(seq 20); do
    start=$(date +%s%N)
    code=0
    "$BIN" --journal "$journal" gate --expect-mode dev --amount 40000 --merchant-ref "G$k-$g" \
      -q -- "SANDBOX-MERCHANT-G$k-$g" || code=$?
    echo "$code $(( ($(date +%s%N) - start) / 1000000 ))" >>"$work/gates"
  done
  running=0
  for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && running=$((running + 1)); done
  for p in "${pids[@]}"; do wait "$p" || true; done
  sort -k2 -n "$work/gates" | awk -v k="$k" -v r="$running" '
    { ms[NR] = $2; exits[$1]++ }
    END {
      printf "K=%d reconciles (%d still running after the gates): gates median %d ms, at most %d ms; exits:", k, r, ms[int((NR + 1) / 2)], ms[NR]
      for (e in exits) printf " %s x%d", e, exits[e]
      print ""
    }'
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
