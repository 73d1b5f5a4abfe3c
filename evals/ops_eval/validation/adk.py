"""Conformance to ADK's own models: what passes here loads in `adk eval`.

Eval sets are parsed with ADK's `EvalSet` model and criteria files with ADK's `EvalConfig` (and
their metric names checked against ADK's prebuilt metrics, because ADK ignores an unknown one).

Importing those models costs more than a second (google.genai's types) and parsing costs about
a third of a millisecond per case, so two things keep the validator fast:
- a file whose exact bytes this ADK version already accepted is not parsed again: acceptances
  are remembered by content hash in `.cache/ops-eval/` (git-ignored; rejections never cached);
- files that do need ADK are parsed in a worker process while the validator's own rules run in
  this one (`start` ... `finish`); `ops-eval validate` starts that worker before it imports
  anything else (`prestart`), so ADK's import overlaps this process's own start-up too -- unless
  every file it will hand ADK was accepted before (a warm run), where a worker would only take
  a core from the rules until it was stopped unused.
A live run, which needs ADK's parse anyway, asks for it in process (`in_process=True`): every
file is parsed once, here, and the parsed objects are kept for the run.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from importlib.metadata import version
from pathlib import Path
from typing import Any

from opskit.textfiles import TextFileError, read_text

from .adk_parse import SchemaIssue, config_issues, issues_for, parse_evalset


class AdkCheckError(RuntimeError):
    """The ADK worker process itself failed (not a schema problem in the files)."""


CACHE_LIMIT = 1000  # most recent acceptances kept


def _cache_file() -> Path:
    from ..base.settings import current

    return current().cache_dir / f"adk-accepted-{version('google-adk')}.json"


def _load_accepted() -> dict[str, None]:
    try:
        return dict.fromkeys(json.loads(_cache_file().read_text()))
    except (OSError, ValueError):
        return {}


def _save_accepted(accepted: dict[str, None]) -> None:
    try:
        _cache_file().parent.mkdir(parents=True, exist_ok=True)
        tmp = _cache_file().with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(list(accepted)[-CACHE_LIMIT:]))
        tmp.replace(_cache_file())
    except OSError:
        pass  # a cache that cannot be written only costs speed


def _key(kind: str, text: str) -> str:
    return hashlib.sha256(f"{kind}\0{text}".encode()).hexdigest()


_EARLY: subprocess.Popen[str] | None = None  # a worker `prestart` began, not yet handed work


def _worker() -> subprocess.Popen[str]:
    """A worker that imports ADK's models at once, then parses the items it reads on stdin."""
    return subprocess.Popen(
        [sys.executable, "-m", "ops_eval.validation.adk_parse"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
    )


def prestart(candidates: Iterable[tuple[str, Path]] = ()) -> None:
    """Start the worker now, before the caller imports the validator: importing ADK's models is
    most of a cold validation, and it then runs beside this process's start-up and rules. Not
    when every one of `candidates` -- (kind, file), what the validation will hand ADK
    (`discovery.adk_candidates`) -- was accepted before; a file they leave out still gets a
    worker from `start`, a little later."""
    global _EARLY
    loaded = "google.adk.evaluation.eval_set" in sys.modules
    if _EARLY is None and not loaded and not _accepted_before(list(candidates)):
        _EARLY = _worker()


def _accepted_before(candidates: list[tuple[str, Path]]) -> bool:
    """Each file's text, read as the validator reads it, was accepted by this ADK version (no
    file, or one that cannot be read: False, and the validator says why)."""
    if not candidates:
        return False
    accepted = _load_accepted()
    try:
        return all(_key(kind, read_text(path)) in accepted for kind, path in candidates)
    except TextFileError:
        return False


def _stop(worker: subprocess.Popen[str]) -> None:
    worker.kill()
    worker.communicate()


def stop_early() -> None:
    """Stop a prestarted worker no check took (every file accepted before, or nothing read)."""
    global _EARLY
    if _EARLY is not None:
        _stop(_EARLY)
        _EARLY = None


@contextmanager
def adk_worker(paths: Iterable[str | Path]) -> Iterator[None]:
    """ADK's worker for validating `paths`, begun before the block imports the validator
    (`prestart`, when a file will need ADK) and stopped after it if no check took it."""
    from ..base.settings import current
    from .discovery import adk_candidates

    prestart(adk_candidates(paths, current().evals_dir))
    try:
        yield
    finally:
        stop_early()


def _take_early() -> subprocess.Popen[str] | None:
    global _EARLY
    early, _EARLY = _EARLY, None
    return early


class Pending:
    """ADK checks in flight for the files not yet known to be accepted."""

    def __init__(self, items: list[tuple[str, str]], *, in_process: bool = False) -> None:
        self.items = items
        self.accepted = _load_accepted()
        self.keys = [_key(kind, text) for kind, text in items]
        self.parsed: dict[int, Any] = {}  # in process: item index -> ADK's EvalSet
        self.proc: subprocess.Popen[str] | None = None
        self.done: dict[int, list[SchemaIssue]] = {}
        if in_process:
            self.todo = list(range(len(items)))
            for i, (kind, text) in enumerate(items):
                if kind == "evalset":
                    self.parsed[i], self.done[i] = parse_evalset(text)
                else:
                    self.done[i] = config_issues(text)
            return
        self.todo = [i for i, key in enumerate(self.keys) if key not in self.accepted]
        if self.todo and "google.adk.evaluation.eval_set" in sys.modules:
            # ADK is loaded already (a long-lived process): parsing here beats a new process.
            stop_early()
            self.done = {i: issues_for(*items[i]) for i in self.todo}
        elif self.todo:
            self.proc = _take_early() or _worker()
        else:
            stop_early()

    def cancel(self) -> None:
        """Stop the worker unread: the validation it was part of did not finish."""
        if self.proc is not None:
            _stop(self.proc)
            self.proc = None

    def finish(self) -> dict[int, list[SchemaIssue]]:
        """ADK issues per item index (empty list: accepted)."""
        results: dict[int, list[SchemaIssue]] = {i: [] for i in range(len(self.items))}
        if self.proc is not None:
            payload = json.dumps([self.items[i] for i in self.todo])
            # a worker that died before it read is no error here: its exit code and stderr say why
            out, err = self.proc.communicate(payload)
            if self.proc.returncode != 0:
                last = (err.strip().splitlines() or ["no output"])[-1]
                raise AdkCheckError(f"ADK schema check failed to run: {last}")
            try:
                parsed = json.loads(out)
                self.done = {
                    i: [SchemaIssue(tuple(loc), msg) for loc, msg in issues]
                    for i, issues in zip(self.todo, parsed, strict=True)
                }
            except (ValueError, TypeError) as exc:
                raise AdkCheckError(f"ADK schema check gave unreadable output ({exc})") from None
        if not self.done:
            return results
        for i, issues in self.done.items():
            results[i] = issues
            if not issues:
                self.accepted[self.keys[i]] = None
        _save_accepted(self.accepted)
        return results


def start(items: list[tuple[str, str]], *, in_process: bool = False) -> Pending:
    """Begin checking (kind, text) pairs, kind 'evalset' or 'config'; call `.finish()` later."""
    return Pending(items, in_process=in_process)
