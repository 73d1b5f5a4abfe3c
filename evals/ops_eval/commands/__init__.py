"""One module per `ops-eval` command: `add_parser` (argparse only: every start builds the
whole parser, so nothing heavy is imported at module level) setting `handler`, and the handler.
A handler returns its exit code or raises OpsEvalError; `cli.main` turns the error into one line
and its code (`base.exits.exit_code_of`).

May import: every layer (`base` to `redteam`); nothing imports it but `cli`.
"""
