"""Reading a user's file without trusting it: a regular file, of a bounded size, read in bounded time.

A path given in a config or on the command line may name something that never ends — ``/dev/zero``,
``/dev/urandom``, a FIFO nobody writes to — or a file far larger than any input bdpsim takes.
:func:`read_bytes` checks the file's type and size with one ``stat`` before reading (a FIFO is
never opened, so nothing blocks) and reads at most ``limit + 1`` bytes, so that even a file that
grows while read cannot make it read for ever. Its refusal, :class:`FileRefused` (a
``ValueError``), carries only the rule; the caller names the field (``config``, ``model.bif``,
``mechanism.noise_table``, ...). This module imports nothing of bdpsim's, so that the kernels may
use it.
"""

from __future__ import annotations

import contextvars
import os
import stat
from pathlib import Path

#: the largest file of each kind bdpsim reads (bytes): far above any real input
LIMITS = {"toml": 16 * 2**20, "json": 64 * 2**20, "bif": 64 * 2**20}

#: the directory of the config file being read (``None``: a config given as a dict): a relative
#: path in it (``model.bif``, ``mechanism.noise_table``, a ``kind = "python"`` module) names a file
#: beside it, wherever the command runs
CONFIG_DIR: contextvars.ContextVar[str | None] = contextvars.ContextVar("bdpsim_config_dir", default=None)


def beside_config(path: str | os.PathLike) -> Path:
    """``path`` as a config names it: a relative path is relative to the directory of the config
    being read (:data:`CONFIG_DIR`), or to the working directory when no config file is read."""
    p = Path(path)
    where = CONFIG_DIR.get()
    return p if p.is_absolute() or where is None else Path(where) / p


class FileRefused(ValueError):
    """A path that is not read: missing, not a regular file, or over the size limit (``reason``)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def _size(n: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"  # pragma: no cover - unreachable


def check_regular(path: str | os.PathLike, limit: int) -> Path:
    """``path`` if it is a regular file (symbolic links followed) of at most ``limit`` bytes.

    Raises
    ------
    FileRefused
        "file not found", "is not a regular file (a FIFO)" (a directory, a device, a socket), or
        "is N MiB: larger than the limit of M MiB".
    """
    p = Path(path)
    try:
        st = p.stat()
    except FileNotFoundError:
        raise FileRefused("file not found") from None
    except OSError as exc:
        raise FileRefused(f"cannot be read ({exc.strerror or type(exc).__name__})") from None
    if not stat.S_ISREG(st.st_mode):
        what = (
            "a directory"
            if stat.S_ISDIR(st.st_mode)
            else "a FIFO"
            if stat.S_ISFIFO(st.st_mode)
            else "a device"
            if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
            else "a socket"
            if stat.S_ISSOCK(st.st_mode)
            else "not a file"
        )
        raise FileRefused(f"is not a regular file ({what}): give the path of a file")
    if st.st_size > limit:
        raise FileRefused(f"is {_size(st.st_size)}: larger than the limit of {_size(limit)} for this file")
    return p


def read_bytes(path: str | os.PathLike, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (see :func:`check_regular`).

    Reads at most ``limit + 1`` bytes, so a file growing while it is read is refused too.
    """
    p = check_regular(path, limit)
    try:
        with open(p, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise FileRefused(f"cannot be read ({exc.strerror or type(exc).__name__})") from None
    if len(data) > limit:
        raise FileRefused(f"grew past the limit of {_size(limit)} while being read")
    return data


def read_text(path: str | os.PathLike, limit: int) -> str:
    """:func:`read_bytes` decoded as UTF-8 (``FileRefused`` "is not UTF-8 text" otherwise)."""
    try:
        return read_bytes(path, limit).decode("utf-8")
    except UnicodeDecodeError:
        raise FileRefused("is not UTF-8 text") from None
