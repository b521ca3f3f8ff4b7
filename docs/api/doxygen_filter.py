#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Doxygen's INPUT_FILTER for the public headers: their `//` comments as Doxygen comments.

  doxygen_filter.py HEADER      (prints the filtered header)

The headers document each declaration with a plain `//` comment above it or after it on its
line, which Doxygen does not read. This turns a comment line into `///` (the declaration below
it) and a comment after code into `///<` (the declaration on its line). `#pragma once`, which
Doxygen does not need, becomes `/// @file`, so the comment block that opens a file describes
the file. NOLINT comments, which are for clang-tidy, are dropped. Line numbers stay the same,
so Doxygen's warnings point into the header as written.
"""

import re
import sys

NOLINT = re.compile(r"\s*// NOLINT.*$")
SPDX = "// SPDX-License-Identifier:"
COMMENT_LINE = re.compile(r"^(\s*)// ?(.*)$")
TRAILING_COMMENT = re.compile(r"^(.*?\S)(\s+)// (.*)$")


def filtered(lines):
    # The column of the comment after code on the line before: a comment line that starts there
    # goes on with it.
    trailing_column = None
    for line in lines:
        line = NOLINT.sub("", line.rstrip("\n"))
        if line.startswith(SPDX):
            trailing_column = None
            yield ""
            continue
        if line == "#pragma once":
            trailing_column = None
            yield "/// @file"
            continue
        comment = COMMENT_LINE.match(line)
        if comment:
            indent, text = comment.groups()
            marker = "///<" if len(indent) == trailing_column else "///"
            yield f"{indent}{marker} {text}"
            continue
        trailing = TRAILING_COMMENT.match(line)
        if trailing and '"' not in trailing.group(1):
            code, space, text = trailing.groups()
            trailing_column = len(code) + len(space)
            yield f"{code}{space}///< {text}"
        else:
            trailing_column = None
            yield line


def main():
    with open(sys.argv[1], encoding="utf-8") as header:
        lines = header.readlines()
    sys.stdout.write("\n".join(filtered(lines)) + "\n")


if __name__ == "__main__":
    main()
