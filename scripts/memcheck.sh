#!/bin/sh
# Valgrind memcheck over the skim command-line tool's main paths: crowd
# (summary, --json, --svg, --world-only), bake, info (baked, OBJ, default),
# sweep (sphere, ellipsoid, --json, from a baked world and an OBJ), and
# bad command lines and bad files. Every run must exit with the status the
# tool documents (0 ok, 1 the work failed, 2 bad command line) and with no
# memcheck error: invalid reads or writes, uses of uninitialised values,
# bad frees, and definitely or indirectly lost blocks.
#
#   scripts/memcheck.sh
#
# The tool comes from SKIM_BIN when set (e.g. SKIM_BIN=build/tools/skim,
# the plain build of scripts/dev), otherwise from build-memcheck, a
# debugoptimized build without sanitizers (valgrind cannot run ASan
# binaries) configured here. Exit status 0 all clean, 1 a memcheck error
# or a wrong exit status, 2 the build failed; 0 with SKIPPED on stderr when
# valgrind is missing.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

if ! command -v valgrind >/dev/null 2>&1; then
    echo "scripts/memcheck.sh: SKIPPED: valgrind not found (apt-get install valgrind)" >&2
    exit 0
fi

if [ -n "${SKIM_BIN:-}" ]; then
    skim=$SKIM_BIN
else
    build=build-memcheck
    options="--buildtype=debugoptimized -Dtests=false -Dbench=false -Dwerror=true"
    # shellcheck disable=SC2086
    if [ -f "$build/build.ninja" ]; then
        meson setup --reconfigure "$build" $options >/dev/null || exit 2
    else
        meson setup "$build" $options >/dev/null || exit 2
    fi
    nice meson compile -C "$build" tools/skim >/dev/null || { echo "scripts/memcheck.sh: build failed" >&2; exit 2; }
    skim=$build/tools/skim
fi
if [ ! -x "$skim" ]; then
    echo "scripts/memcheck.sh: $skim is not an executable (is tools/skim_tool.c there?)" >&2
    exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Inputs: a small OBJ, a malformed one, a corrupted baked world.
cat > "$work/room.obj" <<'OBJ'
v -200 -200 0
v 200 -200 0
v 200 200 0
v -200 200 0
v -200 -200 120
v 200 -200 120
v 200 200 120
v -200 200 120
g floor
f 1 2 3 4
g walls
f 1 5 6 2
f 2 6 7 3
f 3 7 8 4
f 4 8 5 1
OBJ
printf 'v 0 0 0\nv 1 0 0\nf 1 2 9\n' > "$work/broken.obj"

runs=0
failures=0
# check EXPECTED_EXIT ARGS...: runs the tool under memcheck.
check() {
    expected=$1
    shift
    runs=$((runs + 1))
    log="$work/run$runs.log"
    status=0
    # OMP_WAIT_POLICY set: otherwise the tool re-executes itself to set its spin count
    # (tools/skim_tool.c), and valgrind follows only with --trace-children.
    OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive nice valgrind --tool=memcheck --trace-children=yes \
        --error-exitcode=99 --leak-check=full \
        --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
        --track-origins=yes --log-file="$log" "$skim" "$@" >"$work/out$runs.txt" 2>&1 || status=$?
    errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$log" | tail -n 1)
    if [ "$status" -eq 99 ] || [ "${errors:-1}" != 0 ]; then
        failures=$((failures + 1))
        echo "memcheck: FAILED (memcheck errors): skim $*" >&2
        grep -E '^==[0-9]+== (Invalid|Conditional|Use of|Mismatched|.*definitely lost|.*indirectly lost|   (at|by) )' \
            "$log" | head -n 40 >&2
    elif [ "$status" -ne "$expected" ]; then
        failures=$((failures + 1))
        echo "memcheck: FAILED (exit $status, expected $expected): skim $*" >&2
        tail -n 5 "$work/out$runs.txt" >&2
    else
        echo "memcheck: ok (exit $status, 0 errors): skim $*"
    fi
}

# The main paths.
check 0 --help
check 0 crowd --agents 40 --frames 20 --threads 2
check 0 crowd --agents 30 --frames 10 --json --world-only --svg "$work/trails.svg"
check 0 crowd --scene "$work/room.obj" --agents 20 --frames 10 --seed 7
check 0 bake default -o "$work/default.skim"
check 0 bake "$work/room.obj" -o "$work/room.skim"
check 0 info "$work/default.skim"
check 0 info "$work/room.obj"
check 0 info default
check 0 sweep --scene "$work/default.skim" --from 0,0,100 --delta 0,0,-200
check 0 sweep --scene "$work/room.obj" --from 0,0,60 --delta 500,40,0 --radii 16,16,28 --json
check 0 sweep --from 0,0,100 --delta 300,0,-200 --radius 8
check 0 crowd --scene "$work/default.skim" --agents 20 --frames 5

# Bad command lines (2) and work that fails (1).
check 2
check 2 frobnicate
check 2 crowd --agents
check 2 crowd --agents -5
check 2 crowd --agents many
check 2 crowd --frames 10 --bogus
check 2 bake default
check 2 sweep --from 1,2 --delta 0,0,-1
check 2 sweep --from 0,0,0 --delta 0,0,-1 --radius nan
check 1 info "$work/missing.skim"
check 1 bake "$work/broken.obj" -o "$work/broken.skim"
check 1 sweep --scene "$work/broken.obj" --from 0,0,0 --delta 1,0,0
head -c 1000 "$work/default.skim" > "$work/truncated.skim"
check 1 info "$work/truncated.skim"
check 1 crowd --scene "$work/truncated.skim" --agents 5 --frames 2

if [ "$failures" -ne 0 ]; then
    echo "scripts/memcheck.sh: $failures of $runs runs FAILED" >&2
    exit 1
fi
echo "scripts/memcheck.sh: $runs runs of $skim under memcheck: no error, no leak, documented exit statuses"
