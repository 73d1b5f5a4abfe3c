"""The gate's ledger and overrides: the chain catches every kind of tampering, appends from several
processes at once keep one chain, a symlinked ledger is refused, a failure of the machine is exit
3 and never leaves half a line or an empty file, and an override is recorded once, for a failed
verdict, and accepts that one decision -- not a later one with another file, policy, allowed
change or failure. Pins are in test_gate_pins.py, the baseline choice in test_gate_baseline.py;
both use the helpers here."""

from __future__ import annotations

import errno
import json
import multiprocessing
import os
import types
from pathlib import Path

import pytest
from pydantic import ValidationError

from ops_eval.base.exits import EXIT_BAD_INPUT, EXIT_INFRA, OpsEvalError
from ops_eval.deciding.gate.overrides import override_for, record_override
from ops_eval.deciding.ledger import chain as ledger_module
from ops_eval.deciding.ledger.chain import GENESIS, Ledger, LedgerError, default_ledger
from ops_eval.deciding.ledger.entries import (
    DECIDED_FIELDS,
    OverrideEntry,
    VerdictEntry,
    find_override,
    latest_verdict,
)
from ops_eval.results.records import RunRecord, write_record
from ops_eval.results.synthetic import synthetic_record
from ops_eval.scorers import registered
from ops_eval.validation.gate_config import GateConfig

CASES = [("c1", "lookup", [True, True]), ("c2", "lookup", [True, False])]  # 3 of 4 pass
REASON = "flaky upstream mock, tracked in OPS-123"
POLICY = GateConfig(
    suite_threshold=0.5,
    regression_threshold=0.05,
    gating_scorers=[name for name, entry in registered().items() if entry.gate != "report"],
)


@pytest.fixture
def runs(tmp_path: Path, ops_env) -> Path:
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path))
    return tmp_path


def at(hour: int, minute: int = 0) -> str:
    return f"2026-11-30T{hour:02d}:{minute:02d}:00+00:00"


def make_run(
    folder: Path, run_id: str, started: str, outcomes=CASES, **kwargs
) -> tuple[Path, RunRecord]:
    record = synthetic_record(outcomes, run_id=run_id, started_at=started, **kwargs)
    path = folder / f"run-{run_id}.json"
    write_record(record, path)
    return path, record


def verdict(
    candidate: str,
    baseline: str | None = "base00000000",
    kind: str = "regressed",
    failures: tuple[str, ...] = ("regressed",),
    **decided: object,
) -> VerdictEntry:
    """A verdict entry; `decided` replaces any of the other decided fields (hashes, allowed)."""
    fields: dict[str, object] = {
        "candidate": candidate,
        "candidate_sha256": "a" * 64,
        "baseline": baseline,
        "baseline_sha256": "b" * 64 if baseline else None,
        "policy_sha256": "c" * 64,
        "allowed": [],
    }
    return VerdictEntry(
        **{**fields, **decided}, verdict=kind, passed=not failures, failures=list(failures)
    )


def refused(call, *args, code: int = EXIT_BAD_INPUT, **kwargs) -> str:
    """The one-line message of the OpsEvalError `call` raises, with exit `code`."""
    with pytest.raises(OpsEvalError) as caught:
        call(*args, **kwargs)
    assert caught.value.code == code
    message = str(caught.value)
    assert "\n" not in message and "Traceback" not in message
    return message


def overrides(ledger: Ledger) -> list[OverrideEntry]:
    return [e for e in ledger.entries() if isinstance(e, OverrideEntry)]


# --- the chain ---------------------------------------------------------------------------------


def filled(runs: Path) -> Ledger:
    ledger = default_ledger()
    assert ledger.path == runs / "gate-ledger.jsonl"
    ledger.append(verdict("run000000001", kind="pass", failures=()))
    ledger.append(verdict("run000000002"))
    ledger.append(verdict("run000000003", kind="improved", failures=()))
    ledger.append(verdict("run000000004", failures=("below suite threshold 0.8",)))
    return ledger


def test_entries_read_back_chained(runs):
    ledger = filled(runs)
    entries = ledger.entries()
    assert [e.candidate for e in entries] == [f"run00000000{i}" for i in range(1, 5)]
    lines = [json.loads(line) for line in ledger.path.read_text().splitlines()]
    assert lines[0]["prev"] == GENESIS
    assert all(b["prev"] == a["hash"] for a, b in zip(lines, lines[1:], strict=False))
    assert lines[1]["kind"] == "verdict" and lines[1]["failures"] == ["regressed"]
    assert (lines[1]["policy_sha256"], lines[1]["allowed"]) == ("c" * 64, [])
    assert "config_sha256" not in lines[1]


