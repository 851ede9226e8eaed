#!/bin/sh
# check_output.sh PROGRAM PATTERN [ARGS...]: runs PROGRAM, fails unless it
# exits 0 and some line of its output matches the extended regex PATTERN.
set -u
program=$1
pattern=$2
shift 2
output=$("$program" "$@")
status=$?
printf '%s\n' "$output"
if [ $status -ne 0 ]; then
    echo "check_output: $program exited with $status" >&2
    exit 1
fi
if ! printf '%s\n' "$output" | grep -Eq -- "$pattern"; then
    echo "check_output: no line of the output matches: $pattern" >&2
    exit 1
fi
