"""Bad config: probes of the estimators layer."""

from bdpsim.pipeline.config import load_config
from bdpsim.pipeline.driver import run_experiment

from ..support.bad_config import (
    OK,
    toml,
)


def test_heartbeat_lines_without_a_terminal(tmp_path):
    slow = OK.replace("adversaries = 6", "adversaries = 60").replace('"mixture"', '"kde"')
    log: list[str] = []
    run_experiment(
        load_config(toml(tmp_path, slow)), tmp_path / "o", progress=False, log=log.append, heartbeat=0.2
    )
    beats = [m for m in log if m.startswith("bdpsim run: ")]
    assert beats and all("tasks" in m and "s elapsed" in m for m in beats), log
