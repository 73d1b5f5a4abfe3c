"""The run record: one schema-versioned JSON file per live run, everything needed to reproduce
and to judge it -- which model and why, hashes of prompt, eval set, seed and tool schema, the git
commit, every trial's trajectory, responses, scores, timings and tokens, and the aggregates."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = 1


class _Rec(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CallRec(_Rec):
    name: str
    args: dict[str, Any] = {}


class ResultRec(_Rec):
    name: str
    response: dict[str, Any] = {}


class TurnRecord(_Rec):
    index: int
    prompt: str
    reference: str
    expected: list[CallRec]
    calls: list[CallRec] = []
    results: list[ResultRec] = []
    pending: list[CallRec] = []  # writes still waiting for approval when the turn ended
    answered: list[str] = []  # approval decisions the runner gave in this turn
    response: str = ""
    response_synthesized: bool = False
    trajectory_score: float | None = None
    prompt_tokens: int = 0
    output_tokens: int = 0
    seconds: float = 0.0


class Score(_Rec):
    passed: bool
    detail: str = ""
    value: float | None = None


class TrialRecord(_Rec):
    case_id: str
    category: str
    repeat: int
    status: Literal["passed", "failed", "error"]
    error: str | None = None
    turns: list[TurnRecord] = []
    scores: dict[str, Score] = {}
    seconds: float = 0.0
    state_after: dict[str, Any] = {}


class Rate(_Rec):
    passed: int
    n: int
    ci_low: float
    ci_high: float
    text: str


class CaseAggregate(_Rec):
    case_id: str
    category: str
    trials: int
    errors: int
    rate: Rate
    pass_hat_k: float | None = None
    trajectory_mean: float | None = None
    gate: bool | None = None  # None: no valid trial, no verdict


class GroupAggregate(_Rec):
    name: str
    trials: int
    errors: int
    rate: Rate


class ModelInfo(_Rec):
    name: str
    source: str
    reason: str
    caveat: str | None = None
    endpoint: str | None = None


class RunRecord(_Rec):
    schema_version: int = SCHEMA_VERSION
    run_id: str
    started_at: str
    seconds: float
    model: ModelInfo
    eval_set: str
    eval_set_sha256: str
    seed_sha256: str
    instruction_sha256: dict[str, str]
    tool_schema_sha256: str
    git_commit: str | None
    git_dirty: bool | None
    criteria: dict[str, Any]
    repeats: int
    concurrency: int
    selected_cases: list[str]
    trials: list[TrialRecord]
    cases: list[CaseAggregate]
    categories: list[GroupAggregate]
    scorers: list[GroupAggregate]
    total: GroupAggregate
    pass_hat_k: float | None = None
    pass_hat_k_cases: int = 0  # cases with at least k valid trials, over which pass_hat_k is a mean
    gate_passed: bool
    exit_code: int
    notes: list[str] = Field(default_factory=list)


def load_record(path: Path) -> RunRecord:
    return RunRecord.model_validate_json(path.read_text(encoding="utf-8"))
