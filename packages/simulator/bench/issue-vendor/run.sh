#!/usr/bin/env bash
# An independent vendor (vendor.mjs, written from issue #14's text, sharing no code with the
# zoo) on loopback, and rxgate-sim in target mode against it, as a new user would run it.
#   usage: RATE=20 [STYLE=ceil|frac] [HEADERS=x|ro|none] [THROTTLE=429|503] run.sh CLAIMS LIMIT|-
# Prints the vendor's count: requests, throttled, paid (twice = paid twice by content), the
# steady rate from 5 s after the first payment to 2 s before the last, and payments a second.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
n=$1; limit=$2; shift 2
d=$(mktemp -d)
node "$here/claims.mjs" "$n" > "$d/claims.jsonl"
node "$here/vendor.mjs" > "$d/port" 2> "$d/vendor.json" &
vendor=$!
sleep 0.5
port=$(cat "$d/port")
args=()
[ "$limit" != "-" ] && args=(--limit "$limit")
(cd "$d" && node "$root/packages/simulator/bin/rxgate-sim.js" run --target "http://127.0.0.1:$port" \
  --claims-file "$d/claims.jsonl" "${args[@]}" --no-progress --json --ledger "$d/ledger.jsonl" "$@" \
  > "$d/report.json" 2> "$d/err")
rc=$?
kill -TERM "$vendor"; wait "$vendor" 2>/dev/null
echo "rxgate-sim exit $rc, limit $limit, vendor $(cat "$d/vendor.json") (files in $d)"
