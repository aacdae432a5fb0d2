"""The arguments of one ``bdpsim`` subcommand as the parser holds them (its choices, its default)."""

from __future__ import annotations

import argparse


def action_of(path: list[str], flag: str) -> argparse.Action:
    """The action of ``flag`` on the subcommand ``path`` (``["calibrate", "markov"]``) of
    :func:`bdpsim.cli.build_parser`."""
    from bdpsim.cli import build_parser

    parser = build_parser()
    for name in path:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[name]
    return next(a for a in parser._actions if flag in a.option_strings)


def choices_of(path: list[str], flag: str) -> list:
    """The choices of ``flag`` on the subcommand ``path``."""
    return list(action_of(path, flag).choices or ())


def default_of(path: list[str], flag: str):
    """The default of ``flag`` on the subcommand ``path``."""
    return action_of(path, flag).default
