"""The mutation scores an eval set has had: one JSON line per `ops-eval mutate` run, appended
to `mutation.jsonl` in the runs folder -- what `history --mutation` lists, what a run's report
quotes for the eval set that judged it (`matches`: the same cases, so the same strength), and
what `mutate --mlflow` logs. `mutation_history` is `history --mutation`'s
table of it; `mutation_line`, the line `ops-eval report` hands the report (`outputs.report`
sits below this package, so it is given the line's reader, never imports it).

An entry keeps counts, names, the set's hash and each of its cases' content hashes; a run record
stays the record of one run of the agent, and is never rewritten to carry a score measured later.

"The exact eval set" is its cases, not its bytes: an entry is a run's when the set it measured
held as many cases as the run's set and every case the run played is among them at the hash the
run played (`core.case_version`: what decides a verdict). Reformatting the file, reordering its
cases or ADK's labels changes no score's standing; adding, removing or editing a case does -- a
set grown by a case has not been measured until `mutate` runs on it. An entry written before
case hashes, or a run record before version 6, is matched by the file's sha256, as before.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from ..base.strict import Strict

LEDGER = "mutation.jsonl"
Mode = Literal["oracle", "oracle+redteam", "live"]
KINDS = ("tool", "guard", "policy", "instruction")


class MutationEntry(Strict):
    time: str
    """When the command finished, ISO 8601 UTC."""
    eval_set: str
    eval_set_sha256: str
    mode: Mode
    """`oracle`: deterministic mutants, the scripted oracle; `oracle+redteam`: the same, the
    red team also played under each surviving guard mutant; `live`: instruction mutants on
    `model`, killed by the gate's comparison."""
    model: str
    killed: int
    counted: int
    """Mutants not marked equivalent."""
    kinds: dict[str, list[int]]
    """Kind -> [killed, counted], for each kind played."""
    killed_mutants: list[str]
    survived: list[str]
    """Not killed (survived, or a live drop the interval did not confirm)."""
    equivalent: list[str] = []
    mutants_played: int
    complete: bool
    """Every mutant of its mode played (not a --mutants subset): only then is it the set's
    score."""
    case_hashes: dict[str, str] = {}
    """eval id -> content hash of every case of the set it measured; {} in an entry written
    before they were kept (matched by `eval_set_sha256` alone)."""

    @property
    def score(self) -> float | None:
        return self.killed / self.counted if self.counted else None

    def text(self) -> str:
        """`8/17 (47%); tool 5/9, guard 0/4, policy 2/4` (and the model, when live)."""
        whole = f"{self.killed}/{self.counted}" + (
            f" ({self.score:.0%})" if self.score is not None else ""
        )
        kinds = ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in self.kinds.items() if v[1])
        how = {"live": f" on {self.model}", "oracle+redteam": " with the red team"}
        said = whole + how.get(self.mode, "")
        return f"{said}; {kinds}" if kinds else said


class LedgerError(ValueError):
    """The ledger holds a line that is not an entry (exit 2, naming the line)."""


def append(entry: MutationEntry, runs_dir: Path) -> Path:
    runs_dir.mkdir(parents=True, exist_ok=True)
    path = runs_dir / LEDGER
    with path.open("a", encoding="utf-8") as out:
        out.write(entry.model_dump_json() + "\n")
    return path


def entries(runs_dir: Path) -> list[MutationEntry]:
    """Every entry, oldest first; [] when there is no ledger; LedgerError for a bad line."""
    path = runs_dir / LEDGER
    if not path.is_file():
        return []
    found = []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LedgerError(f"{path}: cannot be read ({exc})") from None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            found.append(MutationEntry.model_validate(json.loads(line)))
        except (json.JSONDecodeError, ValidationError) as exc:
            first = str(exc).splitlines()[0]
            raise LedgerError(f"{path}: line {number}: not a mutation entry ({first})") from None
    return found


def matches(entry: MutationEntry, record: Any) -> bool:
    """Whether `entry` measured the exact eval set the run `record` was judged by (the
    module's docstring): its cases at the hashes the run played, by the file's sha256 when
    either side keeps no case hashes."""
    from ..results.shared_cases import case_versions

    played = case_versions(record)
    if played is None or not entry.case_hashes:
        return entry.eval_set_sha256 == record.eval_set_sha256
    return len(entry.case_hashes) == record.eval_set_cases and all(
        entry.case_hashes.get(case) == v.sha256 for case, v in played.items()
    )


def latest_for(runs_dir: Path, of: str | Any) -> MutationEntry | None:
    """The newest complete offline score (the oracle's, with or without the red team) of
    exactly this eval set -- `of` a run record (`matches`) or the set file's sha256 -- or
    None."""
    mine = [
        e
        for e in entries(runs_dir)
        if e.mode != "live"
        and e.complete
        and (e.eval_set_sha256 == of if isinstance(of, str) else matches(e, of))
    ]
    return mine[-1] if mine else None


