# SPDX-License-Identifier: Apache-2.0
"""The table docs/performance.md opens with, from one scripts/run-bench.sh run's results.json.

    python3 bench/results_table.py RESULTS_JSON

Each row names both sides and what each does per cycle, the figure (the median of the rounds)
with the rounds' spread, the goal, and whether this run met it. The first lines say where the
run was made: the commit, the date, the host, and the two round trips the handoff goals are
stated in. A figure whose benchmark did not run is left out, with a line saying so.
"""
import json
import sys


def spread(values):
    return f"{min(values):.2f}–{max(values):.2f}" if values else "–"


def verdict(value, goal, at_least, unit=""):
    if goal is None:
        return "reported"
    met = value >= goal if at_least else value <= goal
    return f"{'≥' if at_least else '≤'} {goal:g}{unit}: {'met' if met else '**not met**'}"


def redis_rows(peers):
    distlock, reference, ratios = peers["distlock"], peers["reference"], peers["ratios"]
    fastest = max(peers["peers"], key=lambda peer: peer["cycles_per_s"])
    evalsha1 = reference["evalsha_per_s_c1"]
    scope_exit = [ratio / 2 for ratio in ratios["cycles_to_evalsha_c1_half"]]

    def row(figure, ours, theirs, values, goal, at_least=True):
        value = sorted(values)[len(values) // 2]
        return (figure, ours, theirs, f"**{value:.2f}**", spread(values),
                verdict(value, goal, at_least))

    server_cpu = distlock["parallel_server_cpu_us_per_cycle"]
    evalsha8_cpu = reference["evalsha_c8_server_cpu_us_per_two_calls"]
    handoff, fair = distlock["handoff"], distlock["fair_handoff"]
    return [
        row("awaited cycle: `acquire` + `release()`, two awaited round trips",
            f"{distlock['release_call_cycles_per_s']:,.0f}/s",
            f"`redis-benchmark -c 1` EVALSHA ÷ 2 (two awaited calls): {evalsha1 / 2:,.0f}/s",
            ratios["release_call_cycles_to_evalsha_c1_half"], 0.95),
        row("scope-exit cycle (the woven default): one awaited round trip, the release's "
            "reply read with the next acquire's",
            f"{distlock['cycles_per_s']:,.0f}/s",
            f"`redis-benchmark -c 1` EVALSHA (one awaited call): {evalsha1:,.0f}/s",
            scope_exit, 0.9),
        row("scope-exit cycle against the fastest peer as its docs show it (it awaits both "
            "calls)", f"{distlock['cycles_per_s']:,.0f}/s",
            f"{fastest['name']}: {fastest['cycles_per_s']:,.0f}/s",
            ratios["cycles_to_fastest_peer"], 1.8),
        row("awaited cycle against the same peer: both await two round trips, so neither passes "
            "the floor's ratio", f"{distlock['release_call_cycles_per_s']:,.0f}/s",
            f"{fastest['name']}: {fastest['cycles_per_s']:,.0f}/s",
            ratios.get("release_call_cycles_to_fastest_peer", []), None),
        row("8 threads on 8 names, one client, scope-exit cycles",
            f"{distlock['parallel_cycles_per_s']:,.0f}/s",
            f"`redis-benchmark -c 8` EVALSHA ÷ 2: {reference['evalsha_per_s_c8'] / 2:,.0f}/s",
            ratios["parallel_cycles_to_evalsha_c8_half"], 1.0),
        ("the server's CPU per 8-thread cycle", f"{server_cpu:.1f} µs",
         f"two EVALSHA calls at `-c 8`: {evalsha8_cpu:.1f} µs", f"**{server_cpu / evalsha8_cpu:.2f}**",
         "–", verdict(server_cpu / evalsha8_cpu, 1.0, False)),
        ("handoff p50: a holder's `release()` to a waiter of another client granted",
         f"{handoff['p50_us']:.0f} µs (p90 {handoff['p90_us']:.0f})",
         f"a back-to-back round trip: {1e6 / evalsha1:.0f} µs",
         f"**{handoff['p50_round_trips']:.2f}**", f"p90 {handoff['p90_us'] / 1e6 * evalsha1:.2f}",
         verdict(handoff["p50_round_trips"], 2.0, False)),
        ("the same, fair lock (the release grants the lock and names the waiter)",
         f"{fair['p50_us']:.0f} µs (p90 {fair['p90_us']:.0f})",
         f"a back-to-back round trip: {1e6 / evalsha1:.0f} µs",
         f"**{fair['p50_round_trips']:.2f}**", f"p90 {fair['p90_us'] / 1e6 * evalsha1:.2f}",
         verdict(fair["p50_round_trips"], 1.5, False)),
    ] + notification_rows(handoff, fair, reference)


def notification_rows(handoff, fair, reference):
    """The handoffs against what the same notification costs with nothing of distlock's."""
    relayed = reference.get("idle_notification_relayed_us")
    if relayed is None:
        return []
    back_to_back = 1e6 / reference["evalsha_per_s_c1"]
    bare = "a bare `PUBLISH` after 1 ms idle, read by a thread and handed to another"
    return [
        ("fair handoff p50 against the notification alone", f"{fair['p50_us']:.0f} µs",
         f"{bare}: {relayed:.0f} µs", f"**{fair['p50_us'] / relayed:.2f}**", "–", "reported"),
        ("handoff p50 against the notification and the waiter's acquire",
         f"{handoff['p50_us']:.0f} µs",
         f"the same and a back-to-back round trip: {relayed + back_to_back:.0f} µs",
         f"**{handoff['p50_us'] / (relayed + back_to_back):.2f}**", "–", "reported"),
    ]


def renewal_row(renewal):
    largest = max(renewal["results"], key=lambda result: result["leases"])
    share = largest["cpu_share_of_one_core"] * 100
    return (f"{largest['leases']:,} held leases of {renewal['ttl_ms'] / 1000:g} s renewed, "
            f"{largest['lost']} lost", f"{share:.2f}% of one core", "one core",
            f"**{share:.2f}%**", "–",
            verdict(share, 2.0, False, "%") + ("" if largest["lost"] == 0 else ", leases lost"))


def zookeeper_rows(zookeeper):
    rows = []
    for mode, goal, what in (("uncontended", 1.3, "uncontended acquire + release"),
                             ("contended", 1.1, f"{zookeeper['waiters']} waiters, handoffs")):
        side = zookeeper[mode]
        rows.append((f"ZooKeeper, {what}", f"{side['distlock_per_s']:,.0f}/s",
                     f"Curator's InterProcessMutex: {side['curator_per_s']:,.0f}/s",
                     f"**{side['ratio']:.2f}**", spread(side["ratio_range"]),
                     verdict(side["ratio"], goal, True)))
    return rows


def main(path):
    results = json.load(open(path))
    host = results.get("host", {})
    lines = []
    if host:
        lines.append(f"One `scripts/run-bench.sh{' --quick' if host.get('quick') else ''}` run "
                     f"at {host['commit']}, {host['date']}, on {host['cpu']} ({host['cores']} "
                     f"cores), Linux {host['kernel']}; each server on CPU 0, the clients on "
                     f"the others.")
    rows = []
    peers = results.get("redis_peers")
    if peers:
        reference = peers["reference"]
        back_to_back = 1e6 / reference["evalsha_per_s_c1"]
        idle = reference["idle_round_trip_us"]
        lines.append(f"A round trip back to back: {back_to_back:.0f} µs; after 1 ms idle: "
                     f"{idle:.0f} µs ({idle / back_to_back:.2f} back-to-back ones). "
                     "`redis-benchmark` sleeps in `epoll_wait` for each reply; a distlock "
                     "thread awaiting a reply alone looks for it for up to 100 µs first "
                     "(`reply_spin_us`, giving way to threads with work).")
        if "idle_notification_read_us" in reference:
            lines.append(f"A `PUBLISH` after 1 ms idle reaches a thread blocked in `read()` on a "
                         f"subscriber connection in {reference['idle_notification_read_us']:.0f} "
                         f"µs, and a thread that one hands it to in "
                         f"{reference['idle_notification_relayed_us']:.0f} µs.")
        rows += redis_rows(peers)
    if "renewal_capacity" in results:
        rows.append(renewal_row(results["renewal_capacity"]))
    if "zookeeper" in results:
        rows += zookeeper_rows(results["zookeeper"])
    missing = [name for name in ("redis_peers", "renewal_capacity", "zookeeper")
               if name not in results]
    lines.append("")
    lines.append("| figure | distlock | against | ratio | rounds | goal |")
    lines.append("|---|---|---|---|---|---|")
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    if missing:
        lines.append("")
        lines.append("Not in this run: " + ", ".join(missing) + ".")
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1])
