#!/usr/bin/env bash
# Captures what a payverify binary says to a fixed set of commands (help texts, every
# output format of verify, gate, reconcile and webhook check against the built-in sandbox,
# exit statuses), one file per command, so two builds can be diffed: a refactor that
# claims "no behaviour change" shows its diff here. Timings and sandbox ports are masked.
#
#   bash scripts/capture.sh BINARY OUTDIR      then   diff -r OLD NEW
set -euo pipefail
bin=$(realpath "$1")
out=$2
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here"/tests/data/*.csv "$work"/
cd "$work"
export NO_COLOR=1 PAYVERIFY_CONFIG=/nonexistent
unset PAYVERIFY_CLIENT_ID PAYVERIFY_CLIENT_SECRET PAYVERIFY_BASE_URL PAYVERIFY_PROFILE || true

n=0
run() {
  n=$((n + 1))
  local file
  file=$(printf '%s/%03d.txt' "$out" "$n")
  {
    printf '$ payverify'
    printf ' %q' "$@"
    printf '\n'
    set +e
    "$bin" "$@" </dev/null 2>"$work/stderr" >"$work/stdout"
    local code=$?
    set -e
    printf -- '--- stdout\n'
    cat "$work/stdout"
    printf -- '--- stderr\n'
    cat "$work/stderr"
    printf -- '--- exit %s\n' "$code"
  } | sed -E 's/[0-9]+\.[0-9]+s \([0-9.]+\/s\)/T/g; s/127\.0\.0\.1:[0-9]+/127.0.0.1:PORT/g; s/ in [0-9]+ ms/ in N ms/g; s/"by":"[0-9a-f]{64}"/"by":"FINGERPRINT"/g; s/"seal":"[0-9a-f]{64}"/"seal":"SEAL"/g' >"$file"
}

for sub in "" verify gate reconcile webhook doctor config sandbox; do
  # shellcheck disable=SC2086
  run $sub --help
done
refs=(SANDBOX-OK-1 SANDBOX-FAILED-2 SANDBOX-PENDING-3 SANDBOX-NOHMAC-4 SANDBOX-BADHMAC-5
  SANDBOX-CODE-05-6 SANDBOX-AMOUNT-1250000-7 SANDBOX-CURRENCY-USD-8 SANDBOX-MODE-live-9
  SANDBOX-ERROR-10 NOPE-11 0000000000000044177)
for ref in "${refs[@]}"; do
  run verify --sandbox "$ref"
  run verify --sandbox "$ref" -o json
  run gate --sandbox "$ref" --expect-amount 40000
done
for format in table csv jsonl json; do
  run verify --sandbox -j 1 -o "$format" "${refs[@]}"
  run verify --sandbox -j 1 -o "$format" --hmac require --expect-amount 40000 "${refs[@]}"
done
run verify --sandbox -j 1 -o jsonl --fail-on mismatch,fault "${refs[@]}"
for csv in *.csv; do
  for format in table csv jsonl; do
    run reconcile --sandbox -j 1 "$csv" -o "$format"
  done
done
