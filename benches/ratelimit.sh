#!/usr/bin/env bash
# payverify against a rate-limited service: adaptive pacing, side by side in one run.
# Loopback only; needs curl, jq and bc. Issue 26.
#
#   bash benches/ratelimit.sh                  # full run (about 6 minutes on 2 cores)
#   N=500 PHASE=5 bash benches/ratelimit.sh    # a quick look
#
# The service is `payverify sandbox --rate-limit` (a token bucket; a fresh sandbox per run,
# so its counts are that run's). For each run: wall time against the ideal N / limit, the
# references given up (UNAVAILABLE), and the throttled answers as a share of all requests
# (counted by the sandbox). The anchor is the ideal N / limit, and beside it the best a
# user who knows the limit in advance can do: `--rate` a little under it. Runs alternate
# within one invocation, REPS times, and medians are printed.
set -euo pipefail
# The journal's own cost is benches/journal.sh's to measure; here it is off, so no run
# writes the tester's own journal and the baseline builds (which had none) compare alike.
export PAYVERIFY_JOURNAL=off
cd "$(dirname "$0")/.."

N=${N:-2000}              # references per run
LATENCY=${LATENCY:-20}    # ms the sandbox adds to every answer
LIMIT=${LIMIT:-50}        # requests per second the sandbox allows
BURST=${BURST:-10}
REPS=${REPS:-1}           # repetitions of each run (median reported)
PHASE=${PHASE:-12}        # seconds of each limit in the changing-limit run

cargo build --release --quiet
BIN=target/release/payverify
work=$(mktemp -d)
touch "$work/pids"
cleanup() {
  while read -r p; do kill -TERM "$p" 2>/dev/null || true; done <"$work/pids"
  sleep 0.2; rm -rf "$work"
}
trap cleanup EXIT

start_sandbox() { # $1 name, then sandbox flags -> prints the base URL; pid in $work/$1.pid
  local out=$work/$1.out; shift
  "$BIN" sandbox --port 0 -q --latency-ms "$LATENCY" "$@" >"$out" 2>/dev/null &
  echo $! >>"$work/pids"
  echo $! >"${out%.out}.pid"
  for _ in $(seq 200); do
    if [ -s "$out" ]; then head -n1 "$out"; return; fi
    sleep 0.05
  done
  echo "sandbox did not start" >&2; exit 1
}
stop_sandbox() { kill -TERM "$(cat "$1")" 2>/dev/null || true; }

