#!/usr/bin/env bash
# Bring your own trace, end to end, on a generated bike-share-like trace (README, "Bring your
# own trace"): trace -> network -> estimated workload -> plan -> replay -> ratio.
#
#   examples/trace_walkthrough.sh [OUT_DIR]        (about a minute at the default size)
#
# EVENTS (default 100000) and KEYS (default 5000) set the size; INEV the command to run.
set -euo pipefail
out="${1:-trace-walkthrough}"
events="${EVENTS:-100000}"
keys="${KEYS:-5000}"
inev=(${INEV:-inev})
mkdir -p "$out"

# 0. the trace: 20 stations, 4 event types whose per-station rates differ widely, a bike id
#    per event from a pool, a day-and-night profile; time in days (the window will be 1)
"${inev[@]}" trace generate --nodes 20 --types 4 --events "$events" --duration 30 --period 1 \
    --profile diurnal --skew 1.5 --keys "$keys" --key-name bid --seed 1 -o "$out/trips.parquet"

# 1. trace -> network: types, sources, each station's own rate; a generated topology whose
#    links take 0.0001 days (about 9 s)
"${inev[@]}" network from-trace "$out/trips.parquet" --out-degree 3 --link-latency 0.0001 \
    --seed 1 -o "$out/net.json"

# 2. queries joined on the bike within a day; their selectivities measured on the trace
cat > "$out/queries.json" <<'JSON'
{"format": "inev-workload/1", "window": 1.0,
 "queries": [
  {"name": "round_trip", "pattern": "SEQ(A, B, C, D)",
   "where": "A.bid == B.bid AND B.bid == C.bid AND C.bid == D.bid"},
  {"name": "busy_bike", "pattern": "AND(A, B, C, D)",
   "where": "A.bid == B.bid AND B.bid == C.bid AND C.bid == D.bid"}]}
JSON
"${inev[@]}" workload estimate "$out/queries.json" "$out/trips.parquet" -o "$out/workload.json"

# 3. plan it (INEv)
"${inev[@]}" plan "$out/net.json" "$out/workload.json" -o "$out/plan.json"

# 4. replay the trace through the plan; matches are compared with centralized evaluation
"${inev[@]}" simulate "$out/net.json" "$out/workload.json" "$out/plan.json" \
    --trace "$out/trips.parquet" -o "$out/sim.json"
