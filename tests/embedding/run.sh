#!/bin/sh
# run.sh SKIM_SOURCE: sets up the parent project of parent/ in a scratch
# directory with skim in subprojects/ (a link to SKIM_SOURCE), configures it
# with no options, builds and runs it, and checks that skim brought none of
# its own tests, benchmarks or tools into the parent's build.
set -eu
source=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp "$here/parent/meson.build" "$here/parent/server.c" "$scratch/"
mkdir "$scratch/subprojects"
ln -s "$source" "$scratch/subprojects/skim"
cd "$scratch"
meson setup build >setup.log 2>&1 || { cat setup.log >&2; exit 1; }
nice meson compile -C build >compile.log 2>&1 || { cat compile.log >&2; exit 1; }
tests=$(meson introspect build --tests | python3 -c 'import json,sys; print(" ".join(t["name"] for t in json.load(sys.stdin)))')
if [ "$tests" != "server" ]; then
    echo "embedding: the parent has tests besides its own: $tests" >&2
    exit 1
fi
extra=$(meson introspect build --targets | python3 -c '
import json, sys
names = [t["name"] for t in json.load(sys.stdin) if t["type"] == "executable" and t["name"] != "server"]
print(" ".join(names))')
if [ -n "$extra" ]; then
    echo "embedding: skim built executables into the parent: $extra" >&2
    exit 1
fi
build/server
echo "embedding check: dependency('skim', fallback : 'skim') with no options builds the library only"
