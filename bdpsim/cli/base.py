"""What every subcommand of ``bdpsim`` shares: the parser and help layout, the one way a subcommand
registers itself (:func:`subcommand`), the options several take (limits, ``--overwrite``, output
directories), naming a library error by its flag (:func:`flag_error`) and printing JSON.

A subcommand module (``bdpsim/cli/<name>.py``) has ``add_parser(sub)``, which builds its parser
with :func:`subcommand` and names the function that runs it; :func:`bdpsim.cli.main` calls
``args.run(args)``. Nothing here imports the numerical stack: ``bdpsim --help`` starts without it.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..core.errors import ConfigError, field_error


class Formatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions and epilogs: indented lines (examples) and headings (``examples:``) stay exactly
    as written, never wrapped; the lines of a prose paragraph are joined and filled to the terminal
    (a prose line ending in ``.``, ``:`` or ``;`` ends its paragraph)."""

    def _fill_text(self, text, width, indent):
        out: list[str] = []
        prose: list[str] = []

        def flush() -> None:
            if prose:
                out.extend(
                    textwrap.fill(
                        " ".join(prose), max(width, 20), initial_indent=indent, subsequent_indent=indent
                    ).splitlines()
                )
                prose.clear()

        for line in text.splitlines():
            if not line.strip() or line[0].isspace():
                flush()
                out.append(indent + line if line.strip() else "")
            else:
                prose.append(line.strip())
                if line.rstrip().endswith((".", ":", ";")):
                    flush()
        flush()
        return "\n".join(out)


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line, exit code 2."""

    def error(self, message: str):
        """Print ``message`` as one line naming the command's ``--help`` and exit with code 2."""
        self.exit(2, f"bdpsim: error: {message} (see '{self.prog} --help')\n")


def subcommand(
    sub,
    name: str,
    run: Callable[[argparse.Namespace], int],
    *,
    help: str,
    description: str,
    epilog: str,
    **defaults: Any,
) -> Parser:
    """Register the subcommand ``name`` on the subparsers ``sub``: its parser (laid out by
    :class:`Formatter`; ``help`` the line of ``bdpsim --help``) and ``run(args) -> exit code``, the
    function :func:`bdpsim.cli.main` calls (``defaults``: further values it finds in ``args``).
    Returns the parser, for its arguments."""
    p = sub.add_parser(name, help=help, description=description, epilog=epilog, formatter_class=Formatter)
    p.set_defaults(run=run, **defaults)
    return p


def add_old_spelling(parser, old: str, new: str, **kwargs) -> None:
    """Read the flag ``old`` of earlier releases as ``new`` (whose default must be ``None``) for one
    more release: hidden from ``--help``; :func:`take_old_spellings` moves its value, with a note."""
    dest = "old_" + old.lstrip("-").replace("-", "_")
    parser.add_argument(old, dest=dest, help=argparse.SUPPRESS, **kwargs)
    parser.set_defaults(old_spellings=(*(parser.get_default("old_spellings") or ()), (old, dest, new)))


def take_old_spellings(a) -> None:
    """Move the value of each old spelling given (:func:`add_old_spelling`) to its new flag, with a
    note on stderr; an old and a new spelling both given are refused in one line."""
    for old, dest, new in getattr(a, "old_spellings", ()):
        value = getattr(a, dest)
        if value is None:
            continue
        target = new.lstrip("-").replace("-", "_")
        if getattr(a, target) is not None:
            raise ConfigError(old, value, f"is {new} now: give {new} only")
        setattr(a, target, value)
        note(f"{old} is {new} now; {old} goes in the next release")


def note(text: str) -> None:
    """One line on stderr, ``bdpsim: note: TEXT`` (the words of an earlier release still read)."""
    print(f"bdpsim: note: {text}", file=sys.stderr)


def subcommands(parser: argparse.ArgumentParser, dest: str, metavar: str):
    """The sub-subcommands of a subcommand (``calibrate markov``, ``bounds gaussian``): their
    subparsers, one of them required."""
    return parser.add_subparsers(dest=dest, required=True, parser_class=Parser, metavar=metavar)


# ----------------------------------------------------------------------------- shared options


def add_limit_options(parser) -> None:
    """``--max-memory-gib`` and ``--max-work`` (``run``, ``validate``)."""
    parser.add_argument(
        "--max-memory-gib",
        type=float,
        default=8.0,
        metavar="GIB",
        help="refuse a config whose estimated peak memory exceeds this (default 8)",
    )
    parser.add_argument(
        "--max-work",
        type=float,
        default=1e13,
        metavar="UNITS",
        help="refuse a config whose estimated work exceeds this many units "
        "(default 1e13, about a day of one core; 'bdpsim validate' prints the estimate)",
    )


def limits(a):
    """The :class:`~bdpsim.pipeline.cost.Limits` of :func:`add_limit_options`."""
    from ..pipeline.cost import Limits

    return Limits(a.max_memory_gib, a.max_work)


def add_overwrite_option(parser) -> None:
    """``--overwrite``: write where files committed to git are (refused without it)."""
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="write into an output directory that holds files committed to git (the "
        "checkout's reference results under results/; refused without it)",
    )


