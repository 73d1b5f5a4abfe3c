"""A case's content hash: what decides its verdict, and nothing about how it is written down.

Cases are versioned one by one (the set's lock file says each case's version and hash), so a
verdict can name the exact case it came from and two runs can be compared on the cases they
share even after the set grew. The hash covers the case's conversation (prompts, references,
expected calls), its scenario, its session input and its meta -- with the contracts as they act
on it: the case's own merged over the set's `contracts.yaml` (`Contracts.merged_over`), so moving
a rule between the two files is not an edit of every case, while changing what a rule does is.

Not covered, on purpose: ADK's invocation ids and timestamps (labels, not behaviour), JSON
formatting and key order, the case's position in the file, and what every case shares -- the
seed, the trajectory criteria, the scorers, the judge -- which run records hash on their own and
whose change still makes two runs incomparable as a whole.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .evalset import Case, EvalSetFile

# What ADK writes into an invocation that no scorer reads: labels of the conversation's turns.
_LABELS = frozenset({"invocation_id", "creation_timestamp"})
SHORT = 12  # characters of a hash shown beside a version (`case_label`)


def _canonical(value: Any) -> Any:
    """`value` with ADK's labels dropped at any depth."""
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items() if k not in _LABELS}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return value


def _contracts(es: EvalSetFile, case: Case) -> Any:
    """The contracts that act on the case (the set's, then its own), in one spelling: lists
    whose order means nothing are sorted."""
    from .contracts import Contracts

    base, _ = es.set_contracts
    own = case.meta.contracts if case.meta is not None else Contracts()
    dumped = own.merged_over(base).model_dump(mode="json", exclude_defaults=True)
    for key in ("forbidden", "order", "faults"):
        if key in dumped:
            dumped[key] = sorted(dumped[key], key=lambda v: json.dumps(v, sort_keys=True))
    return dumped


def _raw(es: EvalSetFile, case: Case) -> dict[str, Any]:
    """The case's object in the file (the reader keeps the file's order, one case an object)."""
    at = next(i for i, c in enumerate(es.cases) if c is case)
    return es.data["eval_cases"][at]


def case_sha256(es: EvalSetFile, case: Case) -> str:
    """sha256 over what decides `case`'s verdict (see the module's docstring)."""
    return _sha256(es, case, _raw(es, case))


def _sha256(es: EvalSetFile, case: Case, raw_case: dict[str, Any]) -> str:
    raw = _canonical(raw_case)
    meta = dict(raw.get("meta") or {}) if isinstance(raw.get("meta"), dict) else raw.get("meta")
    if isinstance(meta, dict):
        meta.pop("contracts", None)
    content = {
        "eval_id": raw.get("eval_id"),
        "conversation": raw.get("conversation"),
        "conversation_scenario": raw.get("conversation_scenario"),
        "session_input": raw.get("session_input"),
        "meta": meta,
        "contracts": _contracts(es, case),
    }
    text = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def case_hashes(es: EvalSetFile) -> dict[str, str]:
    """eval_id -> content hash, for every case of the set."""
    # the cases and the file's objects side by side: one pass, not a search per case
    return {
        case.eval_id: _sha256(es, case, raw)
        for case, raw in zip(es.cases, es.data["eval_cases"], strict=True)
    }
