#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs prometheus_sample and reads what it prints with prometheus_client's own parser (Debian:
python3-prometheus-client): every family has its type, each count is what the sample's run
did, and each histogram is well formed (cumulative buckets, +Inf equal to the count)."""
import subprocess
import sys

from prometheus_client.parser import text_string_to_metric_families

ORDER = {"type": "order"}
STOCK = {"type": 'stock "main"'}
EXPECTED_COUNTERS = {
    # family: {labels: value}; the parser drops the _total suffix from a counter's name.
    "distlock_acquisitions": [(ORDER, 4), (STOCK, 1)],
    "distlock_contended": [(ORDER, 2), (STOCK, 0)],
    "distlock_timeouts": [(ORDER, 2), (STOCK, 0)],
    "distlock_releases": [(ORDER, 4), (STOCK, 1)],
    "distlock_renewals": [(ORDER, 0), (STOCK, 0)],
    "distlock_renewal_failures": [(ORDER, 0), (STOCK, 0)],
    "distlock_lost": [(ORDER, 0), (STOCK, 0)],
}
EXPECTED_HISTOGRAM_COUNTS = {
    "distlock_wait_seconds": [(ORDER, 4), (STOCK, 1)],
    "distlock_hold_seconds": [(ORDER, 4), (STOCK, 1)],
}
BUCKETS = ["0.001", "0.005", "0.01", "0.05", "0.1", "0.5", "1.0", "5.0", "10.0", "30.0",
           "60.0", "300.0", "+Inf"]


def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def check_histogram(family, labels, expected_count):
    buckets = {}
    count = total = None
    for sample in family.samples:
        sample_labels = dict(sample.labels)
        le = sample_labels.pop("le", None)
        if sample_labels != labels:
            continue
        if sample.name.endswith("_bucket"):
            buckets[le] = sample.value
        elif sample.name.endswith("_count"):
            count = sample.value
        elif sample.name.endswith("_sum"):
            total = sample.value
    if [float(b) for b in buckets] != [float(b) for b in BUCKETS]:
        fail(f"{family.name}{labels}: buckets {list(buckets)}, expected {BUCKETS}")
    values = list(buckets.values())
    if values != sorted(values):
        fail(f"{family.name}{labels}: buckets not cumulative: {values}")
    if count != expected_count or values[-1] != count:
        fail(f"{family.name}{labels}: count {count}, +Inf {values[-1]}, expected {expected_count}")
    if total is None or total < 0:
        fail(f"{family.name}{labels}: sum {total}")


def main():
    text = subprocess.run([sys.argv[1]], check=True, capture_output=True, text=True).stdout
    families = {family.name: family for family in text_string_to_metric_families(text)}
    for name, expected in EXPECTED_COUNTERS.items():
        family = families.get(name) or fail(f"no family {name} in:\n{text}")
        if family.type != "counter":
            fail(f"{name} is a {family.type}, not a counter")
        values = {tuple(sorted(s.labels.items())): s.value for s in family.samples
                  if s.name == name + "_total"}
        for labels, value in expected:
            seen = values.get(tuple(sorted(labels.items())))
            if seen != value:
                fail(f"{name}_total{labels} = {seen}, expected {value}")
    for name, expected in EXPECTED_HISTOGRAM_COUNTS.items():
        family = families.get(name) or fail(f"no family {name} in:\n{text}")
        if family.type != "histogram":
            fail(f"{name} is a {family.type}, not a histogram")
        for labels, count in expected:
            check_histogram(family, labels, count)
    if "distlock_wait_seconds" in text and 'le="0.05"' not in text:
        fail("bucket bounds are not written as the documented numbers")
    print(f"ok: {len(families)} families parsed")


if __name__ == "__main__":
    main()
