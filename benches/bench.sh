#!/usr/bin/env bash
# payverify benchmarks against the embedded sandbox (loopback only; needs curl, GNU time, bc).
#
#   bash benches/bench.sh            # full run (a few minutes on 2 cores)
#   N=200 CMP_N=2000 MEM_NS=100000 bash benches/bench.sh   # a quick look
#   BASELINE=a95400a bash benches/bench.sh   # also against a build of that commit
#   bash benches/reconcile.sh        # reconcile vs verify on the same 100,000 references
#
# Every comparison runs payverify and its anchors side by side in the same run, alternating,
# CMP_REPS times, and prints medians and ratios (payverify / anchor: below 1 is faster),
# for wall time and for CPU per verification (user + system, what a shop's server gives
# up). The anchors are curl's own parallel mode, `curl -Z --parallel-max N`, which keeps N
# connections open and reuses them, and with BASELINE=<commit> the release build of that
# commit (built once into target/baseline/, from a git worktree), so a regression shows in
# one run. The load average is printed before and after: the machine may be shared, and
# the ratios are only meaningful within one run.
set -euo pipefail
# The journal's own cost is benches/journal.sh's to measure; here it is off, so no run
# writes the tester's own journal and the baseline builds (which had none) compare alike.
export PAYVERIFY_JOURNAL=off
cd "$(dirname "$0")/.."

N=${N:-1000}                # references in the 20 ms latency comparisons
JOBS=${JOBS:-16}
LATENCY=${LATENCY:-20}      # ms the sandbox adds to every response
CMP_N=${CMP_N:-20000}       # references in the 0 ms comparisons with curl -Z
CMP_REPS=${CMP_REPS:-3}     # alternating repetitions of each comparison (median reported)
MEM_NS=${MEM_NS:-"100000 1000000"}  # references for the peak-memory runs
REPS=${REPS:-30}            # repetitions for the single-call timings

cargo build --release --quiet
BIN=target/release/payverify
BASE_BIN=
if [ -n "${BASELINE:-}" ]; then
  # The baseline's own sources and lock file, in a worktree of this repository; its build
  # is kept between runs under target/baseline/.
  base_rev=$(git rev-parse --verify "$BASELINE^{commit}")
  base_tree=target/baseline/src-$base_rev
  [ -d "$base_tree" ] || git worktree add --detach --force "$base_tree" "$base_rev" >/dev/null
  CARGO_TARGET_DIR=$PWD/target/baseline/build cargo build --release --locked --quiet \
    --manifest-path "$base_tree/Cargo.toml"
  BASE_BIN=target/baseline/build/release/payverify
  BASE_NAME=$(git rev-parse --short "$base_rev")
fi
work=$(mktemp -d)
# Sandboxes are started inside $(...), a subshell, so their pids go to a file, not an array.
touch "$work/pids"
cleanup() {
  while read -r p; do kill -TERM "$p" 2>/dev/null || true; done <"$work/pids"
  sleep 0.2; rm -rf "$work"
}
trap cleanup EXIT

start_sandbox() { # $1 name, then sandbox flags -> prints the base URL (the CA path is line 2)
  local name=$1; shift
  "$BIN" sandbox --port 0 -q "$@" >"$work/sandbox-$name.out" 2>/dev/null &
  echo $! >>"$work/pids"
  for _ in $(seq 200); do
    if [ -s "$work/sandbox-$name.out" ]; then head -n1 "$work/sandbox-$name.out"; return; fi
    sleep 0.05
  done
  echo "sandbox $name did not start" >&2; exit 1
}

now() { date +%s.%N; }
elapsed() { echo "$(now) - $1" | bc -l; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

URL=$(start_sandbox slow --latency-ms "$LATENCY")
export PAYVERIFY_BASE_URL=$URL PAYVERIFY_CLIENT_ID=sandbox PAYVERIFY_CLIENT_SECRET=sandbox-secret
AUTH=sandbox:sandbox-secret

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr), $(curl --version | head -n1 | cut -d' ' -f1-2)"
echo "load average at start: $(load)"
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

# --- side by side with curl -Z, plain HTTP and TLS --------------------------------------

FAST=$(start_sandbox fast)
FAST_TLS=$(start_sandbox fast-tls --tls)
SLOW_TLS=$(start_sandbox slow-tls --tls --latency-ms "$LATENCY")
CA_FAST=$(sed -n 2p "$work/sandbox-fast-tls.out")
CA_SLOW=$(sed -n 2p "$work/sandbox-slow-tls.out")
seq -f "SANDBOX-OK-%g" 1 "$CMP_N" >"$work/cmp-refs"

curl_config() { # $1 base URL, $2 refs file -> a curl -K file: one url and output per ref
  echo "user = \"$AUTH\""
  awk -v base="$1" '{printf "url = \"%s/api/payment/verify/%s\"\noutput = \"/dev/null\"\n", base, $0}' "$2"
}

timed() { # $1 result file, then the command: appends "wall cpu" (cpu = user + sys)
  local out=$1; shift
  if ! /usr/bin/time -f '%e %U %S' -o "$work/time" "$@" >/dev/null 2>"$work/stderr"; then
    echo "failed: $*" >&2; cat "$work/stderr" >&2; exit 1
  fi
  awk '{print $1, $2 + $3}' "$work/time" >>"$out"
}

