"""What the MLflow store holds of one run record, for `ops-eval audit-run --mlflow`: the text
each MLflow run that logged it wrote (params, tags, every trace with its spans and
assessments, text artifacts), and the store's own files (the SQLite database, the artifact
folder) to search byte for byte for planted values.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .config import TrackingTarget


def logged_texts(target: TrackingTarget, run_id: str) -> Iterator[tuple[str, str]]:
    """(artefact name, its text) of every MLflow run whose `ops_run_id` is `run_id`."""
    import json
    import os
    import tempfile

    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
    import mlflow

    mlflow.set_tracking_uri(target.uri)
    client = mlflow.MlflowClient(target.uri)
    experiments = [e.experiment_id for e in client.search_experiments()]
    runs = client.search_runs(experiments, filter_string=f"params.ops_run_id = '{run_id}'")
    for run in runs:
        name = f"mlflow run {run.info.run_id}"
        yield f"{name} params", json.dumps(run.data.params, ensure_ascii=False, indent=0)
        yield f"{name} tags", json.dumps(run.data.tags, ensure_ascii=False, indent=0)
        traces = mlflow.search_traces(
            locations=[run.info.experiment_id], run_id=run.info.run_id, return_type="list"
        )
        for trace in traces:
            yield f"{name} trace {trace.info.trace_id}", trace.to_json(pretty=True)
        with tempfile.TemporaryDirectory() as folder:
            local = Path(client.download_artifacts(run.info.run_id, "", folder))
            for path in sorted(p for p in local.rglob("*") if p.is_file()):
                try:
                    text = path.read_text(encoding="utf-8")
                except (UnicodeDecodeError, OSError):
                    continue
                yield f"{name} artifact {path.relative_to(local)}", text


def store_files(target: TrackingTarget) -> list[Path]:
    """The files of a local store (its database, its artifacts); none for a tracking server."""
    found: list[Path] = []
    if target.sqlite_file is not None and target.sqlite_file.is_file():
        found.append(target.sqlite_file)
    if target.artifacts is not None and target.artifacts.is_dir():
        found += sorted(p for p in target.artifacts.rglob("*") if p.is_file())
    return found


def scan_store(run_id: str, planted: list[str], leaks: list[Any], notes: list[str]) -> int:
    """Scan the store's record of `run_id` into `leaks` (`results.data_audit.audit_run`'s
    `more`); how many artefacts were scanned. OpsEvalError (exit 3) when the store cannot be
    read."""
    from ...base.exits import EXIT_INFRA, OpsEvalError
    from ...results.data_audit import planted_leaks, text_leaks
    from .config import tracking_target
    from .store import ensure_mlflow, reachable

    target = tracking_target()
    reachable(target)
    ensure_mlflow(lambda line: None)
    scanned = 0
    try:
        for name, text in logged_texts(target, run_id):
            scanned += 1
            leaks += text_leaks(name, text)
            leaks += planted_leaks(name, text.encode(), planted)
    except Exception as exc:  # MLflow's own errors have no common base
        raise OpsEvalError(EXIT_INFRA, f"MLflow store {target.shown}: {exc}") from None
    if not scanned:
        notes.append(f"note: no MLflow run in {target.shown} logged run {run_id}")
    for file in store_files(target):
        scanned += 1
        leaks += planted_leaks(f"mlflow store {file.name}", file.read_bytes(), planted)
    return scanned
