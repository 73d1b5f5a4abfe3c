"""Reading eval sets and holding them to the rules, before any model is called.

Holds: the files a validation reads (`files`, `adk`, `adk_parse`, `gate_config`), the validator
(`validator`: `validate` for the CLI, `check` for a run) and its rules (`*_rules`, `leaks`,
`problems`, `context`), and `plan`, which reads one set into the `core.plan.Plan` a run plays.
May import: `base`, `core`, `models`, `playing`, `scorers` (the validator checks a reference
answer with the scorers' own response check and a gate policy's scorer names against the
registry). A run imports `plan` only; the rule modules load when `check` is called.
"""
