"""Run Python code in a fresh process and read what it prints: how the benchmarks time from cold."""

from __future__ import annotations

import subprocess
import sys


def printed(code: str, env: dict, timeout: float, cwd: str | None = None) -> list[str] | None:
    """The whitespace-separated words ``code`` prints to stdout in a fresh ``python -c`` (with
    ``env``, in ``cwd``), or ``None`` past ``timeout`` seconds; a failing run raises
    ``CalledProcessError``."""
    try:
        out = subprocess.run(
            [sys.executable, "-c", code],
            env=env,
            cwd=cwd,
            capture_output=True,
            text=True,
            check=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return None
    return out.stdout.split()
