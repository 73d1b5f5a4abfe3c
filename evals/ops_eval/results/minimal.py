"""What a minimal-data run keeps of a trial: the call names, a keyed one-way hash of every
argument value, prompt, reference, answer and tool result, each scorer's verdict and figures,
and labels (`base.scrub.label`) where free text was -- never the text.

Scoring happens before this, in memory, on the whole trial (`running.trials.scored_trial`);
what leaves the process is `Minimal.trial(...)`. The texts the harness wrote about the trial --
a scorer's detail, the trial's error, why it looped, why its conversation ended -- are built
from the harness's vocabulary alone (`results.vocabulary`): whatever else they quote of the
trial, cut, escaped or case-changed, becomes a `#` token of its keyed hash.

The hash is HMAC-SHA256 under a key the user holds (`OPS_EVAL_DATA_KEY`), cut to 128 bits:
equal values under one key hash alike, so two runs' answers can be compared (`compare`) without
either being readable, and a run hashed under another key compares with nothing
(`NotComparable`). No key, no minimal run.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..agents.ops_guards import strings
from ..base.exits import EXIT_BAD_INPUT, OpsEvalError
from ..base.scrub import LABEL_CHARS, label
from ..core.calls import InjectedFault, ToolCall, Turn
from ..core.trial import Approval, Conversation
from ..scorers.base import Score
from .record_parts import DataKept, ModelInfo, TrialRecord
from .vocabulary import Vocabulary

KEY_ENV = "OPS_EVAL_DATA_KEY"
MIN_KEY_CHARS = 16
PREFIX = "hmac:"
HASH = re.compile(r"^hmac:[0-9a-f]{32}$")
_STATUS = re.compile(r"^[a-z_]{1,32}$")
"""A tool result's status word (`ok`, `not_found`, `refused`): the tools' vocabulary, kept."""


class NotComparable(ValueError):
    """Two records whose hashes cannot be compared: one kept text, or their keys differ."""


class DataKey:
    """The user's secret for the run's hashes; its `key_id` names it without revealing it."""

    def __init__(self, secret: str) -> None:
        if len(secret) < MIN_KEY_CHARS:
            raise OpsEvalError(
                EXIT_BAD_INPUT,
                f"{KEY_ENV}: {len(secret)} character(s); a data key needs at least "
                f"{MIN_KEY_CHARS} (a short key makes the hashes guessable)",
            )
        self._key = secret.encode()
        self.key_id = hmac.new(self._key, b"ops-eval data key id", hashlib.sha256).hexdigest()[:16]

    def digest(self, value: Any) -> str:
        """`hmac:<32 hex>` of `value` as canonical JSON (so 1 and "1" differ)."""
        shown = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                           default=str)  # fmt: skip
        return PREFIX + hmac.new(self._key, shown.encode(), hashlib.sha256).hexdigest()[:32]


def data_key(secret: str | None) -> DataKey:
    """The run's key from `OPS_EVAL_DATA_KEY`; exit 2 when there is none."""
    if not secret:
        raise OpsEvalError(
            EXIT_BAD_INPUT,
            f"--data minimal needs a key of your own in {KEY_ENV} (at least {MIN_KEY_CHARS} "
            "characters, kept secret): the run's hashes are made with it, and compare only "
            "with runs hashed under the same key",
        )
    return DataKey(secret)


