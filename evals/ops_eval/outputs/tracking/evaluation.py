"""One MLflow GenAI evaluation: rows in, a run with metrics, traces and assessments out, linked
to a logged model that ends READY or FAILED.

`evaluate` is the only place that calls `mlflow.genai.evaluate`. Three settings make ADK's spans
land in MLflow (checked with mlflow 3.17.2 and google-adk 2.13): the predict function is itself
an MLflow trace (`@mlflow.trace`), MLflow joins the global OpenTelemetry tracer provider that
ADK's tracer uses instead of keeping its own (MLFLOW_USE_DEFAULT_TRACER_PROVIDER=false), and
MLflow's probe of the predict function -- which ADK's spans defeat, leaving every row without a
trace -- is skipped (MLFLOW_GENAI_EVAL_SKIP_TRACE_VALIDATION=true). The traces go to the same
store as the run, SQLite or a tracking server; there is no second collector.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from opskit.textfiles import resolved

from ...base.exits import describe
from ...scorers import registered
from .config import TrackingTarget
from .lineage import Lineage, finish_logged_model, register_prompts, start_logged_model
from .scorers import COURSE, JUDGE, gating

MLFLOW_ENV = {
    "MLFLOW_GENAI_EVAL_SKIP_TRACE_VALIDATION": "true",
    "MLFLOW_USE_DEFAULT_TRACER_PROVIDER": "false",
    "MLFLOW_DISABLE_TELEMETRY": "true",
    # ADK's spans carry each model call's request and response, and each tool's arguments
    # and result, only under its legacy telemetry schema (`spans.CONTENT_SCHEMA`).
    "ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN": "1",
}


@dataclass
class Metric:
    """One MLflow metric over the rows: its mean (None: every row n/a or errored), and how many
    rows had a value, were not applicable, or errored."""

    name: str
    mean: float | None
    valued: int
    not_applicable: int
    errors: int

    def show(self) -> str:
        mean = "missing" if self.mean is None else f"{self.mean:.3f}"
        bits = [f"{self.valued} valued"]
        if self.not_applicable:
            bits.append(f"{self.not_applicable} n/a")
        if self.errors:
            bits.append(f"{self.errors} error(s)")
        return f"{self.name}: mean {mean} ({', '.join(bits)})"


@dataclass
class Evaluation:
    run_id: str
    experiment_id: str
    model_id: str
    prompts: dict[str, str]
    """agent -> prompt URI (with its version)."""
    metrics: dict[str, Metric]
    rows: int
    failures: list[str] = field(default_factory=list)
    """Why the logged model is FAILED (a course metric below 1.0, missing, or with errors)."""

    @property
    def ready(self) -> bool:
        return not self.failures


@contextlib.contextmanager
def mlflow_environment(workers: int) -> Iterator[None]:
    """MLFLOW_ENV and the worker count for the evaluation; the environment restored after."""
    wanted = {**MLFLOW_ENV, "MLFLOW_GENAI_EVAL_MAX_WORKERS": str(max(1, workers))}
    saved = {name: os.environ.get(name) for name in wanted}
    os.environ.update(wanted)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


class StoreProblem(ValueError):
    """The store cannot take this evaluation as configured (exit 2): a deleted experiment."""


def open_experiment(target: TrackingTarget) -> str:
    """The experiment's id in the store, created when missing (a local store keeps its
    artifacts beside the database). Checked before any model starts; StoreProblem when the
    experiment was deleted (MLflow refuses to log to it)."""
    import mlflow

    mlflow.set_tracking_uri(target.uri)
    found = mlflow.get_experiment_by_name(target.experiment)
    if found is not None and found.lifecycle_stage == "deleted":
        raise StoreProblem(
            f"experiment {target.experiment!r} ({found.experiment_id}) was deleted in "
            f"{target.shown}: restore it (mlflow experiments restore --experiment-id "
            f"{found.experiment_id}) or set MLFLOW_EXPERIMENT_NAME to another"
        )
    if found is not None:
        experiment_id = found.experiment_id
    else:
        location = resolved(target.artifacts).as_uri() if target.artifacts else None
        experiment_id = mlflow.create_experiment(target.experiment, artifact_location=location)
    mlflow.set_experiment(experiment_id=experiment_id)
    return experiment_id


class EvaluationFailed(RuntimeError):
    """The evaluation stopped before its verdict; `model_id` is the logged model it had
    started (already finalised FAILED), or None when it had started none."""

    def __init__(self, message: str, model_id: str | None) -> None:
        super().__init__(message)
        self.model_id = model_id


def _adk_spans_here() -> None:
    """Point ADK's tracer at the tracer provider this evaluation logs through. ADK's module
    tracer is an OpenTelemetry ProxyTracer: it resolves the global provider at its first span
    and keeps it, while MLflow replaces the provider whenever the tracking URI changes -- so a
    second evaluation in one process, into another store, would send ADK's spans to the first
    store's retired processors and every row would lose its trace."""
    from mlflow.tracing.provider import provider

    from ...playing.spans import rebind_adk_tracer

    rebind_adk_tracer()  # imported before MLflow sets a provider: ADK's tracer stays a proxy
    provider.get_or_init_tracer(__name__)  # MLflow's provider for the current store
    rebind_adk_tracer()


