"""The seed loads and holds what was promised; a broken copy fails with one precise message."""

from __future__ import annotations

import os
import re
import signal
from contextlib import contextmanager
from pathlib import Path

import pytest

from ops_copilot.seed.loading import SeedError, load_seed
from opskit import textfiles


def test_seed_has_the_promised_shape(seed):
    assert {s: v.status for s, v in seed.services.items()} == {
        "checkout": "degraded",
        "payments": "operational",
        "auth": "operational",
        "search": "operational",
        "database": "operational",
        "cache": "operational",
        "inventory": "down",
        "api-gateway": "degraded",
    }
    assert sorted(seed.incidents) == [f"INC-{n:03d}" for n in range(1, 11)]
    assert sorted(seed.runbooks) == [
        "cascade-failure",
        "deployment-rollback",
        "disk-full",
        "elevated-errors",
        "high-latency",
        "memory-leak",
        "service-down",
    ]
    assert {"inventory", "checkout", "database", "cache"} <= set(seed.logs)
    assert sorted(seed.skills) == ["incident-triage", "remediation"]


def test_cascade_and_sev1_outage(seed):
    inc = seed.incidents
    assert (inc["INC-007"].service, inc["INC-008"].service, inc["INC-009"].service) == (
        "cache",
        "database",
        "checkout",
    )
    assert "INC-008" in inc["INC-009"].related and "INC-007" in inc["INC-008"].related
    assert (inc["INC-002"].service, inc["INC-002"].severity, inc["INC-002"].status) == (
        "inventory",
        "SEV1",
        "open",
    )
    assert inc["INC-010"].service == "api-gateway"


def test_database_log_carries_the_planted_injection(seed):
    planted = [ln for ln in seed.logs["database"].lines if "IGNORE ALL PREVIOUS" in ln]
    assert len(planted) == 1 and "without approval" in planted[0]


def _edit(path, old, new):
    text = path.read_text()
    assert old in text, f"fixture text {old!r} not in {path.name}"
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize(
    ("file", "old", "new", "message"),
    [
        (
            "incidents.yaml",
            "service: inventory\n",
            "service: warehouse\n",
            "seed/incidents.yaml: incident INC-002, field service: 'warehouse' is not a service",
        ),
        (
            "incidents.yaml",
            "runbook: service-down",
            "runbook: service-dwn",
            "seed/incidents.yaml: incident INC-002, field runbook: 'service-dwn' is not a runbook",
        ),
        (
            "incidents.yaml",
            "id: INC-003",
            "id: INC-002",
            "seed/incidents.yaml: incident INC-002, field id: duplicate id 'INC-002'",
        ),
        (
            "incidents.yaml",
            "related: [INC-008]",
            "related: [INC-099]",
            "seed/incidents.yaml: incident INC-009, field related: 'INC-099' is not another",
        ),
        (
            "incidents.yaml",
            "    severity: SEV1\n",
            "    severity: SEV0\n",
            "seed/incidents.yaml: incident INC-002, field severity: Input should be 'SEV1'",
        ),
        (
            "services.yaml",
            "depends_on: [database]\n",
            "depends_on: [databse]\n",
            "seed/services.yaml: service inventory, field depends_on: 'databse' is not another",
        ),
        (
            "services.yaml",
            "  - name: payments",
            "  - name: checkout",
            "seed/services.yaml: service checkout, field name: duplicate id 'checkout'",
        ),
        (
            "incidents.yaml",
            "    title: Cache eviction storm\n",
            "    title: Cache eviction storm\n    owner: nobody\n",
            "seed/incidents.yaml: incident INC-007, field owner: Extra inputs are not permitted",
        ),
    ],
)
def test_broken_seed_names_file_record_and_field(seed_copy, file, old, new, message):
    _edit(seed_copy / file, old, new)
    with pytest.raises(SeedError) as err:
        load_seed(seed_copy)
    assert str(err.value).startswith(message), str(err.value)
    assert "\n" not in str(err.value)


def test_unreadable_yaml_names_line_and_column(seed_copy):
    _edit(seed_copy / "services.yaml", "    status: down", "    status: [down")
    with pytest.raises(
        SeedError, match=r"^seed/services.yaml: line \d+, column \d+ not valid YAML"
    ):
        load_seed(seed_copy)


def test_log_for_unknown_service_is_rejected(seed_copy):
    (seed_copy / "logs" / "warehouse.log").write_text("2026-11-29T10:00:00Z INFO x\n")
    with pytest.raises(SeedError, match="seed/logs/warehouse.log: .*not a service"):
        load_seed(seed_copy)


