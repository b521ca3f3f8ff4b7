#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs the reliability checker with --timeline and checks what the timeline says against
the run: every hold ends after it starts, the fault hit a victim whose lease stayed valid from
the kill to its end, and the next grant to another worker came after that.

    check_timeline.py CHECKER [checker arguments...]
"""
import pathlib
import subprocess
import sys
import tempfile


def fail(message, text):
    sys.exit(f"check_timeline: {message}\n--- timeline ---\n{text}")


def main():
    with tempfile.TemporaryDirectory() as directory:
        path = pathlib.Path(directory) / "timeline.tsv"
        run = subprocess.run(sys.argv[1:] + ["--timeline", str(path)], check=False)
        if run.returncode != 0:
            sys.exit(run.returncode)
        text = path.read_text()
    records = [line.split("\t") for line in text.splitlines() if not line.startswith("#")]
    holds = [r for r in records if r[0] == "hold"]
    faults = [r for r in records if r[0] == "fault"]
    valid = [r for r in records if r[0] == "valid"]
    recoveries = [r for r in records if r[0] == "recovery"]
    if not holds:
        fail("no hold", text)
    for hold in holds:
        if float(hold[3]) < float(hold[2]):
            fail(f"a hold ends before it starts: {hold}", text)
    if len(faults) != 1 or int(faults[0][4]) < 0:
        fail("expected one fault with a victim", text)
    victim, kill = faults[0][4], float(faults[0][2])
    if len(valid) != 1 or valid[0][1] != victim:
        fail(f"expected the validity of victim {victim}'s lease", text)
    valid_from, valid_until = float(valid[0][2]), float(valid[0][3])
    if not valid_from <= kill + 0.001 or valid_until < valid_from:
        fail("the victim's validity does not start at the kill", text)
    if len(recoveries) != 1 or float(recoveries[0][1]) < valid_until:
        fail("expected the next grant after the victim's lease ended", text)
    print(f"timeline: {len(holds)} holds, victim {victim} killed at {kill:.3f} s, lease valid "
          f"until {valid_until:.3f} s, next grant at {float(recoveries[0][1]):.3f} s")


if __name__ == "__main__":
    main()
