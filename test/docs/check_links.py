#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the relative links of Markdown files: the file linked exists, and so does the heading
an `#anchor` names (GitHub's anchors: the heading in lower case, punctuation dropped, spaces
as '-').

  check_links.py FILE.md...

Links to other sites (`http:`, `https:`, `mailto:`) are not followed. Code blocks and code
spans are skipped. Exits 1 listing every broken link with its file and line.
"""

import pathlib
import re
import sys

LINK = re.compile(r"\]\(([^()\s]+)\)")
HEADING = re.compile(r"^#{1,6} (.+?)\s*$", re.M)
FENCED = re.compile(r"^```.*?^```", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]*`")
OUTSIDE = ("http:", "https:", "mailto:")


def anchor_of(heading):
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


ANCHORS_BY_FILE = {}


def anchors(path):
    if path not in ANCHORS_BY_FILE:
        text = FENCED.sub("", path.read_text())
        ANCHORS_BY_FILE[path] = {anchor_of(heading) for heading in HEADING.findall(text)}
    return ANCHORS_BY_FILE[path]


def blank(match):
    return re.sub(r"[^\n]", " ", match.group(0))


def broken_links(path):
    text = CODE_SPAN.sub(blank, FENCED.sub(blank, path.read_text()))
    for match in LINK.finditer(text):
        target = match.group(1)
        if target.startswith(OUTSIDE):
            continue
        line = text.count("\n", 0, match.start()) + 1
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path.resolve()
        if not linked.exists():
            yield line, target, "no such file"
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            yield line, target, f"no heading with the anchor '{anchor}' in {linked.name}"


def main():
    paths = [pathlib.Path(name) for name in sys.argv[1:]]
    if not paths:
        sys.exit("check_links: no file given")
    failures = 0
    links = 0
    for path in paths:
        links += len(LINK.findall(path.read_text()))
        for line, target, why in broken_links(path):
            print(f"{path}:{line}: broken link '{target}': {why}")
            failures += 1
    if failures:
        sys.exit(1)
    print(f"check_links: {links} links in {len(paths)} files, none broken")


if __name__ == "__main__":
    main()
