#!/usr/bin/env python3
"""Runs a crowd benchmark and checks what it printed: every stdout line is
a JSON object, the runs with goals name their scenario and agent count,
their figures are in range, no two agents overlapped by more than 0.1
units, at least --min-arrived percent of the walkers arrived, and runs of
the same crowd on different thread counts ended in the same state.

usage: check_crowd_json.py [--lines N] [--min-arrived P] -- COMMAND...
(exit 77, a skip, when COMMAND does; 1 when a check fails)"""
import json
import subprocess
import sys

GOAL_KEYS = ("scenario", "engine", "agents", "threads", "arrived_percent", "arrival_ratio_median",
             "arrival_ratio_worst", "worst_overlap", "ms_per_frame_median", "ms_agents_median",
             "ms_world_median", "check_rounds_mean", "state_hash")


def fail(message):
    print("check_crowd_json: " + message, file=sys.stderr)
    sys.exit(1)


def main():
    args = sys.argv[1:]
    if "--" not in args:
        fail(__doc__)
    split = args.index("--")
    options, command = args[:split], args[split + 1:]
    lines_wanted, min_arrived = None, None
    for name, value in zip(options[::2], options[1::2]):
        if name == "--lines":
            lines_wanted = int(value)
        elif name == "--min-arrived":
            min_arrived = float(value)
        else:
            fail("unknown option " + name)
    run = subprocess.run(command, stdout=subprocess.PIPE, text=True)
    if run.returncode == 77:
        sys.exit(77)
    if run.returncode != 0:
        fail("%s exited with %d" % (command[0], run.returncode))
    lines = [line for line in run.stdout.splitlines() if line.strip()]
    hashes = {}
    if lines_wanted is not None and len(lines) != lines_wanted:
        fail("%d lines, wanted %d" % (len(lines), lines_wanted))
    for line in lines:
        try:
            row = json.loads(line)
        except ValueError as error:
            fail("not JSON (%s): %s" % (error, line))
        if row.get("bench") != "crowd_goals":
            continue
        missing = [key for key in GOAL_KEYS if key not in row]
        if missing:
            fail("missing %s in %s" % (", ".join(missing), line))
        if not 0.0 <= row["arrived_percent"] <= 100.0 or row["agents"] < 1:
            fail("figures out of range: " + line)
        if row["engine"] == "skim" and row["worst_overlap"] > 0.1:
            fail("two agents overlapped by %.4f units: %s" % (row["worst_overlap"], line))
        if min_arrived is not None and row["engine"] == "skim" and row["arrived_percent"] < min_arrived:
            fail("%.1f%% arrived, wanted at least %.1f%%: %s" % (row["arrived_percent"], min_arrived, line))
        if row["engine"] == "skim":
            crowd = (row["scenario"], row["agents"], row.get("steer"), row.get("avoidance"))
            if hashes.setdefault(crowd, row["state_hash"]) != row["state_hash"]:
                fail("%s ended in state %s on %d threads, %s on another count" %
                     (crowd, row["state_hash"], row["threads"], hashes[crowd]))
    print("\n".join(lines))


main()
