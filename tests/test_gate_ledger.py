"""The gate's ledger and baseline choice: the chain catches every kind of tampering, appends from
several processes at once keep one chain, pins are byte-for-byte copies that cannot be swapped,
overrides are recorded once and only for a failed verdict, and the automatic baseline is the
latest comparable run, with every run passed over said and why."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest
from pydantic import ValidationError

from ops_eval.exits import EXIT_BAD_INPUT, OpsEvalError
from ops_eval.gate.baseline import AUTO, choose_baseline, latest_comparable
from ops_eval.gate.entries import OverrideEntry, PinEntry, VerdictEntry
from ops_eval.gate.ledger import GENESIS, Ledger, LedgerError, default_ledger
from ops_eval.gate.overrides import override_for, record_override
from ops_eval.gate.pins import pin, resolve_pin
from ops_eval.gate.runs import resolve_run
from ops_eval.records import RunRecord, write_record
from ops_eval.testing.synthetic import synthetic_record

CASES = [("c1", "lookup", [True, True]), ("c2", "lookup", [True, False])]
REASON = "flaky upstream mock, tracked in OPS-123"


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
) -> VerdictEntry:
    return VerdictEntry(
        candidate=candidate,
        candidate_sha256="a" * 64,
        baseline=baseline,
        baseline_sha256="b" * 64 if baseline else None,
        verdict=kind,
        passed=not failures,
        failures=list(failures),
        config_sha256="c" * 64,
    )


def refused(call, *args, **kwargs) -> str:
    with pytest.raises(OpsEvalError) as caught:
        call(*args, **kwargs)
    assert caught.value.code == EXIT_BAD_INPUT
    message = str(caught.value)
    assert "\n" not in message and "Traceback" not in message
    return message


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


def test_a_missing_ledger_is_empty(runs):
    assert Ledger(runs / "nowhere" / "ledger.jsonl").entries() == []


def _edit(lines: list[str]) -> list[str]:
    fields = json.loads(lines[1])
    fields["verdict"] = "pass"
    return [lines[0], json.dumps(fields, sort_keys=True, separators=(",", ":")), *lines[2:]]


def _edit_rehashed(lines: list[str]) -> list[str]:
    """An editor who recomputes the line's hash still breaks the next line's prev."""
    from ops_eval.gate.ledger import canonical, entry_hash

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
    from ops_eval.gate.ledger import canonical, entry_hash

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


def test_a_verdict_entry_is_consistent():
    with pytest.raises(ValidationError, match="failures lists why"):
        VerdictEntry(**{**verdict("r").model_dump(), "failures": []})
    with pytest.raises(ValidationError, match="together"):
        VerdictEntry(**{**verdict("r").model_dump(), "baseline_sha256": None})
    with pytest.raises(ValidationError):
        VerdictEntry(**{**verdict("r").model_dump(), "at": "yesterday"})
    with pytest.raises(ValidationError, match="extra"):
        VerdictEntry(**verdict("r").model_dump(), extra=1)


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


# --- pins --------------------------------------------------------------------------------------


def test_pin_copies_the_record_byte_for_byte(runs):
    path, record = make_run(runs, "pinme0000001", at(1))
    ledger = default_ledger()
    entry = pin(ledger, "pinme0", "main", "Ada")  # a run id prefix
    copy = runs / "baselines" / "pinme0000001.json"
    assert copy.read_bytes() == path.read_bytes()
    assert entry == ledger.entries()[-1]
    assert (entry.name, entry.run, entry.path, entry.by) == (
        "main",
        "pinme0000001",
        "baselines/pinme0000001.json",
        "Ada",
    )
    found, same = resolve_pin(ledger, "main")
    assert (found, same) == (copy, entry)
    # pinning again (another name, the same run) reuses the identical copy
    pin(ledger, str(path), "release-1.0", None)
    assert sorted(p.name for p in (runs / "baselines").iterdir()) == ["pinme0000001.json"]


def test_repinning_a_name_moves_it(runs):
    make_run(runs, "first0000001", at(1))
    make_run(runs, "second000001", at(2))
    ledger = default_ledger()
    pin(ledger, "first0000001", "main", "Ada")
    pin(ledger, "second000001", "main", "Grace")
    _, entry = resolve_pin(ledger, "main")
    assert (entry.run, entry.by) == ("second000001", "Grace")
    assert len([e for e in ledger.entries() if isinstance(e, PinEntry)]) == 2


def test_a_swapped_or_removed_pinned_copy_is_refused(runs):
    make_run(runs, "pinme0000001", at(1))
    _, other = make_run(runs, "other0000001", at(2), outcomes=[("c1", "lookup", [False, False])])
    ledger = default_ledger()
    pin(ledger, "pinme0000001", "main", None)
    copy = runs / "baselines" / "pinme0000001.json"
    write_record(other.model_copy(update={"run_id": "pinme0000001"}), copy)
    message = refused(resolve_pin, ledger, "main")
    assert message.startswith(f"pinned baseline main: {copy} was changed or removed since")
    copy.unlink()
    assert "was changed or removed" in refused(resolve_pin, ledger, "main")


def test_an_existing_copy_with_other_bytes_is_never_overwritten(runs):
    path, record = make_run(runs, "pinme0000001", at(1))
    copy = runs / "baselines" / "pinme0000001.json"
    copy.parent.mkdir()
    copy.write_text("something else")
    assert "already exists with other bytes" in refused(
        pin, default_ledger(), str(path), "main", None
    )
    assert copy.read_text() == "something else"
    assert default_ledger().entries() == []


def test_unknown_pin_names_list_the_known_ones(runs):
    ledger = default_ledger()
    assert refused(resolve_pin, ledger, "main").startswith(
        "no baseline is pinned as 'main'; no baseline is pinned yet"
    )
    make_run(runs, "pinme0000001", at(1))
    pin(ledger, "pinme0000001", "main", None)
    pin(ledger, "pinme0000001", "nightly", None)
    message = refused(resolve_pin, ledger, "mian")
    assert message == "no baseline is pinned as 'mian'; pinned names: main, nightly"


def test_a_pin_needs_a_good_name_and_a_run_with_a_verdict(runs):
    errored = synthetic_record([("c1", "lookup", [None])], run_id="errored00001", started_at=at(1))
    write_record(errored.model_copy(update={"exit_code": 3}), runs / "errored.json")
    ledger = default_ledger()
    assert "every trial errored, exit 3" in refused(pin, ledger, "errored00001", "main", None)
    make_run(runs, "pinme0000001", at(1))
    assert refused(pin, ledger, "pinme0000001", "../main", None).startswith("--name '../main'")
    assert refused(pin, ledger, "pinme0000001", "main", " \u200b ").startswith("--by: names nobody")
    assert ledger.entries() == []


# --- overrides ---------------------------------------------------------------------------------


def test_an_override_is_recorded_once_and_changes_nothing_else(runs):
    path, _ = make_run(runs, "cand00000001", at(5))
    record_bytes = path.read_bytes()
    ledger = default_ledger()
    recorded = ledger.append(
        verdict("cand00000001", failures=("regressed", "required case c2 failed"))
    )
    before = ledger.path.read_bytes()

    entry = record_override(ledger, "cand00000001", f"  {REASON}\u200b ", " Ada\tLovelace ")
    assert isinstance(entry, OverrideEntry)
    assert (entry.run, entry.baseline, entry.verdict, entry.by, entry.reason) == (
        "cand00000001",
        "base00000000",
        "regressed",
        "Ada Lovelace",
        REASON,
    )
    assert entry.failures == ["regressed", "required case c2 failed"]
    assert override_for(ledger, "cand00000001", "base00000000") == entry
    assert override_for(ledger, "cand00000001", "other0000000") is None
    assert ledger.overrides_for("cand00000001") == [entry]

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


def test_an_override_binds_to_the_baseline_of_the_latest_verdict(runs):
    ledger = default_ledger()
    ledger.append(verdict("cand00000001", baseline="base00000001"))
    record_override(ledger, "cand00000001", REASON, "Ada")
    ledger.append(verdict("cand00000001", baseline="base00000002"))
    entry = record_override(ledger, "cand00000001", REASON, "Ada")
    assert entry.baseline == "base00000002"
    assert len(ledger.overrides_for("cand00000001")) == 2


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
    assert ledger.overrides_for("cand00000001") == []


# --- the baseline ------------------------------------------------------------------------------


def test_the_latest_comparable_run_is_chosen_and_every_skip_said(runs):
    cand_path, cand = make_run(runs, "cand00000001", at(10))
    make_run(runs, "later0000001", at(11))
    errored = synthetic_record(
        [("c1", "lookup", [None, None]), ("c2", "lookup", [None, None])],
        run_id="errored00001",
        started_at=at(9),
    )
    write_record(errored.model_copy(update={"exit_code": 3}), runs / "errored.json")
    make_run(runs, "model0000001", at(8), model="other/model")
    make_run(runs, "cases0000001", at(7), outcomes=[*CASES, ("c3", "lookup", [True, True])])
    make_run(runs, "noisy0000001", at(6))
    make_run(runs, "failed000001", at(5))
    chosen_path, _ = make_run(runs, "chosen000001", at(4))
    make_run(runs, "older0000001", at(3))
    (runs / "notes.json").write_text("not a record")
    ledger = default_ledger()
    ledger.append(verdict("noisy0000001", kind="inconclusive_noise", failures=()))
    ledger.append(verdict("failed000001", failures=("regressed",)))
    ledger.append(verdict("chosen000001", kind="pass", failures=()))

    found = choose_baseline(
        cand, cand_path, explicit=None, pinned=None, ledger=ledger, runs_dir=runs
    )
    assert found is not None
    assert (found.path, found.record.run_id, found.how) == (chosen_path, "chosen000001", AUTO)
    reasons = dict(found.skipped)
    assert list(reasons) == [
        "later0000001",
        "errored00001",
        "model0000001",
        "cases0000001",
        "noisy0000001",
        "failed000001",
        "1 file(s)",
    ]
    assert reasons["later0000001"].startswith(f"started {at(11)}, not before the candidate")
    assert reasons["errored00001"] == "no verdict: every trial errored (exit 3)"
    assert reasons["model0000001"] == "model other/model, not synthetic/model"
    assert reasons["cases0000001"].startswith("another case selection (3 cases, 1 not in")
    assert reasons["noisy0000001"].startswith("its own gate was inconclusive_noise")
    assert reasons["failed000001"].startswith("its own gate failed (regressed: regressed;")
    assert reasons["failed000001"].endswith("and was not overridden")
    assert reasons["1 file(s)"].startswith("not run records (e.g. notes.json: not JSON")

    # an override of the failed run's verdict makes it a baseline again
    record_override(ledger, "failed000001", REASON, "Ada")
    found = choose_baseline(
        cand, cand_path, explicit=None, pinned=None, ledger=ledger, runs_dir=runs
    )
    assert found is not None and found.record.run_id == "failed000001"


def test_another_eval_set_is_not_comparable_and_none_may_be_found(runs):
    cand_path, cand = make_run(runs, "cand00000001", at(10))
    make_run(runs, "elsewhere001", at(9), eval_set="evals/other.evalset.json")
    chosen, skipped = latest_comparable(cand, cand_path, ledger=default_ledger(), runs_dir=runs)
    assert chosen is None
    assert skipped == [
        ("elsewhere001", "eval set evals/other.evalset.json, not evals/ops.evalset.json")
    ]
    assert (
        choose_baseline(
            cand, cand_path, explicit=None, pinned=None, ledger=default_ledger(), runs_dir=runs
        )
        is None
    )


def test_a_copy_of_the_candidate_is_not_its_baseline(runs):
    cand_path, cand = make_run(runs, "cand00000001", at(10))
    write_record(cand, runs / "copy.json")
    _, skipped = latest_comparable(cand, cand_path, ledger=default_ledger(), runs_dir=runs)
    assert skipped == [("cand00000001", "same run id as the candidate (copy.json is a copy of it)")]


def test_explicit_and_pinned_baselines(runs):
    cand_path, cand = make_run(runs, "cand00000001", at(10))
    base_path, _ = make_run(runs, "base00000001", at(5))
    ledger = default_ledger()
    kwargs = {"ledger": ledger, "runs_dir": runs}

    found = choose_baseline(cand, cand_path, explicit="base00", pinned=None, **kwargs)
    assert found is not None and (found.path, found.how) == (base_path, "explicit")

    entry = pin(ledger, "base00000001", "main", "Ada")
    found = choose_baseline(cand, cand_path, explicit=None, pinned="main", **kwargs)
    assert found is not None
    assert found.path == runs / "baselines" / "base00000001.json"
    assert found.how == f"pinned main (pinned by Ada at {entry.at})"

    message = refused(choose_baseline, cand, cand_path, explicit="x", pinned="main", **kwargs)
    assert message == "--baseline and --pinned: give one of them, not both"
    message = refused(
        choose_baseline, cand, cand_path, explicit="cand00000001", pinned=None, **kwargs
    )
    assert "the candidate itself" in message
    (runs / "broken.json").write_text("{}")
    message = refused(
        choose_baseline, cand, cand_path, explicit=str(runs / "broken.json"), pinned=None, **kwargs
    )
    assert message.startswith(f"baseline {runs / 'broken.json'}: not a run record")


def test_resolve_run(runs):
    assert refused(resolve_run, None, runs) == (
        f"no run record in {runs}; run `mise run eval` first"
    )
    old, _ = make_run(runs, "abcdef000001", at(1))
    new, _ = make_run(runs, "abcdef000002", at(2))
    other, _ = make_run(runs, "123456789abc", at(0))
    assert resolve_run(None, runs) == new
    assert resolve_run(str(other), runs) == other
    assert resolve_run("abcdef000001", runs) == old
    assert resolve_run("123456", runs) == other  # a unique prefix
    message = refused(resolve_run, "abcdef", runs)
    assert (
        message
        == "run id prefix abcdef matches 2 runs (abcdef000001, abcdef000002); give more of it"
    )
    message = refused(resolve_run, "12345", runs)
    assert message == (
        f"no run record 12345: not a file, and no run under {runs} has that id "
        "(a prefix needs at least 6 characters)"
    )
    message = refused(resolve_run, "ffffffffffff", runs)
    assert message == f"no run record ffffffffffff: not a file, and no run under {runs} has that id"


def test_resolve_run_finds_pinned_copies(runs):
    path, _ = make_run(runs, "pinme0000001", at(1))
    pin(default_ledger(), "pinme0000001", "main", None)
    assert resolve_run("pinme0000001", runs) == path  # the run's own record first
    path.unlink()
    assert resolve_run("pinme0", runs) == runs / "baselines" / "pinme0000001.json"
