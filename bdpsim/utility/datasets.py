"""Dataset registry: commit-pinned URLs + sha256, fetched with pooch into the user's cache.

Resolution order for a file: ``data_dir`` argument, then ``$BDPSIM_DATA_DIR``, then the copy
shipped with the package (``bdpsim/data/``: Galton's heights, public domain), then the cache
(``$BDPSIM_CACHE_DIR`` or the platform cache dir), downloading on a miss. Every file, local or
downloaded, is verified against its sha256 before use. ``$BDPSIM_DATA_URL`` replaces the base of
every URL (a mirror; the tests serve their fixtures on 127.0.0.1 this way). Any failure is a
one-line :class:`DatasetError` that says where to get the file.

Why pooch: it is the well-kept standard for "URL + checksum + cache" downloads in the scientific
Python stack (used by SciPy, scikit-image, MNE); writing our own would duplicate it.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core.bundled import data_file
from ..core.errors import BdpsimError, check
from ..core.files import FileRefused, check_regular


class DatasetError(BdpsimError):
    """A dataset file is missing, corrupt, unreachable or malformed.

    ``public`` is the same message without any path of the machine (for records that are
    committed or shared, e.g. the figure gallery); it defaults to the message itself.
    """

    def __init__(self, message: str, public: str | None = None) -> None:
        super().__init__(message)
        self.public = public or message


@dataclass(frozen=True)
class Source:
    name: str
    filename: str
    url: str
    sha256: str | None
    doc: str


REGISTRY: dict[str, Source] = {
    "galton": Source(
        "galton",
        "galton.csv",
        "https://raw.githubusercontent.com/vincentarelbundock/Rdatasets/1dcc2bf5f955cc1224a3e1307256e1fe86b68dae/csv/mosaicData/Galton.csv",
        "20abf9edac9a4bf06c8db27034bf6b17f396bd89b535c8323129b6a78cb8f5a9",
        "Galton family heights (Rdatasets copy of mosaicData::Galton)",
    ),
    "kid_iq": Source(
        "kid_iq",
        "kid_iq.csv",
        "https://raw.githubusercontent.com/LyviaSC77/LyviaSC77/23ac8239240e94abf1d6e3a42058eb2d857f3a06/kid_iq.csv",
        "fd6ac6a3a21e01fcb448fbe5d560bead09980e5d01a771ce5018d879a60c9890",
        "child vs mother IQ (Gelman & Hill, ARM)",
    ),
    "activity": Source(
        "activity",
        "activity.zip",
        "https://raw.githubusercontent.com/rdpeng/RepData_PeerAssessment1/80edf39c3bb508fee88e3394542f967dd3fd3270/activity.zip",
        "753b17f014f8f5ae692ce3837449682e7e72d82038819711360e81054bce27bf",
        "activity monitoring data, Oct-Nov 2012 (activity.csv inside)",
    ),
    "electricity": Source(
        "electricity",
        "Electricity_P.csv",
        "https://doi.org/10.7910/DVN/FIE0S4",
        None,
        "AMPds2 Electricity_P.csv (Harvard Dataverse doi:10.7910/DVN/FIE0S4, 76 MB); "
        "download it from the dataverse and pass --data-dir",
    ),
}


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def cache_dir() -> Path:
    env = os.environ.get("BDPSIM_CACHE_DIR")
    if env:
        return Path(env)
    import pooch

    return Path(pooch.os_cache("bdpsim"))


def _verify(src: Source, path: Path) -> Path:
    if src.sha256 is not None:
        got = _sha256(path)
        if got != src.sha256:
            raise DatasetError(
                f"dataset {src.name}: {path} fails its checksum (sha256 {got[:12]}..., "
                f"expected {src.sha256[:12]}...); re-download it from {src.url}",
                f"dataset {src.name}: {src.filename} fails its checksum (sha256 {got[:12]}..., "
                f"expected {src.sha256[:12]}...); re-download it from {src.url}",
            )
    return path


def _fetch_local(name: str, src, local: Path, shipped: Path | None) -> Path:
    """The file of ``src`` in the user's ``local`` directory (``--data-dir`` or
    ``$BDPSIM_DATA_DIR``), verified; the shipped copy when the directory lacks it."""
    if not local.is_dir():  # a typo must not silently fall back on the shipped copy
        raise DatasetError(
            f"data_dir = {str(local)!r}: is not a directory (the directory holding "
            f"{src.filename}; from --data-dir or $BDPSIM_DATA_DIR)"
        )
    path = local / src.filename
    if path.exists() and not path.is_file():  # a FIFO or a device: never read, never silently replaced
        try:
            check_regular(path, 2**62)
        except FileRefused as exc:
            raise DatasetError(
                f"dataset {name}: {path} {exc.reason}",
                f"dataset {name}: {src.filename} in --data-dir {exc.reason}",
            ) from None
    if not path.is_file() and shipped is not None:
        return _verify(src, shipped)
    if not path.is_file():
        raise DatasetError(
            f"dataset {name}: {path} not found; get {src.filename} from {src.url}",
            f"dataset {name}: {src.filename} not supplied; get it from {src.url} and pass --data-dir DIR",
        )
    return _verify(src, path)


def fetch(name: str, data_dir: str | Path | None = None) -> Path:
    """Path of a verified local copy of dataset ``name`` (downloading into the cache if needed).

    Parameters
    ----------
    name : str
        A key of :data:`REGISTRY` (``galton``, ``kid_iq``, ``activity``, ``electricity``).
    data_dir : str or Path, optional
        Directory holding the file; default ``$BDPSIM_DATA_DIR``, else the download cache.

    Returns
    -------
    Path
        The file, verified against its pinned sha256.

    Raises
    ------
    DatasetError
        Unknown, missing, unreachable or failing its checksum (one line, saying where to get it).
    """
    if name not in REGISTRY:
        raise DatasetError(f"dataset = {name!r}: unknown (known: {', '.join(REGISTRY)})")
    src = REGISTRY[name]
    local = data_dir or os.environ.get("BDPSIM_DATA_DIR")
    shipped = data_file(src.filename) if src.sha256 is not None else None  # bdpsim/data/, public domain
    if local:
        return _fetch_local(name, src, Path(local), shipped)
    if src.sha256 is None:
        raise DatasetError(
            f"dataset {name}: {src.filename} not supplied and there is no pinned download; {src.doc}"
        )
    if shipped is not None:  # shipped with the package: offline, still verified
        return _verify(src, shipped)
    cached = cache_dir() / src.filename
    if cached.is_file():
        try:
            return _verify(src, cached)
        except DatasetError:
            cached.unlink()
    base = os.environ.get("BDPSIM_DATA_URL")
    url = f"{base.rstrip('/')}/{src.filename}" if base else src.url
    try:
        import pooch

        pooch.get_logger().setLevel("WARNING")  # no "Downloading data from ..." line: errors stay one line
        got = pooch.retrieve(
            url, known_hash=f"sha256:{src.sha256}", fname=src.filename, path=cache_dir(), progressbar=False
        )
    except ValueError as exc:  # pooch: hash mismatch
        raise DatasetError(
            f"dataset {name}: download from {url} fails its checksum ({str(exc).splitlines()[0]})"
        ) from None
    except Exception as exc:  # network errors of any kind
        raise DatasetError(
            f"dataset {name}: cannot download {url} ({type(exc).__name__}); "
            f"download {src.filename} by hand from {src.url} and pass --data-dir DIR"
        ) from None
    return Path(got)


# ------------------------------------------------------------------------------------ loaders


def _rows(text: str, name: str, required: list[str]) -> list[dict]:
    try:
        reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
        rows = list(reader)
    except csv.Error as exc:
        raise DatasetError(f"dataset {name}: malformed CSV ({exc})") from None
    cols = [c.lstrip("\ufeff") for c in (reader.fieldnames or [])]
    missing = [c for c in required if c not in cols]
    if missing or not rows:
        raise DatasetError(
            f"dataset {name}: malformed CSV (missing columns {missing} or no rows; has {cols[:8]})"
        )
    return [{k.lstrip("\ufeff"): v for k, v in r.items()} for r in rows]


def _floats(rows: list[dict], col: str, name: str, allow_na: bool = False) -> np.ndarray:
    out = np.empty(len(rows))
    for j, r in enumerate(rows):
        v = (r.get(col) or "").strip()
        if allow_na and v in ("", "NA", "NaN", "nan"):
            out[j] = np.nan
            continue
        try:
            out[j] = float(v)
        except ValueError:
            raise DatasetError(
                f"dataset {name}: malformed value {v!r} in column {col!r}, row {j + 2}"
            ) from None
    return out


def load_galton(path: Path) -> dict:
    """Galton heights (inches): per row a child with its father and mother."""
    rows = _rows(
        Path(path).read_text(encoding="utf-8", errors="replace"),
        "galton",
        ["family", "father", "mother", "height"],
    )
    return {
        "father": _floats(rows, "father", "galton"),
        "mother": _floats(rows, "mother", "galton"),
        "child": _floats(rows, "height", "galton"),
        "family": [r["family"] for r in rows],
    }


def load_kid_iq(path: Path) -> dict:
    rows = _rows(Path(path).read_text(encoding="utf-8", errors="replace"), "kid_iq", ["kid_score", "mom_iq"])
    return {"kid": _floats(rows, "kid_score", "kid_iq"), "mom": _floats(rows, "mom_iq", "kid_iq")}


def load_activity(path: Path) -> dict:
    """Steps per 5-minute interval; ``steps`` has nan for NA; 61 days x 288 intervals."""
    try:
        with zipfile.ZipFile(path) as z:
            text = z.read("activity.csv").decode("utf-8")
    except (zipfile.BadZipFile, KeyError) as exc:
        raise DatasetError(
            f"dataset activity: {path} is not a zip holding activity.csv ({exc})",
            f"dataset activity: activity.zip is not a zip holding activity.csv ({exc})",
        ) from None
    rows = _rows(text, "activity", ["steps", "date", "interval"])
    return {
        "steps": _floats(rows, "steps", "activity", allow_na=True),
        "date": [r["date"] for r in rows],
        "interval": _floats(rows, "interval", "activity"),
    }


METERS = ("all", "WHE")
ELECTRICITY_PREPROCESSING = {
    "all": "daily energy (kWh) = 24 h x the mean, over the day's readings, of the sum of every meter column "
    "of Electricity_P.csv (WHE and all sub-meters), as the authors' utility_experiment.py; UTC days; "
    "a day with any reading counts",
    "WHE": "daily energy (kWh) = 24 h x the mean, over the day's readings, of the whole-house "
    "meter WHE only; "
    "UTC days; a day with any reading counts",
}


def load_electricity(path: Path, meters: str = "all") -> dict:
    """AMPds ``Electricity_P.csv`` (``UNIX_TS`` in s, one column of real power in W per meter, one
    row a minute) as daily energy totals.

    ``meters = "all"`` follows the authors' ``utility_experiment.py``: the power of a minute is the
    sum of *every* meter column, averaged over each UTC day's readings and multiplied by 24 h
    (pandas ``resample('24H').mean() * 24``; days without readings dropped). ``WHE`` is the
    whole-house meter and the other columns meter circuits inside the house (sub-meters), so this
    sum counts the house's consumption more than once; ``meters = "WHE"`` uses the whole-house
    meter alone. Both daily series are returned (``kwh`` the selected one, ``kwh_whe`` and
    ``kwh_all`` each), with ``readings`` per day and the ``columns`` summed.
    """
    check(meters in METERS, "meters", meters, f"must be one of {list(METERS)}")
    with open(path, encoding="utf-8", errors="replace") as fh:
        header = fh.readline().strip().lstrip("\ufeff").split(",")
        if "UNIX_TS" not in header or "WHE" not in header:
            raise DatasetError(
                f"dataset electricity: {path} is not AMPds Electricity_P.csv "
                f"(needs columns UNIX_TS and WHE, has {header[:6]})",
                f"dataset electricity: Electricity_P.csv is not AMPds' (needs UNIX_TS and WHE, "
                f"has {header[:6]})",
            )
        try:
            with warnings.catch_warnings():  # a header-only file: the one-line error below, no numpy warning
                warnings.simplefilter("ignore", UserWarning)
                data = np.loadtxt(fh, delimiter=",", ndmin=2)
        except ValueError as exc:
            raise DatasetError(f"dataset electricity: malformed CSV ({str(exc).splitlines()[0]})") from None
    if data.shape[0] == 0 or data.shape[1] != len(header):
        raise DatasetError(
            f"dataset electricity: {path} holds no rows of {len(header)} columns",
            f"dataset electricity: Electricity_P.csv holds no rows of {len(header)} columns",
        )
    ts = data[:, header.index("UNIX_TS")]
    cols = [c for c in header if c != "UNIX_TS"]
    total = data[:, [header.index(c) for c in cols]].sum(axis=1)
    whe = data[:, header.index("WHE")]
    days, inv, counts = np.unique(
        np.floor(ts / 86400.0).astype(np.int64), return_inverse=True, return_counts=True
    )
    kwh_all = np.bincount(inv, weights=total) / counts * 24.0 / 1000.0
    kwh_whe = np.bincount(inv, weights=whe) / counts * 24.0 / 1000.0
    return {
        "day": days,
        "kwh": kwh_all if meters == "all" else kwh_whe,
        "kwh_all": kwh_all,
        "kwh_whe": kwh_whe,
        "readings": counts,
        "meters": meters,
        "columns": cols if meters == "all" else ["WHE"],
    }


LOADERS = {
    "galton": load_galton,
    "kid_iq": load_kid_iq,
    "activity": load_activity,
    "electricity": load_electricity,
}


def load(name: str, data_dir=None) -> dict:
    """Fetch (:func:`fetch`) and parse dataset ``name`` with its loader (:data:`LOADERS`).

    Parameters
    ----------
    name : str
        A key of :data:`REGISTRY`.
    data_dir : str or Path, optional
        As for :func:`fetch`.

    Returns
    -------
    dict
        The loader's columns as arrays (e.g. ``father``, ``mother``, ``child`` for ``galton``).
    """
    return LOADERS[name](fetch(name, data_dir))


def synthetic_iq(
    records: int = 20_000,
    rho: float = 0.45,
    mean: float = 100.0,
    sd: float = 15.0,
    rng: np.random.Generator | None = None,
) -> dict:
    """SyntheticIQ: ``records/2`` parent-child pairs, bivariate normal with correlation ``rho``.

    Note: paper §7.1.1 writes "sigma^2 = 15"; the IQ convention (mean 100, sd 15) says sd 15. We
    follow sd = 15 (the calibration depends only on rho and the clip range, not on sd)."""
    rng = rng or np.random.default_rng(0)
    pairs = records // 2
    z = rng.multivariate_normal([mean, mean], sd**2 * np.array([[1, rho], [rho, 1]]), size=pairs)
    return {"mom": z[:, 0], "kid": z[:, 1]}
