"""`ops-eval mlflow --from-run`: a record is logged as it is, and one the command cannot log is
refused before anything is created."""

from __future__ import annotations

from mlflow_readback import db_of, error_lines


def test_a_record_with_no_trials_is_bad_input_and_logs_nothing(mlflow_cli, store, write_record):
    """Guards the `--from-run` refusal of a record without trials (MLflow was asked to evaluate
    zero rows, after an experiment and a logged model were created)."""

    def empty(data):
        data.update(selected_cases=[], trials=[], cases=[], categories=[], scorers=[])

    record = write_record(empty)
    code, out, err = mlflow_cli(["--from-run", str(record)])
    assert code == 2, out + err
    (line,) = error_lines(err)
    assert "no trials" in line and str(record) in line
    assert not db_of(store).exists()  # the store was never opened: no run, no logged model
