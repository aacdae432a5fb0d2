"""Regenerate the generated fixtures of tests/data: kid_iq.csv and activity.zip.

They are synthetic files in the exact formats of the real ones (byte layout, columns, size), so
the loaders, fits and utility experiments run on them; see README.md here. Deterministic: running
this script reproduces the committed bytes (``python tests/data/make_fixtures.py``).
"""

import io
import zipfile
from datetime import date, timedelta
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

# activity: the generating two-state chain (inactive = 0 steps, active > 0 steps); paper §7.1.2
# fits P = [[0.882, 0.118], [0.305, 0.695]] to the real data, so the fixture uses it.
ACTIVITY_P = np.array([[0.882, 0.118], [0.305, 0.695]])
ACTIVITY_NA_DAYS = (
    "2012-10-01",
    "2012-10-08",
    "2012-11-01",
    "2012-11-04",
    "2012-11-09",
    "2012-11-10",
    "2012-11-14",
    "2012-11-30",
)  # the real file's eight all-NA days
KID_IQ_ROWS = 434


def activity_csv(seed: int = 2012) -> str:
    rng = np.random.default_rng(seed)
    days = [date(2012, 10, 1) + timedelta(d) for d in range(61)]
    n = 288 * len(days)
    state = np.empty(n, dtype=int)
    state[0] = 0
    u = rng.random(n)
    for t in range(1, n):
        state[t] = int(u[t] < ACTIVITY_P[state[t - 1], 1])
    steps = np.where(state == 1, rng.integers(1, 800, n), 0)
    lines = ['"steps","date","interval"']
    for j, day in enumerate(days):
        iso = day.isoformat()
        for k in range(288):
            interval = 100 * (k // 12) + 5 * (k % 12)
            v = "NA" if iso in ACTIVITY_NA_DAYS else str(int(steps[288 * j + k]))
            lines.append(f'{v},"{iso}",{interval}')
    return "\n".join(lines) + "\n"


def activity_zip(seed: int = 2012) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        info = zipfile.ZipInfo("activity.csv", date_time=(2014, 2, 11, 15, 8, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(info, activity_csv(seed))
    return buf.getvalue()


def kid_iq_csv(seed: int = 434) -> bytes:
    """Same layout as the ARM kid_iq.csv: UTF-8 BOM, CRLF, unnamed row-number column."""
    rng = np.random.default_rng(seed)
    mom_iq = rng.normal(100.0, 15.0, KID_IQ_ROWS)
    kid = np.clip(np.rint(26.0 + 0.6 * mom_iq + rng.normal(0.0, 18.3, KID_IQ_ROWS)), 20, 144).astype(int)
    hs = rng.integers(0, 2, KID_IQ_ROWS)
    work = rng.integers(1, 5, KID_IQ_ROWS)
    age = rng.integers(17, 30, KID_IQ_ROWS)
    lines = [",kid_score,mom_hs,mom_iq,mom_work,mom_age"]
    lines += [f"{i + 1},{kid[i]},{hs[i]},{mom_iq[i]:.7f},{work[i]},{age[i]}" for i in range(KID_IQ_ROWS)]
    return ("\ufeff" + "\r\n".join(lines) + "\r\n").encode("utf-8")


def main() -> None:
    (HERE / "activity.zip").write_bytes(activity_zip())
    (HERE / "kid_iq.csv").write_bytes(kid_iq_csv())


if __name__ == "__main__":
    main()
