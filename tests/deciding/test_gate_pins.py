"""Pinned baselines and which run a command line names: a pin is a byte-for-byte copy, readable
as any record is, that cannot be swapped or overwritten; a run where every trial errored cannot be
pinned, whatever its exit code says; a run id, a unique prefix or a path names a record, a folder
does not."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from test_gate_ledger import at, make_run, refused

from ops_eval.deciding.gate.pins import pin, resolve_pin
from ops_eval.deciding.ledger.chain import default_ledger
from ops_eval.deciding.ledger.entries import PinEntry, pins
from ops_eval.results.records import write_record
from ops_eval.results.runs import resolve_run
from ops_eval.results.synthetic import synthetic_record


@pytest.fixture
def runs(tmp_path: Path, ops_env) -> Path:
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path))
    return tmp_path


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
    assert list(pins(ledger.entries())) == ["main", "release-1.0"]


@pytest.mark.parametrize("mask", [0o022, 0o002, 0o077], ids=["022", "002", "077"])
def test_a_pinned_copy_is_as_readable_as_any_record(runs, mask):
    make_run(runs, "pinme0000001", at(1))
    old = os.umask(mask)
    try:
        pin(default_ledger(), "pinme0000001", "main", None)
    finally:
        os.umask(old)
    copy = runs / "baselines" / "pinme0000001.json"
    assert stat.S_IMODE(copy.stat().st_mode) == 0o666 & ~mask  # not mkstemp's 0600
    assert not [p for p in copy.parent.iterdir() if p.name.endswith(".tmp")]


def test_repinning_a_name_moves_it(runs):
    make_run(runs, "first0000001", at(1))
    make_run(runs, "second000001", at(2))
    ledger = default_ledger()
    pin(ledger, "first0000001", "main", "Ada")
    pin(ledger, "second000001", "main", "Grace")
    _, entry = resolve_pin(ledger, "main")
    assert (entry.run, entry.by) == ("second000001", "Grace")
    assert pins(ledger.entries())["main"] == entry
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
    ledger = default_ledger()
    assert "already exists with other bytes" in refused(pin, ledger, str(path), "main", None)
    assert copy.read_text() == "something else"
    assert not ledger.path.exists()  # a refused first pin leaves no empty ledger
    assert ledger.entries() == []


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
    errored = synthetic_record(
        [("c1", "lookup", [None, None])], run_id="errored00001", started_at=at(1)
    )
    # by its trials (a record whose exit code they do not make does not load at all)
    write_record(errored, runs / "errored.json")
    ledger = default_ledger()
    assert refused(pin, ledger, "errored00001", "main", None) == (
        "run errored00001: every trial errored; with no verdict it cannot be a baseline"
    )
    make_run(runs, "pinme0000001", at(1))
    assert refused(pin, ledger, "pinme0000001", "../main", None).startswith("--name '../main'")
    assert refused(pin, ledger, "pinme0000001", "main", " \u200b ").startswith("--by: names nobody")
    assert not ledger.path.exists()

    # one trial with a verdict is enough
    partly = synthetic_record(
        [("c1", "lookup", [None, True])], run_id="partly000001", started_at=at(2)
    )
    write_record(partly, runs / "partly.json")
    assert pin(ledger, "partly000001", "main", None).run == "partly000001"


# --- which run a command line names ------------------------------------------------------------


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


def test_a_folder_is_no_run(runs):
    make_run(runs, "abcdef000001", at(1))
    folder = runs / "abcdef000001"  # even one named like a run id
    folder.mkdir()
    assert refused(resolve_run, str(folder), runs) == (
        f"{folder}: is a folder; give a run record file or a run id"
    )
    assert refused(resolve_run, str(runs), runs) == (
        f"{runs}: is a folder; give a run record file or a run id"
    )


def test_resolve_run_finds_pinned_copies(runs):
    path, _ = make_run(runs, "pinme0000001", at(1))
    pin(default_ledger(), "pinme0000001", "main", None)
    assert resolve_run("pinme0000001", runs) == path  # the run's own record first
    path.unlink()
    assert resolve_run("pinme0", runs) == runs / "baselines" / "pinme0000001.json"