def entry_of(
    eval_set: str,
    eval_set_sha256: str,
    mode: Mode,
    model: str,
    verdicts: list[tuple[str, str, str]],
    complete: bool,
    case_hashes: dict[str, str] | None = None,
) -> MutationEntry:
    """The entry of one `mutate` run from its (mutant, kind, status) verdicts; `case_hashes`:
    each case's content hash, of the whole set."""
    from datetime import UTC, datetime

    counted = [(n, k, s) for n, k, s in verdicts if s != "equivalent"]
    kinds = {
        kind: [sum(s == "killed" for _, k, s in counted if k == kind),
               sum(k == kind for _, k, _ in counted)]
        for kind in KINDS
        if any(k == kind for _, k, _ in verdicts)
    }  # fmt: skip
    return MutationEntry(
        time=datetime.now(UTC).isoformat(timespec="seconds"),
        eval_set=eval_set,
        eval_set_sha256=eval_set_sha256,
        mode=mode,
        model=model,
        killed=sum(s == "killed" for _, _, s in counted),
        counted=len(counted),
        kinds=kinds,
        killed_mutants=[n for n, _, s in counted if s == "killed"],
        survived=[n for n, _, s in counted if s != "killed"],
        equivalent=[n for n, _, s in verdicts if s == "equivalent"],
        mutants_played=len(verdicts),
        complete=complete,
        case_hashes=dict(case_hashes or {}),
    )


def entry_for(
    evalset: Any, mode: Mode, model: str, verdicts: Sequence[Any], complete: bool
) -> MutationEntry:
    """The entry of one `mutate` run of the eval set file `evalset` from its verdicts (each
    with a `mutant` and a `status`, deterministic or live)."""
    from ..core.case_version import case_hashes
    from ..results.provenance import sha256

    played = [(v.mutant.name, v.mutant.kind, v.status) for v in verdicts]
    cases = case_hashes(evalset)
    return entry_of(evalset.display, sha256(evalset.text), mode, model, played, complete, cases)


def mutation_line(record: Any) -> str | None:
    """What the runs folder's mutation ledger says of the exact eval set the run `record` was
    judged by (its newest complete oracle score, `matches`), for the report; None when it was
    never measured."""
    from ..base.inputs import bad_input
    from ..base.settings import current

    try:
        entry = latest_for(current().runs_dir, record)
    except LedgerError as exc:
        raise bad_input(str(exc)) from None
    if entry is None:
        return None
    return f"{entry.text()} killed (ops-eval mutate, {entry.time})"


def _killed(e: MutationEntry) -> str:
    """`7/17 (41%)` over `tool 5/9, guard 0/4, policy 2/4`."""
    whole = f"{e.killed}/{e.counted}" + (f" ({e.score:.0%})" if e.score is not None else "")
    kinds = ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in e.kinds.items() if v[1])
    return f"{whole}\n{kinds}" if kinds else whole


def _table(kept: Sequence[MutationEntry]) -> str:
    """`history --mutation`'s default: a line on the newest score, then a row per score, oldest
    first, the mutants that survived by name (wrapped between names, never cut)."""
    from tabulate import tabulate

    from ..outputs.history.table import minute, packed, set_name

    sets = sorted({e.eval_set for e in kept})
    newest = kept[-1]
    of = sets[0] if len(sets) == 1 else f"{len(sets)} eval sets ({set_name(newest.eval_set)})"
    whole = "" if newest.complete else ", a --mutants subset"
    killed = _killed(newest).split("\n")[0]
    head = f"mutation history: {len(kept)} score(s) of {of}, newest {killed} killed"
    head += f" ({newest.mode}{whole})"
    rows = [
        (
            minute(e.time),
            set_name(e.eval_set),
            e.mode,
            e.model,
            _killed(e),
            "whole set" if e.complete else "subset",
            packed(e.survived, 40) or "none",
        )
        for e in kept
    ]
    headers = ["time (UTC)", "set", "mode", "model", "killed", "mutants", "survived"]
    return f"{head}\n\n{tabulate(rows, headers, disable_numparse=True)}\n"


def mutation_history(
    eval_set: str | None, fmt: str | None, output: str | None
) -> tuple[str, int, Path | None]:
    """`history --mutation`: the ledger's entries, one row each, oldest first, as a table (the
    default; the output's suffix when it is .csv or .json), csv or json: (the text, its row
    count, the file it was written to or None for stdout); OpsEvalError (exit 2)."""
    import csv
    import io
    import json

    from ..base.inputs import bad_input, output_file, write_output
    from ..base.settings import current
    from ..outputs.history import FORMATS

    out = output_file("--output", Path(output)) if output else None
    suffix = out.suffix.lstrip(".").lower() if out else ""
    fmt = fmt or (suffix if suffix in FORMATS else "table")
    if fmt not in ("table", "csv", "json"):
        raise bad_input(f"--format {fmt}: history --mutation writes a table, csv or json")
    try:
        found = entries(current().runs_dir)
    except LedgerError as exc:
        raise bad_input(str(exc)) from None
    kept = [
        e
        for e in found
        if eval_set is None or e.eval_set.endswith(eval_set) or eval_set in e.eval_set
    ]
    rows = [
        {
            "time": e.time,
            "eval_set": e.eval_set,
            "eval_set_sha256": e.eval_set_sha256[:12],
            "mode": e.mode,
            "model": e.model,
            "killed": e.killed,
            "counted": e.counted,
            "score": "" if e.score is None else round(e.score, 4),
            **{k: "/".join(map(str, e.kinds[k])) if k in e.kinds else "" for k in KINDS},
            "complete": e.complete,
            "cases": len(e.case_hashes) or "",
            "survived": " ".join(e.survived),
        }
        for e in kept
    ]
    if not rows:
        where = f" for --set {eval_set}" if eval_set else ""
        raise bad_input(f"no mutation score{where} in {current().runs_dir}; run `ops-eval mutate`")
    if fmt == "table":
        text = _table(kept)
    elif fmt == "json":
        text = json.dumps(rows, indent=2) + "\n"
    else:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        text = buffer.getvalue()
    if out is not None:
        write_output(out, text)
    return text, len(rows), out
