#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs the commands of a guide's Installation section, as written, from a clean directory.

  check_installation.py --guide GUIDE.md --source DIR --build-dir DIR --app APP.CPP --work DIR

Every ```sh block between "## Installation" and the next "## " heading is run, in order, by
one bash (`set -euo pipefail`, so `export` carries over) in WORK, which is emptied first and
holds `distlock` (a link to the source tree DIR, the clone the section starts from) and
`app.cpp` (APP.CPP: the program the pkg-config line compiles). HOME is WORK/home, so the
install prefix `$HOME/opt/...` stays inside WORK. Then it checks what the section promises:
the example printed `lost updates: 0`, and the program the pkg-config line built runs and
exits 0. Exits 1 saying which step failed.

The section's build of distlock is the one step not run as written: its configure line runs
as written (so its options and prerequisites are checked), its `cmake --build` is left out and
its `cmake --install` installs the suite's own build (--build-dir, built from the same source)
to the printed prefix. A Release build from nothing would compile the runtime, the tool and the
command once more, a quarter of the suite's CPU, to prove what the suite's build has proved.
"""

import argparse
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

SECTION = re.compile(r"^## Installation\n(.*?)(?=^## |\Z)", re.S | re.M)
# The section's build of distlock: a configure line (which may continue over lines), a build
# and an install of the directory it configured.
CONFIGURE = re.compile(r"^cmake -S distlock -B (\S+)(?: .*)?$")
BUILD = re.compile(r"^cmake --build (\S+)(?: .*)?$")
INSTALL = re.compile(r"^cmake --install (\S+) (--prefix .*)$")
SH_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.S | re.M)
PROMISED_OUTPUT = "lost updates: 0"


def fail(message):
    print(f"check_installation: {message}", file=sys.stderr)
    sys.exit(1)


def commands_of(block):
    """The block's commands, a line each (continuation lines joined)."""
    return re.sub(r"\\\n\s*", "", block).strip().splitlines()


def with_suite_build(commands, build_dir):
    """The section's blocks with its build of distlock replaced by an install of build_dir:
    the block that configures, builds and installs distlock must hold just those three
    commands, on one build directory."""
    for index, block in enumerate(commands):
        lines = commands_of(block)
        if not any(CONFIGURE.match(line) for line in lines):
            continue
        configure, build, install = (lines + ["", "", ""])[:3]
        matches = CONFIGURE.match(configure), BUILD.match(build), INSTALL.match(install)
        if len(lines) != 3 or not all(matches) or len({m.group(1) for m in matches}) != 1:
            fail("the block that builds distlock is no longer `cmake -S distlock -B DIR ...`, "
                 "`cmake --build DIR ...`, `cmake --install DIR --prefix ...`: update this test")
        replaced = [configure, f"cmake --install {shlex.quote(str(build_dir))} "
                    f"{matches[2].group(2)}"]
        return commands[:index] + ["\n".join(replaced) + "\n"] + commands[index + 1:]
    fail("the Installation section has no `cmake -S distlock -B DIR ...` line: update this test")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--guide", required=True, type=pathlib.Path)
    parser.add_argument("--source", required=True, type=pathlib.Path)
    parser.add_argument("--build-dir", required=True, type=pathlib.Path)
    parser.add_argument("--app", required=True, type=pathlib.Path)
    parser.add_argument("--work", required=True, type=pathlib.Path)
    args = parser.parse_args()

    section = SECTION.search(args.guide.read_text())
    if not section:
        fail(f"{args.guide} has no '## Installation' section")
    commands = SH_BLOCK.findall(section.group(1))
    if not commands:
        fail(f"the Installation section of {args.guide} has no ```sh block")
    if f"`{PROMISED_OUTPUT}`" not in section.group(1):
        fail(f"the Installation section no longer promises `{PROMISED_OUTPUT}`: update this test")

    shutil.rmtree(args.work, ignore_errors=True)
    (args.work / "home").mkdir(parents=True)
    (args.work / "distlock").symlink_to(args.source.resolve())
    shutil.copyfile(args.app, args.work / "app.cpp")
    commands = with_suite_build(commands, args.build_dir.resolve())
    script = "set -euo pipefail\nset -x\n" + "\n".join(commands)
    environment = dict(os.environ, HOME=str(args.work / "home"))
    result = subprocess.run(["bash", "-c", script], cwd=args.work, env=environment,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(result.stdout)
    if result.returncode != 0:
        fail(f"the Installation section's commands failed (exit {result.returncode}); "
             "the output is above")
    if PROMISED_OUTPUT not in result.stdout:
        fail(f"the example did not print `{PROMISED_OUTPUT}`")

    built = args.work / "a.out"
    if not built.exists():
        fail("the pkg-config line built no a.out")
    run = subprocess.run([str(built)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    print(run.stdout)
    if run.returncode != 0:
        fail(f"the program built with pkg-config failed (exit {run.returncode})")
    print(f"check_installation: {len(commands)} blocks of commands ran as written")


if __name__ == "__main__":
    main()
