"""What a run leaves behind: the run record and its parts (`records`, `record_parts`), the
aggregates (`aggregation`) and a reader's check that a record's figures follow from its trials
(`follows`), the index of records on disk and how a command line names one (`run_index`,
`runs`), shards merged into one record (`merge`), what a run was of, by hash (`provenance`), the
cases two runs share at the same content hash (`shared_cases`), synthetic records for tests and
benchmarks (`synthetic`), what a minimal-data run keeps of a trial -- keyed hashes and labels,
never the text (`minimal`) -- the words such a label may be built from (`vocabulary`) and what
`ops-eval audit-run` finds in a run's artefacts that a minimal-data run must not hold
(`data_audit`), and a trial of a run as a draft eval case (`distill`). The mutation scores an
eval set has had are the `mutation` package's ledger.

May import: `base`, `core`, `models`, `playing`, `scorers`, `validation`.
"""

from __future__ import annotations

from ..base.exports import lazy_getattr

# Its public names, each loaded on first use: importing the package costs nothing.
_EXPORTS = {
    "audit_run": "data_audit",
    "add_draft": "distill",
    "drafted": "distill",
    "merge_runs": "merge",
    "NotComparable": "minimal",
    "compare": "minimal",
    "load": "runs",
    "resolve_run": "runs",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS)
