"""Which two runs are compared, which of their trials make pairs, and what the judge is shown
of each pair.

Two runs are compared only when they asked the same questions against the same references: the
same eval set file (by name, as `run_index.series` names a set: a record keeps its path relative
to wherever the run started) with the same sha256 -- or, when both records name each trial's
case hash (`results.shared_cases`), the same set file grown or corrected since, compared on the
cases both played at the same hash. A pair is a (case, repeat) both runs hold, of a case both
played at one version, in run A's order; whatever only one run holds, and every case the two
played at different versions, is counted and named, never silently dropped.

The judge sees each side's own words only. A turn that ended at an approval pause with no text
of the agent's carries a sentence the harness wrote ("waiting for approval ..."); showing it
would let the harness's wording win or lose a comparison, so the judge is told plainly that the
agent gave no answer of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...base.inputs import bad_input
from ...core.calls import Turn
from ...results.records import RunRecord, TrialRecord
from ...results.runs import load, resolve_run
from ...results.shared_cases import shared_cases

NO_OWN_ANSWER = "(no answer of its own: the turn ended waiting for approval)"
NO_TEXT = "(no answer: the agent sent no text in this turn)"
NOT_PLAYED = "(no answer: the trial ended before this turn)"
NO_REFERENCE = "(no reference answer for this turn)"
SHOWN = 6
"""Names listed in a one-line message before `...`."""


@dataclass(frozen=True)
class Runs:
    a: RunRecord
    a_path: Path
    b: RunRecord
    b_path: Path

    def changed(self) -> list[str]:
        """The cases both runs played at different versions (`case vA -> vB`): not paired."""
        shared = shared_cases(self.a, self.b)
        return shared.lines_of("changed") if shared else []


def _names(items: list[str]) -> str:
    return ", ".join(items[:SHOWN]) + (", ..." if len(items) > SHOWN else "")


def open_runs(spec_a: str, spec_b: str, runs_dir: Path) -> Runs:
    """Both runs, resolved as the gate resolves a RUN (path, run id or unique prefix).
    OpsEvalError (exit 2) for an unknown run, the same run twice, or two eval sets."""
    a_path = resolve_run(spec_a, runs_dir)
    a = load(a_path, "RUN_A")
    b_path = resolve_run(spec_b, runs_dir)
    b = load(b_path, "RUN_B")
    from ...results.minimal import refuse_minimal

    for label, record, path in (("RUN_A", a, a_path), ("RUN_B", b, b_path)):
        refuse_minimal(record, f"{label} {path}", "ab compares the two runs' answers by their text")
    if a.run_id == b.run_id:
        where = str(a_path) if a_path == b_path else f"{a_path} and {b_path}"
        raise bad_input(
            f"RUN_A and RUN_B are both run {a.run_id} ({where}): compare two different runs"
        )
    hashed = shared_cases(a, b) is not None  # compared on the cases both played alike
    same = a.eval_set_sha256 == b.eval_set_sha256 or hashed
    if Path(a.eval_set).name != Path(b.eval_set).name or not same:
        raise bad_input(
            f"different eval sets: run {a.run_id} ran {a.eval_set} (sha256 "
            f"{a.eval_set_sha256[:12]}), run {b.run_id} ran {b.eval_set} (sha256 "
            f"{b.eval_set_sha256[:12]}); a pairwise comparison needs the same questions and "
            "references"
        )
    return Runs(a, a_path, b, b_path)


@dataclass(frozen=True)
class Pair:
    case_id: str
    repeat: int
    a: TrialRecord
    b: TrialRecord


def _key(trial: TrialRecord) -> str:
    return f"{trial.case_id} #{trial.repeat}"


def pair_trials(runs: Runs) -> tuple[list[Pair], list[str], list[str]]:
    """(the pairs, in run A's order; run A's trials run B lacks; run B's trials run A lacks),
    the last two as `case #repeat`. OpsEvalError (exit 2) when the runs share no case."""
    shared = shared_cases(runs.a, runs.b)
    apart = {case for case, _, _ in shared.changed} if shared else set()
    theirs = {(t.case_id, t.repeat): t for t in runs.b.trials}
    ours = {(t.case_id, t.repeat) for t in runs.a.trials}
    pairs = [
        Pair(t.case_id, t.repeat, t, theirs[(t.case_id, t.repeat)])
        for t in runs.a.trials
        if (t.case_id, t.repeat) in theirs and t.case_id not in apart
    ]
    if not pairs:
        changed = f"; changed: {_names(runs.changed())}" if apart else ""
        raise bad_input(
            f"no shared case: run {runs.a.run_id} holds {_names(runs.a.selected_cases)}; run "
            f"{runs.b.run_id} holds {_names(runs.b.selected_cases)}{changed}"
        )
    only_a = [_key(t) for t in runs.a.trials if (t.case_id, t.repeat) not in theirs]
    only_b = [_key(t) for t in runs.b.trials if (t.case_id, t.repeat) not in ours]
    return pairs, only_a, only_b


def answer(turn: Turn | None) -> str:
    """What the agent itself answered in `turn`, or a plain statement that it gave none."""
    if turn is None:
        return NOT_PLAYED
    if turn.response_synthesized:
        return NO_OWN_ANSWER
    return turn.response if turn.response.strip() else NO_TEXT


@dataclass(frozen=True)
class Conversation:
    """What the judge is shown of a pair: per turn, the question, each side's answer, and the
    reference answers when any turn has one."""

    questions: list[str]
    a: list[str]
    b: list[str]
    reference: list[str] | None


class NotComparable(ValueError):
    """A pair whose answers cannot be set side by side; the message says why (no verdict)."""


def conversation(pair: Pair) -> Conversation:
    """The pair's conversation; NotComparable naming why when it cannot be compared (no turn
    played, or the two trials were asked different questions -- a pair with no verdict)."""
    a_turns, b_turns = pair.a.turns, pair.b.turns
    if not a_turns and not b_turns:
        raise NotComparable("neither trial played a turn")
    questions: list[str] = []
    references: list[str] = []
    for index in range(max(len(a_turns), len(b_turns))):
        mine = a_turns[index] if index < len(a_turns) else None
        other = b_turns[index] if index < len(b_turns) else None
        if mine is not None and other is not None and mine.prompt != other.prompt:
            raise NotComparable(f"the two trials were asked different questions at turn {index}")
        shown = mine or other
        assert shown is not None
        questions.append(shown.prompt)
        references.append(shown.reference or (other.reference if other else ""))
    a_answers = [answer(a_turns[i] if i < len(a_turns) else None) for i in range(len(questions))]
    b_answers = [answer(b_turns[i] if i < len(b_turns) else None) for i in range(len(questions))]
    reference = [r or NO_REFERENCE for r in references] if any(references) else None
    return Conversation(questions, a_answers, b_answers, reference)