@dataclass(frozen=True)
class Minimal:
    """How a minimal-data run writes: under `key`, labels of at most `label_chars`; what the
    harness wrote about a trial, in `vocabulary`'s words (read once, as the run is set up)."""

    key: DataKey
    label_chars: int = LABEL_CHARS
    vocabulary: Vocabulary = field(default_factory=Vocabulary.of)

    def kept(self) -> DataKept:
        return DataKept(
            policy="minimal",
            hash="hmac-sha256/128",
            key_id=self.key.key_id,
            label_chars=self.label_chars,
        )

    def label(self, text: str, said: Sequence[str] = ()) -> str:
        """`text` as a label: each of the trial's own values in it (`said`, longest first)
        replaced by `#` and the first 8 hex digits of its hash, then scrubbed and clamped."""
        for value in said:
            text = text.replace(value, self._token(value))
        return label(text, self.label_chars)

    def about(self, text: str, said: Sequence[str], heard: Sequence[str] = ()) -> str:
        """What the harness wrote about the trial, as a label: the trial's values (`said`)
        replaced whole by their `#` tokens, then every run outside the vocabulary by its own
        (the numbers of `said` and of the tool results, `heard`, are values, not counts)."""
        for value in said:
            if not self.vocabulary.builds(value):  # `open`, `inventory`: nothing to hide
                text = text.replace(value, self._token(value))
        hashed = lambda run: self._token(run)[1:]  # noqa: E731
        kept = " ".join(self.vocabulary.kept(text, hashed, [*said, *heard]).split())
        if len(kept) > self.label_chars:  # cut between words: half a word is no word of ours
            cut = kept[: self.label_chars - 1]
            if kept[len(cut)].isalnum():
                cut = re.sub(r"#?[^\W_]+$", "", cut)
            kept = cut.rstrip() + "…"
        return self.label(kept)

    def _token(self, value: str) -> str:
        return "#" + self.key.digest(value)[len(PREFIX) :][:8]

    def _about_or_none(self, text: str | None, said: Sequence[str], heard: Sequence[str]):
        return None if text is None else self.about(text, said, heard)

    def _hash(self, text: str) -> str:
        return self.key.digest(text) if text else ""

    def call(self, call: ToolCall) -> ToolCall:
        result = None
        if call.result is not None:
            status = call.result.get("status")
            result = {"hmac": self.key.digest(call.result)}
            if isinstance(status, str) and _STATUS.match(status):
                result["status"] = status
        args = {name: self.key.digest(value) for name, value in call.args.items()}
        return ToolCall(call.name, args, None, result)

    def _calls(self, calls: list[ToolCall]) -> list[ToolCall]:
        return [self.call(c) for c in calls]

    def turn(self, turn: Turn) -> Turn:
        faults = [
            InjectedFault(
                tool=f.tool,
                kind=self.label(f.kind),
                when=self.label(f.when),
                args={k: self.key.digest(v) for k, v in f.args.items()},
            )
            for f in turn.faults
        ]
        return turn.model_copy(
            update={
                "prompt": self._hash(turn.prompt),
                "reference": self._hash(turn.reference),
                "expected": self._calls(turn.expected),
                "calls": self._calls(turn.calls),
                "paused": self._calls(turn.paused),
                "pending": self._calls(turn.pending),
                "answered": [self.label(a) for a in turn.answered],
                "response": self._hash(turn.response),
                "texts": [self._hash(t) for t in turn.texts],
                "faults": faults,
                "servers": None if turn.servers is None else [self.label(s) for s in turn.servers],
            }
        )

    def score(self, score: Score, said: Sequence[str] = (), heard: Sequence[str] = ()) -> Score:
        """The verdict and figures as they are; the detail as its label, and its hash."""
        return score.model_copy(
            update={
                "detail": self.about(score.detail, said, heard),
                "detail_hmac": self.key.digest(score.detail) if score.detail else None,
            }
        )

    def _conversation(
        self, c: Conversation | None, said: Sequence[str], heard: Sequence[str]
    ) -> Conversation | None:
        if c is None:
            return None
        approvals = [
            Approval(
                turn=a.turn,
                tool=a.tool,
                args={k: self.key.digest(v) for k, v in a.args.items()},
                decision=a.decision,
                rationale=None if a.rationale is None else self._hash(a.rationale),
                approver=None if a.approver is None else self._hash(a.approver),
            )
            for a in c.approvals
        ]
        return c.model_copy(
            update={
                "user": self.label(c.user),
                "reason": self.about(c.reason, said, heard),
                "approvals": approvals,
            }
        )

    def trial(self, trial: TrialRecord) -> TrialRecord:
        """`trial` as a minimal-data run writes it: verdicts, names and figures as they are,
        every text hashed or labelled -- and a label never quotes what the trial said."""
        said, heard = said_in(trial), results_in(trial)
        return trial.model_copy(
            update={
                "error": self._about_or_none(trial.error, said, heard),
                "looped": self._about_or_none(trial.looped, said, heard),
                "turns": [self.turn(t) for t in trial.turns],
                "scores": {name: self.score(s, said, heard) for name, s in trial.scores.items()},
                "state_after": (
                    {"hmac": self.key.digest(trial.state_after)} if trial.state_after else {}
                ),
                "conversation": self._conversation(trial.conversation, said, heard),
            }
        )

    def model(self, info: ModelInfo) -> ModelInfo:
        """The model's description: its name, source and reason as labels (an endpoint may
        carry credentials)."""
        return ModelInfo(
            name=self.label(info.name),
            source=self.label(info.source),
            reason=self.label(info.reason),
            caveat=None if info.caveat is None else self.label(info.caveat),
            endpoint=None if info.endpoint is None else self.label(info.endpoint),
        )


