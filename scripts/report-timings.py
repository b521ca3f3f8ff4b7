#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What scripts/run-tests.sh --timings prints at the end, from build/timings/: each phase's
wall and CPU time (the files `timed` wrote: "<wall> <user> <system>", seconds), the number of
GoogleTest cases each preset's tests ran (the summary lines of their outputs, kept whole in
the JUnit files), and the 20 slowest tests.

    scripts/report-timings.py <timings directory>
"""
import pathlib
import re
import sys
import xml.etree.ElementTree as ElementTree

PHASES = ["test-build", "test-tests", "clang-tidy", "asan-build", "asan-tests", "tsan-build",
          "tsan-tests"]
RAN = re.compile(r"^\[==========\] (\d+) tests? from .* ran", re.MULTILINE)


def main():
    directory = pathlib.Path(sys.argv[1])
    print(f"{'phase':<12} {'wall s':>8} {'CPU s':>8}")
    for phase in PHASES:
        if (directory / phase).exists():
            wall, user, system = map(float, (directory / phase).read_text().split())
            print(f"{phase:<12} {wall:8.0f} {user + system:8.0f}")
    tests = []
    for junit in sorted(directory.glob("*.xml")):
        ran = 0
        for case in ElementTree.parse(junit).getroot().iter("testcase"):
            tests.append((float(case.get("time", 0)), junit.stem, case.get("name")))
            output = case.find("system-out")
            if output is not None:
                ran += sum(int(n) for n in RAN.findall("".join(output.itertext())))
        print(f"{junit.stem}: {ran} GoogleTest cases ran")
    print("the 20 slowest tests (wall s, preset, test):")
    for seconds, preset, name in sorted(tests, reverse=True)[:20]:
        print(f"{seconds:8.1f}  {preset:<5} {name}")


if __name__ == "__main__":
    main()