def check_out(a, out) -> None:
    """The output directory must not hold committed files, unless ``--overwrite``."""
    from ..pipeline.results import check_not_committed

    if not a.overwrite:
        check_not_committed(out)


def check_writable_dir(out: Path, overwrite: bool = False) -> None:
    """``--out`` must be (or become) a directory: not a file, nor below one; nor, without
    ``--overwrite``, one holding files committed to git
    (:func:`bdpsim.pipeline.results.check_not_committed`)."""
    from ..pipeline.results import check_not_committed

    if not overwrite:
        check_not_committed(out)
    if out.exists():
        if not out.is_dir():
            raise ConfigError("--out", str(out), "exists and is not a directory")
        return
    anc = out
    while not anc.exists() and anc != anc.parent:
        anc = anc.parent
    if not anc.is_dir():
        raise ConfigError("--out", str(out), f"{anc} is a file, not a directory")


def check_writable_file(flag: str, path: str | None) -> None:
    """An output file named by ``flag`` (``--json``, ``--csv``), checked before any work: not a
    directory, nor below a file (an error after the computation would name a temporary file)."""
    if path is None:
        return
    p = Path(path)
    if p.is_dir():
        raise ConfigError(flag, path, "is a directory: name a file to write")
    if p.exists() and not p.is_file():  # a FIFO or a device: the write would block or be lost
        raise ConfigError(flag, path, "is not a regular file (a pipe or a device): name a file to write")
    anc = p.parent
    while not anc.exists() and anc != anc.parent:
        anc = anc.parent
    if not anc.is_dir():
        raise ConfigError(flag, path, f"{anc} is a file, not a directory")
    try:  # an anonymous file: nothing is left behind, and /proc or a read-only disk says no now
        with tempfile.TemporaryFile(dir=anc):
            pass
    except OSError as err:
        raise ConfigError(flag, path, f"cannot write in {anc} ({err.strerror})") from None


def check_data_dir(data_dir: str | None) -> None:
    """``--data-dir`` must name a directory: a typo would otherwise silently use the bundled or
    downloaded copies instead of the user's files."""
    if data_dir is not None and not Path(data_dir).is_dir():
        raise ConfigError(
            "--data-dir", data_dir, "is not a directory (the directory holding the dataset files)"
        )


def check_jobs(jobs: int) -> None:
    """``--jobs``: an integer >= 1."""
    if jobs < 1:
        raise ConfigError("--jobs", jobs, "must be an integer >= 1")


def config_path(a) -> Path:
    """``a.config`` as a file: the path itself, or the bundled config of that name (one line otherwise)."""
    from ..core.bundled import resolve_config

    return resolve_config(a.config)


def quietly(fn, *args):
    """Call ``fn``; warnings it raises are shown only after it succeeded (never before an error),
    each once (every point of a sweep would repeat a config's). The interpreter's warning filters
    decide as everywhere (``-W``, ``PYTHONWARNINGS``): an ignored warning is not shown, and one they
    make an error is raised (the command's one-line error, :func:`bdpsim.cli.main`)."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:  # the filters as they are: only the showing waits
        result = fn(*args)
    shown = set()
    for w in caught:
        if (str(w.message), w.category) not in shown:
            shown.add((str(w.message), w.category))
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    return result


# ----------------------------------------------------------------------------- errors and output


def flag_error(err: BaseException, flags: Mapping[str, str]) -> ConfigError | None:
    """A library error (a :class:`~bdpsim.core.errors.ConfigError` or a kernel's parameter error)
    as the one-line error naming the command's flag: ``flags`` maps a library field to the flag;
    a field it does not map keeps its own name (a config's ``mechanism.counted_states``); ``None``
    for any other exception."""
    exc = field_error(err)
    if exc is None:
        return None
    flag = flags.get(exc.field)
    return ConfigError(flag, exc.value, exc.rule) if flag else exc


@contextmanager
def named_by(flags: Mapping[str, str]) -> Iterator[None]:
    """Re-raise a library error raised inside the block as the one naming its flag
    (:func:`flag_error`)."""
    try:
        yield
    except ValueError as err:
        named = flag_error(err, flags)
        if named is None or named is err:
            raise
        raise named from None


def finite_json(obj: Any) -> Any:
    """``obj`` with every non-finite float replaced by ``None`` (JSON has no infinity)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: finite_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite_json(v) for v in obj]
    return obj


#: the ``--json`` help of the commands that print one JSON object instead of their table
JSON_HELP = "print one JSON object instead of the table (inf and nan as null, each with its reason)"


def emit(a, lines: list[str], data: dict) -> None:
    """The table (``lines``) or, with ``--json``, ``data`` as one JSON object."""
    print(json.dumps(finite_json(data), indent=2) if a.json else "\n".join(lines))


__all__ = [
    "JSON_HELP",
    "Formatter",
    "Parser",
    "add_limit_options",
    "add_old_spelling",
    "add_overwrite_option",
    "check_data_dir",
    "check_jobs",
    "check_out",
    "check_writable_dir",
    "config_path",
    "emit",
    "finite_json",
    "flag_error",
    "limits",
    "named_by",
    "note",
    "quietly",
    "subcommand",
    "subcommands",
    "take_old_spellings",
]
