"""`ops-eval history`'s rows and formats: one row per run record, with each rate's
denominator and interval (`rows`), as CSV, JSON or HTML with a trend (`formats`), filtered and
written (`export`; the mutation ledger's scores are the `mutation` package's). The command is
`commands.history`.

May import: the layers below `outputs`, and `outputs.report` (the HTML trend).
"""
