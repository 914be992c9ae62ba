#!/usr/bin/env bash
# --resume: a run of N references in which all but NOT_FINAL_EVERY-th are final, then the same
# run resumed from its output (needs GNU time and bc). Counts the requests the sandbox served in each phase (its
# request log, one line per request) and reports both times and their ratio, side by side in
# one run, REPS times alternating (medians). Loopback only.
#
# --state: a run of STATE_N references with -o csv --state, interrupted once half its rows
# are out (| head), then, REPS times alternating, a fresh run (no --state), a fresh run
# keeping a new --state file, and the interrupted run run again with (a copy of) its --state
# file: times, requests (the sandbox's GET /sandbox/stats) and the rerun's ratios to each,
# and whether the rerun's csv equals the fresh run's.
#
#   bash benches/resume.sh                         # both: 100,000 and 5,000 references
#   N=10000 REPS=1 bash benches/resume.sh          # a quick look
#   PARTS=state bash benches/resume.sh             # --state only
set -euo pipefail
# The journal's own cost is benches/journal.sh's to measure; here it is off, so no run
# writes the tester's own journal and the baseline builds (which had none) compare alike.
export PAYVERIFY_JOURNAL=off
cd "$(dirname "$0")/.."

N=${N:-100000}
NOT_FINAL_EVERY=${NOT_FINAL_EVERY:-100}   # every 100th reference is PENDING: 1% asked again
JOBS=${JOBS:-16}
LATENCY=${LATENCY:-0}     # ms the sandbox adds to every response
REPS=${REPS:-3}
STATE_N=${STATE_N:-5000}
PARTS=${PARTS:-resume state}

if [ -z "${BIN:-}" ]; then cargo build --release --quiet; BIN=target/release/payverify; fi
work=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null; sleep 0.2; rm -rf "$work"; }
trap cleanup EXIT

"$BIN" sandbox --port 0 --latency-ms "$LATENCY" >"$work/sandbox.out" 2>"$work/sandbox.log" &
pid=$!
for _ in $(seq 200); do [ -s "$work/sandbox.out" ] && break; sleep 0.05; done
url=$(head -n1 "$work/sandbox.out")

export PAYVERIFY_BASE_URL=$url PAYVERIFY_CLIENT_ID=sandbox PAYVERIFY_CLIENT_SECRET=sandbox-secret
requests() { grep -c 'sandbox: GET' "$work/sandbox.log" || true; }
now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

resume_part() {
  for i in $(seq 1 "$N"); do
    if (( i % NOT_FINAL_EVERY == 0 )); then echo "SANDBOX-PENDING-$i"; else echo "SANDBOX-OK-$i"; fi
  done >"$work/refs.txt"
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
}

state_part() {
  for i in $(seq 1 "$STATE_N"); do
    if (( i % NOT_FINAL_EVERY == 0 )); then echo "SANDBOX-PENDING-$i"; else echo "SANDBOX-OK-$i"; fi
  done >"$work/state-refs.txt"
  served() { curl -s "$url/sandbox/stats" | jq .requests; }
  run() { "$BIN" -q verify --from "$work/state-refs.txt" -o csv -j "$JOBS" "$@"; }
  before=$(served)
  run --state "$work/cut.state" | head -n $(( STATE_N / 2 + 1 )) >/dev/null || true
  cut_requests=$(( $(served) - before ))
  printf -- '--state: the interrupted run: %d requests, %d records kept\n' \
    "$cut_requests" "$(wc -l <"$work/cut.state")"
  : >"$work/fresh.times"; : >"$work/kept.times"; : >"$work/rerun.times"
  for rep in $(seq 1 "$REPS"); do
    before=$(served); t0=$(now)
    run >"$work/fresh.csv" || true
    t1=$(now); fresh_requests=$(( $(served) - before ))
    rm -f "$work/kept.state"; k0=$(now)
    run --state "$work/kept.state" >"$work/kept.csv" || true
    k1=$(now)
    cp "$work/cut.state" "$work/rerun.state"
    before=$(served); t2=$(now)
    run --state "$work/rerun.state" >"$work/rerun.csv" || true
    t3=$(now); rerun_requests=$(( $(served) - before ))
    echo "$t1 - $t0" | bc -l >>"$work/fresh.times"
    echo "$k1 - $k0" | bc -l >>"$work/kept.times"
    echo "$t3 - $t2" | bc -l >>"$work/rerun.times"
    same=$(cmp -s "$work/fresh.csv" "$work/rerun.csv" && cmp -s "$work/fresh.csv" "$work/kept.csv" \
      && echo yes || echo NO)
    printf 'rep %d: fresh run %d requests, rerun %d requests (%d saved, rerun/fresh %.3f), same csv: %s\n' \
      "$rep" "$fresh_requests" "$rerun_requests" $(( fresh_requests - rerun_requests )) \
      "$(echo "$rerun_requests / $fresh_requests" | bc -l)" "$same"
  done
  fresh=$(median <"$work/fresh.times"); kept=$(median <"$work/kept.times")
  rerun=$(median <"$work/rerun.times")
  printf 'STATE_N=%d, final=%d, jobs=%d, latency=%dms\n' \
    "$STATE_N" $(( STATE_N - STATE_N / NOT_FINAL_EVERY )) "$JOBS" "$LATENCY"
  printf 'median fresh run: %.3fs, fresh with --state: %.3fs, rerun with --state: %.3fs\n' \
    "$fresh" "$kept" "$rerun"
  printf 'rerun/fresh: %.3f, rerun/fresh with --state: %.3f\n' \
    "$(echo "$rerun / $fresh" | bc -l)" "$(echo "$rerun / $kept" | bc -l)"
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
case " $PARTS " in *" resume "*) resume_part ;; esac
case " $PARTS " in *" state "*) state_part ;; esac
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
