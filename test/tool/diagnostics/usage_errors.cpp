// Bad usage exits with 2 and a message that says what is wrong and how the tool is called;
// a source that cannot be read is not woven, exit 1. Nothing is written in either case.
// RUN: rm -rf %t && mkdir -p %t
// RUN: sh -c '%weave -o %t/out.cpp -- -std=c++20; echo "exit=$?"' 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=NO-SOURCE,USAGE
// RUN: sh -c '%weave %s -- -std=c++20; echo "exit=$?"' 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=NO-OUTPUT,USAGE
// RUN: sh -c '%weave %s -o; echo "exit=$?"' 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=NO-OUTPUT-VALUE,USAGE
// RUN: sh -c '%weave %s -o %t/out.cpp --frobnicate -- -std=c++20; echo "exit=$?"' 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=UNKNOWN,USAGE
// RUN: sh -c '%weave %s %s -o %t/out.cpp -- -std=c++20; echo "exit=$?"' 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=TWO-SOURCES,USAGE
// RUN: sh -c '%weave %s -o %t/out.cpp --source-root %t -- -std=c++20; echo "exit=$?"' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ONE-ROOT
// RUN: sh -c '%weave %t/missing.cpp -o %t/out.cpp -- -std=c++20; echo "exit=$?"' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNREADABLE
// RUN: touch %t/file
// RUN: sh -c '%weave %s -o %t/file/out.cpp -- -std=c++20; echo "exit=$?"' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNWRITABLE
// A source with no flags after -- and no compilation database (none in its directory's
// parents: it is copied under a directory of its own outside the build tree).
// RUN: rm -rf /tmp/distlock-weave-no-flags && mkdir -p /tmp/distlock-weave-no-flags
// RUN: cp %s /tmp/distlock-weave-no-flags/source.cpp
// RUN: sh -c '%weave /tmp/distlock-weave-no-flags/source.cpp -o %t/out.cpp; echo "exit=$?"' \
// RUN:   2>&1 | FileCheck %s --check-prefix=NO-FLAGS
// RUN: sh -c '%weave %s -o %t/out.cpp --depfile %t/file/out.d -- -std=c++20; echo "exit=$?"' \
// RUN:   2>&1 | FileCheck %s --check-prefix=UNWRITABLE-DEPFILE
// RUN: not ls %t/out.cpp

// NO-SOURCE: {{^}}distlock-weave: Not enough positional command line arguments specified!
// NO-OUTPUT: {{^}}distlock-weave: for the -o option: must be specified at least once!
// NO-OUTPUT-VALUE: {{^}}distlock-weave: for the -o option: requires a value!
// UNKNOWN: {{^}}distlock-weave: Unknown command line argument '--frobnicate'.
// TWO-SOURCES: {{^}}distlock-weave: Too many positional arguments specified!
// USAGE-NOT: {{^}}distlock-weave: {{$}}
// USAGE: usage: distlock-weave SRC -o OUT [options] -- <compile flags>
// USAGE-NEXT: {{^ +}}distlock-weave SRC -o OUT [options] -p <build dir>
// USAGE-NEXT: {{^}}(--help lists the options)
// USAGE-NEXT: exit=2

// ONE-ROOT: distlock-weave: give --source-root and --woven-root together
// ONE-ROOT-NEXT: exit=2

// UNREADABLE: error: no such file or directory: '{{.*}}missing.cpp'
// UNREADABLE: exit=1

// NO-FLAGS: distlock-weave: no compile flags for {{.*}}source.cpp: give them after -- (-- -std=c++20 -Iinclude ...) or a build directory with compile_commands.json by -p
// NO-FLAGS-NEXT: exit=2

// UNWRITABLE: error: cannot write next to '{{.*}}file/out.cpp': Not a directory
// UNWRITABLE: exit=1

// An output beside the woven source that cannot be written: the woven source is not written
// either, so the build runs the tool again.
// UNWRITABLE-DEPFILE: error: cannot write next to '{{.*}}file/out.d': Not a directory
// UNWRITABLE-DEPFILE: exit=1

int main() { return 0; }
