"""What the MLflow tests read back from a store and from a command's output: its error lines,
the logged models it left, the SQLite file behind a URI, a free loopback port to name an
unreachable server, and a model any call to which is counted."""

from __future__ import annotations

import re
import socket
from pathlib import Path
from typing import Any

from ops_eval.models.stand_ins import ScriptedLlm


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