def _metric(name: str, frame: Any, means: dict[str, Any]) -> Metric:
    values = frame.get(f"{name}/value")  # a column MLflow leaves out when no row has one
    errors_col = frame.get(f"{name}/error_message")
    errors = 0 if errors_col is None else int(errors_col.notna().sum())
    valued = 0 if values is None else int(values.notna().sum())
    mean = means.get(f"{name}/mean")
    mean = None if mean is None or math.isnan(float(mean)) else float(mean)
    return Metric(name, mean, valued, len(frame) - valued - errors, errors)


def _failures(metrics: dict[str, Metric], scenarios_only: bool = False) -> list[str]:
    """Why the logged model is not READY: a course metric below 1.0, without a value, or with
    an error; or any other scorer that gates a run (`gating`) below 1.0 or with an error --
    an agent that changed state without approval is not ready whatever the course's four say.
    Report scorers and the judge never decide it. A run of conversation scenarios only has no
    script for the course metrics that compare one (`trajectory`, ...): without a value they
    are no failure there; their goal's scorers gate instead."""
    failing = []
    without_script = {
        name
        for name, scorer in COURSE.items()
        if scenarios_only and registered()[scorer].cases == "scripted"
    }
    for name, metric in metrics.items():
        if name not in COURSE and name not in gating():
            continue
        if metric.errors:
            failing.append(f"{name}: {metric.errors} row(s) errored")
        elif metric.mean is None:
            if name in COURSE and name not in without_script:
                failing.append(f"{name}: no row had a value")
        elif metric.mean < 1.0:
            failing.append(f"{name}: mean {metric.mean:.3f} < 1.0")
    missing = [name for name in COURSE if name not in metrics]
    failing += [f"{name}: not logged" for name in missing]
    return failing


def evaluate(
    target: TrackingTarget,
    lineage: Lineage,
    rows: list[dict[str, Any]],
    predict: Callable[..., dict[str, Any]],
    scorers: list[Any],
    *,
    workers: int = 1,
    run_name: str,
    params: dict[str, str],
    after: Callable[[], list[str]] | None = None,
) -> Evaluation:
    """Log one evaluation of `rows`, each played by `predict(case_id, repeat, turns)` inside
    its row's trace, scored by `scorers`. `after` runs inside the MLflow run once every row is
    scored and returns files to attach to it. The logged model ends READY only when the
    verdict has no failure (`_failures`); FAILED otherwise, and on any exception, which comes
    out as EvaluationFailed (or StoreProblem, for a deleted experiment)."""
    with mlflow_environment(workers):
        import mlflow

        model_id = None
        ready = False
        try:
            experiment_id = open_experiment(target)
            _adk_spans_here()
            prompts = register_prompts(lineage)
            model_id = start_logged_model(lineage, prompts)
            traced = mlflow.trace(name="conversation", span_type="AGENT")(predict)
            with mlflow.start_run(run_name=run_name) as run:
                mlflow.log_params(params)
                # MLflow prints its own summary on stdout: ours is the command's stdout.
                with contextlib.redirect_stdout(sys.stderr):
                    result = mlflow.genai.evaluate(
                        data=rows, predict_fn=traced, scorers=scorers, model_id=model_id
                    )
                frame = result.result_df
                if frame is None or len(frame) != len(rows):
                    raise RuntimeError(
                        f"MLflow returned {0 if frame is None else len(frame)} result rows for "
                        f"{len(rows)} conversations"
                    )
                names = [s.name for s in scorers]
                metrics = {n: _metric(n, frame, result.metrics) for n in names}
                for path in after() if after else []:
                    mlflow.log_artifact(str(path))
            evaluation = Evaluation(
                run_id=run.info.run_id,
                experiment_id=experiment_id,
                model_id=model_id,
                prompts={agent: v.uri for agent, v in prompts.items()},
                metrics=metrics,
                rows=len(rows),
                failures=_failures(metrics, all(r["tags"].get("scenario") for r in rows)),
            )
            ready = evaluation.ready
            return evaluation
        except StoreProblem:
            raise
        except Exception as exc:  # MLflow's own failures and any crash: no verdict
            raise EvaluationFailed(describe(exc), model_id) from exc
        finally:
            if model_id is not None:
                finish_logged_model(model_id, ready)


def summary_lines(evaluation: Evaluation) -> list[str]:
    """What the command prints after an evaluation."""
    lines = [f"mlflow run {evaluation.run_id}: {evaluation.rows} conversation(s)"]
    for name, metric in evaluation.metrics.items():
        mark = (
            "  (course)" if name in COURSE else "  (evidence, not a gate)" if name == JUDGE else ""
        )
        lines.append(f"  {metric.show()}{mark}")
    for agent, uri in evaluation.prompts.items():
        lines.append(f"prompt: {uri} ({agent})")
    status = "READY" if evaluation.ready else "FAILED"
    lines.append(f"logged model {evaluation.model_id}: {status}")
    lines += [f"  {why}" for why in evaluation.failures]
    return lines
