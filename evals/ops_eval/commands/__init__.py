"""One module per `ops-eval` command: `add_parser` (argparse only: every start builds the
whole parser, so nothing heavy is imported at module level) setting `handler`, and the handler.
A handler returns its exit code or raises OpsEvalError; `cli.main` turns the error into one line
and its code (`base.exits.exit_code_of`).

Holds, by module (the command as typed where it differs):
- playing: `run` (a live eval end to end), `mlflow` (a run logged to MLflow) and `mlflow_ui`
  (`mlflow-ui`), `mutate` (deterministic mutants, and `--live` instruction mutants),
  `redteam` (the injection corpus), `chat` and `web` (ADK's `adk run` and `adk web`);
- checking inputs and artefacts: `validate` (eval sets), `cases` (their versions: `cases
  lock|bump|check|list`), `seed` (the seed), `audit` (`audit
  verify`: a state store file), `audit_run` (`audit-run`: a minimal-data run's artefacts),
  `compare_hashes` (`compare-hashes`: two minimal-data runs' keyed hashes);
- deciding: `gate`, `gate_override` (`gate override`), `baseline` (pinned baselines), `ab` (two
  runs pair by pair), `calibrate` (the judge against labels), `readers` (the readers of answers);
- reading records: `report` (Markdown and HTML), `history` (every run, one row each), `merge`
  (shards into one record), `distill` (a trial as a draft eval case).

May import: every layer (`agents` to `mutation`); nothing imports it but `cli`.
"""
