"""Plumbing every layer uses, and nothing of the domain: exit codes and the error that carries
one (`exits`), settings (`settings`), statistics and the one `Rate` (`stats`), checks of CLI
inputs (`inputs`), the strict pydantic base (`strict`), lazy public names (`exports`), progress
lines (`progress`), optional dependency groups (`groups`), model log capture (`model_logs`),
which data a run may write, `full` or `minimal` (`data_policy`), the scrubber that clears a free
text to a label a minimal-data run may keep (`scrub`), and what a piece of code reads, as one
hash (`code_digest`).

May import: nothing of `ops_eval` outside this package (the agent package's settings only).
"""
