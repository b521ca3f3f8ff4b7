#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks that the distlock command's --help names every URL scheme of the guide's table.

  check_command_schemes.py --guide GUIDE.md --command DISTLOCK

The schemes are the first column of the table under the guide's "### URLs" heading
(`memory://` left out: the command cannot see another process's in-process locks). Exits 1
naming each scheme the help leaves out.
"""

import argparse
import pathlib
import re
import subprocess
import sys

SECTION = re.compile(r"^### URLs\n(.*?)(?=^#)", re.S | re.M)
SCHEME = re.compile(r"^\| `([a-z+]+)://", re.M)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--guide", required=True, type=pathlib.Path)
    parser.add_argument("--command", required=True)
    args = parser.parse_args()

    section = SECTION.search(args.guide.read_text())
    if not section:
        sys.exit(f"check_command_schemes: {args.guide} has no '### URLs' section")
    schemes = [scheme for scheme in SCHEME.findall(section.group(1)) if scheme != "memory"]
    if len(schemes) < 2:
        sys.exit("check_command_schemes: the guide's URL table names no schemes: update this test")
    help_text = subprocess.run([args.command, "--help"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True).stdout
    missing = [scheme for scheme in schemes if f"{scheme}://" not in help_text]
    if missing:
        print(help_text)
        sys.exit("check_command_schemes: distlock --help does not name " +
                 ", ".join(f"{scheme}://" for scheme in missing))
    print(f"check_command_schemes: distlock --help names all {len(schemes)} schemes")


if __name__ == "__main__":
    main()
