"""The committed results/quickstart is what a fresh run gives today (issue 27 item 18): every
byte of summary.csv except the compute-time column. A default that changes a number fails here
until results/quickstart is regenerated (``bdpsim run quickstart --out results/quickstart --force``,
then ``bdpsim plot results/quickstart``)."""

import csv
import io

import pytest

import bdpsim

from ..conftest import ROOT

TIMING = ("seconds",)


def _without_timing(text: str) -> str:
    rows = list(csv.reader(io.StringIO(text)))
    keep = [j for j, name in enumerate(rows[0]) if name not in TIMING]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([[r[j] for j in keep] for r in rows])
    return out.getvalue()


@pytest.mark.smoke  # the installed wheel gives the committed numbers (.ci/run)
def test_committed_quickstart_equals_a_fresh_run(tmp_path):
    bdpsim.run("quickstart", str(tmp_path / "q"))
    fresh = (tmp_path / "q" / "summary.csv").read_text()
    committed = (ROOT / "results" / "quickstart" / "summary.csv").read_text()
    assert fresh.splitlines()[0] == committed.splitlines()[0], "columns differ: regenerate results/quickstart"
    assert _without_timing(fresh) == _without_timing(committed), (
        "numbers differ: regenerate results/quickstart"
    )
