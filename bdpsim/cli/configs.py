"""``bdpsim configs``: the bundled example configs, listed or copied."""

from __future__ import annotations

from .base import subcommand

EPILOG = """\
examples:
  bdpsim configs
  bdpsim configs --copy my-configs
  bdpsim run quickstart --out results/my-quickstart
"""


def add_parser(sub) -> None:
    """Register ``bdpsim configs`` on the top-level subparsers ``sub``."""
    cf = subcommand(
        sub,
        "configs",
        command,
        help="list the bundled example configs (--copy DIR copies them)",
        description="The example configs shipped with bdpsim. Run one by name from any "
        "directory ('bdpsim run quickstart'), or copy them to edit your own.",
        epilog=EPILOG,
    )
    cf.add_argument(
        "--copy", metavar="DIR", help="copy every bundled config into DIR (never overwrites a file)"
    )


def command(a) -> int:
    """Run ``bdpsim configs``: one line per bundled config (or the files copied)."""
    from ..core import bundled
    from ..pipeline.config import load_toml

    if a.copy is not None:
        for p in bundled.copy_configs(a.copy):
            print(p)
        return 0
    for name in bundled.config_names():
        raw = load_toml(bundled.CONFIG_DIR / f"{name}.toml")
        title = raw.get("title") or raw.get("utility", {}).get("title") or ""
        print(f"{name:22} {title}".rstrip())
    print(f"(in {bundled.CONFIG_DIR}; run one by name: bdpsim run quickstart --out results/my-quickstart)")
    return 0
