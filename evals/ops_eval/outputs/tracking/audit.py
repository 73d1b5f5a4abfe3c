"""What the MLflow store holds of one run record, for `ops-eval audit-run --mlflow`: the text
each MLflow run that logged it wrote (params, tags, every trace with its spans and
assessments, text artifacts), and the store's own files (the SQLite database, the artifact
folder) to search byte for byte for planted values.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

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
