"""A verdict with an attempt key, and a retry, against the same verdict without a key, as the
kiosk's rows grow (benchmarks/retry_lookup.py; 1,000 rows once, untimed, under CI)."""

from __future__ import annotations

from benchmarks import retry_lookup


def test_retry_lookup(benchmark, capsys):
    results = benchmark.pedantic(retry_lookup.main, args=([],), rounds=1, iterations=1)
    with capsys.disabled():
        for result in results:
            print(
                f"\n{result['rows']:,} rows: keyed {result['keyed_ratio']:.2f}x, "
                f"retry {result['retry_ratio']:.2f}x the verdict without a key"
            )
    assert all(result["retry"] > 0 and result["keyed"] > 0 for result in results)
