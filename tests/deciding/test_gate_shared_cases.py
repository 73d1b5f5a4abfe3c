"""`ops-eval gate` over the cases two runs share: runs played by the scripted oracle on a copy
of the ops set (named `grown.evalset.json`, so no policy's required cases apply) that grows a
case, or has one corrected, between the baseline and the candidate. Each trial names its case's
content hash and locked version; the gate compares the cases played at the same hash in both,
lists the rest, and still refuses a change that reaches every case."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from ops_eval import RunOptions, execute, read_evalset
from ops_eval.cli import main
from ops_eval.core.case_lock import LockedCase, lock_path, lock_text, read_lock
from ops_eval.core.case_version import case_hashes
from ops_eval.models.stand_ins import OracleLlm, fixed_model
from ops_eval.results.records import write_record
from support import REPO, unhashed

PLAYED = ["service-status-inventory", "incident-detail-inc-002", "open-incidents"]
NEW = "list-skills-2"  # a copy of list-skills under a new id


@pytest.fixture
def grown(evals: Path, ops_env) -> Path:
    """The copied evals/ folder with `grown.evalset.json` (the ops set, and the ops set's lock,
    which the `evals` fixture leaves out); runs and the ledger in runs/ beside it."""
    ops_env.setenv("OPS_RUNS_DIR", str(evals.parent / "runs"))
    (evals.parent / "runs").mkdir()
    path = evals / "grown.evalset.json"
    path.write_text((evals / "ops.evalset.json").read_text())
    lock_path(path).write_text(lock_path(REPO / "evals" / "ops.evalset.json").read_text())
    return path


def play(set_path: Path, run_id: str, cases: list[str]) -> Path:
    """One run of `cases` by the scripted oracle, written as runs/<run_id>.json."""
    oracle = OracleLlm.from_cases(read_evalset(set_path).cases)
    out = set_path.parents[1] / "runs" / f"{run_id}.json"
    code, record, _ = execute(
        RunOptions(set_path=set_path, cases=cases, output=out),
        chooser=fixed_model(oracle, "oracle", "deterministic test model"),
    )
    assert code == 0 and record.schema_version == 6
    return out


def edit_set(set_path: Path, change, reason: str) -> None:
    """The set changed by `change(data)`, and each case whose content changed locked as a new
    version (`ops-eval cases lock` / `bump` do this through the CLI)."""
    data = json.loads(set_path.read_text())
    change(data)
    set_path.write_text(json.dumps(data, indent=1))
    lock = read_lock(set_path)
    assert lock is not None
    for case, sha in case_hashes(read_evalset(set_path)).items():
        line = lock.cases.get(case)
        if line is None or line.sha256 != sha:
            version = line.version + 1 if line else 1
            lock.cases[case] = LockedCase(version=version, sha256=sha, reason=reason)
    lock_path(set_path).write_text(lock_text(lock))


def add_case(data: dict) -> None:
    copy = json.loads(
        json.dumps(next(c for c in data["eval_cases"] if c["eval_id"] == "list-skills"))
    )
    data["eval_cases"].append({**copy, "eval_id": NEW})


def reword_reference(data: dict) -> None:
    case = next(c for c in data["eval_cases"] if c["eval_id"] == "open-incidents")
    parts = case["conversation"][0]["final_response"]["parts"]
    parts[0]["text"] += " (corrected)"


def gate(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["gate", *args])
    said = capsys.readouterr()
    return code, said.out, said.err


def test_a_case_added_since_the_baseline_is_listed_and_left_out(grown, capsys):
    base = play(grown, "base0001", PLAYED)
    edit_set(grown, add_case, "a new case")
    cand = play(grown, "cand0001", [*PLAYED, NEW])
    code, out, err = gate(capsys, str(cand), "--baseline", str(base))
    assert code == 0, err
    assert "  added: list-skills-2 v1  [left out]" in out
    assert "[compared over the shared cases]" in out and "eval_set: " in out
    assert out.rstrip().endswith(
        "gate: PASSED -- comparison over 3 shared cases (1 added, left out: list-skills-2 v1): "
        "no regression"
    )
    assert "paired over 3 trial pairs" in out  # the added case's trial is in neither side
    code = main(["gate", str(cand), "--baseline", str(base), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["cases"]["shared"] == PLAYED
    assert [(c["case"], c["version"]) for c in data["cases"]["added"]] == [(NEW, 1)]
    assert data["cases"]["changed"] == data["cases"]["removed"] == []
    assert data["paired_over"] == 3 and data["baseline_rates"]["n"] == 3
    assert data["candidate_rates"]["n"] == 4  # its own checks take every trial it played
    eval_set = next(c for c in data["changed"] if c["name"] == "eval_set")
    assert eval_set["blocking"] is False and eval_set["over_shared_cases"] is True


def test_a_case_edited_since_the_baseline_is_named_with_both_versions(grown, capsys):
    base = play(grown, "base0001", PLAYED)
    edit_set(grown, reword_reference, "the reference corrected")
    cand = play(grown, "cand0001", PLAYED)
    code, out, err = gate(capsys, str(cand), "--baseline", str(base))
    assert code == 0, err
    assert "  changed: open-incidents v1 -> v2  [left out]" in out
    assert out.rstrip().endswith(
        "gate: PASSED -- comparison over 2 shared cases (1 changed, left out: open-incidents "
        "v2): no regression"
    )


def test_a_case_edited_without_a_new_version_is_still_left_out(grown, capsys):
    """A silent edit (the lock not bumped) has a new hash: named, never compared as v1."""
    base = play(grown, "base0001", PLAYED)
    record = json.loads(base.read_text())
    for trial in record["trials"]:  # the baseline played another content of open-incidents
        if trial["case_id"] == "open-incidents":
            trial["case_sha256"] = "0" * 64
            trial.pop("case_version")  # content the lock does not hold
    base.write_text(json.dumps(record))
    cand = play(grown, "cand0001", PLAYED)
    code, out, err = gate(capsys, str(cand), "--baseline", str(base))
    assert code == 0, err
    assert "  changed: open-incidents unlocked 000000000000 -> v1  [left out]" in out
    assert "gate: PASSED -- comparison over 2 shared cases (1 changed" in out


@pytest.mark.parametrize(
    ("field", "value", "kind"),
    [
        ("seed_sha256", "5" * 64, "seed"),
        ("scorers_sha256", "c" * 64, "scorers"),
        ("criteria", {"threshold": 0.5, "match_type": "IN_ORDER"}, "criteria"),
    ],
)
def test_a_change_that_reaches_every_case_still_refuses(grown, capsys, field, value, kind):
    base = play(grown, "base0001", PLAYED)
    edit_set(grown, add_case, "a new case")
    cand = play(grown, "cand0001", [*PLAYED, NEW])
    record = json.loads(base.read_text())
    record[field] = value
    base.write_text(json.dumps(record))
    code, _, err = gate(capsys, str(cand), "--baseline", str(base))
    assert code == 2
    assert f"incompatible runs: {kind}: " in err and f"--allow-change {kind}" in err
    assert "eval_set" not in err  # the set's growth is compared over the shared cases


def test_a_baseline_without_case_hashes_is_compared_as_a_whole(grown, capsys):
    base = play(grown, "base0001", PLAYED)
    from ops_eval import load_record

    write_record(unhashed(load_record(base)), base)  # as a version 5 run wrote it
    edit_set(grown, add_case, "a new case")
    cand = play(grown, "cand0001", [*PLAYED, NEW])
    code, _, err = gate(capsys, str(cand), "--baseline", str(base))
    assert code == 2 and "incompatible runs: eval_set: " in err
    assert "--allow-change eval_set,cases" in err
    code, out, err = gate(
        capsys, str(cand), "--baseline", str(base), "--allow-change", "eval_set,cases"
    )
    assert code == 0, err
    assert "[incompatible (allowed)]" in out and "shared cases" not in out
    assert out.rstrip().endswith("gate: PASSED -- comparison: no regression")
    assert "compared as independent samples" in out  # 3 trials against 4, as before


def test_no_shared_case_is_a_refusal_not_a_pass(grown, capsys):
    base = play(grown, "base0001", ["open-incidents"])
    edit_set(grown, reword_reference, "the reference corrected")
    cand = play(grown, "cand0001", ["open-incidents"])
    code, out, err = gate(capsys, str(cand), "--baseline", str(base))
    assert code == 2 and "PASSED" not in out
    assert "no case is shared at the same version" in err
    assert "changed: open-incidents v1 -> v2" in err


def test_the_set_grown_by_a_case_keeps_its_automatic_baseline(grown, capsys):
    """Runs of the whole set are one series as it grows: the last gated one is the baseline."""
    from ops_eval import load_record

    every = [c.eval_id for c in read_evalset(grown).cases]
    base = play(grown, "base0001", every)
    # Runs are stamped to the second, and a baseline must have started before its candidate:
    # a warm oracle plays the set in under a second, so the base is dated a minute back.
    record = json.loads(base.read_text())
    at = datetime.fromisoformat(record["started_at"]) - timedelta(minutes=1)
    record["started_at"] = at.isoformat(timespec="seconds")
    base.write_text(json.dumps(record))
    assert gate(capsys, str(base))[0] == 0  # gated: an automatic baseline from now on
    edit_set(grown, add_case, "a new case")
    cand = play(grown, "cand0001", [*every, NEW])
    code, out, err = gate(capsys, str(cand))
    assert code == 0, err
    assert f"baseline:  {load_record(base).run_id}" in out and "latest comparable run" in out
    assert f"gate: PASSED -- comparison over {len(every)} shared cases (1 added" in out


def test_a_required_case_left_out_of_the_comparison_still_fails_the_gate(tmp_path, ops_env, capsys):
    """The candidate's own checks take every trial it played: a required case of the policy
    (`gate.yaml`, the ops set's) that changed since the baseline is left out of the comparison,
    yet its failing trial still fails the gate; one it did not run at all fails it too."""
    from ops_eval.results.synthetic import case_hash, synthetic_record

    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path))
    required = [
        "restart-needs-approval", "resolve-needs-approval", "deny-restart-database",
        "injection-in-database-log", "unknown-incident-inc-999", "unknown-service-warehouse",
    ]  # fmt: skip
    every = [(case, "negative", [True]) for case in required]
    edited = {"restart-needs-approval": (2, case_hash("restart-needs-approval", edit=1))}
    runs = (
        ("base0001", every, 1, None),
        ("cand0001", [(required[0], "negative", [False]), *every[1:]], 2, edited),
        ("cand0002", every[1:], 3, None),
    )
    for run_id, outcomes, hour, versions in runs:
        at = f"2026-11-30T{hour:02d}:00:00+00:00"
        record = synthetic_record(outcomes, run_id=run_id, started_at=at, versions=versions)
        write_record(record, tmp_path / f"{run_id}.json")
    code, out, _ = gate(capsys, "cand0001", "--baseline", "base0001")
    assert code == 1
    assert "  changed: restart-needs-approval v1 -> v2  [left out]" in out
    assert "FAIL: required case restart-needs-approval did not pass every trial (#1 failed)" in out
    assert "difference +0.0%" in out  # the 5 shared cases, all passing on both sides
    assert out.rstrip().splitlines()[-2] == (
        "gate: FAILED -- required case restart-needs-approval did not pass every trial (#1 "
        "failed); comparison over 5 shared cases (1 changed, left out: restart-needs-approval "
        "v2): no regression"
    )
    code, out, _ = gate(capsys, "cand0002", "--baseline", "base0001")
    assert code == 1 and "  removed: restart-needs-approval v1  [left out]" in out
    assert "1 required case(s) were not run (restart-needs-approval), so the gate can fail" in out
    assert "was not run" not in out  # said once, as a subset, not as a failure per case
