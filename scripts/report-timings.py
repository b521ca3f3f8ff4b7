#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What scripts/run-tests.sh --timings prints at the end, from build/timings/: each phase's
wall and CPU time (the files `timed` wrote: "<wall> <user> <system>", seconds) and the whole
run's ("total"), the number of GoogleTest cases each preset's tests ran (the summary lines of
their outputs, kept whole in the JUnit files), each preset's tests' wall and CPU time, and the
20 slowest tests by wall and by CPU (the <preset>.cpu files of scripts/test-cpu-time.sh:
"<test>\\t<wall> <user> <system>").

    scripts/report-timings.py <timings directory>
"""
import pathlib
import re
import sys
import xml.etree.ElementTree as ElementTree

PHASES = ["test-build", "test-tests", "clang-tidy", "asan-build", "asan-tests", "tsan-build",
          "tsan-tests", "total"]
RAN = re.compile(r"^\[==========\] (\d+) tests? from .* ran", re.MULTILINE)


def read_times(path):
    wall, user, system = map(float, path.read_text().split())
    return wall, user + system


def print_phases(directory):
    print(f"{'phase':<12} {'wall s':>8} {'CPU s':>8}")
    for phase in PHASES:
        if (directory / phase).exists():
            wall, cpu = read_times(directory / phase)
            print(f"{phase:<12} {wall:8.0f} {cpu:8.0f}")


def print_cases_ran(directory):
    for junit in sorted(directory.glob("*.xml")):
        ran = 0
        for case in ElementTree.parse(junit).getroot().iter("testcase"):
            output = case.find("system-out")
            if output is not None:
                ran += sum(int(n) for n in RAN.findall("".join(output.itertext())))
        print(f"{junit.stem}: {ran} GoogleTest cases ran")


def read_tests(directory):
    """(wall, cpu, preset, test) of every test the launcher recorded."""
    tests = []
    for record in sorted(directory.glob("*.cpu")):
        for line in record.read_text().splitlines():
            name, _, times = line.partition("\t")
            try:
                wall, user, system = map(float, times.split())
            except ValueError:
                continue  # a test killed before its times were written
            tests.append((wall, user + system, record.stem, name))
    return tests


def print_tests(tests):
    for preset in sorted({t[2] for t in tests}):
        of_preset = [t for t in tests if t[2] == preset]
        print(f"{preset}: {len(of_preset)} tests, {sum(t[0] for t in of_preset):.0f} s wall "
              f"summed, {sum(t[1] for t in of_preset):.0f} s CPU")
    for title, key in (("wall", 0), ("CPU", 1)):
        print(f"the 20 slowest tests by {title} (wall s, CPU s, preset, test):")
        for wall, cpu, preset, name in sorted(tests, key=lambda t: t[key], reverse=True)[:20]:
            print(f"{wall:8.1f} {cpu:8.1f}  {preset:<5} {name}")


def main():
    directory = pathlib.Path(sys.argv[1])
    print_phases(directory)
    print_cases_ran(directory)
    print_tests(read_tests(directory))


if __name__ == "__main__":
    main()
