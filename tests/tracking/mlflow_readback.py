"""What the MLflow tests play and read back: the ops set's cases, the oracle and a real run
record of it (`oracle_record`, behind the `base_record` fixture); what one
`ops-eval mlflow` left in its experiment of a store (`Logged`, through `Tracker`, which the
`track` fixture gives) -- its run, traces, Feedback and logged model; its error lines; the
SQLite file behind a URI; a free loopback port to name an unreachable server; and a model any
call to which is counted."""

from __future__ import annotations

import io
import json
import re
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ops_eval import load_record, read_evalset
from ops_eval.models.stand_ins import OracleLlm, ScriptedLlm
from support import REPO

OPS = REPO / "evals" / "ops.evalset.json"
CASES = read_evalset(OPS).cases
COURSE = ("tool_trajectory", "complete_conversation", "response_facts", "tool_policy")
RECORD_CASES = ["open-incidents", "list-skills"]
JUDGE_TRIO = ("MLFLOW_JUDGE_MODEL", "MLFLOW_JUDGE_BASE_URL", "MLFLOW_JUDGE_API_KEY")


def prompt_of(case_id: str, turn: int = 1) -> str:
    return next(c for c in CASES if c.eval_id == case_id).turns[turn - 1].prompt


def oracle() -> OracleLlm:
    return OracleLlm.from_cases(CASES)


def oracle_record(folder: Path) -> dict[str, Any]:
    """A real run record of the oracle in `folder` (two cases x two repeats, every gating
    scorer passing), as JSON: what `--from-run` tests log edited copies of."""
    from ops_eval import RunOptions, execute
    from ops_eval.base.settings import reload
    from ops_eval.models.stand_ins import fixed_model

    with pytest.MonkeyPatch.context() as env:
        env.setenv("OPS_RUNS_DIR", str(folder / "runs"))
        reload()
        try:
            options = RunOptions(cases=RECORD_CASES, repeats=2, output=folder / "run.json")
            code, _, path = execute(
                options,
                chooser=fixed_model(oracle(), "oracle", "deterministic test model"),
                out=io.StringIO(),
                err=io.StringIO(),
            )
        finally:
            env.undo()
            reload()
    assert code == 0
    data = json.loads(path.read_text())
    assert len(data["trials"]) == 4
    for trial in data["trials"]:  # what the edits of its copies rely on
        assert trial["scores"]["trajectory"]["outcome"] == "pass"
        assert trial["scores"]["end_state"]["outcome"] == "pass"
    return data


def error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("error: ")]


def db_of(uri: str) -> Path:
    return Path(uri.removeprefix("sqlite:///"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def untouchable() -> ScriptedLlm:
    """A model with an empty script: any call is counted, and errors the conversation."""
    return ScriptedLlm(script=[])


def logged_models(uri: str, experiment: str = "ops-copilot") -> list[Any]:
    import mlflow

    client = mlflow.MlflowClient(uri)
    found = client.get_experiment_by_name(experiment)
    assert found is not None, f"no experiment {experiment!r} in {uri}"
    return client.search_logged_models(experiment_ids=[found.experiment_id])


def printed_model(uri: str, out: str) -> Any:
    """The logged model the command printed (`logged model m-...: STATUS`)."""
    import mlflow

    found = re.search(r"^logged model (m-\w+): ", out, re.MULTILINE)
    assert found, out
    return mlflow.MlflowClient(uri).get_logged_model(found.group(1))


def trial_of(data: dict[str, Any], case: str, repeat: int) -> dict[str, Any]:
    """One trial of a run record's JSON, by case and repeat."""
    return next(t for t in data["trials"] if t["case_id"] == case and t["repeat"] == repeat)


# -- reading a command's results back from the store ----------------------------------------------


@dataclass
class Logged:
    """One `ops-eval mlflow` invocation and what it left in its experiment of the store."""

    code: int
    out: str
    err: str
    uri: str
    experiment: str
    run: Any
    traces: list[Any]
    model: Any
    record_path: Path | None

    @property
    def record(self):
        assert self.record_path is not None, self.out
        return load_record(self.record_path)

    def trace_of(self, case_id: str, repeat: int = 1) -> Any:
        found = [
            t
            for t in self.traces
            if t.info.tags.get("case_id") == case_id and t.info.tags.get("repeat") == str(repeat)
        ]
        assert len(found) == 1, [t.info.tags for t in self.traces]
        return found[0]

    def models(self) -> list[Any]:
        """Every logged model of the experiment."""
        import mlflow

        experiment_id = experiment_of(self.uri, self.experiment)
        assert experiment_id is not None
        return mlflow.MlflowClient(self.uri).search_logged_models(experiment_ids=[experiment_id])

    def runs(self) -> list[Any]:
        """Every MLflow run of the experiment."""
        import mlflow

        experiment_id = experiment_of(self.uri, self.experiment)
        assert experiment_id is not None
        return mlflow.MlflowClient(self.uri).search_runs([experiment_id])


def printed_value(pattern: str, out: str) -> str | None:
    found = re.search(pattern, out, re.MULTILINE)
    return found.group(1) if found else None


def experiment_of(uri: str, name: str) -> str | None:
    import mlflow

    found = mlflow.MlflowClient(uri).get_experiment_by_name(name)
    return None if found is None else found.experiment_id


def read_back(uri: str, experiment: str, code: int, out: str, err: str) -> Logged:
    """The MLflow run, its traces and the logged model the command printed (None, [] and None
    when it printed none)."""
    import mlflow

    mlflow.set_tracking_uri(uri)  # the same URI every time: see tracking/conftest.py
    client = mlflow.MlflowClient(uri)
    run_id = printed_value(r"^mlflow run (\w+): ", out)
    model_id = printed_value(r"^logged model (m-\w+): ", out)
    run = client.get_run(run_id) if run_id else None
    traces = (
        mlflow.search_traces(locations=[run.info.experiment_id], run_id=run_id, return_type="list")
        if run
        else []
    )
    record = printed_value(r"^run record: (\S+)", out)
    return Logged(
        code=code,
        out=out,
        err=err,
        uri=uri,
        experiment=experiment,
        run=run,
        traces=traces,
        model=client.get_logged_model(model_id) if model_id else None,
        record_path=Path(record) if record else None,
    )


def feedback(trace: Any) -> dict[str, Any]:
    """A trace's scorer verdicts by name (its expectations left out)."""
    from mlflow.entities import Feedback

    verdicts = [a for a in trace.info.assessments if isinstance(a, Feedback)]
    by_name = {a.name: a for a in verdicts}
    assert len(by_name) == len(verdicts), "a scorer logged twice on one row"
    return by_name


def registry_names() -> set[str]:
    from ops_eval.outputs.tracking.scorers import mlflow_name
    from ops_eval.scorers import registered

    return {mlflow_name(name) for name in registered()}


def span_names(trace: Any) -> list[str]:
    return [s.name for s in trace.data.spans]


def outputs(trace: Any) -> dict[str, Any]:
    data = trace.data.response
    return json.loads(data) if isinstance(data, str) else data


def store_untouched(uri: str) -> bool:
    """Nothing was written: the SQLite file of the store was never created."""
    return not Path(uri.removeprefix("sqlite:///")).exists()


@dataclass
class Tracker:
    """`ops-eval mlflow ARGV` into the module's store (`track`), in this test's own experiment."""

    cli: Any
    uri: str
    experiment: str

    def __call__(self, argv: list[str], model: Any = None) -> Logged:
        code, out, err = self.cli(argv, model=model)
        return read_back(self.uri, self.experiment, code, out, err)
