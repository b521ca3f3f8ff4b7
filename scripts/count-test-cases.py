#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""How many test cases a test preset runs, counted without running them: the GoogleTest cases
of each ctest test the preset selects (its program's --gtest_list_tests under the test's
--gtest_filter), and the other ctest tests (lit, package, reliability, ...) one each.

    scripts/count-test-cases.py <preset> [<source dir>]

prints "<preset>: <cases> GoogleTest cases in <tests> ctest tests, <others> other ctest tests".
Run from the repository (or give it): ctest --preset <preset> lists the tests, with the
preset's filters, from the preset's build directory, which must be built.
"""
import json
import pathlib
import subprocess
import sys


def without_launcher(command):
    """The test's own command: every test runs through scripts/test-cpu-time.sh
    (`bash <launcher> <test name> <command>...`)."""
    if len(command) > 2 and command[1].endswith("/test-cpu-time.sh"):
        return command[3:]
    return command


def gtest_cases(command, directory):
    """The cases `command` (a GoogleTest program and its arguments) runs, or None when it is
    not one (no --gtest_filter)."""
    command = without_launcher(command)
    filters = [arg for arg in command[1:] if arg.startswith("--gtest_filter=")]
    if not filters:
        return None
    listed = subprocess.run([command[0], "--gtest_list_tests", filters[-1]], cwd=directory,
                            capture_output=True, text=True, check=True).stdout
    return sum(1 for line in listed.splitlines() if line.startswith("  "))


def main():
    preset = sys.argv[1]
    source = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else ".").resolve()
    shown = subprocess.run(["ctest", "--preset", preset, "--show-only=json-v1"], cwd=source,
                           capture_output=True, text=True, check=True).stdout
    cases = gtest_tests = others = 0
    for test in json.loads(shown)["tests"]:
        if "command" not in test:
            continue
        directory = next((p["value"] for p in test.get("properties", [])
                          if p["name"] == "WORKING_DIRECTORY"), str(source))
        count = gtest_cases(test["command"], directory)
        if count is None:
            others += 1
        else:
            cases += count
            gtest_tests += 1
    print(f"{preset}: {cases} GoogleTest cases in {gtest_tests} ctest tests, "
          f"{others} other ctest tests")


if __name__ == "__main__":
    main()
