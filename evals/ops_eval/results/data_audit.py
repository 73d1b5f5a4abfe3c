"""What `ops-eval audit-run` finds in a run's artefacts that a minimal-data run must not hold.

Three kinds of leak, each named by artefact and place, never by the text itself (the audit's
own output must not leak what it found):

- in the record, a place that must hold a keyed hash and does not (a prompt, a reference, an
  answer, an argument value, a tool result, the store's state, an approval's rationale), a
  tool result or state kept beyond its hash, or a label longer than the run declared;
- anywhere, text a scrubber rule matches (`base.scrub`: tokens, keys, e-mail and IP addresses,
  URLs with credentials or a query, phone numbers);
- anywhere, byte for byte, a value the user planted and names (`--planted FILE`, one value a
  line): what no rule can know, such as a name or a hostname from the seed;
- in the record, with no planted value to go by, a label of several lines, or a label the
  harness wrote about a trial (a scorer's detail, an error, why it looped or ended) holding a
  run of 8 or more characters its vocabulary does not build (`results.vocabulary`): a copy of
  the trial's text, cut, escaped or case-changed, that no whole-value mask caught.

`audit_run` is the command's audit of one run: its record, that no spans file lies beside it,
each `--also` file or folder, and what a `more` hook scans (the MLflow store, above this layer:
`outputs.tracking.audit.scan_store`). Exit codes: 0 nothing found; 1 a leak (one line each); 2
a run, file or planted list that cannot be read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base.exits import EXIT_FAILED, EXIT_OK
from ..base.inputs import bad_input
from ..base.scrub import findings
from .minimal import HASH
from .vocabulary import Vocabulary

_TURN = r"trials\[\d+\]\.turns\[\d+\]\."
_CALL = r"(?:expected|calls|paused|pending)\[\d+\]\."
HASHED = re.compile(
    rf"^(?:{_TURN}(?:prompt|reference|response|texts\[\d+\]|{_CALL}(?:args\..+|result\.hmac)"
    r"|faults\[\d+\]\.args\..+)"
    r"|trials\[\d+\]\.(?:state_after\.hmac|scores\.[^.]+\.detail_hmac"
    r"|conversation\.approvals\[\d+\]\.(?:args\..+|rationale|approver)))$"
)
"""Every place a minimal record keeps a hash."""
MAY_BE_EMPTY = re.compile(
    rf"^(?:{_TURN}(?:prompt|reference|response)"
    r"|trials\[\d+\]\.conversation\.approvals\[\d+\]\.(?:rationale|approver))$"
)
"""Hashed places left empty when there was nothing (a turn without a reference, an approval
answered without a rationale)."""
KEPT_BESIDE = re.compile(rf"^{_TURN}{_CALL}result\.status$")
"""The one thing kept beside a hash: a tool result's status word."""
HASH_ONLY = re.compile(rf"^(?:{_TURN}{_CALL}result|trials\[\d+\]\.state_after)\.")
LABELS = re.compile(
    r"^(?:notes\[\d+\]|model\.\w+|trials\[\d+\]\.(?:error|looped|scores\.[^.]+\.detail"
    r"|turns\[\d+\]\.(?:answered\[\d+\]|servers\[\d+\]|faults\[\d+\]\.(?:kind|when))"
    r"|conversation\.(?:user|reason)))$"
)
"""Every place a minimal record keeps a label."""
ABOUT_TRIAL = re.compile(
    r"^trials\[\d+\]\.(?:error|looped|scores\.[^.]+\.detail|conversation\.reason)$"
)
"""The labels the harness wrote about a trial: built from its vocabulary alone."""


@dataclass(frozen=True)
class Leak:
    artefact: str
    where: str
    what: str

    def line(self) -> str:
        return f"LEAK {self.artefact} {self.where}: {self.what}"


