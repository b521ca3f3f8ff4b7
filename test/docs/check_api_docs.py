#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generates the API reference (Doxygen) and fails on an undocumented public declaration.

  check_api_docs.py --doxygen DOXYGEN --doxyfile DOXYFILE

Runs DOXYGEN on DOXYFILE (docs/api/Doxyfile.in as configured: WARN_IF_UNDOCUMENTED, the
warnings written to WARN_LOGFILE), then reads the warnings. Exits 1 listing each declaration
Doxygen found undocumented, or when Doxygen failed or generated no page for distlock::Client.
"""

import argparse
import pathlib
import re
import subprocess
import sys

UNDOCUMENTED = re.compile(r"^(.*?):(\d+): warning: (.* is not documented\.)$", re.M)


def setting(doxyfile, name):
    match = re.search(rf"^{name}\s*=\s*(.*)$", doxyfile.read_text(), re.M)
    if not match:
        sys.exit(f"check_api_docs: {doxyfile} sets no {name}")
    return pathlib.Path(match.group(1).strip().strip('"'))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--doxygen", required=True)
    parser.add_argument("--doxyfile", required=True, type=pathlib.Path)
    args = parser.parse_args()

    warnings_file = setting(args.doxyfile, "WARN_LOGFILE")
    output = setting(args.doxyfile, "OUTPUT_DIRECTORY")
    warnings_file.unlink(missing_ok=True)
    run = subprocess.run([args.doxygen, str(args.doxyfile)], cwd=args.doxyfile.parent,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(run.stdout)
    if run.returncode != 0:
        sys.exit(f"check_api_docs: doxygen failed (exit {run.returncode})")
    if not (output / "html" / "classdistlock_1_1Client.html").exists():
        sys.exit(f"check_api_docs: no page for distlock::Client under {output / 'html'}")

    warnings = warnings_file.read_text() if warnings_file.exists() else ""
    undocumented = sorted({(path, int(line), what)
                           for path, line, what in UNDOCUMENTED.findall(warnings)})
    for path, line, what in undocumented:
        print(f"{path}:{line}: {what}", file=sys.stderr)
    if undocumented:
        sys.exit(f"check_api_docs: {len(undocumented)} public declarations have no comment "
                 "(a // comment above, or after on the same line)")
    print("check_api_docs: every public declaration is documented")


if __name__ == "__main__":
    main()
