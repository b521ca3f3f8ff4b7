# SPDX-License-Identifier: Apache-2.0
"""The sources clang_tidy.sh --changed checks: those changed on this branch, and for each
header changed on it one source that includes it (directly or through other headers), its own
.cpp where it has one. A header's diagnostics show in any source that includes it: checking
every includer repeats them (a header of the etcd backend's, included by a dozen sources that
each parse gRPC's, made the lint take 724 s of CPU); the full lint checks every file.

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


def includers(source):
    """Each header and source under SEARCHED, and the headers it includes, as paths relative
    to `source`. An include names its header from a root of the include path (runtime/ or
    include/, "backends/etcd/rpc_client.h", <distlock/lease.h>), so it is matched as the end
    of a path."""
    files = {}
    for directory in SEARCHED:
        for path in (source / directory).rglob("*"):
            if path.suffix in (".h", ".cpp") and path.is_file():
                files[str(path.relative_to(source))] = path.read_text(errors="replace")
    headers = [name for name in files if name.endswith(".h")]
    include = re.compile(r'^\s*#\s*include\s*[<"]([^">]+\.h)[">]', re.MULTILINE)
    included = {}
    for name, text in files.items():
        included[name] = {header for written in include.findall(text)
                          for header in headers if header.endswith("/" + written)}
    return included


def checked_for(header, included):
    """One source that includes `header`, directly or through other headers: its own .cpp
    where that includes it, else the first in name order; none when no source does."""
    own = header[:-len(".h")] + ".cpp"
    reached = {header}
    frontier = [header]
    while frontier:
        frontier = [name for name, headers in included.items()
                    if name not in reached and headers & set(frontier)]
        reached |= set(frontier)
    sources = sorted(name for name in reached if name.endswith(".cpp"))
    if own in sources:
        return own
    return sources[0] if sources else None


def selected(source, paths):
    """The changed sources, and one includer of each changed header."""
    result = {p for p in paths if p.endswith(".cpp")}
    headers = [p for p in paths if p.endswith(".h")]
    if headers:
        included = includers(source)
        for header in headers:
            chosen = checked_for(header, included)
            if chosen is not None:
                result.add(chosen)
    return result


def main():
    source = pathlib.Path(sys.argv[1]).resolve()
    changed = changed_paths(source)
    if changed is None:
        return 3
    for path in sorted(selected(source, changed)):
        if path.startswith(CHECKED) and path.endswith(".cpp") and (source / path).is_file():
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
