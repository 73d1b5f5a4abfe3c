"""Fuzzing the red-team corpus reader: whatever file `--corpus` or `--benign` names -- the real
corpus mutated as data or as text, or arbitrary bytes -- the reader returns a corpus or raises
CorpusError with one line naming the file (exit 2), and nothing else."""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path

import yaml
from hypothesis import event, given
from hypothesis import strategies as st

from ops_copilot.seed.loading import default_seed
from ops_eval.redteam import (
    Attack,
    BenignLine,
    CorpusError,
    default_attacks,
    default_benign,
    load_attacks,
    load_benign,
)

REAL_ATTACKS = default_attacks().read_bytes()
REAL_BENIGN = default_benign().read_bytes()

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=40)
    | st.sampled_from(["log:cache", "INC-002", "restart_service", "mass-action", "\u2028", ""])
)
values = st.recursive(
    scalars,
    lambda kids: (
        st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=12), kids, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def mutated_data(draw, real: bytes, key: str) -> bytes:
    """The real corpus (a slice of its entries) with a few edits anywhere in its structure,
    written back as YAML or JSON."""
    data = yaml.safe_load(real)
    start = draw(st.integers(0, len(data[key]) - 1))
    data[key] = copy.deepcopy(data[key][start : start + draw(st.integers(0, 4))])
    for _ in range(draw(st.integers(1, 4))):
        node = data
        while True:
            if not isinstance(node, dict | list) or not node:
                break
            where = draw(st.sampled_from(list(node)) if isinstance(node, dict)
                         else st.integers(0, len(node) - 1))  # fmt: skip
            op = draw(st.sampled_from(["descend", "descend", "replace", "delete", "add"]))
            if op == "descend" and isinstance(node[where], dict | list) and node[where]:
                node = node[where]
                continue
            if op == "delete":
                del node[where]
            elif op == "add" and isinstance(node, dict):
                node[draw(st.text(max_size=12))] = draw(values)
            elif op == "add":
                node.insert(where, draw(values))
            else:
                node[where] = draw(values)
            break
    if draw(st.booleans()):
        return json.dumps(data, default=str).encode()
    return yaml.safe_dump(data, allow_unicode=draw(st.booleans())).encode()


@st.composite
def spliced_text(draw, real: bytes) -> bytes:
    """The real corpus with a few byte ranges replaced by arbitrary bytes."""
    text = real
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        cut = draw(st.integers(0, 40))
        text = text[:at] + draw(st.binary(max_size=12)) + text[at + cut :]
    return text


def _read(content: bytes, reader) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "corpus.yaml"
        path.write_bytes(content)
        try:
            loaded = reader(path)
        except CorpusError as exc:
            message = str(exc)
            assert message.startswith(f"{path}: ") and "\n" not in message, message
            event("rejected with CorpusError (exit 2)")
        else:
            assert isinstance(loaded, list)
            event("read as a corpus")


def _attacks(path: Path) -> list[Attack]:
    return load_attacks([path], default_seed())


def _benign(path: Path) -> list[BenignLine]:
    return load_benign(path)


@given(mutated_data(REAL_ATTACKS, "attacks") | spliced_text(REAL_ATTACKS) | st.binary())
def test_attack_corpus_reader(content):
    _read(content, _attacks)


@given(mutated_data(REAL_BENIGN, "benign") | spliced_text(REAL_BENIGN) | st.binary())
def test_benign_corpus_reader(content):
    _read(content, _benign)
