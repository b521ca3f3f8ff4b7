#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the Quickstart section of a guide against examples/quickstart/, and runs it.

  check_quickstart.py --guide GUIDE.md --example DIR
  check_quickstart.py --guide GUIDE.md --example DIR --build-dir DIR --work DIR
                      --redis-server PATH --redis-cli PATH

The section prints each file of the project as a code block after a line "`quickstart/FILE`:".
The first form checks that the printed files and the files of DIR are the same, file for
file, byte for byte.

The second form follows the section as a newcomer would, after the guide's Installation: it
installs the distlock build BUILD-DIR into WORK/home/opt/distlock (the prefix the Installation
section installs to; HOME is WORK/home), writes the project from the printed blocks into
WORK/quickstart, and runs the section's ```sh blocks in order, as written, in WORK. The one
change: a private redis-server listens on a free loopback port, and the commands' address
127.0.0.1:6379 is replaced by its address. Then it checks what the section promises: the
memory:// run printed the ```text block, and the Redis run printed the same line with the
fence that the server's fence counter holds (so it locked there). Exits 1 saying which step failed.
"""

import argparse
import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import time

SECTION = re.compile(r"^## Quickstart\n(.*?)(?=^## |\Z)", re.S | re.M)
PRINTED_FILE = re.compile(r"^`quickstart/([\w./-]+)`:\n\n```\w*\n(.*?)^```", re.S | re.M)
SH_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.S | re.M)
TEXT_BLOCK = re.compile(r"^```text\n(.*?)^```", re.S | re.M)
DOCUMENTED_REDIS = "127.0.0.1:6379"
FENCE_KEY = "distlock:{order:42}:fence"
FENCE_PRINTED = re.compile(r"shipping order 42 under order:42, fence ([0-9]+)")
SERVER_START_SECONDS = 10


def fail(message):
    print(f"check_quickstart: {message}", file=sys.stderr)
    sys.exit(1)


def section_of(guide):
    section = SECTION.search(guide.read_text())
    if not section:
        fail(f"{guide} has no '## Quickstart' section")
    return section.group(1)


def compare_printed_files(section, example):
    printed = dict(PRINTED_FILE.findall(section))
    if not printed:
        fail("the Quickstart section prints no file (a line \"`quickstart/FILE`:\" before a block)")
    on_disk = {path.relative_to(example).as_posix(): path.read_text()
               for path in sorted(example.rglob("*")) if path.is_file()}
    for name in sorted(set(printed) | set(on_disk)):
        if name not in on_disk:
            fail(f"the guide prints quickstart/{name}, which {example} does not have")
        if name not in printed:
            fail(f"{example / name} is not printed in the guide's Quickstart section")
        if printed[name] != on_disk[name]:
            fail(f"the guide's quickstart/{name} differs from {example / name}")
    print(f"check_quickstart: {len(printed)} printed files match {example}")
    return printed


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_redis(redis_server, redis_cli, work):
    """A redis-server of its own, started once it answers PING (its log: WORK/redis.log)."""
    port = free_port()
    log = work / "redis.log"
    server = subprocess.Popen(
        [redis_server, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", str(work), "--logfile", str(log)],
        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + SERVER_START_SECONDS
    while time.monotonic() < deadline and server.poll() is None:
        ping = subprocess.run([redis_cli, "-p", str(port), "PING"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        if ping.stdout.strip() == "PONG":
            return server, port
        time.sleep(0.05)
    server.kill()
    fail(f"redis-server did not start on port {port}:\n"
         f"{log.read_text() if log.exists() else '(no log)'}")


def run_section(args, section, printed):
    shutil.rmtree(args.work, ignore_errors=True)
    prefix = args.work / "home" / "opt" / "distlock"
    prefix.mkdir(parents=True)
    install = subprocess.run(["cmake", "--install", str(args.build_dir), "--prefix", str(prefix)],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if install.returncode != 0:
        fail(f"installing {args.build_dir} failed:\n{install.stdout}")
    for name, text in printed.items():
        (args.work / "quickstart" / name).parent.mkdir(parents=True, exist_ok=True)
        (args.work / "quickstart" / name).write_text(text)

    commands = SH_BLOCK.findall(section)
    if len(commands) < 2:
        fail("the Quickstart section should have a ```sh block for memory:// and one for Redis")
    if not any(DOCUMENTED_REDIS in block for block in commands):
        fail(f"no command of the Quickstart section uses Redis at {DOCUMENTED_REDIS}: "
             "update this test")
    promised = TEXT_BLOCK.findall(section)
    if len(promised) != 1:
        fail("the Quickstart section should show the program's output in one ```text block")

    server, port = start_redis(args.redis_server, args.redis_cli, args.work)
    try:
        script = "set -euo pipefail\nset -x\n" + "\n".join(commands).replace(
            DOCUMENTED_REDIS, f"127.0.0.1:{port}")
        environment = dict(os.environ, HOME=str(args.work / "home"))
        environment.pop("DISTLOCK_URL", None)
        result = subprocess.run(["bash", "-c", script], cwd=args.work, env=environment,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        print(result.stderr)
        print(result.stdout)
        if result.returncode != 0:
            fail(f"the Quickstart section's commands failed (exit {result.returncode})")
        # The two runs are the section's last commands: the last two lines of its output.
        runs = result.stdout.splitlines()[-2:]
        if len(runs) != 2 or runs[0] + "\n" != promised[0]:
            fail(f"the memory:// run printed {runs[:1]}, the guide shows {promised[0]!r}")
        on_redis = FENCE_PRINTED.fullmatch(runs[1])
        if not on_redis:
            fail(f"the Redis run printed {runs[1]!r}, not the line shown with another fence")
        fence = subprocess.run([args.redis_cli, "-p", str(port), "GET", FENCE_KEY],
                               stdout=subprocess.PIPE, text=True).stdout.strip()
        if fence != on_redis.group(1):
            fail(f"the Redis run printed fence {on_redis.group(1)}, but {FENCE_KEY} is "
                 f"{fence!r} on the server: the run did not lock there")
    finally:
        server.kill()
        server.wait()
    print(f"check_quickstart: {len(commands)} blocks of commands ran as written")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--guide", required=True, type=pathlib.Path)
    parser.add_argument("--example", required=True, type=pathlib.Path)
    parser.add_argument("--build-dir", type=pathlib.Path)
    parser.add_argument("--work", type=pathlib.Path)
    parser.add_argument("--redis-server")
    parser.add_argument("--redis-cli")
    args = parser.parse_args()

    section = section_of(args.guide)
    printed = compare_printed_files(section, args.example)
    if args.build_dir:
        if not (args.work and args.redis_server and args.redis_cli):
            fail("--build-dir needs --work, --redis-server and --redis-cli")
        run_section(args, section, printed)


if __name__ == "__main__":
    main()
