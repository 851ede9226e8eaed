#!/bin/sh
# Which kernel set is fastest on THIS machine, on the real paths: skim_sweep
# through the BVH (bench_sweep_path) and a wandering crowd's moves
# (bench_move), each available set run in turn, round after round, so that
# a noisy machine slows every set alike. Prints one JSON line per scene and
# set: the median over the rounds of its rate (sweeps/s: the best of 9
# passes; mover-steps/s: the median of 3) and the median of the per-round
# ratios to the set skim picks by default (src/kernel/dispatch.c's order).
#
#   bench/simd/compare_sets.sh BUILD_DIR [ROUNDS] [SCENE...]
#
# ROUNDS defaults to 5; scenes default to default, oa_dm1 and oa_dm4_hull
# (the shared levels are skipped when absent; set SKIM_SCENES_DIR to find
# them elsewhere). bench_simd times the kernels alone on recorded buffers;
# this script is the one that decided the default on AVX-512 CPUs
# (avx512vl, 8 lanes, over avx512, 16: see dispatch.c).
set -eu
build=${1:?usage: compare_sets.sh BUILD_DIR [ROUNDS] [SCENE...]}
shift
rounds=${1:-5}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- default oa_dm1 oa_dm4_hull
case "$rounds" in
    ''|*[!0-9]*|0) echo "compare_sets.sh: ROUNDS must be a positive integer" >&2; exit 2 ;;
esac
sweep="$build/bench/bvh/bench_sweep_path"
move="$build/bench/move/bench_move"
for program in "$sweep" "$move"; do
    [ -x "$program" ] || { echo "compare_sets.sh: $program is not built" >&2; exit 2; }
done
scenes_dir=${SKIM_SCENES_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/../shared/scenes}

field() { # field NAME JSON-LINE: a number field's value
    printf '%s\n' "$2" | sed -n "s/.*\"$1\":\([0-9.e+]*\).*/\1/p"
}

# The default set, then every other set this CPU runs.
default_set=$("$sweep" --scene default --queries 10 --rounds 1 | sed -n 's/.*"kernels":"\([a-z0-9]*\)".*/\1/p')
[ -n "$default_set" ] || { echo "compare_sets.sh: cannot tell the default set" >&2; exit 1; }
sets=$default_set
for set in sse41 avx2 avx512 avx512vl neon; do
    [ "$set" = "$default_set" ] && continue
    if SKIM_ISA=$set "$sweep" --scene default --queries 10 --rounds 1 2>/dev/null |
        grep -q "\"kernels\":\"$set\""; then
        sets="$sets $set"
    fi
done

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for scene in "$@"; do
    if ! "$sweep" --scene "$scene" --queries 10 --rounds 1 | grep -q '"kernels"'; then
        printf '{"bench":"compare_sets","scene":"%s","skipped":"not found"}\n' "$scene"
        continue
    fi
    round=1
    while [ "$round" -le "$rounds" ]; do
        for set in $sets; do
            # The best of 9 rounds of 20,000 sweeps, and the median of 3
            # repetitions of 4,000 movers x 60 frames: short runs, so the
            # fastest is the one least disturbed by whatever else runs.
            line=$(SKIM_ISA=$set "$sweep" --scene "$scene" --queries 20000 --rounds 9)
            echo "$round $(field sweeps_per_s_best "$line")" >> "$out/$scene.$set.sweep"
            line=$(SKIM_ISA=$set "$move" --scenes-dir "$scenes_dir" --scene "$scene" --movers 4000 \
                       --frames 60 --threads 1 --reps 3)
            echo "$round $(field median_mover_steps_per_cpu_second "$line")" >> "$out/$scene.$set.move"
        done
        round=$((round + 1))
    done
    for set in $sets; do
        # Per-round ratio to the default set, then medians.
        for kind in sweep move; do
            join "$out/$scene.$set.$kind" "$out/$scene.$default_set.$kind" |
                awk '{ print $2, $2 / $3 }' > "$out/pairs.$kind"
        done
        rate_sweep=$(cut -d' ' -f1 "$out/pairs.sweep" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
        ratio_sweep=$(cut -d' ' -f2 "$out/pairs.sweep" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
        rate_move=$(cut -d' ' -f1 "$out/pairs.move" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
        ratio_move=$(cut -d' ' -f2 "$out/pairs.move" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
        printf '{"bench":"compare_sets","scene":"%s","set":"%s","default_set":"%s","rounds":%s,"sweeps_per_s":%.0f,"sweep_ratio_to_default":%.3f,"mover_steps_per_s":%.0f,"move_ratio_to_default":%.3f}\n' \
            "$scene" "$set" "$default_set" "$rounds" "$rate_sweep" "$ratio_sweep" "$rate_move" "$ratio_move"
    done
done
