#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Draws the figures of docs/performance.md and docs/reliability.md with gnuplot (SVG).

    python3 bench/plots/plots.py RESULTS_JSON TIMELINE_TSV OUT_DIR

RESULTS_JSON is build-release/bench/results.json as scripts/run-bench.sh writes it;
TIMELINE_TSV a reliability checker run's --timeline file. `bash scripts/run-bench.sh --plots`
runs both and this script. Each figure's caption says how it was made.
"""
import json
import pathlib
import subprocess
import sys
import tempfile

COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]


def quoted(text):
    return '"' + str(text).replace('"', "'") + '"'


def gnuplot(script, data_dir):
    subprocess.run(["gnuplot"], input=script, text=True, check=True, cwd=data_dir)


def header(out, title, width=900, height=480):
    return (f"set terminal svg size {width},{height} dynamic font 'sans,12' background '#ffffff'\n"
            f"set output {quoted(out)}\n"
            f"set title {quoted(title)}\n"
            "set termoption noenhanced\nset border 3\nset tics nomirror\nset grid ytics lc rgb '#dddddd'\n"
            "set key top right\n")


def bars(out, title, ylabel, groups, series, data_dir, name):
    """Clustered bars: one cluster per group, one bar per series; `series` maps a name to a
    list of values (None for a gap), one per group."""
    data = data_dir / f"{name}.dat"
    with data.open("w") as file:
        for i, group in enumerate(groups):
            values = [series[s][i] for s in series]
            file.write(quoted(group) + " " +
                       " ".join("NaN" if v is None else f"{v:.3f}" for v in values) + "\n")
    plots = []
    for column, label in enumerate(series, start=2):
        colour = COLOURS[(column - 2) % len(COLOURS)]
        using = f"{column}:xtic(1)" if column == 2 else f"{column}"
        plots.append(f"{quoted(data.name)} using {using} title {quoted(label)} lc rgb '{colour}'")
    gnuplot(header(out, title) +
            f"set ylabel {quoted(ylabel)}\n"
            "set yrange [0:*]\nset style data histograms\n"
            "set style histogram clustered gap 1\nset style fill solid 0.85 border -1\n"
            "set boxwidth 0.9\nset xtics rotate by -20 left\nset key below\n"
            "plot " + ", \\\n     ".join(plots) + "\n", data_dir)


def redis_cycles(results, out, data_dir):
    peers = results["redis_peers"]
    reference = peers["reference"]
    groups = ["1 thread, 1 lock", "8 threads, 8 locks"]
    series = {
        "floor: EVALSHA/s ÷ 2 (redis-benchmark)": [reference["evalsha_per_s_c1"] / 2,
                                                  reference["evalsha_per_s_c8"] / 2],
        "distlock": [peers["distlock"]["cycles_per_s"],
                     peers["distlock"]["parallel_cycles_per_s"]],
    }
    for peer in peers.get("peers", []):
        series[peer["name"]] = [peer["cycles_per_s"], None]
    bars(out, "Redis: acquire + release cycles/s against the two-round-trip floor and the peers",
         "cycles/s (higher is better)", groups, series, data_dir, "redis_cycles")


def redis_topologies(results, out, data_dir):
    topologies = results["redis_topology"]["topologies"]
    groups = [t["topology"] for t in topologies]
    series = {"floor: the topology's EVALSHA/s ÷ script calls per cycle":
              [t["floor_cycles_per_s"] for t in topologies],
              "distlock": [t["cycles_per_s"] for t in topologies]}
    bars(out, "Redis topologies: uncontended cycles/s, one client, against each one's floor",
         "cycles/s (higher is better)", groups, series, data_dir, "redis_topologies")


def zookeeper(results, out, data_dir):
    zk = results["zookeeper"]
    groups = ["uncontended", f"contended ({zk['waiters']} waiters)"]
    series = {"distlock": [zk["uncontended"]["distlock_per_s"], zk["contended"]["distlock_per_s"]],
              "Curator InterProcessMutex": [zk["uncontended"]["curator_per_s"],
                                            zk["contended"]["curator_per_s"]]}
    bars(out, "ZooKeeper: acquisitions/s, distlock against Apache Curator on the same server",
         "acquisitions/s (higher is better)", groups, series, data_dir, "zookeeper")


def handoff_latency(results, out, data_dir):
    peers = results["redis_peers"]
    curves = [("distlock", peers["distlock"]["handoff"]["sorted_us"])]
    curves += [(p["name"], p["handoff"]["sorted_us"]) for p in peers.get("peers", [])]
    plots = []
    for i, (name, samples) in enumerate(curves):
        data = data_dir / f"handoff_{i}.dat"
        with data.open("w") as file:
            for rank, us in enumerate(samples, start=1):
                file.write(f"{us / 1000:.4f} {rank / len(samples):.4f}\n")
        plots.append(f"{quoted(data.name)} using 1:2 with steps lw 2 "
                     f"lc rgb '{COLOURS[i % len(COLOURS)]}' title {quoted(name)}")
    gnuplot(header(out, "Redis handoff: release → a waiter in another client returns "
                        "(cumulative share of handoffs)") +
            "set logscale x\nset xlabel 'latency (ms, log scale)'\n"
            "set ylabel 'share of handoffs at or below'\nset yrange [0:1]\n"
            "set key bottom right\n"
            "plot " + ", \\\n     ".join(plots) + "\n", data_dir)


def renewal_cpu(results, out, data_dir):
    capacity = results["renewal_capacity"]
    data = data_dir / "renewal.dat"
    with data.open("w") as file:
        for row in capacity["results"]:
            file.write(f"{row['leases']} {100 * row['cpu_share_of_one_core']:.3f} {row['lost']}\n")
    goal = 100 * capacity["goal"]["cpu_share_of_one_core_at_most"]
    gnuplot(header(out, f"Renewal: the client's CPU keeping leases of {capacity['ttl_ms'] // 1000} s "
                        "renewed on one Redis") +
            "set logscale x\nset xlabel 'leases held (log scale)'\n"
            "set xrange [500:200000]\n"
            f"set ylabel '% of one core'\nset yrange [0:{1.4 * goal:g}<*]\nset key top left\n"
            f"plot {quoted(data.name)} using 1:2 with linespoints lw 2 pt 7 "
            f"lc rgb '{COLOURS[0]}' title 'distlock', \\\n"
            f"     {goal} with lines dt 2 lc rgb '{COLOURS[3]}' title 'goal: at most {goal:g}%', \\\n"
            f"     {quoted(data.name)} using 1:2:(sprintf('%d lost', $3)) with labels offset 0,1 "
            "notitle\n", data_dir)


def shifted(line, origin):
    """A timeline record with its times less `origin`."""
    fields = line.split("\t")
    times = {"hold": (2, 3), "fault": (2, 3), "valid": (2, 3), "recovery": (1,)}
    for index in times.get(fields[0], ()):
        fields[index] = f"{float(fields[index]) - origin:.6f}"
    return "\t".join(fields)


def fault_timeline(timeline, out, data_dir):
    lines = pathlib.Path(timeline).read_text().splitlines()
    title = lines[0].lstrip("# ") if lines and lines[0].startswith("#") else "a fault run"
    # Time 0: the first grant (the workers start before the checker's clock does).
    origin = min((float(line.split("\t")[2]) for line in lines if line.startswith("hold\t")),
                 default=0.0)
    lines = [shifted(line, origin) for line in lines if not line.startswith("#")]
    holds = data_dir / "holds.dat"
    objects = []
    valid = []
    workers = set()
    with holds.open("w") as file:
        for line in lines:
            fields = line.split("\t")
            if fields[0] == "hold":
                worker, start, end = int(fields[1]), float(fields[2]), float(fields[3])
                workers.add(worker)
                file.write(f"{worker} {start:.6f} {max(end, start):.6f}\n")
            elif fields[0] == "fault":
                start, end = float(fields[2]), float(fields[3])
                victim = "" if fields[4] == "-1" else f" worker {fields[4]}"
                objects.append(f"set object rect from {start},graph 0 to {max(end, start + 0.02)},"
                               "graph 1 fc rgb '#d62728' fs solid 0.25 noborder behind\n"
                               f"set label {quoted(fields[1] + victim)} at {start},graph 1.03 "
                               "tc rgb '#d62728'\n")
            elif fields[0] == "valid":
                worker, start, end = int(fields[1]), float(fields[2]), float(fields[3])
                valid.append(f"{worker} {start:.6f} {max(end, start):.6f}\n")
            elif fields[0] == "recovery":
                at = float(fields[1])
                objects.append(f"set arrow from {at},graph 0 to {at},graph 1 nohead dt 2 lw 2 "
                               "lc rgb '#2ca02c'\n"
                               f"set label 'next grant to another worker' at {at},graph 0.93 "
                               "right offset -0.5,0 tc rgb '#2ca02c'\n")
    (data_dir / "valid.dat").write_text("".join(valid) or "0 0 0\n")
    top = max(workers) if workers else 0
    gnuplot(header(out, "One fault run: " + title, height=360) +
            "".join(objects) +
            f"set yrange [-0.6:{top + 0.6}]\nset ytics 1\nset ylabel 'worker'\n"
            "set xlabel 'seconds since the first grant'\nset xrange [0:*]\n"
            "set style fill solid 0.8 noborder\n"
            "set key below\n"
            f"plot {quoted(holds.name)} using (($2+$3)/2):1:2:3:($1-0.3):($1+0.3) "
            f"with boxxyerror lc rgb '{COLOURS[0]}' title 'held (until the holder stopped "
            "believing it)', \\\n"
            "     'valid.dat' using (($2+$3)/2):1:2:3:($1-0.3):($1+0.3) with boxxyerror "
            f"fs pattern 4 lc rgb '{COLOURS[1]}' title \"the dead victim's lease, still valid "
            "on the server\"\n", data_dir)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    results = json.loads(pathlib.Path(sys.argv[1]).read_text())
    out_dir = pathlib.Path(sys.argv[3]).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    figures = [
        ("redis-cycles.svg", lambda out, d: redis_cycles(results, out, d)),
        ("redis-topologies.svg", lambda out, d: redis_topologies(results, out, d)),
        ("zookeeper.svg", lambda out, d: zookeeper(results, out, d)),
        ("handoff-latency.svg", lambda out, d: handoff_latency(results, out, d)),
        ("renewal-cpu.svg", lambda out, d: renewal_cpu(results, out, d)),
        ("fault-timeline.svg", lambda out, d: fault_timeline(sys.argv[2], out, d)),
    ]
    with tempfile.TemporaryDirectory() as temp:
        for name, draw in figures:
            draw(str(out_dir / name), pathlib.Path(temp))
            print(f"written: {out_dir / name}")


if __name__ == "__main__":
    main()
