"""Growing the labelled set from live runs: the trials of run records appended to `answers.jsonl`
as they were played, for a person to label (`ops-eval readers collect RUN... --tag NAME`).

Only what a model said can be labelled: a trial that errored before any answer, a trial of a
minimal-data run (it keeps hashes, not words) and a run of a scripted stand-in (a model the
harness was handed, `stand_ins.fixed_model`) are refused or left out, each said. A replay of a
recording is a real model's answers, and is taken. A trial whose answers are those of a trial
already in the set (a repeat at temperature 0) is left out too: identical answers count once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ...base.inputs import bad_input
from .items import TRIALS_FILE, AnswerTrial, Source, read_trials


@dataclass
class Collected:
    added: list[str] = field(default_factory=list)
    same: list[str] = field(default_factory=list)
    """Trials whose answers the set already holds (by the trial they repeat)."""
    left_out: list[str] = field(default_factory=list)
    """Trials with no answer to label, and why."""


def collect_answers(
    records: list[Path], tag: str, folder: Path, temperature: float | None = None
) -> Collected:
    """The trials of `records` appended to `folder/answers.jsonl` (see the module docstring);
    OpsEvalError (exit 2) for a record that is not a live run of a model, or a tag in use."""
    from ...results.runs import load

    path = folder / TRIALS_FILE
    kept = read_trials(path)
    if any(t.source.tag == tag for t in kept):
        raise bad_input(f"--tag {tag!r} is already used in {path}: name this collection anew")
    seen = {t.same_as(): t.id for t in kept}
    done = Collected()
    lines: list[str] = []
    for record_path in records:
        record = load(record_path)
        if record.minimal:
            raise bad_input(f"{record_path}: a minimal-data run keeps no answers to label")
        if record.model.source == "fixed":  # `stand_ins.fixed_model`: their words are ours
            raise bad_input(
                f"{record_path}: played by {record.model.name}, a scripted stand-in: only a "
                "real model's answers are labelled"
            )
        for trial in record.trials:
            name = f"{tag}.{trial.case_id}.{trial.repeat}".lower()
            if trial.error is not None and not any(t.response for t in trial.turns):
                done.left_out.append(f"{name}: errored before any answer ({trial.error[:80]})")
                continue
            item = AnswerTrial(
                id=name,
                set=Path(record.eval_set).name,
                case=trial.case_id,
                source=Source(
                    tag=tag,
                    run=record.run_id,
                    model=record.model.name,
                    temperature=temperature,
                    repeat=trial.repeat,
                    user=trial.conversation.user if trial.conversation else None,  # type: ignore[arg-type]
                    git_commit=record.git_commit,
                ),
                turns=trial.turns,
                conversation=trial.conversation,
            )
            if not item.answers:
                done.left_out.append(f"{name}: every turn ended at an approval pause")
                continue
            if (key := item.same_as()) in seen:
                done.same.append(f"{name} (as {seen[key]})")
                continue
            seen[key] = name
            lines.append(item.model_dump_json(exclude_defaults=True))
            done.added.append(name)
    if lines:
        with path.open("a", encoding="utf-8") as out:
            out.write("".join(f"{line}\n" for line in lines))
    return done


def draft_labels(collected: Collected) -> str:
    """YAML stubs for the added trials, to paste under `labels:` and fill in by hand."""
    stub = {"complete": "?", "facts": "?", "grounded": "?", "guard": ["?"], "why": "?"}
    return "".join(
        f"  - id: {name}\n" + "".join(f"    {k}: {json.dumps(v)}\n" for k, v in stub.items())
        for name in collected.added
    )


def collected_lines(done: Collected, folder: Path) -> list[str]:
    """What `ops-eval readers collect` says: what was added, what was left out and why, and
    the label stubs to fill in."""
    lines = [
        f"collected: {len(done.added)} trial(s) added to {folder / TRIALS_FILE}; "
        f"{len(done.same)} repeat an answer already there; {len(done.left_out)} have none"
    ]
    lines += [f"  left out: {line}" for line in done.left_out]
    if done.added:
        lines.append(f"label each under `labels:` in {folder / 'answers.yaml'}:")
        lines.append(draft_labels(done).removesuffix("\n"))
    return lines
