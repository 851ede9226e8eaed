#!/bin/sh
# Every kernel object must be free of fused multiply-adds and approximate
# reciprocals / square roots: those would make widths round differently
#. Disassembles the kernel libraries given as arguments.
# Exit 77 (skipped) without objdump.
command -v objdump >/dev/null 2>&1 || { echo "objdump not found: skipped"; exit 77; }
status=0
for lib in "$@"; do
  found=$(objdump -d "$lib" | grep -oE '\b(v?fn?m(add|sub)[0-9a-z]*|v?rcp[0-9a-z]*|v?rsqrt[0-9a-z]*|fmla|fmls|frecpe|frsqrte)\b' | sort | uniq -c)
  if [ -n "$found" ]; then
    echo "$lib uses instructions that break bitwise determinism:"
    echo "$found"
    status=1
  else
    echo "$lib: no FMA, no approximate reciprocal"
  fi
done
exit $status
