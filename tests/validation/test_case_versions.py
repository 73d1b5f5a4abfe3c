"""Cases are versioned one by one (`ops-eval cases`, the lock beside each set): a case edited in
place is refused until it is given a new version (`cases bump`), a new case is locked at version
1 (`cases lock`), a version is never rewritten -- not by `lock`, and not by a lock line edited
with its case, which CI's `cases check --against REF` catches from git history -- and a distilled
draft comes with its line. All through the CLI, on a copy of evals/ with its locks."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from validate_cli import EVALS, case, load, mutate_ops, save, validate

from ops_eval.cli import main

OPS = "evals/ops.evalset.json"
LOCK = "evals/ops.evalset.lock.json"


@pytest.fixture
def locked(evals):
    """The `evals` copy with the sets' locks, as the project ships them."""
    for lock in EVALS.glob("*.lock.json"):
        shutil.copy(lock, evals / lock.name)
    return evals


def cli(capsys, *args: str) -> tuple[int, list[str], str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, [ln for ln in out.out.splitlines() if ln], out.err


def line_of(evals, case_id: str, name: str = "ops.evalset.lock.json") -> dict:
    return load(evals / name)["cases"][case_id]


def reword(data: dict, case_id: str) -> None:
    """The case's first reference said a little differently: a correction, still valid."""
    case(data, case_id)["conversation"][0]["final_response"]["parts"][0]["text"] += " That's all."


def test_a_case_edited_in_place_is_refused_until_it_is_bumped(locked, capsys):
    before = line_of(locked, "list-skills")
    mutate_ops(locked, lambda d: reword(d, "list-skills"))
    code, out, _ = validate(capsys, str(locked))
    assert code == 1
    assert out == [
        f"{OPS}: case list-skills: edited in place: its content is not version 1's (sha256 "
        f"{before['sha256'][:12]}…); correct it with a new version: ops-eval cases bump "
        f'list-skills --reason "..." --set {OPS}'
    ]
    reason = "the reference names the skills' count"
    code, out, _ = cli(capsys, "cases", "bump", "list-skills", "--reason", reason, "--set", OPS)
    assert code == 0 and out[0].startswith(f"{LOCK}: case list-skills: version 2 (sha256 ")
    after = line_of(locked, "list-skills")
    assert after["version"] == 2 and after["reason"] == reason
    assert after["sha256"] != before["sha256"]
    assert validate(capsys, str(locked))[0] == 0
    code, out, _ = cli(capsys, "cases", "list", OPS)
    assert code == 0 and f"  list-skills: version 2: {reason}" in out
    assert "  open-incidents: version 1: first version" in out


def test_cases_lock_adds_a_new_case_at_version_1_and_refuses_to_rewrite_a_changed_one(
    locked, capsys
):
    def add(data):
        new = json.loads(json.dumps(case(data, "list-skills")))
        new["eval_id"] = "list-skills-again"
        new["conversation"][0]["user_content"]["parts"][0]["text"] = "Which skills are there?"
        data["eval_cases"].append(new)

    mutate_ops(locked, add)
    code, out, _ = validate(capsys, str(locked))
    assert code == 1 and out == [
        f"{OPS}: case list-skills-again: not in the lock (ops.evalset.lock.json): a new case is "
        f"locked at version 1; run ops-eval cases lock {OPS}"
    ]
    mutate_ops(locked, lambda d: reword(d, "open-incidents"))
    lock_before = (locked / "ops.evalset.lock.json").read_text()
    code, out, err = cli(capsys, "cases", "lock", OPS)
    assert code == 1 and len(out) == 1
    assert out[0].startswith(f"{OPS}: case open-incidents: changed since version 1 (sha256 ")
    assert out[0].endswith(
        "a locked version is never rewritten; correct it with a new version: ops-eval cases "
        f'bump open-incidents --reason "..." --set {OPS}'
    )
    assert "no lock was written" in err
    assert (locked / "ops.evalset.lock.json").read_text() == lock_before
    mutate_ops(locked, lambda d: d["eval_cases"].remove(case(d, "open-incidents")))  # removed
    code, out, _ = cli(capsys, "cases", "lock", OPS)
    assert code == 0 and out == [f"{LOCK}: 1 new case(s) at version 1: list-skills-again"]
    assert line_of(locked, "list-skills-again") == {
        "version": 1,
        "sha256": line_of(locked, "list-skills-again")["sha256"],
        "reason": "first version",
    }
    assert line_of(locked, "open-incidents")["version"] == 1  # a removed case's line stays
    assert validate(capsys, str(locked))[0] == 0


def test_cases_bump_refuses_an_unknown_id_an_unchanged_case_and_an_empty_reason(locked, capsys):
    lock_before = (locked / "ops.evalset.lock.json").read_text()
    code, _, err = cli(capsys, "cases", "bump", "list-skils", "--reason", "x", "--set", OPS)
    assert code == 2
    assert err == f"error: case list-skils: not in {OPS}; did you mean list-skills?\n"
    code, out, _ = cli(capsys, "cases", "bump", "list-skills", "--reason", "x", "--set", OPS)
    assert code == 1 and out == [
        f"{OPS}: case list-skills: unchanged since version 1: a new version is for a corrected "
        "case; edit it first"
    ]
    mutate_ops(locked, lambda d: reword(d, "list-skills"))
    code, _, err = cli(capsys, "cases", "bump", "list-skills", "--reason", "  ", "--set", OPS)
    assert code == 2 and err.count("\n") == 1 and "--reason: empty" in err
    assert (locked / "ops.evalset.lock.json").read_text() == lock_before


def _git(folder, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=folder,
        check=True,
        capture_output=True,
    )


def test_cases_check_catches_a_case_and_its_lock_line_edited_together(locked, capsys):
    root = locked.parent
    _git(root, "init", "-q")
    _git(root, "add", "evals")
    _git(root, "commit", "-q", "-m", "base")
    mutate_ops(locked, lambda d: reword(d, "list-skills"))
    assert cli(capsys, "cases", "bump", "list-skills", "--reason", "r", "--set", OPS)[0] == 0
    lock = load(locked / "ops.evalset.lock.json")
    lock["cases"]["list-skills"]["version"] = 1  # the line rewritten with its case: no new version
    save(locked / "ops.evalset.lock.json", lock)
    assert validate(capsys, str(locked))[0] == 0  # case and line agree: only history tells
    code, out, _ = cli(capsys, "cases", "check", "--against", "HEAD", OPS)
    assert code == 1 and len(out) == 1
    assert out[0].startswith(f"{OPS}: case list-skills: changed since HEAD (sha256 ")
    assert "but still version 1: a version is never rewritten" in out[0]
    lock["cases"]["list-skills"]["version"] = 2
    del lock["cases"]["open-incidents"]  # and a line removed with its case
    save(locked / "ops.evalset.lock.json", lock)
    mutate_ops(locked, lambda d: d["eval_cases"].remove(case(d, "open-incidents")))
    code, out, _ = cli(capsys, "cases", "check", "--against", "HEAD", OPS)
    assert code == 1 and out == [
        f"{OPS}: case open-incidents: its lock line (version 1 at HEAD) was removed; lines stay, "
        "as the history of the versions runs name"
    ]
    lock["cases"]["open-incidents"] = load(EVALS / "ops.evalset.lock.json")["cases"][
        "open-incidents"
    ]
    save(locked / "ops.evalset.lock.json", lock)
    code, out, _ = cli(capsys, "cases", "check", "--against", "HEAD", OPS)
    assert code == 0 and out[0].startswith("ok: 1 set(s)")
    assert cli(capsys, "cases", "check", "--against", "no-such-ref", OPS)[0] == 2
    _git(root, "commit", "-q", "-am", "list-skills corrected: version 2")
    lock["cases"]["list-skills"]["version"] = 1  # and back down
    save(locked / "ops.evalset.lock.json", lock)
    code, out, _ = cli(capsys, "cases", "check", "--against", "HEAD", OPS)
    assert code == 1 and out == [
        f"{OPS}: case list-skills: its version went down, from 2 at HEAD to 1"
    ]


def test_moving_a_contract_rule_from_a_cases_meta_to_the_sets_contracts_changes_no_hash(
    tmp_path, capsys, monkeypatch
):
    import yaml

    monkeypatch.chdir(tmp_path)
    solo = tmp_path / "solo"
    solo.mkdir()
    for name in ("test_config.json", "negatives.yaml", "contracts.yaml"):
        shutil.copy(EVALS / name, solo / name)
    data = load(EVALS / "ops.evalset.json")
    writes = [{"writes": True}]
    data["eval_cases"] = [
        c for c in data["eval_cases"] if c["meta"].get("contracts", {}).get("forbidden") == writes
    ]
    assert len(data["eval_cases"]) >= 2
    save(solo / "solo.evalset.json", data)
    assert cli(capsys, "cases", "lock", "solo/solo.evalset.json")[0] == 0
    for c in data["eval_cases"]:
        del c["meta"]["contracts"]["forbidden"]
    save(solo / "solo.evalset.json", data)
    contracts = yaml.safe_load((solo / "contracts.yaml").read_text())
    (solo / "contracts.yaml").write_text(yaml.safe_dump({**contracts, "forbidden": writes}))
    assert validate(capsys, "solo/solo.evalset.json")[:2] == (0, ["ok: 1 eval set(s), "
        f"{len(data['eval_cases'])} cases agree with the seed"])  # fmt: skip
    rule = [{"tool": "restart_service"}]  # what the rule does changed: every case it acts on
    (solo / "contracts.yaml").write_text(yaml.safe_dump({**contracts, "forbidden": rule}))
    code, out, _ = validate(capsys, "solo/solo.evalset.json")
    assert code == 1 and len(out) == len(data["eval_cases"])
    assert all("edited in place: its content is not version 1's" in line for line in out)


def test_a_broken_lock_is_bad_input_in_one_line(locked, capsys):
    (locked / "ops.evalset.lock.json").write_text('{"format": 1, "cases": {"x": {"version": 0')
    code, out, _ = validate(capsys, str(locked))
    assert code == 2 and len(out) == 1
    assert out[0].startswith(f"{LOCK}: (top level): Invalid JSON")
    code, out, err = cli(capsys, "cases", "lock", OPS)
    assert code == 2 and out == [] and err.startswith(f"error: {LOCK}: (top level): Invalid JSON")
    assert err.count("\n") == 1


def test_a_set_without_a_lock_is_refused_in_the_project_and_warned_about_elsewhere(
    locked, capsys, monkeypatch
):
    (locked / "triage-report.evalset.lock.json").unlink()
    code, _, err = validate(capsys, str(locked))
    assert code == 0 and "warning: evals/triage-report.evalset.json: no lock" in err
    monkeypatch.setattr("ops_eval.base.settings.data_root", lambda: locked.parent)
    code, out, _ = validate(capsys, str(locked))
    assert code == 1 and out == [
        "evals/triage-report.evalset.json: no lock (evals/triage-report.evalset.lock.json): "
        "every case of it needs a version; run ops-eval cases lock"
    ]


def test_every_shipped_set_has_its_lock():
    sets = sorted(EVALS.glob("*.evalset.json"))
    assert sets and all(s.with_name(s.name[:-5] + ".lock.json").is_file() for s in sets)


def test_distill_writes_the_drafts_lock_line_and_cases_lock_pins_it_once_reviewed(
    evals, tmp_path, capsys
):
    from ops_eval.core.evalset import read_evalset
    from ops_eval.models.stand_ins import OracleLlm, fixed_model
    from ops_eval.running.execute import execute
    from ops_eval.running.options import RunOptions

    record, ops = tmp_path / "run.json", evals / "ops.evalset.json"
    code, _, _ = execute(
        RunOptions(set_path=ops, cases=["list-skills"], output=record),
        chooser=fixed_model(OracleLlm.from_cases(read_evalset(ops).cases), "oracle", "scripted"),
    )
    assert code == 0
    drafts = evals / "drafts.evalset.json"
    assert main(["distill", str(record), "list-skills", "--output", str(drafts)]) == 0
    assert "(version 1 in " in capsys.readouterr().out
    line = line_of(evals, "list-skills-draft-r1", "drafts.evalset.lock.json")
    run_id = load(record)["run_id"]
    assert line["version"] == 1 and line["draft"] is True
    assert line["reason"] == f"distilled from run {run_id} (run.json), trial list-skills#1"
    code, out, _ = validate(capsys, str(drafts))
    assert code == 1 and len(out) == 1 and "meta.draft: is a draft from run" in out[0]
    data = load(drafts)
    del data["eval_cases"][0]["meta"]["draft"]  # reviewed
    save(drafts, data)
    code, out, _ = validate(capsys, str(drafts))
    assert code == 1 and out == [
        "evals/drafts.evalset.json: case list-skills-draft-r1: reviewed since it was distilled: "
        "its lock line is the draft's; pin the reviewed case as version 1: ops-eval cases lock "
        "evals/drafts.evalset.json"
    ]
    assert cli(capsys, "cases", "lock", "evals/drafts.evalset.json")[0] == 0
    pinned = line_of(evals, "list-skills-draft-r1", "drafts.evalset.lock.json")
    assert pinned == {"version": 1, "sha256": pinned["sha256"], "reason": line["reason"]}
    assert pinned["sha256"] != line["sha256"]
    assert validate(capsys, str(drafts))[0] == 0
