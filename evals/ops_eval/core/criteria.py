"""The gate's criteria (`test_config.json`): read, and held to this project's strictness.

ADK reads the same file for `adk eval`. It coerces spellings of match_type it recognises and
silently skips what it does not (a misspelt match_type, an unknown metric), so the checks here
make those loud: the trajectory metric must be present with threshold 1.0 and IN_ORDER, and
nothing may loosen it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

GATE_METRIC = "tool_trajectory_avg_score"
REQUIRED_THRESHOLD = 1.0
REQUIRED_MATCH = "IN_ORDER"
MATCH_TYPES = ("EXACT", "IN_ORDER", "ANY_ORDER")

MatchType = Literal["EXACT", "IN_ORDER", "ANY_ORDER"]


@dataclass(frozen=True)
class Criteria:
    """The trajectory gate as ADK applies it: per-invocation match, case passes at threshold."""

    threshold: float
    match_type: MatchType
    ignore_args: bool = False


def normalise_match_type(value: Any) -> str | None:
    """ADK's own coercion of match_type spellings; None when ADK would not recognise it."""
    if isinstance(value, int) and 0 <= value < len(MATCH_TYPES):
        return MATCH_TYPES[value]
    if isinstance(value, str):
        name = value.strip().upper().replace("-", "_").replace(" ", "_")
        return name if name in MATCH_TYPES else None
    return None


def strictness_problems(data: Any) -> list[tuple[str, str]]:
    """(field, message) for every way `data` is not the strict gate."""
    if not isinstance(data, dict) or not isinstance(data.get("criteria"), dict):
        return [("criteria", "must be an object mapping metric names to criteria")]
    criterion = data["criteria"].get(GATE_METRIC)
    where = f"criteria.{GATE_METRIC}"
    if criterion is None:
        return [(where, "is missing: the trajectory gate must be configured")]
    if isinstance(criterion, int | float) and not isinstance(criterion, bool):
        return [
            (
                where,
                f"a bare threshold leaves match_type at ADK's default EXACT; use {{'threshold': "
                f"{REQUIRED_THRESHOLD}, 'match_type': '{REQUIRED_MATCH}'}}",
            )
        ]
    if not isinstance(criterion, dict):
        return [(where, "must be an object with threshold and match_type")]
    problems = []
    threshold = criterion.get("threshold")
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        problems.append((f"{where}.threshold", "is missing or not a number"))
    elif float(threshold) != REQUIRED_THRESHOLD:
        problems.append(
            (f"{where}.threshold", f"is {threshold}; the gate requires {REQUIRED_THRESHOLD}")
        )
    raw = criterion.get("match_type", criterion.get("matchType"))
    match = normalise_match_type(raw)
    if raw is None:
        problems.append(
            (f"{where}.match_type", f"is missing (ADK defaults to EXACT); set {REQUIRED_MATCH}")
        )
    elif match is None:
        problems.append(
            (
                f"{where}.match_type",
                f"{raw!r} is not a match type ADK knows "
                f"({', '.join(MATCH_TYPES)}); ADK would silently not evaluate the metric",
            )
        )
    elif match != REQUIRED_MATCH:
        problems.append((f"{where}.match_type", f"is {match}; the gate requires {REQUIRED_MATCH}"))
    if criterion.get("ignore_args", criterion.get("ignoreArgs")):
        problems.append((f"{where}.ignore_args", "loosens the gate to tool names only"))
    return problems


def read_criteria(data: Any) -> Criteria:
    """The gate from a test_config.json object (assumes a config that validated)."""
    criterion = data["criteria"][GATE_METRIC]
    return Criteria(
        threshold=float(criterion["threshold"]),
        match_type=normalise_match_type(criterion.get("match_type", criterion.get("matchType")))
        or "EXACT",  # type: ignore[arg-type]
        ignore_args=bool(criterion.get("ignore_args", criterion.get("ignoreArgs", False))),
    )
