# SPDX-License-Identifier: Apache-2.0
"""The sources clang_tidy.sh --changed checks: those changed on this branch and those that
include (directly or through other headers) a header changed on it.

"Changed": against `git merge-base HEAD main` (or origin/main, in a clone of a branch) when
that is not HEAD itself (a branch), else against HEAD~1 (the last commit, on main), committed
or not; deleted files left out.

    tidy_changed_files.py <source dir>

prints one path a line, relative to the source directory, of the .cpp files under runtime/,
cli/ and tool/ (what clang_tidy.sh checks). Exit status 3 when there is nothing to compare
with (no git checkout, no main and no HEAD~1): clang_tidy.sh then checks every file.
"""
import pathlib
import re
import subprocess
import sys

CHECKED = ("runtime/", "cli/", "tool/")
SEARCHED = ("include/", "runtime/", "cli/", "tool/")


def git(source, *args):
    result = subprocess.run(["git", "-C", str(source), *args], capture_output=True, text=True)
    return result.stdout.strip() if result.returncode == 0 else None


def changed_paths(source):
    head = git(source, "rev-parse", "HEAD")
    if head is None:
        return None
    # main, or in a clone of a branch (CI's), where main is the remote's only.
    base = git(source, "merge-base", "HEAD", "main") or git(source, "merge-base", "HEAD",
                                                             "origin/main")
    if base is None or base == head:
        base = git(source, "rev-parse", "--verify", "-q", "HEAD~1")
    if base is None:
        return None
    listed = git(source, "diff", "--name-only", "--diff-filter=d", base, "--")
    return set(listed.splitlines()) if listed is not None else None


def with_includers(source, paths):
    """`paths` and every file under SEARCHED that includes one of its headers, transitively.
    A header is known by its file name ("x.h" in #include "backends/redis/x.h" or
    <distlock/x.h>): two headers of one name make a file checked more often, never less."""
    files = {}
    for directory in SEARCHED:
        for path in (source / directory).rglob("*"):
            if path.suffix in (".h", ".cpp") and path.is_file():
                files[str(path.relative_to(source))] = path.read_text(errors="replace")
    result = set(paths)
    headers = [p for p in paths if p.endswith(".h")]
    while headers:
        names = "|".join(re.escape(pathlib.PurePath(h).name) for h in headers)
        including = re.compile(r'^\s*#\s*include\s*[<"](?:[^">]*/)?(?:' + names + r')[">]',
                               re.MULTILINE)
        found = {name for name, text in files.items() if including.search(text)} - result
        result |= found
        headers = [p for p in found if p.endswith(".h")]
    return result


def main():
    source = pathlib.Path(sys.argv[1]).resolve()
    changed = changed_paths(source)
    if changed is None:
        return 3
    for path in sorted(with_includers(source, changed)):
        if path.startswith(CHECKED) and path.endswith(".cpp") and (source / path).is_file():
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
