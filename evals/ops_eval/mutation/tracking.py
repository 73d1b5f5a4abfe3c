"""`ops-eval mutate --mlflow`: a mutation score as an MLflow run of the configured experiment
(`outputs.tracking.config.tracking_target`), so the eval set's strength is charted beside the
runs it judged: metrics `mutation_score`, `mutants_killed`, `mutants_counted` and one
`mutation_score_<kind>` per kind; params the set, its sha256, the mode and the model; the entry
itself as `mutation.json`; tag `ops_kind=mutation`. MLflow is imported only inside functions,
through `outputs.tracking`'s store checks, when the command runs."""

from __future__ import annotations

from typing import Any

from .ledger import MutationEntry


def log_mutation(entry: MutationEntry) -> list[str]:
    """Log `entry`; the lines to print (where it went). OpsEvalError (exit 2) for a store the
    configuration cannot use, exit 3 when it cannot be reached."""
    from ..outputs.tracking.config import tracking_target
    from ..outputs.tracking.evaluation import StoreProblem, open_experiment
    from ..outputs.tracking.store import ensure_mlflow, reachable

    target = tracking_target()
    ensure_mlflow(print)
    reachable(target)
    import mlflow

    try:
        open_experiment(target)
    except StoreProblem as exc:
        from ..base.inputs import bad_input

        raise bad_input(str(exc)) from None
    try:
        run_id = _log(mlflow, entry)
    except Exception as exc:  # MLflow's own failures: a store that cannot be written, a server gone
        from ..base.exits import EXIT_INFRA, OpsEvalError

        raise OpsEvalError(
            EXIT_INFRA, f"mlflow: {target.shown}: {exc} (the ledger entry is kept)"
        ) from None
    return [f"mlflow: run {run_id}", *target.lines()]


def _log(mlflow: Any, entry: MutationEntry) -> str:
    name = f"mutation {entry.eval_set} {entry.mode}"
    with mlflow.start_run(run_name=name) as run:
        mlflow.set_tag("ops_kind", "mutation")
        mlflow.log_params(
            {
                "eval_set": entry.eval_set,
                "eval_set_sha256": entry.eval_set_sha256,
                "mode": entry.mode,
                "model": entry.model,
                "complete": entry.complete,
            }
        )
        metrics = {"mutants_killed": entry.killed, "mutants_counted": entry.counted}
        if entry.score is not None:
            metrics["mutation_score"] = entry.score
        for kind, (killed, counted) in entry.kinds.items():
            if counted:
                metrics[f"mutation_score_{kind}"] = killed / counted
        mlflow.log_metrics(metrics)
        mlflow.log_dict(entry.model_dump(), "mutation.json")
    return str(run.info.run_id)
