"""Files shipped inside the package: the example configs (``bdpsim/configs/*.toml``) and the
public-domain data sets (``bdpsim/data/``), so that ``bdpsim run quickstart`` and ``bdpsim utility
utility_galton`` work from any directory, offline, after a plain ``pip install .``.

The repository's ``configs/`` is a link to ``bdpsim/configs/``: one copy of every config.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from .errors import ConfigError, check
from .files import FileRefused, check_regular

HERE = Path(__file__).resolve().parents[1]  # the package folder (configs/ and data/ beside core/)
CONFIG_DIR = HERE / "configs"
DATA_DIR = HERE / "data"


def config_names() -> list[str]:
    """Names of the bundled configs (file stems), sorted."""
    return sorted(p.stem for p in CONFIG_DIR.glob("*.toml"))


def bundled_config(name: str) -> Path | None:
    """The bundled config called ``name`` (``quickstart`` or ``quickstart.toml``), else ``None``."""
    stem = name[:-5] if name.endswith(".toml") else name
    path = CONFIG_DIR / f"{stem}.toml"
    return path if "/" not in stem and "\\" not in stem and path.is_file() else None


def _available() -> str:
    return (
        f"bundled configs: {', '.join(config_names())} (run one by name, e.g. 'bdpsim run quickstart'; "
        "'bdpsim configs --copy DIR' copies them)"
    )


def resolve_config(path: str | Path, field: str = "config") -> Path:
    """The config file that ``path`` names: an existing file, else a bundled config of that name.

    Raises
    ------
    ConfigError
        ``path`` is a directory, or neither a file nor a bundled config's name (the message lists
        the bundled configs).
    """
    text = str(path)
    check(text.strip() != "", field, text, "must be a TOML file or a bundled config's name")
    p = Path(text).expanduser()
    if p.is_file():
        return p
    if p.is_dir():
        inside = sorted(q.name for q in p.glob("*.toml"))[:6]
        hint = f"; it holds {', '.join(inside)}" if inside else ""
        raise ConfigError(field, text, f"is a directory, not a config file{hint}")
    if p.exists():  # a FIFO, a device, a socket: never opened (reading one may never end)
        try:
            check_regular(p, 2**62)
        except FileRefused as exc:
            raise ConfigError(field, text, exc.reason) from None
    found = bundled_config(text)
    if found is not None:
        return found
    raise ConfigError(field, text, f"file not found; {_available()}")


def copy_configs(dest: str | Path) -> list[Path]:
    """Copy every bundled config into the directory ``dest`` (created if needed); an existing file
    of the same name is never overwritten (refused before anything is copied)."""
    d = Path(dest).expanduser()
    check(not d.exists() or d.is_dir(), "--copy", str(dest), "exists and is not a directory")
    src = sorted(CONFIG_DIR.glob("*.toml"))
    clash = [p.name for p in src if (d / p.name).exists()]
    check(
        not clash,
        "--copy",
        str(dest),
        f"already holds {', '.join(clash[:4])}{' ...' if len(clash) > 4 else ''}; "
        "nothing copied (remove them or choose another directory)",
    )
    try:
        d.mkdir(parents=True, exist_ok=True)
        return [Path(shutil.copyfile(p, d / p.name)) for p in src]
    except OSError as exc:
        raise ConfigError("--copy", str(dest), f"cannot be written ({exc.strerror or exc})") from None


def data_file(filename: str) -> Path | None:
    """A data file shipped with the package (``bdpsim/data/FILENAME``), else ``None``."""
    path = DATA_DIR / filename
    return path if path.is_file() else None
