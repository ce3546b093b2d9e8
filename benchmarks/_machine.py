"""Shared by the benchmark scripts: machine facts, and waiting for a quiet machine."""

from __future__ import annotations

import datetime as dt
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

LOAD_THRESHOLD = 1.2
"""Timed runs start once the 1-minute load average is below this."""
POLL_S = 10.0


def machine_info() -> dict[str, Any]:
    """Cores, RAM, CPU model, Python, platform, date and load average."""
    ram_gb = None
    cpu = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram_gb = round(int(line.split()[1]) / 1024 / 1024, 1)
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cores": os.cpu_count(), "ram_gb": ram_gb, "cpu": cpu,
        "python": platform.python_version(), "platform": platform.platform(),
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
    }


def wait_for_quiet(max_wait_s: float, threshold: float = LOAD_THRESHOLD) -> dict[str, Any]:
    """Wait until the 1-minute load average is below ``threshold`` (poll every 10 s)."""
    started = time.monotonic()
    while True:
        load = os.getloadavg()[0]
        waited = time.monotonic() - started
        if load < threshold:
            return {"waited_s": round(waited), "load_1m": round(load, 2), "gave_up": False}
        if waited >= max_wait_s:
            print(f"  load {load:.2f} still >= {threshold} after {waited:.0f} s: running anyway",
                  file=sys.stderr)
            return {"waited_s": round(waited), "load_1m": round(load, 2), "gave_up": True}
        print(f"  waiting for load < {threshold} (now {load:.2f}, {waited:.0f} s)",
              file=sys.stderr, flush=True)
        time.sleep(POLL_S)
