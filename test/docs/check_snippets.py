#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Compiles every C++ snippet of the given Markdown files, as written.

  check_snippets.py --cxx C++ --weave DISTLOCK-WEAVE --include DIR --context HEADER
                    --work DIR [--std c++17] FILE.md...

Each ```cpp block is compiled after HEADER (snippet_context.h: the names the snippets assume,
such as `ledger` or `Order`). A block is tried at namespace scope, then, unless it carries a
[[distlock::lock]], as the body of a function; its #include and using-directive lines go
first either way. A block with [[distlock::lock]] is woven by DISTLOCK-WEAVE first, so that
its lock arguments are compiled too; a function it only declares is given an empty body for
that. A block whose fence is preceded by the line

  <!-- snippet: not compiled (why) -->

is skipped: a template with placeholders, say. Exits 1, listing each block that does not
compile with the compiler's errors, or when no file has a block.

The blocks are compiled together, each in a namespace of its own: the woven ones in one unit
(one weave), the others in another, where those that fail at namespace scope are tried once
more, together, as function bodies. Each compile parses HEADER (spdlog, distlock.h), seconds
of CPU, which one unit per block paid some thirty times. A block that fails together, or any
block when a unit fails where no block's lines can be blamed, is compiled alone as above, so
that what fails is reported of the block itself.
"""

import argparse
import pathlib
import re
import subprocess
import sys

SKIP_MARK = re.compile(r"<!-- snippet: not compiled \(.+\) -->")
BLOCK = re.compile(r"^```cpp\n(.*?)^```", re.S | re.M)
HOISTED = re.compile(r"^\s*(#include .*|using namespace .*;)\s*$")
# A function declared, not defined, after a lock attribute: `...) const;` ending a line.
DECLARED_ONLY = re.compile(r"(\[\[distlock::lock\((?:[^;{}])*?\))(\s*(?:const)?\s*);", re.S)


def blocks_of(path):
    text = path.read_text()
    for match in BLOCK.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        yield line, match.group(1), bool(SKIP_MARK.fullmatch(before.strip()))


def split_hoisted(code):
    hoisted, rest = [], []
    for line in code.splitlines():
        (hoisted if HOISTED.match(line) else rest).append(line)
    return "\n".join(hoisted), "\n".join(rest)


class Compiler:
    def __init__(self, args):
        self.args = args
        self.count = 0
        self.context = self.precompiled_context()

    def flags(self, context=None):
        included = ["-include", str(context)] if context else []
        return [f"-std={self.args.std}", "-I", self.args.include] + included

    def precompiled_context(self):
        """The context header, copied beside its GCC precompiled form: parsing it (spdlog,
        distlock.h) was most of each snippet's compile. The weave, a Clang tool, is given the
        original, whose directory has no .gch to mistake for its own."""
        copy = pathlib.Path(self.args.work) / "snippet_context.h"
        copy.write_text(pathlib.Path(self.args.context).read_text())
        ok, output = self.run([self.args.cxx, "-x", "c++-header"] + self.flags()
                              + [str(copy), "-o", f"{copy}.gch"])
        if not ok:
            sys.exit(f"cannot precompile {self.args.context}:\n{output}")
        return copy

    def run(self, command):
        result = subprocess.run(command, capture_output=True, text=True)
        return result.returncode == 0, result.stdout + result.stderr

    def check(self, unit_text, weave):
        self.count += 1
        work = pathlib.Path(self.args.work)
        source = work / f"snippet_{self.count}.cpp"
        source.write_text(unit_text)
        if weave:
            woven = work / f"snippet_{self.count}.woven.cpp"
            ok, output = self.run([self.args.weave, str(source), "-o", str(woven), "--"]
                                  + self.flags(self.args.context))
            if not ok:
                return False, output
            source = woven
        return self.run([self.args.cxx, "-fsyntax-only", "-Wno-attributes", "-Werror=invalid-pch"]
                        + self.flags(self.context) + [str(source)])


def check_block(compiler, code):
    hoisted, rest = split_hoisted(code)
    locked = "[[distlock::lock" in rest
    if locked:
        rest = DECLARED_ONLY.sub(r"\1\2 {}", rest)
    ok, output = compiler.check(f"{hoisted}\n{rest}\n", locked)
    if ok or locked:
        return ok, output
    return compiler.check(f"{hoisted}\nvoid snippet() {{\n{rest}\n}}\n", False)


class Block:
    def __init__(self, path, line, code):
        self.path, self.line, self.code = path, line, code
        self.includes, self.rest = [], []
        for text in code.splitlines():
            (self.includes if text.lstrip().startswith("#include") else self.rest).append(text)
        self.locked = "[[distlock::lock" in code
        if self.locked:
            self.rest = DECLARED_ONLY.sub(r"\1\2 {}", "\n".join(self.rest)).splitlines()


def together(compiler, blocks, as_body):
    """Compiles the blocks as one unit, each in a namespace of its own (as a function's body
    when as_body). Returns the blocks that failed, or None when the unit failed and no block's
    lines hold an error."""
    lines = sorted({include for block in blocks for include in block.includes})
    spans = []
    for index, block in enumerate(blocks):
        lines.append(f"namespace snippet_{index} {{")
        if as_body:
            lines.append("void snippet() {")
        first = len(lines) + 1
        lines.extend(block.rest)
        spans.append((first, len(lines)))
        # One list item per line: the spans above count lines by items.
        lines.extend(["}", "}"] if as_body else ["}"])
    ok, output = compiler.check("\n".join(lines) + "\n", any(b.locked for b in blocks))
    if ok:
        return []
    unit = f"snippet_{compiler.count}"
    blamed = set()
    for match in re.finditer(rf"{unit}(?:\.woven)?\.cpp:(\d+):\d+: error", output):
        line = int(match.group(1))
        blamed.update(i for i, (first, last) in enumerate(spans) if first <= line <= last)
    if not blamed:
        return None
    return [blocks[i] for i in sorted(blamed)]


def failing_blocks(compiler, blocks):
    """The blocks that do not compile, with the compiler's output for each."""
    woven = [b for b in blocks if b.locked]
    plain = [b for b in blocks if not b.locked]
    suspects = []
    for group in (woven, plain):
        if not group:
            continue
        failed = together(compiler, group, False)
        if failed and group is plain:
            failed = together(compiler, failed, True)
        suspects.extend(group if failed is None else failed)
    failures = []
    for block in suspects:
        ok, output = check_block(compiler, block.code)
        if not ok:
            failures.append((block, output))
    return failures


def main():
    parser = argparse.ArgumentParser()
    for option in ("--cxx", "--weave", "--include", "--context", "--work"):
        parser.add_argument(option, required=True)
    parser.add_argument("--std", default="c++17")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    pathlib.Path(args.work).mkdir(parents=True, exist_ok=True)

    compiler = Compiler(args)
    blocks, skipped = [], 0
    for name in args.files:
        path = pathlib.Path(name)
        for line, code, skip in blocks_of(path):
            if skip:
                skipped += 1
            else:
                blocks.append(Block(path, line, code))
    failures = [f"{block.path}:{block.line}: the snippet does not compile:\n{block.code}\n{output}"
                for block, output in sorted(failing_blocks(compiler, blocks),
                                            key=lambda failure: (str(failure[0].path),
                                                                 failure[0].line))]
    compiled = len(blocks)
    if compiled == 0:
        failures.append("no ```cpp block in " + ", ".join(args.files))
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"{compiled} snippets compiled, {len(failures)} failed, {skipped} marked not compiled")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