now() { date +%s.%N; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

seq -f "SANDBOX-OK-%g" 1 "$N" >"$work/refs"
ideal=$(echo "$N / $LIMIT" | bc -l)
export PAYVERIFY_CLIENT_ID=sandbox PAYVERIFY_CLIENT_SECRET=sandbox-secret

echo "machine: $(nproc) cores, $(uname -sr); load average at start: $(load)"
echo "service: token bucket ${LIMIT}/s, burst ${BURST}, ${LATENCY} ms latency; $N references; ideal N/limit = $(printf %.2f "$ideal") s"

# $1 label, $2 status flags (quoted as one word), then payverify's flags -> appends
# "wall given_up throttled requests" to $work/<label>.runs
one_run() {
  local label=$1 status=$2; shift 2
  local url t wall
  # shellcheck disable=SC2086
  url=$(start_sandbox "sb-$label" --rate-limit "$LIMIT/s" --burst "$BURST" $status)
  t=$(now)
  PAYVERIFY_BASE_URL=$url "$BIN" verify --from "$work/refs" -o jsonl "$@" \
    >"$work/out.jsonl" 2>"$work/err" || true
  wall=$(echo "$(now) - $t" | bc -l)
  local given_up lines stats
  given_up=$(grep -c '"outcome":"UNAVAILABLE"' "$work/out.jsonl" || true)
  lines=$(wc -l <"$work/out.jsonl")
  if [ "$lines" -ne "$N" ]; then echo "$label: $lines records for $N references" >&2; cat "$work/err" >&2; exit 1; fi
  stats=$(curl -s "$url/sandbox/stats")
  echo "$wall $given_up $(jq .throttled <<<"$stats") $(jq .requests <<<"$stats")" >>"$work/$label.runs"
  tail -n1 "$work/err" >"$work/$label.summary"
  stop_sandbox "$work/sb-$label.pid"
}

report() { # $1 label, $2 description
  local f=$work/$1.runs wall given throttled requests
  wall=$(cut -d' ' -f1 "$f" | median)
  given=$(cut -d' ' -f2 "$f" | median)
  throttled=$(cut -d' ' -f3 "$f" | median)
  requests=$(cut -d' ' -f4 "$f" | median)
  printf '%-44s wall %6.2f s = %.2fx ideal; given up %s; throttled %s of %s requests = %.1f%%\n' \
    "$2" "$wall" "$(echo "$wall / $ideal" | bc -l)" "$given" "$throttled" "$requests" \
    "$(echo "100 * $throttled / $requests" | bc -l)"
  echo "    summary: $(sed 's/^payverify: //' "$work/$1.summary")"
}

anchor_rate=$(echo "$LIMIT * 0.96" | bc -l)
for status in "429 1" "503 none"; do
  set -- $status
  flags="--rate-limit-status $1 --retry-after $2"
  tag=$1-$2
  for _ in $(seq "$REPS"); do
    one_run "default-$tag" "$flags"
    one_run "j16-$tag" "$flags" -j 16
    one_run "j64-$tag" "$flags" -j 64
    one_run "known-$tag" "$flags" -j 16 --rate "$anchor_rate"
  done
  echo "-- HTTP $1, Retry-After: $2 (load average $(load))"
  report "default-$tag" "default flags (-j 4)"
  report "j16-$tag" "-j 16"
  report "j64-$tag" "-j 64"
  report "known-$tag" "anchor: -j 16 --rate $(printf %.0f "$anchor_rate") (limit known)"
done

# --- a limit that changes during the run: 50/s, then 20/s, then 100/s ----------------------
changing=$((PHASE * 50 + PHASE * 20 + PHASE * 100 + 200))
seq -f "SANDBOX-OK-c%g" 1 "$changing" >"$work/crefs"
url=$(start_sandbox changing --rate-limit 50/s --burst "$BURST")
t0=$(now)
PAYVERIFY_BASE_URL=$url "$BIN" verify --from "$work/crefs" -j 16 -q -o jsonl >"$work/c.jsonl" &
run=$!
sleep "$PHASE"; curl -s -X POST "$url/sandbox/rate-limit?rate=20/s" >/dev/null; t1=$(echo "$(now) - $t0" | bc -l)
sleep "$PHASE"; curl -s -X POST "$url/sandbox/rate-limit?rate=100/s" >/dev/null; t2=$(echo "$(now) - $t0" | bc -l)
wait "$run" || true
stats=$(curl -s "$url/sandbox/stats")
echo "-- limit 50/s, 20/s at $(printf %.1f "$t1") s, 100/s at $(printf %.1f "$t2") s; -j 16; $changing references; given up: $(grep -c '"outcome":"UNAVAILABLE"' "$work/c.jsonl" || true)"
echo "second  requests  throttled  accepted  limit"
# The sandbox counts from its own start, a moment before payverify's; close enough at 1 s.
jq -r '.per_second | to_entries[] | "\(.key) \(.value[0]) \(.value[1])"' <<<"$stats" |
  awk -v t1="$t1" -v t2="$t2" '{lim = ($1 < t1 ? 50 : ($1 < t2 ? 20 : 100)); printf "%6d  %8d  %9d  %8d  %5d\n", $1, $2, $3, $2 - $3, lim}' |
  tee "$work/timeline"
# Follow time: after each change, the first second from which the accepted rate is within
# 20% of the new limit (above it, for a rise; not throttled more than 10% of requests, for a
# fall).
awk -v t1="$t1" -v t2="$t2" '
  { s=$1; req=$2; thr=$3; acc=$4
    if (s >= t1 && !f1 && s < t2 && thr <= 0.1 * req && acc <= 24) { f1 = s - t1 + 1 }
    if (s >= t2 && !f2 && acc >= 80) { f2 = s - t2 + 1 } }
  END { printf "followed 50 -> 20/s within %s s; 20 -> 100/s within %s s (counted in whole seconds of the sandbox: upper bounds)\n",
        (f1 ? sprintf("%.0f", f1) : "never"), (f2 ? sprintf("%.0f", f2) : "never") }' "$work/timeline"
echo "load average at end: $(load)"
echo "(the no-throttling figures: bash benches/bench.sh, whose curl -Z comparisons run the same code)"
