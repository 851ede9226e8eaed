#!/bin/sh
# static_archive.sh IN.a OUT.a CC...: libskim.a as one relocatable object,
# IN.a's objects linked together (ld -r) with their hidden symbols made
# local, so a program linking it statically sees only the SKIM_API names.
set -eu
in=$1
out=$2
shift 2
object="$out.o"
"$@" -r -nostdlib -o "$object" -Wl,--whole-archive "$in" -Wl,--no-whole-archive
objcopy --localize-hidden "$object"
rm -f "$out"
ar rcs "$out" "$object"
rm -f "$object"
