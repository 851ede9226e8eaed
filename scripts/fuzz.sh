#!/bin/sh
# Builds skim's libFuzzer targets (tests/fuzz) with clang in build-fuzz and
# runs each for a while, one after another.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# SECONDS per target, default 60; targets: obj bake sweep_move (default all).
# Each target runs as one libFuzzer job with one worker (-jobs=1 -workers=1)
# under nice, over the committed seeds (tests/fuzz/corpus/TARGET, which are
# replayed first: every seed and every past crash input must pass) plus a
# working corpus kept in build-fuzz/corpus/TARGET between runs.
#
# Exit status: 0 no finding (or skipped: no clang or no libFuzzer, said on
# stderr), 1 a finding (crash, sanitizer report, broken invariant, leak,
# timeout or out-of-memory: the input is in build-fuzz/findings/TARGET/ and
# the log is printed), 2 bad usage or the build failed.
#
# Environment: FUZZ_NICE (default 19), FUZZ_TIMEOUT seconds per input
# (default 30), FUZZ_RSS_MB (default 2048), FUZZ_BUILD_DIR (default
# build-fuzz). Longer runs: docs/hardening.md.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

DURATION=${1:-60}
[ $# -gt 0 ] && shift
TARGETS=${*:-obj bake sweep_move}
BUILD=${FUZZ_BUILD_DIR:-build-fuzz}
NICE=${FUZZ_NICE:-19}
TIMEOUT=${FUZZ_TIMEOUT:-30}
RSS_MB=${FUZZ_RSS_MB:-2048}

case "$DURATION" in
    ''|*[!0-9]*) echo "usage: scripts/fuzz.sh [SECONDS] [obj|bake|sweep_move ...]" >&2; exit 2 ;;
esac
for target in $TARGETS; do
    case "$target" in
        obj|bake|sweep_move) ;;
        *) echo "scripts/fuzz.sh: unknown target '$target' (obj, bake, sweep_move)" >&2; exit 2 ;;
    esac
done

if ! command -v clang >/dev/null 2>&1; then
    echo "scripts/fuzz.sh: SKIPPED: clang not found (fuzzing needs clang's libFuzzer)" >&2
    exit 0
fi
probe_dir=$(mktemp -d)
trap 'rm -rf "$probe_dir"' EXIT
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' \
    > "$probe_dir/probe.c"
if ! clang -fsanitize=fuzzer,address,undefined "$probe_dir/probe.c" -o "$probe_dir/probe" >/dev/null 2>&1; then
    echo "scripts/fuzz.sh: SKIPPED: clang cannot link -fsanitize=fuzzer,address,undefined" \
         "(on Debian/Ubuntu: apt-get install libclang-rt-dev)" >&2
    exit 0
fi

echo "scripts/fuzz.sh: building the fuzz targets in $BUILD" >&2
# The targets run the kernel set dispatch picks for this CPU, never the
# sets SIMDe emulates in plain C (portable; neon off AArch64), so those
# compile without AddressSanitizer (-Dsanitize_emulated_kernels=false),
# which is most of their build time.
options="-Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false -Dtests=false -Dbench=false \
         -Dsanitize_emulated_kernels=false --buildtype=debugoptimized -Dwerror=true"
# shellcheck disable=SC2086
if [ -f "$BUILD/build.ninja" ]; then
    meson setup --reconfigure "$BUILD" $options >/dev/null || exit 2
else
    CC=clang meson setup "$BUILD" $options >/dev/null || exit 2
fi
exes=""
for target in $TARGETS; do exes="$exes tests/fuzz/fuzz_$target"; done
# shellcheck disable=SC2086
nice -n "$NICE" meson compile -C "$BUILD" $exes >/dev/null || {
    echo "scripts/fuzz.sh: building the fuzz targets failed" >&2
    exit 2
}

status=0
summary=""
for target in $TARGETS; do
    work="$ROOT/$BUILD/corpus/$target"
    findings="$ROOT/$BUILD/findings/$target"
    run="$ROOT/$BUILD/runs/$target"
    mkdir -p "$work" "$findings" "$run"
    rm -f "$run"/fuzz-*.log
    touch "$run/started"
    before=$(find "$findings" -type f | wc -l)
    echo "scripts/fuzz.sh: fuzz_$target for ${DURATION}s" >&2
    # -jobs=1 runs the fuzzer in one child whose output goes to fuzz-0.log
    # in the current directory, hence the cd.
    result=0
    (cd "$run" && OMP_NUM_THREADS=1 \
        ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
        UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        nice -n "$NICE" "$ROOT/$BUILD/tests/fuzz/fuzz_$target" \
            -jobs=1 -workers=1 -max_total_time="$DURATION" -timeout="$TIMEOUT" \
            -rss_limit_mb="$RSS_MB" -print_final_stats=1 -artifact_prefix="$findings/" \
            "$work" "$ROOT/tests/fuzz/corpus/$target" >/dev/null 2>&1) || result=$?
    log="$run/fuzz-0.log"
    after=$(find "$findings" -type f | wc -l)
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" 2>/dev/null | tail -n 1)
    if [ "$result" -ne 0 ] || [ "$after" -gt "$before" ] || ! grep -q '^stat::number_of_executed_units' "$log"; then
        status=1
        echo "scripts/fuzz.sh: fuzz_$target FOUND SOMETHING (exit $result); log $log; inputs in $findings:" >&2
        find "$findings" -type f -newer "$run/started" -print >&2 || true
        tail -n 60 "$log" >&2 || true
        summary="$summary
  fuzz_$target: FINDING"
    else
        summary="$summary
  fuzz_$target: ${executions:-?} executions in ${DURATION}s, no finding"
    fi
done
echo "scripts/fuzz.sh:$summary"
exit $status
