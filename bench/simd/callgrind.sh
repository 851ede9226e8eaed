#!/bin/sh
# Instructions per triangle per kernel set, counted by callgrind (timing on
# a shared machine is noisy; instruction counts are not). Prints JSON lines.
#   bench/simd/callgrind.sh BUILD_DIR [WORKLOAD...]
# Counts only the timed pass (bench_simd's measured_pass: the kernel calls,
# skim_simd_finish and a few instructions of loop per call). valgrind 3.19
# cannot run AVX-512 code, so avx512 and avx512vl are reported as not counted.
set -eu
build=${1:?usage: callgrind.sh BUILD_DIR [WORKLOAD...]}
shift
bench="$build/bench/simd/bench_simd"
[ $# -gt 0 ] || set -- moves:oa_dm4_hull.obj moves:oa_dm1.obj moves:default sweeps:oa_dm4_hull.obj sweeps:oa_dm1.obj sweeps:default full random
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for workload in "$@"; do
  for set in reference portable sse41 avx2 avx512 avx512vl; do
    if [ "$set" = avx512 ] || [ "$set" = avx512vl ]; then
      printf '{"bench":"simd_callgrind","workload":"%s","set":"%s","skipped":"valgrind cannot run AVX-512"}\n' "$workload" "$set"
      continue
    fi
    line=$(valgrind --tool=callgrind --callgrind-out-file="$out/cg" --toggle-collect=measured_pass \
             "$bench" --workload "$workload" --set "$set" --passes 1 2>/dev/null | tail -n 1) || continue
    triangles=$(printf '%s' "$line" | sed -n 's/.*"triangles":\([0-9]*\).*/\1/p')
    calls=$(printf '%s' "$line" | sed -n 's/.*"calls":\([0-9]*\).*/\1/p')
    ir=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$out/cg")
    [ -n "$triangles" ] && [ -n "$ir" ] || continue
    awk -v w="$workload" -v s="$set" -v ir="$ir" -v t="$triangles" -v c="$calls" 'BEGIN {
      printf "{\"bench\":\"simd_callgrind\",\"workload\":\"%s\",\"set\":\"%s\",\"instructions\":%d,\"triangles\":%d,\"instructions_per_triangle\":%.1f,\"instructions_per_call\":%.0f}\n", w, s, ir, t, ir / t, ir / c }'
  done
done
