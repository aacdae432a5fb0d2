"""Warnings located where the user can act on them: at the line of the key of the config file being
read that caused the warning, or, called from Python, at the first caller outside bdpsim.

Python prints a warning as ``FILE:LINE: Category: message`` followed by that line; a location
inside bdpsim would show the user a line of ours. While a config file is read
(:func:`config_file`: :func:`bdpsim.pipeline.config.parse_config`, the accountant's config), a
warning that a key of it causes (:func:`warn_user`: ``[run] bootstrap`` read by no estimator, the
records a count of a network's state names leaves out) is located at the first line setting that
key (:func:`key_line`) with ``warnings.warn_explicit``; otherwise it is located at the first
caller outside the package (:func:`outside_bdpsim`). Either way the interpreter's warning filters
(``-W``, ``PYTHONWARNINGS``, ``warnings.filterwarnings``) decide whether it is shown, ignored
or raised.
"""

from __future__ import annotations

import contextvars
import os
import re
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

from .files import LIMITS, FileRefused, read_text

#: the config file being read (``None``: none, or a config given as a dict), where
#: :func:`warn_user` locates the warnings its keys cause
CONFIG_FILE: contextvars.ContextVar[str | None] = contextvars.ContextVar("bdpsim_config_file", default=None)

#: the top directory of the package: frames below it are bdpsim's own
_HERE = str(Path(__file__).resolve().parents[1]) + os.sep

#: the registries of the warnings located in config files, one per file (as Python keeps one per
#: module): each warning shown once per process, file, line and text under the default filter
_WARNED: dict[str, dict] = {}


@contextmanager
def config_file(source: str | Path | None) -> Iterator[None]:
    """Within the block, the warnings of :func:`warn_user` are located in the config file
    ``source`` (a config given as a dict, ``source`` not a file: at the caller, even inside the
    reading of another config's file)."""
    path = str(source) if source and Path(source).is_file() else None
    token = CONFIG_FILE.set(path)
    try:
        yield
    finally:
        CONFIG_FILE.reset(token)


def key_line(source: str, key: str) -> int:
    """The first line of the config file ``source`` that sets ``key`` (``key = ...``, also in an
    inline table or a dotted key), 1 when none is found or the file cannot be read."""
    setting = re.compile(rf"(?:^|[\s{{,.]){re.escape(key)}\s*=")
    try:
        text = read_text(source, LIMITS["toml"])
    except (OSError, FileRefused):
        return 1
    for i, line in enumerate(text.splitlines(), 1):
        if setting.search(line.split("#", 1)[0]):
            return i
    return 1


def outside_bdpsim(frame: FrameType | None = None) -> int:
    """The ``stacklevel`` of the first caller outside the package, for ``warnings.warn`` called by
    the caller of this function (``frame``: that caller's frame, found here when ``None``)."""
    frame = sys._getframe(1) if frame is None else frame
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_HERE):
        frame, level = frame.f_back, level + 1
    return level


def warn_user(message: str, key: str | None = None, category: type[Warning] = UserWarning) -> None:
    """Warn ``message`` (a ``category``), located at the line setting ``key`` of the config file
    being read (:data:`CONFIG_FILE`), or, without one (or without a ``key``), at the first caller
    outside bdpsim. ``key``: the config key causing the warning, as written in the file
    (``bootstrap``, ``counted_states``; a dotted field such as ``mechanism.counted_states`` is
    read by its last part)."""
    source = CONFIG_FILE.get()
    if source is not None and key:
        line = key_line(source, key.rsplit(".", 1)[-1])
        warnings.warn_explicit(message, category, source, line, registry=_WARNED.setdefault(source, {}))
    else:
        warnings.warn(message, category, stacklevel=outside_bdpsim(sys._getframe(1)) + 1)


__all__ = ["CONFIG_FILE", "config_file", "key_line", "outside_bdpsim", "warn_user"]
