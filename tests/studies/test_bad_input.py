"""Bad input: probes of the studies layer."""

import pytest


def test_fetch_refuses_a_missing_data_dir(tmp_path):
    from bdpsim.utility import datasets as DS

    with pytest.raises(DS.DatasetError, match="is not a directory"):
        DS.fetch("galton", tmp_path / "nonexistent")


def test_accuracy_rows_are_labelled(bdpsim_cli, tmp_path, monkeypatch):
    from bdpsim.studies import accuracy as A

    def fake(samples, adversaries, seed, jobs, out=None, progress=None, finished=None, meta=None):
        base = {
            "case": "markov n=10 gamma=1 eps=1",
            "samples": 1000,
            "bias": 0.0,
            "rmse": 0.0,
            "max_abs_error": 0.0,
        }
        return [
            dict(base, estimator="kde", target_se=0.0),
            dict(base, estimator="mixture", target_se=0.0),
            dict(base, estimator="mixture", target_se=0.005),
        ]

    monkeypatch.setattr(A, "accuracy_table", fake)
    monkeypatch.setattr(A, "write_report", lambda *a, **k: [])
    import bdpsim.figures.accuracy as FA

    monkeypatch.setattr(FA, "save_accuracy", lambda rows, out: [])
    p = bdpsim_cli("accuracy", "--out", tmp_path / "acc", "--quiet")
    assert p.returncode == 0, p.stderr
    labels = [line.split("eps=1", 1)[1].split()[0:2] for line in p.stdout.splitlines()[1:]]
    assert labels == [["kde", "1000"], ["mixture", "1000"], ["mixture", "se<=0.005"]]
