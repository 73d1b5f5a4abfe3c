"""The comparison as one pydantic model, printed as text (for people) or JSON (for tools); both
say the same thing, counts and exit code included, from the same fields.

Every rate carries its denominator and interval: the position-consistency rate is k consistent
pairs of the n pairs the judge answered in both orders, with its Wilson 95% interval. Without a
judge there is no position to be consistent about, and the report says so instead of printing a
rate. Values from the records (case ids, model names, rationales) are printed one line each.
"""

from __future__ import annotations

from collections import Counter
from typing import Literal

from pydantic import computed_field

from ...base.exits import EXIT_INFRA, EXIT_OK, one_line
from ...base.stats import Rate
from ...base.strict import Strict
from ..client import JudgeUse
from .decide import PairResult

SHOWN_LEFT_OUT = 8
RATIONALE_SHOWN = 140


class Side(Strict):
    run_id: str
    path: str
    model: str


class ABReport(Strict):
    """What `ops-eval ab` compared, how, and what came of it."""

    a: Side
    b: Side
    eval_set: str
    eval_set_sha256: str
    differences: list[str]
    """What else differs between the two runs (the gate's change kinds), as `kind: A -> B`."""
    method: Literal["judge", "deterministic"]
    no_judge: str | None = None
    """Why there is no judge (deterministic comparison)."""
    gating_scorers: list[str] = []
    """Without a judge: the gating scorers whose verdicts decided (none that uses a judge)."""
    judge_scorers_left_out: list[str] = []
    """Without a judge: the gating scorers left out because their scores are a judge's verdicts
    (`uses_judge`)."""
    judge: JudgeUse | None = None
    prompt_version: str | None = None
    only_a: list[str] = []
    """Run A's trials (`case #repeat`) that run B lacks: not compared."""
    only_b: list[str] = []
    changed: list[str] = []
    """Cases both runs played at different versions (`case vA -> vB`, `results.shared_cases`):
    not paired -- the two were asked different questions or held to different references."""
    pairs: list[PairResult]

    def _count(self, outcome: str) -> int:
        return Counter(p.outcome for p in self.pairs)[outcome]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def wins(self) -> int:
        """Pairs run A won."""
        return self._count("a")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def losses(self) -> int:
        """Pairs run B won."""
        return self._count("b")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def ties(self) -> int:
        """Consistent ties and position-inconsistent pairs together."""
        return self._count("tie") + self._count("inconsistent")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def inconsistent(self) -> int:
        return self._count("inconsistent")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def no_verdict(self) -> int:
        return self._count("no_verdict")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def judge_errors(self) -> int:
        return sum(p.no_verdict == "judge_error" for p in self.pairs)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def consistency(self) -> Rate | None:
        if self.method != "judge":
            return None
        n = self.wins + self.losses + self.ties
        k = n - self.inconsistent
        return Rate.of(k, n)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def complete(self) -> bool:
        """No judge call failed and at least one pair was compared."""
        return self.judge_errors == 0 and self.no_verdict < len(self.pairs)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def exit_code(self) -> int:
        return EXIT_OK if self.complete else EXIT_INFRA


LABEL = {
    "a": "A wins",
    "b": "B wins",
    "tie": "tie",
    "inconsistent": "tie (position-inconsistent)",
    "no_verdict": "no verdict",
}


def _pick(pick: str | None, shown_first: str, shown_second: str) -> str:
    if pick is None:
        return "-"
    if pick == "tie":
        return "tie"
    return f"{pick} ({shown_first if pick == 'first' else shown_second})"


def _left_out(keys: list[str], lacking: str) -> str:
    shown = ", ".join(one_line(k) for k in keys[:SHOWN_LEFT_OUT])
    more = ", ..." if len(keys) > SHOWN_LEFT_OUT else ""
    return f"{len(keys)} of run {lacking}'s trials ({shown}{more})" if keys else "none"


def _cut(text: str | None) -> str:
    shown = one_line(text or "")
    return shown if len(shown) <= RATIONALE_SHOWN else shown[: RATIONALE_SHOWN - 3] + "..."