def test_a_missing_ledger_is_empty(runs):
    assert Ledger(runs / "nowhere" / "ledger.jsonl").entries() == []


def _edit(lines: list[str]) -> list[str]:
    fields = json.loads(lines[1])
    fields["verdict"] = "pass"
    return [lines[0], json.dumps(fields, sort_keys=True, separators=(",", ":")), *lines[2:]]


def _edit_rehashed(lines: list[str]) -> list[str]:
    """An editor who recomputes the line's hash still breaks the next line's prev."""
    from ops_eval.deciding.ledger.chain import canonical, entry_hash

    fields = json.loads(lines[1])
    fields["passed"], fields["failures"], fields["verdict"] = True, [], "pass"
    fields["hash"] = entry_hash(fields)
    return [lines[0], canonical(fields).decode(), *lines[2:]]


@pytest.mark.parametrize(
    ("tamper", "line", "why"),
    [
        (_edit, 2, "does not match its hash (the line was edited)"),
        (_edit_rehashed, 3, "prev does not match line 2 (a line was removed"),
        (lambda lines: [lines[0], *lines[2:]], 2, "prev does not match line 1"),
        (lambda lines: lines[1:], 1, "prev does not match the start of the ledger"),
        (lambda lines: [lines[0], lines[2], lines[1], lines[3]], 2, "prev does not match line 1"),
        (lambda lines: [*lines[:3], lines[3][:-20]], 4, "not a JSON object (cut short"),
        (lambda lines: [*lines[:2], "", *lines[2:]], 3, "not a JSON object"),
    ],
    ids=[
        "edited",
        "edited-rehashed",
        "deleted",
        "first-deleted",
        "reordered",
        "truncated",
        "blank",
    ],
)
def test_tampering_is_caught_and_blocks_appends(runs, tamper, line, why):
    ledger = filled(runs)
    text = "\n".join(tamper(ledger.path.read_text().splitlines())) + "\n"
    ledger.path.write_text(text)
    message = refused(ledger.entries)
    assert message.startswith(f"{ledger.path}: line {line}: ")
    assert why in message
    assert message.endswith("(the ledger is append-only; restore it from a copy)")
    with pytest.raises(LedgerError):  # an OpsEvalError the CLI shows as one line, exit 2
        ledger.entries()
    refused(ledger.append, verdict("run000000009"))
    assert ledger.path.read_text() == text  # nothing appended to a broken chain


def test_a_write_cut_short_is_caught(runs):
    ledger = filled(runs)
    data = ledger.path.read_bytes()
    ledger.path.write_bytes(data[:-1])  # the last line lost only its newline
    assert "line 4: incomplete (no newline at its end" in refused(ledger.entries)
    ledger.path.write_bytes(data + data.splitlines(keepends=True)[1][:30])
    assert "line 5: incomplete" in refused(ledger.entries)


def test_a_line_that_is_no_entry_is_caught(runs):
    from ops_eval.deciding.ledger.chain import canonical, entry_hash

    ledger = filled(runs)
    lines = ledger.path.read_text().splitlines()
    fields = {"kind": "verdict", "surprise": 1, "prev": json.loads(lines[-1])["hash"]}
    fields["hash"] = entry_hash(fields)
    ledger.path.write_text("\n".join([*lines, canonical(fields).decode()]) + "\n")
    assert "line 5: not a ledger entry (" in refused(ledger.entries)


def test_a_folder_or_binary_file_is_no_ledger(runs):
    folder = runs / "folder.jsonl"
    folder.mkdir()
    assert refused(Ledger(folder).entries) == f"{folder}: is a folder, not a file"
    assert "is a folder" in refused(Ledger(folder).append, verdict("run000000001"))
    binary = runs / "binary.jsonl"
    binary.write_bytes(b"\x7fELF\x00\x01\x02\n")
    assert "binary file (a NUL byte" in refused(Ledger(binary).entries)
    latin = runs / "latin.jsonl"
    latin.write_bytes(b'{"caf\xe9": 1}\n')
    assert "line 1: not UTF-8 text" in refused(Ledger(latin).entries)


