"""``bdpsim validate``: a config checked without running it, its configuration points listed."""

from __future__ import annotations

from .base import add_limit_options, config_path, limits, quietly, subcommand

EPILOG = """\
examples:
  bdpsim validate quickstart
  bdpsim validate configs/utility_galton.toml   (a [utility] config)
"""


def add_parser(sub) -> None:
    """Register ``bdpsim validate`` on the top-level subparsers ``sub``."""
    v = subcommand(
        sub,
        "validate",
        command,
        help="check a config and list its configuration points",
        description="Check CONFIG without running it: every key and value is validated "
        "and the expanded configuration points (the Cartesian product of "
        "all sweeps, per [[variants]] entry) are listed with their ids. "
        "A bad config prints one line naming the field, value and rule, "
        "and exits with code 2.",
        epilog=EPILOG,
    )
    v.add_argument("config", help="TOML config file or a bundled config's name")
    add_limit_options(v)


def command(a) -> int:
    """Run ``bdpsim validate``: the config's points (or its utility variants)."""
    from ..pipeline.config import is_utility_config, load_config, load_toml

    path = config_path(a)
    from ..pipeline.account_config import describe_account, is_account_config, load_account_config

    if is_account_config(load_toml(path)):
        print("\n".join(describe_account(quietly(load_account_config, path), str(path))))
        return 0
    if is_utility_config(load_toml(path)):
        from ..utility.experiment import describe_utility, load_utility

        print("\n".join(describe_utility(load_utility(path), str(path))))
        return 0
    from ..pipeline.cost import check_limits
    from ..pipeline.plan import describe

    lim = limits(a)
    cfg = quietly(load_config, path, lim)
    check_limits(cfg, lim)
    print("\n".join(describe(cfg)))
    return 0