# $1 label, $2 base URL, $3 refs file, $4 jobs, $5 CA file or "" -> one line of medians and
# ratios: payverify, the baseline build (with BASELINE) and curl -Z, alternating, each at
# -o jsonl (every record made and written, as a pipeline would) to /dev/null.
side_by_side() {
  local label=$1 base=$2 refs=$3 jobs=$4 ca=$5 n pv_ca=() curl_ca=()
  n=$(wc -l <"$refs")
  if [ -n "$ca" ]; then pv_ca=(--ca-cert "$ca"); curl_ca=(--cacert "$ca"); fi
  curl_config "$base" "$refs" >"$work/curl.cfg"
  rm -f "$work/pv.t" "$work/base.t" "$work/curl.t"
  for _ in $(seq "$CMP_REPS"); do
    timed "$work/pv.t" env PAYVERIFY_BASE_URL="$base" "$BIN" verify --from "$refs" -j "$jobs" -q -o jsonl "${pv_ca[@]}"
    if [ -n "$BASE_BIN" ]; then
      timed "$work/base.t" env PAYVERIFY_BASE_URL="$base" "$BASE_BIN" verify --from "$refs" -j "$jobs" -q -o jsonl "${pv_ca[@]}"
    fi
    timed "$work/curl.t" curl -s --no-progress-meter -Z --parallel-max "$jobs" -K "$work/curl.cfg" "${curl_ca[@]}"
  done
  # wall and CPU per reference (us) of one client's runs: "wall_s cpu_us"
  medians() { echo "$(cut -d' ' -f1 "$1" | median) $(echo "$(cut -d' ' -f2 "$1" | median) * 1000000 / $n" | bc -l)"; }
  local pw pc cw cc bw bc_ line
  read -r pw pc <<<"$(medians "$work/pv.t")"
  read -r cw cc <<<"$(medians "$work/curl.t")"
  line=$(printf '%s, %d refs, -j %d: payverify %.2f s, %.1f us CPU/ref; curl -Z %.2f s, %.1f us CPU/ref; vs curl: wall %.2fx, CPU %.2fx' \
    "$label" "$n" "$jobs" "$pw" "$pc" "$cw" "$cc" "$(echo "$pw / $cw" | bc -l)" "$(echo "$pc / $cc" | bc -l)")
  if [ -n "$BASE_BIN" ]; then
    read -r bw bc_ <<<"$(medians "$work/base.t")"
    line+=$(printf '; %s %.2f s, %.1f us CPU/ref; vs %s: wall %.2fx, CPU %.2fx' \
      "$BASE_NAME" "$bw" "$bc_" "$BASE_NAME" "$(echo "$pw / $bw" | bc -l)" "$(echo "$pc / $bc_" | bc -l)")
  fi
  echo "$line (median of $CMP_REPS)"
}

echo "load average before the curl -Z comparisons: $(load)"
side_by_side "plain HTTP, 0 ms" "$FAST" "$work/cmp-refs" "$JOBS" ""
side_by_side "TLS, 0 ms" "$FAST_TLS" "$work/cmp-refs" "$JOBS" "$CA_FAST"
side_by_side "plain HTTP, 0 ms" "$FAST" "$work/cmp-refs" 1 ""
side_by_side "TLS, 0 ms" "$FAST_TLS" "$work/cmp-refs" 1 "$CA_FAST"
side_by_side "TLS, ${LATENCY} ms" "$SLOW_TLS" "$work/refs" "$JOBS" "$CA_SLOW"

# Connection reuse over TLS: a sandbox of its own, so its stop line counts only this batch
# (plus the stop's own wake-up connection, which makes no handshake).
"$BIN" sandbox --port 0 --tls --latency-ms "$LATENCY" >"$work/count.out" 2>"$work/count.err" &
counter=$!; echo "$counter" >>"$work/pids"
for _ in $(seq 200); do [ "$(wc -l <"$work/count.out")" -ge 2 ] && break; sleep 0.05; done
t=$(now)
PAYVERIFY_BASE_URL=$(head -n1 "$work/count.out") "$BIN" verify --from "$work/refs" -j "$JOBS" -q \
  --ca-cert "$(sed -n 2p "$work/count.out")"
tls_batch=$(elapsed "$t")
kill -TERM "$counter"; wait "$counter" || true
printf 'TLS, %d ms, %d refs, -j %d: %.3f s (ideal %.3f s, ratio %.2fx); sandbox: %s\n' "$LATENCY" "$N" "$JOBS" \
  "$tls_batch" "$ideal" "$(echo "$tls_batch / $ideal" | bc -l)" "$(grep -o 'stopped after.*' "$work/count.err")"

for mem_n in $MEM_NS; do
  seq -f "SANDBOX-OK-%g" 1 "$mem_n" >"$work/many"
  t=$(now)
  PAYVERIFY_BASE_URL=$FAST /usr/bin/time -f '%M' -o "$work/rss" \
    "$BIN" verify - -j "$JOBS" -o jsonl <"$work/many" >"$work/out.jsonl" 2>/dev/null
  rss=$(tail -n1 "$work/rss")
  mem_t=$(elapsed "$t")
  lines=$(wc -l <"$work/out.jsonl")
  printf 'memory: %d refs at -o jsonl (latency 0): peak RSS %.1f MB (10^6 bytes), %d lines, %.1f s\n' "$mem_n" "$(echo "$rss * 1024 / 1000000" | bc -l)" "$lines" "$mem_t"
done
echo "load average at end: $(load)"
