"""The timing loop of the SDK flow benches (sdk_bench.py, fastmcp_bench.py):
the same measurement inside each SDK, so their rows compare."""

from __future__ import annotations

import statistics
import time
from typing import Any, Dict, List, Sequence


async def median_us_per_call(client: Any, names: Sequence[str], repeats: int, sample_s: float) -> Dict[str, float]:
    """Checks that each tool answers "green" (correctness first), then calls
    each for `sample_s` seconds in turn, `repeats` times interleaved so that
    the machine's drift falls on every tool alike: the median µs per call."""
    for name in names:
        result = await client.call_tool(name, {})
        assert getattr(result.content[0], "text", None) == "green" and not result.is_error, (name, result)
    samples: Dict[str, List[float]] = {n: [] for n in names}
    for _ in range(repeats):
        for name in names:
            n, t0 = 0, time.perf_counter()
            while time.perf_counter() - t0 < sample_s:
                await client.call_tool(name, {})
                n += 1
            samples[name].append((time.perf_counter() - t0) / n * 1e6)
    return {n: statistics.median(v) for n, v in samples.items()}