def text_lines(report: ABReport) -> list[str]:
    """The report for people: header, verdict counts, consistency, no-verdict pairs, judge
    spend, then one line per pair."""
    r = report
    a, b = r.a, r.b
    lines = [
        f"A: run {one_line(a.run_id)}, model {one_line(a.model)} ({one_line(a.path)})",
        f"B: run {one_line(b.run_id)}, model {one_line(b.model)} ({one_line(b.path)})",
        f"eval set: {one_line(r.eval_set)} (sha256 {r.eval_set_sha256[:12]})",
        f"what differs: {'; '.join(map(one_line, r.differences)) or 'nothing recorded'}",
        f"pairs: {len(r.pairs)} trials (case x repeat) both runs hold; left out: "
        f"{_left_out(r.only_a, 'A')} that B lacks; {_left_out(r.only_b, 'B')} that A lacks",
    ]
    if r.changed:
        lines.append(f"changed since A, left out: {', '.join(map(one_line, r.changed))}")
    if r.method == "judge":
        assert r.judge is not None
        lines.append(
            f"judge: {one_line(r.judge.pin)}, prompt {r.prompt_version}; each pair judged twice, "
            "A shown first then B shown first: a winner only when both orders agree"
        )
    else:
        left_out = (
            f"; left out, as they use a judge: {', '.join(r.judge_scorers_left_out)}"
            if r.judge_scorers_left_out
            else ""
        )
        lines.append(
            f"NO JUDGE: {one_line(r.no_judge or '')}: compared by the deterministic gating "
            f"verdicts (scorers: {', '.join(r.gating_scorers)}{left_out}); a passing trial "
            "beats a failing one"
        )
    lines.append(
        f"A ({one_line(a.run_id)}) against B ({one_line(b.run_id)}): wins {r.wins}, ties "
        f"{r.ties} ({r.inconsistent} position-inconsistent), losses {r.losses}; "
        f"{r.no_verdict} pair(s) with no verdict"
    )
    c = r.consistency
    if c is None:
        lines.append("position consistency: not applicable (no judge, no position)")
    else:
        rate = "-" if c.rate is None else f"{c.rate:.0%}"
        lines.append(
            f"position-inconsistent: {r.inconsistent} of {c.n} judged pair(s), counted as ties"
        )
        lines.append(f"position consistency: {c.k}/{c.n} {rate} (95% CI {c.low:.0%}–{c.high:.0%})")
    for p in r.pairs:
        if p.outcome == "no_verdict":
            lines.append(
                f"no verdict: {one_line(p.case_id)} #{p.repeat} [{p.no_verdict}]: "
                f"{one_line(p.reason or '')}"
            )
    if r.judge is not None:
        j = r.judge
        budget = (
            f"budget {j.budget_tokens} tokens ({one_line(j.budget_source)})"
            if j.budget_tokens is not None
            else f"no budget ({one_line(j.budget_problem or '')})"
        )
        lines.append(
            f"judge calls: {j.calls} made, {j.cache_hits} cache hit(s), {j.errors} error(s), "
            f"{j.tokens} tokens, {j.budget_blocked} blocked by the budget; {budget}"
        )
    lines.append("per pair:")
    for p in r.pairs:
        if r.method == "judge":
            how = (
                f"order 1 (A first): {_pick(p.order1, 'A', 'B')}; "
                f"order 2 (B first): {_pick(p.order2, 'B', 'A')}"
            )
            why = (
                f" | 1: {_cut(p.rationale1)} | 2: {_cut(p.rationale2)}"
                if p.rationale2
                else (f" | 1: {_cut(p.rationale1)}" if p.rationale1 else "")
            )
            cached = f" [{p.cache_hits} cached]" if p.cache_hits else ""
        else:
            shown = {True: "pass", False: "fail", None: "-"}
            how = f"A {shown[p.a_passed]}, B {shown[p.b_passed]}"
            why = cached = ""
        lines.append(
            f"  {one_line(p.case_id)} #{p.repeat}: {LABEL[p.outcome]} -- {how}{cached}{why}"
        )
    if r.complete:
        lines.append(f"comparison: done (A: wins {r.wins}, ties {r.ties}, losses {r.losses})")
    elif r.judge_errors:
        lines.append(
            f"comparison: INCOMPLETE -- {r.judge_errors} pair(s) had no verdict because a judge "
            "call failed (exit 3)"
        )
    else:
        lines.append("comparison: INCOMPLETE -- no pair could be compared (exit 3)")
    return lines