def test_skill_whose_name_does_not_match_its_folder_is_rejected(seed_copy):
    _edit(seed_copy / "skills/remediation/SKILL.md", "name: remediation", "name: remedy")
    seed = load_seed(seed_copy)
    with pytest.raises(SeedError, match=r"seed/skills/remediation/SKILL.md: .*remedy"):
        _ = seed.skills


def test_digest_changes_with_any_seed_file(seed_copy):
    before = load_seed(seed_copy).digest
    _edit(seed_copy / "runbooks/disk-full.md", "85%", "80%")
    assert re.fullmatch(r"[0-9a-f]{64}", before)
    assert load_seed(seed_copy).digest != before


def _not_utf8(path):
    path.unlink()
    path.write_bytes(b"services:\n  - name: caf\xe9\n")


def _folder(path):
    path.unlink()
    path.mkdir()
    (path / "inside.txt").write_text("x")


@pytest.mark.parametrize(
    ("file", "breaker", "message"),
    [
        ("services.yaml", _not_utf8, "seed/services.yaml: not UTF-8 text (byte 0xe9 at offset 23)"),
        ("services.yaml", _folder, "seed/services.yaml: is a folder, not a file"),
        ("world.yaml", _folder, "seed/world.yaml: is a folder, not a file"),
        ("runbooks/disk-full.md", _not_utf8, "seed/runbooks/disk-full.md: not UTF-8 text"),
        ("runbooks/disk-full.md", _folder, "seed/runbooks/disk-full.md: is a folder, not a file"),
        ("logs/cache.log", _not_utf8, "seed/logs/cache.log: not UTF-8 text"),
        ("skills/remediation/SKILL.md", _not_utf8, "seed/skills/remediation/SKILL.md: not UTF-8"),
    ],
)
def test_a_seed_file_that_is_not_utf8_text_or_is_a_folder(seed_copy, file, breaker, message):
    breaker(seed_copy / file)
    with pytest.raises(SeedError) as err:
        load_seed(seed_copy)
    assert str(err.value).startswith(message), str(err.value)


@pytest.mark.parametrize("command", [["seed"], ["validate"]])
def test_every_command_that_loads_the_seed_says_so_in_one_line(
    seed_copy, monkeypatch, capsys, command
):
    from ops_eval.cli import main

    _not_utf8(seed_copy / "services.yaml")
    monkeypatch.setenv("OPS_SEED_DIR", str(seed_copy))
    assert main(command) == 2
    err = capsys.readouterr().err
    assert err == "error: seed/services.yaml: not UTF-8 text (byte 0xe9 at offset 23)\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("now: 2026-02-30\n", "seed/world.yaml: not valid YAML: day is out of range for month"),
        ("now: " + "[" * 50_000 + "]" * 50_000 + "\n", "seed/world.yaml: not valid YAML: nested"),
    ],
    ids=["date-that-does-not-exist", "nested-too-deeply"],
)
def test_yaml_that_parses_into_what_python_cannot_hold_is_one_line(seed_copy, text, message):
    """YAML's own parser accepts these; building the Python value fails. Still one line."""
    (seed_copy / "world.yaml").write_text(text)
    with pytest.raises(SeedError) as err:
        load_seed(seed_copy)
    assert str(err.value).startswith(message), str(err.value)


@pytest.mark.parametrize(
    ("now", "says"),
    [
        ("2026-13-45T99:99:99Z", "not a real date and time"),
        ("2026-02-30T10:00:00Z", "not a real date and time"),
        ("9999-12-31T23:59:59Z", "year 9999 is outside 2000..9000"),
        ("1970-01-01T00:00:00Z", "year 1970 is outside 2000..9000"),
    ],
    ids=["month-13", "feb-30", "year-9999", "year-1970"],
)
def test_a_world_clock_that_is_not_a_real_moment_is_refused_at_load(seed_copy, now, says):
    """The pattern alone let these through; the first write (or `audit verify`) then crashed in
    the store's clock. Year 9000 leaves the clock centuries of one-second ticks."""
    (seed_copy / "world.yaml").write_text(f'now: "{now}"\n')
    with pytest.raises(SeedError) as err:
        load_seed(seed_copy)
    message = str(err.value)
    assert message.startswith("seed/world.yaml: field now: "), message
    assert says in message and "\n" not in message