def _leaves(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """(path, leaf) of every leaf of a JSON value: `trials[0].turns[1].calls[0].args.name`."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, f"{path}[{index}]")
    else:
        yield path, value


def record_leaks(data: dict[str, Any], name: str) -> list[Leak]:
    """Every leak in a run record as read from its JSON (`data`)."""
    kept = data.get("data")
    leaks = []
    if not isinstance(kept, dict):
        leaks.append(Leak(name, "data", "a full-data run: it keeps every prompt and answer"))
    limit = kept.get("label_chars") if isinstance(kept, dict) else None
    vocabulary = _vocabulary(data)
    for path, value in _leaves(data):
        if HASHED.match(path):
            empty = value in ("", None) and MAY_BE_EMPTY.match(path)
            if not (empty or (isinstance(value, str) and HASH.match(value))):
                leaks.append(Leak(name, path, "holds a value where a keyed hash belongs"))
            continue
        if HASH_ONLY.match(path) and not KEPT_BESIDE.match(path):
            leaks.append(Leak(name, path, "kept beside the hash (only the hash may be)"))
            continue
        if not isinstance(value, str):
            continue
        if LABELS.match(path) and isinstance(limit, int) and len(value) > limit:
            leaks.append(Leak(name, path, f"a label of {len(value)} characters (limit {limit})"))
        if LABELS.match(path) and len(value.splitlines()) > 1:
            leaks.append(Leak(name, path, f"a label of {len(value.splitlines())} lines (one)"))
        if ABOUT_TRIAL.match(path) and (runs := vocabulary.foreign(value)):
            leaks.append(
                Leak(name, path, f"{len(runs)} run(s) of {max(runs)}+ characters outside the "
                     "harness's vocabulary (a copy of the trial's text)")
            )  # fmt: skip
        leaks += [Leak(name, path, f"{f.rule}") for f in findings(value)]
    return leaks


def _vocabulary(data: dict[str, Any]) -> Vocabulary:
    """The harness's vocabulary with the record's own case ids and categories."""
    trials = data.get("trials")
    names = [
        str(t.get(key, ""))
        for t in (trials if isinstance(trials, list) else [])
        if isinstance(t, dict)
        for key in ("case_id", "category")
    ]
    return Vocabulary.of(names)


def text_leaks(name: str, text: str) -> list[Leak]:
    """Every match of a scrubber rule in `text`, by line."""
    return [
        Leak(name, f"line {number}", f.rule)
        for number, line in enumerate(text.splitlines(), start=1)
        for f in findings(line)
    ]


def planted_leaks(name: str, data: bytes, planted: list[str]) -> list[Leak]:
    """Every planted value found in `data`, byte for byte (as UTF-8, and as JSON escapes it)."""
    import json

    leaks = []
    for number, value in enumerate(planted, start=1):
        forms = {value.encode(), json.dumps(value)[1:-1].encode()}
        if any(form in data for form in forms):
            shown = value[:3] + "…" if len(value) > 3 else "…"
            leaks.append(Leak(name, f"planted value #{number} ({shown})", "found"))
    return leaks


def _planted(path: str | None) -> list[str]:
    from opskit.textfiles import TextFileError, read_text

    if path is None:
        return []
    try:
        values = [line.strip() for line in read_text(Path(path)).splitlines()]
    except TextFileError as exc:
        raise bad_input(f"--planted {path}: {exc}") from None
    values = [v for v in values if v]
    if not values:
        raise bad_input(f"--planted {path}: no value in it")
    return values


def _files(paths: list[str]) -> list[Path]:
    found: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            found += sorted(p for p in path.rglob("*") if p.is_file())
        elif path.is_file():
            found.append(path)
        else:
            raise bad_input(f"--also {given}: {_not_a_file(path)}")
    return found


def _not_a_file(path: Path) -> str:
    """What `path` is, when it is neither a file nor a folder (reading a device or a pipe
    would never end, or read nothing the run wrote)."""
    import stat

    try:
        mode = path.stat().st_mode
    except OSError:
        return "no such file or folder"
    kinds = {
        stat.S_ISCHR: "a character device",
        stat.S_ISBLK: "a block device",
        stat.S_ISFIFO: "a named pipe (FIFO)",
        stat.S_ISSOCK: "a socket",
    }
    kind = next((name for test, name in kinds.items() if test(mode)), "not a regular file")
    return f"{kind}, not a file or folder"


More = Callable[[str, list[str], list["Leak"], list[str]], int]
"""Scans `run_id`'s artefacts elsewhere into the leaks (and notes); how many it scanned."""


def audit_run(
    run: str, also: list[str], planted_file: str | None, more: More | None = None
) -> tuple[int, list[str]]:
    """(exit code, the lines to print) of the audit of the run `run` names (path or run id)."""
    import contextlib
    import json

    from ..base.settings import current
    from ..playing.spans import spans_path
    from .runs import load, resolve_run

    path = resolve_run(run, current().runs_dir)
    record = load(path, "RUN")
    planted = _planted(planted_file)
    raw = path.read_bytes()
    leaks: list[Leak] = record_leaks(json.loads(raw), f"record {path.name}")
    leaks += planted_leaks(f"record {path.name}", raw, planted)
    scanned = 1
    spans = spans_path(path)
    if spans.exists():
        leaks.append(Leak(f"spans {spans.name}", "file", "exists (ADK's spans hold text)"))
    for file in _files(also):
        scanned += 1
        data = file.read_bytes()
        with contextlib.suppress(UnicodeDecodeError):  # binary: searched for planted values only
            leaks += text_leaks(str(file), data.decode("utf-8"))
        leaks += planted_leaks(str(file), data, planted)
    notes: list[str] = []
    if more is not None:
        scanned += more(record.run_id, planted, leaks, notes)
    lines = [leak.line() for leak in leaks] + notes
    verdict = f"{len(leaks)} leak(s)" if leaks else "nothing it must not hold"
    kind = "minimal-data" if record.minimal else "full-data"
    lines.append(f"audit-run {record.run_id} ({kind}): {scanned} artefact(s) scanned, {verdict}")
    return (EXIT_FAILED if leaks else EXIT_OK), lines