def test_a_symlinked_ledger_is_refused(runs):
    real = Ledger(runs / "elsewhere" / "real.jsonl")
    real.append(verdict("run000000001"))
    before = real.path.read_bytes()
    link = runs / "gate-ledger.jsonl"
    link.symlink_to(real.path)
    said = f"{link}: is a symbolic link; the ledger is a plain file"
    assert refused(Ledger(link).entries) == said
    assert refused(Ledger(link).append, verdict("run000000002")) == said
    assert refused(record_override, default_ledger(), "run000000001", REASON, "Ada") == said
    assert real.path.read_bytes() == before  # nothing written through the link

    dangling = runs / "dangling.jsonl"
    dangling.symlink_to(runs / "nowhere.jsonl")
    assert refused(Ledger(dangling).append, verdict("run000000002")) == (
        f"{dangling}: is a symbolic link; the ledger is a plain file"
    )
    assert not (runs / "nowhere.jsonl").exists()  # not created through the link either


def test_decided_fields_and_verdict_consistency():
    assert DECIDED_FIELDS == (
        "candidate",
        "candidate_sha256",
        "baseline",
        "baseline_sha256",
        "policy_sha256",
        "allowed",
    )
    good = verdict("r").model_dump()
    with pytest.raises(ValidationError, match="failures lists why"):
        VerdictEntry(**{**good, "failures": []})
    with pytest.raises(ValidationError, match="together"):
        VerdictEntry(**{**good, "baseline_sha256": None})
    with pytest.raises(ValidationError):
        VerdictEntry(**{**good, "at": "yesterday"})
    with pytest.raises(ValidationError):
        VerdictEntry(**{**good, "policy_sha256": "not a hash"})
    with pytest.raises(ValidationError, match="extra"):
        VerdictEntry(**good, extra=1)
    with pytest.raises(ValidationError, match="extra"):  # the old field is gone
        VerdictEntry(**good, config_sha256="c" * 64)


def test_latest_verdict_and_find_override_over_entries():
    first = verdict("cand00000001", baseline="base00000001")
    second = verdict("cand00000001", baseline=None)
    entries = [first, verdict("other0000001"), second]
    assert latest_verdict(entries, "cand00000001") == second
    assert latest_verdict(entries, "cand00000001", "base00000001") == first
    assert latest_verdict(entries, "cand00000001", None) == second
    assert latest_verdict(entries, "cand00000001", "base00000009") is None
    assert latest_verdict(entries, "nobody") is None
    assert find_override(entries, first) is None


def _append_many(path: str, worker: int, count: int, start) -> None:
    start.wait()
    ledger = Ledger(Path(path))
    for i in range(count):
        ledger.append(verdict(f"w{worker}-{i}", kind="pass", failures=()))


def test_concurrent_appends_keep_one_chain(runs):
    path = runs / "deep" / "gate-ledger.jsonl"  # created by whichever process comes first
    context = multiprocessing.get_context("spawn")  # no fork of a threaded test process
    start = context.Event()
    workers, count = 4, 15
    processes = [
        context.Process(target=_append_many, args=(str(path), w, count, start))
        for w in range(workers)
    ]
    for process in processes:
        process.start()
    start.set()
    for process in processes:
        process.join(timeout=120)
        assert process.exitcode == 0
    entries = Ledger(path).entries()  # verifies the whole chain
    assert len(entries) == workers * count
    assert {e.candidate for e in entries} == {
        f"w{w}-{i}" for w in range(workers) for i in range(count)
    }
    for w in range(workers):  # each process's own appends in its order
        mine = [e.candidate for e in entries if e.candidate.startswith(f"w{w}-")]
        assert mine == [f"w{w}-{i}" for i in range(count)]


# --- when the machine fails --------------------------------------------------------------------


def _failing_write(monkeypatch, write) -> None:
    """The ledger module's `os`, with `write` replaced (the rest of `os` as it is)."""
    fake = types.ModuleType("os")
    fake.__dict__.update(os.__dict__)
    fake.write = write
    monkeypatch.setattr(ledger_module, "os", fake)


@pytest.mark.parametrize(
    ("number", "code"),
    [
        (errno.ENOSPC, EXIT_INFRA),
        (errno.EIO, EXIT_INFRA),
        (errno.EDQUOT, EXIT_INFRA),
        (errno.EROFS, EXIT_INFRA),
        (errno.EACCES, EXIT_BAD_INPUT),  # the user's to fix, not the machine's
    ],
    ids=["ENOSPC", "EIO", "EDQUOT", "EROFS", "EACCES"],
)
def test_a_failed_write_is_exit_3_when_the_machine_failed(runs, monkeypatch, number, code):
    ledger = filled(runs)
    before = ledger.path.read_bytes()
    fresh = Ledger(runs / "fresh" / "gate-ledger.jsonl")

    def write(fd: int, data: bytes) -> int:
        raise OSError(number, os.strerror(number))

    _failing_write(monkeypatch, write)
    message = refused(ledger.append, verdict("run000000005"), code=code)
    assert message == f"{ledger.path}: cannot read or write ({os.strerror(number)})"
    assert ledger.path.read_bytes() == before
    refused(fresh.append, verdict("run000000005"), code=code)
    assert not fresh.path.exists()  # a failed first append leaves no empty ledger
    monkeypatch.undo()
    assert len(ledger.entries()) == 4 and fresh.entries() == []