def test_a_timeline_time_that_does_not_exist_is_refused(seed_copy):
    _edit(seed_copy / "incidents.yaml", "2026-11-29T", "2026-11-39T")
    with pytest.raises(
        SeedError,
        match=r"^seed/incidents.yaml: incident INC-\d+, field "
        r"timeline\.0\.at: not a real date and time",
    ):
        load_seed(seed_copy)


def test_the_seed_command_refuses_an_impossible_world_clock(seed_copy, monkeypatch, capsys):
    from ops_eval.cli import main

    (seed_copy / "world.yaml").write_text('now: "2026-13-45T99:99:99Z"\n')
    assert main(["seed", "--seed-dir", str(seed_copy)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: seed/world.yaml: field now: not a real date and time")
    assert err.count("\n") == 1


def test_seed_names_still_import_from_ops_copilot_seed():
    """seed.py was split (its record models live in seed_models); every name other modules
    import from `ops_copilot.seed.loading` still comes from there."""
    from ops_copilot.seed import loading as module

    for name in (
        "ENTITY_KINDS", "EntityKind", "Incident", "IncidentStatus", "Runbook", "Seed",
        "SeedError", "Service", "ServiceStatus", "Severity", "World", "closest",
        "default_seed", "load_seed", "normalise",
    ):  # fmt: skip
        assert hasattr(module, name), name
    assert len(Path(module.__file__).read_text().splitlines()) <= 300


# -- textfiles: a path that is not a regular file, or too big, fails at once -------------------


@contextmanager
def _within(seconds: int):
    """Fail instead of hanging: a blocking open of a FIFO is interrupted by the alarm."""

    def expire(signum, frame):
        raise TimeoutError(f"still blocked after {seconds}s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _fifo(path):
    path.unlink()
    os.mkfifo(path)


def _dev_zero(path):
    path.unlink()
    path.symlink_to("/dev/zero")


@pytest.mark.parametrize("breaker", [_fifo, _dev_zero], ids=["fifo", "symlink-to-dev-zero"])
def test_a_seed_file_that_is_not_a_regular_file_fails_at_once(seed_copy, breaker):
    breaker(seed_copy / "logs" / "cache.log")
    with _within(5), pytest.raises(SeedError) as err:
        load_seed(seed_copy)
    assert str(err.value) == "seed/logs/cache.log: is not a regular file"


def test_validate_on_a_fifo_fails_at_once(tmp_path, capsys):
    from ops_eval.cli import main

    fifo = tmp_path / "cases.evalset.json"
    os.mkfifo(fifo)
    with _within(20):
        code = main(["validate", str(fifo)])
    out, err = capsys.readouterr()
    assert code == 2 and "is not a regular file" in out + err


def test_a_text_file_over_the_size_cap_is_one_line(tmp_path):
    big = tmp_path / "big.yaml"
    with big.open("wb") as f:
        f.truncate(textfiles.MAX_BYTES + 1)  # sparse: costs no disk
    with pytest.raises(textfiles.TextFileError) as err:
        textfiles.read_text(big)
    assert str(err.value) == f"larger than {textfiles.MAX_BYTES:,} bytes"
    assert err.value.kind == "too_large"
    small = tmp_path / "small.txt"
    small.write_text("x" * 11)
    with pytest.raises(textfiles.TextFileError, match="^larger than 10 bytes$"):
        textfiles.read_text(small, max_bytes=10)
    assert textfiles.read_text(small, max_bytes=11) == "x" * 11


def test_binary_text_is_refused_only_when_asked(tmp_path):
    path = tmp_path / "corpus.yaml"
    path.write_bytes(b"version: 1\x00\x01attacks: []")
    assert textfiles.read_text(path).startswith("version: 1\x00")
    with pytest.raises(textfiles.TextFileError) as err:
        textfiles.read_text(path, refuse_binary=True)
    assert str(err.value) == "binary file (a NUL byte at offset 10)"
    assert err.value.kind == "binary"


@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (lambda p: None, "missing"),
        (lambda p: p.mkdir(), "folder"),
        (lambda p: p.write_bytes(b"caf\xe9"), "not_utf8"),
    ],
)
def test_every_text_file_error_says_its_kind(tmp_path, make, kind):
    """Callers with their own wording (the red-team corpus reader) switch on `kind`."""
    path = tmp_path / "f.txt"
    make(path)
    with pytest.raises(textfiles.TextFileError) as err:
        textfiles.read_text(path)
    assert err.value.kind == kind
