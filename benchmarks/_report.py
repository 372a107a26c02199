"""benchmarks/_report.py: how every benchmark prints its table and saves its JSON."""

from __future__ import annotations

import datetime
import json
from typing import Any

Row = tuple[str, float, str]


def report(rows: list[Row], json_path: str | None, **extra: Any) -> None:
    """Prints the device, driver and date, then one line per row; writes them all to
    `json_path` when given. `extra` fields (run parameters) go into the JSON too."""
    import pycuda.driver as drv

    info = {
        "device": drv.Context.get_device().name(),
        "driver_version": drv.get_driver_version(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        **extra,
    }
    print(f"device: {info['device']}   driver: {info['driver_version']}   date: {info['date']}")
    width = max(len(r[0]) for r in rows)
    for name, value, unit in rows:
        print(f"{name:<{width}}  {value:10.3f}  {unit}")
    if json_path:
        with open(json_path, "w") as f:
            json.dump({**info, "rows": [list(r) for r in rows]}, f, indent=2)
