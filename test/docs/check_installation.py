#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs the commands of a guide's Installation section, as written, from a clean directory.

  check_installation.py --guide GUIDE.md --source DIR --app APP.CPP --work DIR

Every ```sh block between "## Installation" and the next "## " heading is run, in order, by
one bash (`set -euo pipefail`, so `export` carries over) in WORK, which is emptied first and
holds `distlock` (a link to the source tree DIR, the clone the section starts from) and
`app.cpp` (APP.CPP: the program the pkg-config line compiles). HOME is WORK/home, so the
install prefix `$HOME/opt/...` stays inside WORK. Then it checks what the section promises:
the example printed `lost updates: 0`, and the program the pkg-config line built runs and
exits 0. Exits 1 saying which step failed.
"""

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys

SECTION = re.compile(r"^## Installation\n(.*?)(?=^## |\Z)", re.S | re.M)
SH_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.S | re.M)
PROMISED_OUTPUT = "lost updates: 0"


def fail(message):
    print(f"check_installation: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--guide", required=True, type=pathlib.Path)
    parser.add_argument("--source", required=True, type=pathlib.Path)
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
