"""The shipped calibration set (its mix, its sources, its facts against the seed) and the
loader's precise refusals: the file, the item and the field, exit 2."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from calibration_helpers import SHIPPED_SET, shipped_items, write_set

from ops_eval.base.exits import OpsEvalError
from ops_eval.judging.calibration.items import MIN_ITEMS, PASSING_KINDS, load_set
from support import REPO


@pytest.fixture(scope="module")
def shipped():
    return load_set(SHIPPED_SET)


def test_the_shipped_set_is_large_enough_balanced_and_mixed(shipped):
    items = shipped.items
    assert len(items) >= 44 and len(items) >= MIN_ITEMS
    assert 0.4 <= shipped.passes / len(items) <= 0.6  # roughly balanced classes
    kinds = Counter(item.kind for item in items)
    assert set(kinds) == {
        "correct", "terse_correct", "verbose_correct", "wrong", "unsupported", "verbose_wrong"
    }  # fmt: skip
    # the verbosity figure needs long answers on both sides of the label
    long = [item for item in items if item.length >= 400]
    assert sum(i.labelled_pass for i in long) >= 5 and sum(not i.labelled_pass for i in long) >= 5
    assert len(shipped.sha256) == 64


def test_the_header_says_how_the_labels_were_made():
    header = SHIPPED_SET.read_text().split("\nversion:")[0]
    assert "an AI agent working" in header and "not cross-checked by a second" in header
    assert "labeller" in header
    assert "by a person" not in header and "labelled pass or fail by hand (by this" in header


def test_no_description_of_the_labels_says_a_person_or_a_human_gave_them():
    """The labels were given by this project's engineer, an AI agent (the set's header): the
    calibration code, its command's help and the gate's judge check say so, or say nothing of
    who; none claims a person, a human label or people."""
    import argparse

    from ops_eval.commands.calibrate import add_parser

    root = REPO / "evals" / "ops_eval"
    texts = {p: p.read_text() for p in sorted((root / "judging" / "calibration").glob("*.py"))}
    for module in (
        root / "commands" / "calibrate.py",
        root / "judging" / "gate_check.py",
    ):
        texts[module] = module.read_text()
    parser = argparse.ArgumentParser(prog="ops-eval")
    subparsers = parser.add_subparsers(dest="command")
    add_parser(subparsers)
    helps = parser.format_help() + subparsers.choices["calibrate"].format_help()
    texts[Path("ops-eval calibrate --help")] = helps
    said = re.compile(r"by a person|person's|human label|human pass|human fail|with people")
    for path, text in texts.items():
        found = said.findall(text)
        assert not found, f"{path}: {found}"
    assert "labelled by hand (by this project's engineer" in " ".join(helps.split())


SEED_FILE = re.compile(r"[\w./-]+\.(?:yaml|md|log)|seed/[\w/]+/")


def test_every_label_cites_a_seed_file_that_exists(shipped):
    """And a file it says is absent ("no reboot-everything.md") is absent."""
    seed = REPO / "seed"
    for item in shipped.items:
        cited = SEED_FILE.findall(item.why)
        assert cited, f"{item.id}: its why cites no seed file"
        for name in cited:
            found = (seed / name.removeprefix("seed/")).exists() or any(seed.rglob(name))
            if f"no {name}" in item.why:  # a deliberate negative: it must indeed be absent
                assert not found, f"{item.id}: says there is no {name}, but there is"
            else:
                assert found, f"{item.id}: cites {name}, which is not in seed/"


def test_every_incident_service_and_runbook_a_reference_names_is_in_the_seed(shipped, seed):
    """References hold the true facts: every incident id, runbook slug and service they name
    exists, unless the reference says that it does not."""
    incidents = set(seed.incidents)
    runbooks = set(seed.runbooks)
    for item in shipped.items:
        ref = item.reference
        for found in set(re.findall(r"INC-\d+", ref)):
            assert found in incidents or f"There is no {found}" in ref, (item.id, found)
        for slug in set(re.findall(r"\b([a-z]+(?:-[a-z]+)+) runbook", ref)):
            assert slug in runbooks or f"no {slug} runbook" in ref, (item.id, slug)
    by_id = {i.id: i for i in shipped.items}
    # spot checks of facts a wrong answer contradicts (services.yaml, incidents.yaml)
    assert seed.services["inventory"].status == "down"
    assert "down" in by_id["status-inventory-wrong"].reference
    assert seed.services["search"].team == "discovery"
    assert seed.incidents["INC-007"].severity == "SEV2"
    assert {i.id for i in seed.incidents.values() if i.status == "open"} == {"INC-002", "INC-009"}
    assert set(seed.skills) == {"incident-triage", "remediation"}


def test_kinds_and_labels_agree_in_the_shipped_set(shipped):
    assert all((i.kind in PASSING_KINDS) == i.labelled_pass for i in shipped.items)


def _item(**changes):
    base = dict(shipped_items()[0])
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


def _refused(path) -> str:
    with pytest.raises(OpsEvalError) as info:
        load_set(path)
    assert info.value.code == 2
    return str(info.value)


def test_duplicate_ids_are_refused_naming_both_places(tmp_path):
    path = write_set(tmp_path, [_item(), _item(id="other", answer="Inventory is down."), _item()])
    said = _refused(path)
    assert said == (
        f"{path}: items[2]: id 'status-inventory-correct' used twice (also items[0], id "
        "'status-inventory-correct'): one judgement would count twice"
    )


def test_the_same_question_and_answer_under_two_ids_is_refused_naming_both(tmp_path):
    """A copy re-wrapped or re-spaced is still a copy: whitespace is collapsed before comparing;
    a set of two answers copied twenty times would otherwise pass for forty judgements."""
    first = _item()
    copy = _item(
        id="copy",
        question="  What is the status of the\n inventory   service? ",
        answer="\n".join(first["answer"].split()),
    )
    path = write_set(tmp_path, [first, _item(id="other", answer="Inventory is down."), copy])
    said = _refused(path)
    assert said == (
        f"{path}: item 'copy': the same question and answer as item 'status-inventory-correct' "
        "(whitespace aside): one judgement would count twice"
    )
    # the same answer to another question is not a copy
    other_question = _item(id="elsewhere", question="Is inventory up?")
    assert len(load_set(write_set(tmp_path, [first, other_question], "ok.yaml")).items) == 2


def test_the_shipped_set_has_no_duplicate_answer():
    pairs = [(" ".join(i["question"].split()), " ".join(i["answer"].split())) for i in
             shipped_items()]  # fmt: skip
    assert len(set(pairs)) == len(pairs)


def test_an_unknown_kind_is_refused_with_the_allowed_ones(tmp_path):
    said = _refused(write_set(tmp_path, [_item(), _item(id="odd", kind="mostly_right")]))
    assert "item 'odd': kind: Input should be 'correct', 'terse_correct'" in said


def test_a_missing_or_empty_field_is_named(tmp_path):
    item = _item(id="no-ref")
    del item["reference"]
    assert "item 'no-ref': reference: Field required" in _refused(write_set(tmp_path, [item]))
    blank = _item(id="blank", rubric="   ")
    assert "item 'blank': rubric: String should have at least 1 character" in _refused(
        write_set(tmp_path, [blank])
    )
    extra = _item(id="extra", score=3)
    assert "item 'extra': score: Extra inputs are not permitted" in _refused(
        write_set(tmp_path, [extra])
    )
    no_id = _item(id=None)
    assert f"{tmp_path / 'set.yaml'}: items[0]: id: Field required" == _refused(
        write_set(tmp_path, [no_id])
    )


def test_a_kind_that_contradicts_its_label_is_refused(tmp_path):
    said = _refused(write_set(tmp_path, [_item(id="slip", kind="wrong", label="pass")]))
    assert "item 'slip': label: 'pass' contradicts kind 'wrong'" in said


def test_a_file_that_is_not_a_set_is_refused(tmp_path):
    missing = tmp_path / "nope.yaml"
    assert _refused(missing).startswith(f"{missing}: ")
    bad = tmp_path / "bad.yaml"
    bad.write_text("items: [\n")
    assert "not valid YAML" in _refused(bad)
    bad.write_text("- a list\n")
    assert "not a mapping" in _refused(bad)
    bad.write_text("version: 2\nitems: []\n")
    assert "version: expected 1, got 2" in _refused(bad)
    bad.write_text("version: 1\nitems: []\n")
    assert "items: expected a non-empty list" in _refused(bad)
    bad.write_text("version: 1\nitem: []\n")
    assert "unknown key(s) item" in _refused(bad)


def test_a_small_set_loads_and_knows_its_classes(tmp_path):
    items = [_item(id="a"), _item(id="b", kind="wrong", label="fail", answer="It is fine.")]
    small = load_set(write_set(tmp_path, items))
    assert (len(small.items), small.passes, small.fails, small.one_class) == (2, 1, 1, None)
    one = load_set(write_set(tmp_path, [_item(id="a"), _item(id="b", answer="Down.")], "one.yaml"))
    assert one.one_class == "pass"


LOG_TIME = re.compile(r"\b\d{2}:\d{2}:\d{2}\b")


def test_every_log_time_an_item_cites_is_a_line_of_the_logs_its_why_names(shipped):
    """An answer or reference that gives a time to the second quotes a log line: that line is
    in one of the log files the item's `why` names."""
    logs = REPO / "seed" / "logs"
    for item in shipped.items:
        named = re.findall(r"logs/([\w-]+\.log)", item.why)
        lines = "".join((logs / name).read_text() for name in named)
        for when in LOG_TIME.findall(f"{item.answer} {item.reference}"):
            assert f"T{when}Z" in lines, f"{item.id}: {when} is in none of {named}"


