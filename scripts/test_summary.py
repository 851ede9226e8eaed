#!/usr/bin/env python3
"""The closing lines of scripts/dev test: test cases over meson test logs.

    test_summary.py [--slowest N] TESTLOG.json...

A Criterion executable counts as its cases, read from the TAP report it
writes to stdout when run with CRITERION_OUTPUTS=tap:- (ok, not ok, # SKIP,
with each case's time); any other test (a plain program, a script, an
example) counts as one case. Every failure and every skip is named with its
reason. With --slowest N, the N slowest cases are listed with their times.
Exit status 1 when any case failed."""
import fnmatch
import json
import re
import sys

CASE = re.compile(r"^(ok|not ok) - (\S+)\s*(.*)$")
TIME = re.compile(r"\(([0-9.]+)s\)")


def filter_of(entry):
    """The --filter pattern the meson test gave its Criterion executable, or None."""
    command = entry.get("command") or []
    for i, arg in enumerate(command):
        if arg == "--filter" and i + 1 < len(command):
            return command[i + 1]
        if arg.startswith("--filter="):
            return arg.split("=", 1)[1]
    return None


def cases_of(entry):
    """[(name, outcome, detail, seconds)] of one meson test. The cases a
    --filter leaves out are not this test's (Criterion lists them as
    skipped); the test that runs them counts them."""
    stdout = entry.get("stdout") or ""
    selected = filter_of(entry)
    found = []
    if "TAP version" in stdout:
        for line in stdout.splitlines():
            match = CASE.match(line)
            if not match:
                continue
            status, name, rest = match.groups()
            seconds = TIME.search(rest)
            seconds = float(seconds.group(1)) if seconds else 0.0
            if "# SKIP" in rest:
                if selected and not fnmatch.fnmatchcase(name.replace("::", "/", 1), selected):
                    continue
                found.append((name, "skip", rest.split("# SKIP", 1)[1].strip(), seconds))
            elif status == "ok":
                found.append((name, "pass", "", seconds))
            else:
                found.append((name, "fail", TIME.sub("", rest).strip(), seconds))
    result = entry.get("result")
    if not found:
        outcome = {"OK": "pass", "EXPECTEDFAIL": "pass", "SKIP": "skip"}.get(result, "fail")
        detail = "" if outcome == "pass" else result
        if outcome == "skip" and stdout.strip():
            # A plain program or script says why it skips on its last line.
            detail = stdout.strip().splitlines()[-1]
        found.append((entry["name"].split(" / ")[-1], outcome, detail, entry.get("duration", 0.0)))
    elif result not in ("OK", "EXPECTEDFAIL") and not any(case[1] == "fail" for case in found):
        # The executable failed (a timeout, a crash outside any case)
        # without a failing case to show for it.
        found.append((entry["name"].split(" / ")[-1], "fail", result, entry.get("duration", 0.0)))
    return found


def main(argv):
    slowest = 0
    if len(argv) > 2 and argv[1] == "--slowest":
        slowest = int(argv[2])
        argv = argv[2:]
    totals = {"pass": 0, "fail": 0, "skip": 0}
    failures, skips, timed = [], [], []
    per_log = []
    for path in argv[1:]:
        build = path.split("/meson-logs/")[0]
        counts = {"pass": 0, "fail": 0, "skip": 0}
        try:
            lines = open(path).readlines()
        except OSError:
            failures.append(f"{build}: no test log ({path})")
            totals["fail"] += 1
            continue
        for line in lines:
            for name, outcome, detail, seconds in cases_of(json.loads(line)):
                counts[outcome] += 1
                timed.append((seconds, f"{build}: {name}"))
                if outcome == "fail":
                    failures.append(f"{build}: {name}: {detail}")
                elif outcome == "skip":
                    skips.append(f"{build}: {name} ({detail})")
        for key in totals:
            totals[key] += counts[key]
        per_log.append(f"{build} {counts['pass']}/{counts['fail']}/{counts['skip']}")
    if slowest:
        print(f"slowest {slowest} cases:")
        for seconds, name in sorted(timed, reverse=True)[:slowest]:
            print(f"  {seconds:8.2f} s  {name}")
    for skip in skips:
        print(f"skipped: {skip}")
    for failure in failures:
        print(f"FAILED: {failure}")
    print(f"test cases: {totals['pass']} passed, {totals['fail']} failed, {totals['skip']} skipped "
          f"(passed/failed/skipped: {', '.join(per_log)})")
    return 1 if totals["fail"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
