"""A trial of a run record as a draft eval case (`ops-eval distill`): how the set grows from real
failures. The draft is an ADK conversation -- the user's turns as they were played (a scenario's
simulated user's included), the calls the agent made as the expected calls, its answers as the
references -- marked `meta.draft`, which the validator refuses until a person has set what the
agent should have done and removed the mark. A turn that ended at an approval pause has no
reference: the pause text is the harness's, never a reference.

`drafted` is the command's draft of a run's trial; `add_draft` adds it to an eval set file
(created when missing), written whole or not at all: a set that cannot be read, or that already
has the id, is refused (exit 2) and left as it was. The draft's lock line goes beside it
(`validation.lock_edits`): version 1, naming the run and trial, a draft's -- no run plays a
draft, so once reviewed, `ops-eval cases lock` pins the reviewed case as that version 1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..base.inputs import bad_input
from .record_parts import TrialRecord
from .records import RunRecord


def pick(record: RunRecord, spec: str) -> TrialRecord:
    """The trial `CASE` (its first repeat) or `CASE#REPEAT` of the record (repeats count from 1,
    as the reports show them); exit 2 naming what the record holds when there is none."""
    case, _, repeat = spec.partition("#")
    if repeat and not repeat.isdigit():
        raise bad_input(f"{spec}: the repeat after '#' is a number, 1 or more")
    mine = [t for t in record.trials if t.case_id == case]
    if not mine:
        held = ", ".join(dict.fromkeys(t.case_id for t in record.trials)) or "none"
        raise bad_input(f"{case}: no trial of this case in run {record.run_id} (cases: {held})")
    wanted = int(repeat) if repeat else mine[0].repeat
    found = next((t for t in mine if t.repeat == wanted), None)
    if found is None:
        have = ", ".join(str(t.repeat) for t in mine)
        raise bad_input(f"{spec}: run {record.run_id} has repeats {have} of {case}")
    return found


def _content(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"text": text}]}


def _approval(trial: TrialRecord) -> dict[str, Any] | None:
    """The decision the draft's runner gives: the one every pause of the trial was given."""
    if trial.conversation is not None:
        given = {(a.decision, a.rationale, a.approver) for a in trial.conversation.approvals}
        if len(given) == 1:
            decision, rationale, approver = given.pop()
            out: dict[str, Any] = {"decision": decision}
            if decision == "approve":
                out |= {"rationale": rationale, "approver": approver}
            return out
    return None


def draft_case(record: RunRecord, trial: TrialRecord, source: str, eval_id: str) -> dict[str, Any]:
    """The trial as an ADK eval case with `meta.draft`."""
    conversation = []
    for turn in trial.turns:
        reference = "" if turn.response_synthesized else turn.response
        conversation.append(
            {
                "invocation_id": f"t{turn.index}",
                "user_content": _content("user", turn.prompt),
                "final_response": _content("model", reference),
                "intermediate_data": {
                    "tool_uses": [{"name": c.name, "args": dict(c.args)} for c in turn.calls],
                    "tool_responses": [],
                    "intermediate_responses": [],
                },
            }
        )
    outcome = trial.status if not trial.error else f"error: {trial.error}"
    failed = [f"{n}: {s.detail}" for n, s in trial.scores.items() if s.outcome in ("fail", "error")]
    how = f"it {outcome}" + (f" ({'; '.join(failed)})" if failed else "")
    ended = f"; {trial.conversation.said()}" if trial.conversation else ""
    meta: dict[str, Any] = {
        "category": trial.category,
        "draft": {
            "source": f"run {record.run_id} ({source}), trial {trial.case_id}#{trial.repeat}",
            "review": (
                f"these are the calls and answers of the agent as played ({how}{ended}), not "
                "what it should do: set each turn's expected calls and reference answer, the "
                "category and the approval decision."
            ),
        },
    }
    approval = _approval(trial)
    if approval is not None and trial.category == "approval":
        meta["approval"] = approval
    return {
        "eval_id": eval_id,
        "conversation": conversation,
        "session_input": {"app_name": "ops_copilot", "user_id": "oncall", "state": {}},
        "meta": meta,
    }


def drafted(run: str, trial: str, eval_id: str | None) -> tuple[dict[str, Any], str]:
    """(the draft case, its eval id) of the trial `trial` (CASE[#REPEAT]) of the run `run`
    (path or run id); exit 2 for a minimal-data run (no text to draft from) or a bad id."""
    from ..base.settings import current
    from ..validation.case_rules import id_problem
    from .minimal import refuse_minimal
    from .runs import load, resolve_run

    path = resolve_run(run, current().runs_dir)
    record = load(path)
    refuse_minimal(record, str(path), "a draft case is made of the trial's prompts and answers")
    found = pick(record, trial)
    eval_id = eval_id or f"{found.case_id}-draft-r{found.repeat}"
    if wrong := id_problem(eval_id):
        raise bad_input(f"--id {wrong}")
    return draft_case(record, found, path.name, eval_id), eval_id


def add_draft(target: Path, case: dict[str, Any], eval_id: str) -> tuple[Path, Path | None]:
    """`case` added to the eval set file `target` (created when missing), and its lock line
    (version 1, a draft's, its reason the run and trial it came from) to the set's lock; the
    files written (no lock for a set that exists without one: `ops-eval cases lock` locks it
    whole)."""
    import json

    from ..base.inputs import output_file
    from ..validation.lock_edits import add_draft_line, draft_lock

    target = output_file("--output", target)
    data = _set_to_extend(target, eval_id)
    lock = draft_lock(target, eval_id)  # refused before anything is written
    data["eval_cases"].append(case)
    _write(target, json.dumps(data, indent=2) + "\n")
    if lock is None:
        return target, None
    reason = f"distilled from {case['meta']['draft']['source']}"
    return target, add_draft_line(target, lock, eval_id, reason)


def _set_to_extend(target: Path, eval_id: str) -> dict[str, Any]:
    from ..core.evalset import MalformedInput, read_json

    if not target.exists():
        name = target.name.removesuffix(".json").removesuffix(".evalset")
        return {"eval_set_id": name, "name": name, "eval_cases": []}
    try:
        _, data = read_json(target)
    except MalformedInput as exc:
        raise bad_input(str(exc)) from None
    if not isinstance(data, dict) or not isinstance(data.get("eval_cases"), list):
        raise bad_input(f"{target}: not an eval set (no 'eval_cases' list); nothing was added")
    if any(isinstance(c, dict) and c.get("eval_id") == eval_id for c in data["eval_cases"]):
        raise bad_input(f"{target}: already has a case {eval_id}; give another --id")
    return data


def _write(target: Path, text: str) -> None:
    import os
    import tempfile

    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