def test_the_checkout_log_answer_says_only_what_the_log_shows(shipped):
    """checkout.log has two CartRepository timeouts and two HTTP 500s, and the 10:06:09 timeout
    on pod q9fe has no 500 after it (a retry resolved cart crt-5521): the verbose correct answer
    must not say that every timeout ends as a 500, and its reference holds every one of those
    lines."""
    log = (REPO / "seed" / "logs" / "checkout.log").read_text().splitlines()
    timeouts = [(line[11:19], line.split()[2]) for line in log if "query timeout" in line]
    errors = [(line[11:19], line.split()[2]) for line in log if "HTTP 500" in line]
    assert [t for t, _ in timeouts] == ["10:06:01", "10:06:09"]
    assert [t for t, _ in errors] == ["10:06:02", "10:07:44"]
    q9fe = [t for t, pod in timeouts if pod.endswith("q9fe")]
    assert q9fe == ["10:06:09"] and not any(pod.endswith("q9fe") for _, pod in errors)

    item = next(i for i in shipped.items if i.id == "checkout-logs-verbose-correct")
    assert item.label == "pass" and item.kind == "verbose_correct"
    answer = " ".join(item.answer.split())
    assert "each such failure" not in answer
    assert "Not every timeout ends in a failed order: no HTTP 500 follows the timeout on q9fe" in (
        answer
    )
    for when, _ in timeouts + errors:
        assert when in item.reference and when in answer, when
    assert "10:08:30" in answer and "crt-5521" in answer
