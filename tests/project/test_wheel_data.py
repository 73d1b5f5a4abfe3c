"""The wheel carries every data file the harness reads by default (`pyproject.toml`'s
force-include): each eval set and its lock of case versions, each red-team corpus, and the
labelled sets the judge and the readers of answers are measured against -- so an installed
`ops-eval validate` validates what the checkout validates and an installed `ops-eval redteam`
plays every split.
The built wheel itself is tested in the e2e tier (`test_wheel.py`); this catches a missing line
in seconds."""

from __future__ import annotations

import tomllib

from support import REPO


def test_every_eval_set_and_red_team_corpus_is_in_the_wheel():
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    included = config["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    data = [
        *(REPO / "evals").glob("*.evalset.json"),
        *(REPO / "evals").glob("*.evalset.lock.json"),  # validate refuses a shipped set without
        *(REPO / "evals" / "redteam").glob("*.yaml"),
        *(REPO / "evals" / "calibration").glob("*.yaml"),  # the judge's set, the answers' labels
        REPO / "evals" / "calibration" / "answers.jsonl",  # the labelled answers' trials
    ]
    missing = [str(p.relative_to(REPO)) for p in data if str(p.relative_to(REPO)) not in included]
    assert not missing, f"not in the wheel's force-include: {missing}"
    assert "evals/scenarios.evalset.json" in included and "evals/redteam/held-out.yaml" in included
    assert "evals/ops.evalset.lock.json" in included