def test_a_short_write_is_taken_back_and_is_exit_3(runs, monkeypatch):
    ledger = filled(runs)
    before = ledger.path.read_bytes()
    fresh = Ledger(runs / "fresh" / "gate-ledger.jsonl")
    real_write = os.write

    def half(fd: int, data: bytes) -> int:  # the disk filled up half way through the line
        return real_write(fd, data[: len(data) // 2])

    _failing_write(monkeypatch, half)
    message = refused(ledger.append, verdict("run000000005"), code=EXIT_INFRA)
    assert message == f"{ledger.path}: could not write a whole line (disk full?)"
    assert ledger.path.read_bytes() == before  # no half line left behind
    refused(fresh.append, verdict("run000000005"), code=EXIT_INFRA)
    assert not fresh.path.exists()
    monkeypatch.undo()
    assert len(ledger.entries()) == 4


# --- overrides ---------------------------------------------------------------------------------


def test_an_override_is_recorded_once_and_changes_nothing_else(runs):
    path, _ = make_run(runs, "cand00000001", at(5))
    record_bytes = path.read_bytes()
    ledger = default_ledger()
    recorded = ledger.append(
        verdict(
            "cand00000001",
            failures=("regressed", "required case c2 failed"),
            allowed=["seed", "eval_set"],
        )
    )
    before = ledger.path.read_bytes()

    entry = record_override(ledger, "cand00000001", f"  {REASON}\u200b ", " Ada\tLovelace ")
    assert isinstance(entry, OverrideEntry)
    assert (entry.candidate, entry.baseline, entry.verdict, entry.by, entry.reason) == (
        "cand00000001",
        "base00000000",
        "regressed",
        "Ada Lovelace",
        REASON,
    )
    assert entry.failures == ["regressed", "required case c2 failed"]
    for name in DECIDED_FIELDS:  # the decision it accepts, copied whole
        assert getattr(entry, name) == getattr(recorded, name), name
    assert override_for(ledger, recorded) == entry
    assert override_for(ledger, verdict("cand00000001", baseline="other0000000")) is None
    assert overrides(ledger) == [entry]

    after = ledger.path.read_bytes()
    assert after.startswith(before) and after.count(b"\n") == before.count(b"\n") + 1
    assert ledger.entries()[0] == recorded  # the verdict it overrides is as recorded
    assert path.read_bytes() == record_bytes  # and the run record untouched

    message = refused(record_override, ledger, "cand00000001", REASON, "Grace")
    assert message == (
        f"run cand00000001 against baseline base00000000 was already overridden by "
        f"Ada Lovelace at {entry.at}; an override is recorded once"
    )
    assert ledger.path.read_bytes() == after


def test_an_override_covers_the_same_decision_made_again(runs):
    ledger = default_ledger()
    first = verdict("cand00000001", failures=("regressed", "required case c2 failed"))
    ledger.append(first)
    entry = record_override(ledger, "cand00000001", REASON, "Ada")
    again = ledger.append(first.model_copy(update={"at": "2099-01-01T00:00:00+00:00"}))
    assert override_for(ledger, again) == entry  # the same inputs, the same failures
    fewer = verdict("cand00000001", failures=("regressed",))
    assert override_for(ledger, fewer) == entry  # a failure fewer is still accepted
    reordered = verdict("cand00000001", allowed=["seed", "cases"])
    accepted = OverrideEntry(
        **verdict("cand00000001", allowed=["cases", "seed"]).model_dump(
            include=set(DECIDED_FIELDS)
        ),
        verdict="regressed",
        failures=["regressed"],
        by="Ada",
        reason=REASON,
    )
    assert accepted.covers(reordered)  # the allowed kinds are a set, not a sequence
    assert "already overridden" in refused(record_override, ledger, "cand00000001", REASON, "Bo")


@pytest.mark.parametrize(
    "change",
    [
        {"candidate_sha256": "d" * 64},
        {"policy_sha256": "d" * 64},
        {"allowed": ["seed"]},
        {"baseline": "base00000001"},
        {"baseline_sha256": "d" * 64},
        {"failures": ("regressed", "required case c2 failed", "required case c3 failed")},
    ],
    ids=[
        "candidate-file",
        "policy",
        "allowed",
        "baseline",
        "baseline-file",
        "new-failure",
    ],
)
def test_an_override_does_not_cover_another_decision(runs, change):
    ledger = default_ledger()
    first = ledger.append(
        verdict("cand00000001", failures=("regressed", "required case c2 failed"))
    )
    accepted = record_override(ledger, "cand00000001", REASON, "Ada")
    later = ledger.append(verdict("cand00000001", **change))  # the same run ids
    assert not accepted.covers(later)
    assert override_for(ledger, later) is None
    assert override_for(ledger, first) == accepted

    # the new failed decision is a new one to accept, once
    second = record_override(ledger, "cand00000001", "second look, still the mock", "Grace")
    assert second != accepted and override_for(ledger, later) == second
    for name in DECIDED_FIELDS:
        assert getattr(second, name) == getattr(later, name), name
    assert second.failures == list(later.failures)
    assert "already overridden by Grace" in refused(
        record_override, ledger, "cand00000001", REASON, "Ada"
    )
    assert overrides(ledger) == [accepted, second]


@pytest.mark.parametrize("kind", ["pass", "improved", "inconclusive_noise"])
def test_a_passing_verdict_cannot_be_overridden(runs, kind):
    ledger = default_ledger()
    ledger.append(verdict("cand00000001"))
    ledger.append(verdict("cand00000001", kind=kind, failures=()))  # the latest one counts
    message = refused(record_override, ledger, "cand00000001", REASON, "Ada")
    assert message.startswith(f"run cand00000001: its latest gate verdict ({kind}, against")
    assert message.endswith("passed; there is nothing to override")
    assert len(ledger.entries()) == 2


def test_a_run_without_a_verdict_cannot_be_overridden(runs):
    ledger = default_ledger()
    ledger.append(verdict("other0000001"))
    message = refused(record_override, ledger, "cand00000001", REASON, "Ada")
    assert message == (
        "no gate verdict is recorded for run cand00000001; run `ops-eval gate` on it first"
    )


def test_a_refused_first_override_leaves_no_ledger_file(runs):
    ledger = default_ledger()
    assert not ledger.path.exists()
    message = refused(record_override, ledger, "cand00000001", REASON, "Ada")
    assert message.startswith("no gate verdict is recorded for run cand00000001")
    assert not ledger.path.exists()  # not even an empty one
    assert ledger.entries() == []


@pytest.mark.parametrize(
    ("reason", "by", "said"),
    [
        ("ok", "Ada", "--reason: needs at least 10 visible characters, has 2"),
        ("ok \u200b\u200b\u200b\u200b\u200b\u200b\u200b\u200b\u200b", "Ada", "has 2"),
        ("!!!!!!!!!!!!", "Ada", "--reason: needs at least 3 letters or digits, has 0"),
        (REASON, " \t ", "--by: names nobody"),
        (REASON, "x" * 101, "--by: 101 characters; at most 100"),
    ],
)
def test_an_override_must_say_why_and_who(runs, reason, by, said):
    ledger = default_ledger()
    ledger.append(verdict("cand00000001"))
    assert said in refused(record_override, ledger, "cand00000001", reason, by)
    assert overrides(ledger) == []


def test_an_append_waiting_on_a_ledger_that_a_refused_first_append_unlinks_is_not_lost(tmp_path):
    """Found in review: a refused first append unlinked the new file while another appender
    waited on its lock; that appender then wrote into the unlinked file and reported success."""
    import threading
    import time

    path = tmp_path / "gate-ledger.jsonl"
    entry = verdict("r1")
    done: dict[str, object] = {}

    def other() -> None:
        done["entry"] = Ledger(path).append(entry)

    def refuse(entries):
        thread = threading.Thread(target=other)
        thread.start()
        done["thread"] = thread
        time.sleep(0.3)  # the other appender has opened the file and waits on the lock
        raise ValueError("refused")

    with pytest.raises(ValueError):
        Ledger(path).append_with(refuse)
    done["thread"].join()
    assert done["entry"] == entry
    assert Ledger(path).entries() == [entry]


@pytest.mark.parametrize("depth", [900, 989, 5_000, 100_000])
def test_a_line_nested_too_deeply_is_refused_naming_it(runs, depth):
    """A line of nested lists parses, then recursed past Python's limit when re-encoded for its
    hash: a RecursionError traceback, key or no key."""
    ledger = Ledger(runs / "gate-ledger.jsonl")
    ledger.path.write_text('{"hash":"0","prev":"0","x":' + "[" * depth + "]" * depth + "}\n")
    message = refused(ledger.entries)
    assert message.startswith(f"{ledger.path}: line 1: ")
