"""Plumbing every layer uses, and nothing of the domain: exit codes and the error that carries
one (`exits`), settings (`settings`), statistics and the one `Rate` (`stats`), checks of CLI
inputs (`inputs`), the strict pydantic base (`strict`), lazy public names (`exports`), progress
lines (`progress`), optional dependency groups (`groups`), model log capture (`model_logs`).

May import: nothing of `ops_eval` outside this package (the agent package's settings only).
"""
