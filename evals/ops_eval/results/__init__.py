"""What a run leaves behind: the run record and its parts (`records`, `record_parts`), the
aggregates (`aggregation`) and a reader's check that a record's figures follow from its trials
(`follows`), the index of records on disk and how a command line names one (`run_index`,
`runs`), shards merged into one record (`merge`), what a run was of, by hash
(`provenance`), and synthetic records for tests and benchmarks (`synthetic`).

May import: `base`, `core`, `models`, `playing`, `scorers`, `validation`.
"""