@dataclass(frozen=True)
class Comparison:
    """Answers and call arguments of two minimal runs, turn by turn, compared by hash."""

    answers_equal: int
    answers_differ: int
    args_equal: int
    args_differ: int
    details_equal: int
    """Scorer details (by their hashes) of the trials both runs played, said alike."""
    details_differ: int
    unmatched: int
    """Turns one run played and the other did not, and calls to another tool at that place."""

    def line(self) -> str:
        """The counts, as `ops-eval compare-hashes` says them after the runs' ids."""
        return (
            f"answers {self.answers_equal} equal, {self.answers_differ} different; argument "
            f"values {self.args_equal} equal, {self.args_differ} different; scorer details "
            f"{self.details_equal} equal, {self.details_differ} different; {self.unmatched} "
            "turn(s) or call(s) without a counterpart"
        )


MIN_SAID = 3
"""Shorter values are not looked for in a label (`a`, `20`: they would replace the label's own
words); a value of the trial that short tells nothing."""


def said_in(trial: TrialRecord) -> list[str]:
    """What the trial's conversation said -- the user's prompts, the agent's answers and texts,
    every call's arguments, the approvals' rationale and approver -- longest first: what a
    scorer's detail may quote, and a label may not. (Tool results are the seed's words, such as
    `open` or `down`: masked whole they would mask the harness's own; what a detail quotes of
    them outside the vocabulary is hashed by it, and their numbers are values, `results_in`.)"""
    found: set[str] = set()
    for turn in trial.turns:
        found.update((turn.prompt, turn.reference, turn.response, *turn.texts))
        for call in (*turn.expected, *turn.calls, *turn.paused, *turn.pending):
            found.update(strings(call.args))
    if trial.conversation is not None:
        for approval in trial.conversation.approvals:
            found.update(strings(approval.args))
            found.update(s for s in (approval.rationale, approval.approver) if s)
    return sorted((s for s in found if len(s) >= MIN_SAID), key=lambda s: (-len(s), s))


def results_in(trial: TrialRecord) -> list[str]:
    """Every string of every tool result the trial's calls returned."""
    calls = [c for t in trial.turns for c in (*t.calls, *t.paused, *t.pending)]
    return [s for c in calls if c.result is not None for s in strings(c.result)]


def incomparable(a: Any, b: Any) -> str | None:
    """Why two records' calls and answers cannot be compared value by value -- one kept text and
    the other hashes, or their hashes are under different keys -- or None when they can."""
    if a.data is None and b.data is None:
        return None
    if a.data is None or b.data is None:
        full = a if a.data is None else b
        return f"run {full.run_id} kept text and the other keyed hashes"
    if a.data.key_id != b.data.key_id:
        return (
            f"runs {a.run_id} and {b.run_id} were hashed under different keys (key ids "
            f"{a.data.key_id} and {b.data.key_id}): no hash of one compares with the other's"
        )
    return None


def compare(a: Any, b: Any) -> Comparison:
    """Compare two minimal records' hashes trial by trial (same case and repeat). Different
    keys, or a record that kept text, compare nothing: `NotComparable`, saying why."""
    for record in (a, b):
        if record.data is None:
            raise NotComparable(f"run {record.run_id} kept text, not hashes (not --data minimal)")
    why = incomparable(a, b)
    if why is not None:
        raise NotComparable(why)
    theirs = {(t.case_id, t.repeat): t for t in b.trials}
    counts = dict.fromkeys(
        ("answers_equal", "answers_differ", "args_equal", "args_differ", "details_equal",
         "details_differ", "unmatched"), 0,
    )  # fmt: skip
    for mine in a.trials:
        other = theirs.get((mine.case_id, mine.repeat))
        peers = other.turns if other else []
        for name, score in mine.scores.items() if other else ():
            peer = other.scores.get(name) if other else None
            if peer is not None and (score.detail_hmac or peer.detail_hmac):
                same = score.detail_hmac == peer.detail_hmac
                counts["details_equal" if same else "details_differ"] += 1
        counts["unmatched"] += abs(len(mine.turns) - len(peers))
        for turn, peer in zip(mine.turns, peers, strict=False):
            counts["answers_equal" if turn.response == peer.response else "answers_differ"] += 1
            counts["unmatched"] += abs(len(turn.calls) - len(peer.calls))
            for c, d in zip(turn.calls, peer.calls, strict=False):
                if c.name != d.name:
                    counts["unmatched"] += 1
                    continue
                for arg, value in c.args.items():
                    counts["args_equal" if d.args.get(arg) == value else "args_differ"] += 1
    return Comparison(**counts)


def refuse_minimal(record: Any, where: str, needs: str) -> None:
    """Exit 2 when `record` kept hashes only: the command `needs` text (`needs` says for what)."""
    if record.data is not None:
        raise OpsEvalError(
            EXIT_BAD_INPUT,
            f"{where}: run {record.run_id} is a minimal-data run (it kept keyed hashes and "
            f"labels, no text), and {needs}",
        )
