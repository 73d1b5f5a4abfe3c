"""ADK's own OpenTelemetry spans of each trial, kept beside the run record, so that logging the
run to MLflow later (`ops-eval mlflow --from-run`) shows the agent, model-call and tool spans the
trial really made, with their timings, instead of a sketch drawn from the record.

ADK's tracer sends its spans to OpenTelemetry's global tracer provider (none by default: they
cost nothing). A run installs one SDK provider for the process, with one processor that keeps
finished spans while a `recording` is active. Each trial is played inside a `trial` span, so
every ADK span of the trial shares its trace id; `recording.trials()` groups them by trial.

The spans go to `<record>.spans.jsonl` beside the record: a header line naming the run, then
one line per trial. OpenTelemetry's SDK is part of google-adk's dependencies; MLflow is not
needed to record.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ..base.exits import first_error
from ..base.strict import Strict

SUFFIX = ".spans.jsonl"
CONTENT_SCHEMA = "ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN"
TRIAL_SPAN = "ops-eval trial"
MAX_TEXT = 20_000
"""Longest attribute text kept (a model request with the whole conversation can be large)."""

Key = tuple[str, int]


def spans_path(record_path: Path) -> Path:
    return record_path.with_name(record_path.name.removesuffix(".json") + SUFFIX)


def _value(value: Any) -> Any:
    if isinstance(value, str):
        return value if len(value) <= MAX_TEXT else value[:MAX_TEXT] + "...(cut)"
    if isinstance(value, tuple | list):
        return [_value(v) for v in value]
    return value


class Recording:
    """The finished spans of the trials played while it is active, by trace."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._spans: dict[int, list[dict[str, Any]]] = {}
        self._trials: dict[int, Key] = {}

    def keep(self, span: Any) -> None:
        context = span.context
        parent = span.parent.span_id if span.parent is not None else None
        kept = {
            "name": span.name,
            "span_id": f"{context.span_id:016x}",
            "parent_id": None if parent is None else f"{parent:016x}",
            "start_ns": span.start_time,
            "end_ns": span.end_time,
            "status": span.status.status_code.name,
            "attributes": {
                k: _value(v)
                for k, v in (span.attributes or {}).items()
                if not k.startswith("mlflow.")  # MLflow's own, when its provider is global
            },
        }
        with self._lock:
            self._spans.setdefault(context.trace_id, []).append(kept)
            if span.name == TRIAL_SPAN:
                attrs = span.attributes or {}
                self._trials[context.trace_id] = (
                    str(attrs["ops.case_id"]),
                    int(attrs["ops.repeat"]),
                )

    def trials(self) -> dict[Key, list[dict[str, Any]]]:
        """Each trial's spans, oldest first, its own `trial` span left out."""
        with self._lock:
            return {
                key: sorted(
                    (s for s in self._spans.get(trace_id, []) if s["name"] != TRIAL_SPAN),
                    key=lambda s: s["start_ns"],
                )
                for trace_id, key in self._trials.items()
            }

    def write(self, record_path: Path, run_id: str) -> Path:
        return write_spans(record_path, run_id, self.trials())


def write_spans(record_path: Path, run_id: str, trials: Mapping[Key, Sequence[Any]]) -> Path:
    """The spans file beside `record_path`: a header naming run `run_id`, then one line per
    trial (spans as kept: dicts, or `KeptSpan`s read from another file)."""
    from ..base.data_policy import refuse_text

    refuse_text("spans file", "ADK's spans hold every prompt, answer and tool argument")
    path = spans_path(record_path)
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps({"run_id": run_id, "format": 1}) + "\n")
        for (case_id, repeat), spans in sorted(trials.items()):
            kept = [s.model_dump() if isinstance(s, BaseModel) else s for s in spans]
            line = {"case_id": case_id, "repeat": repeat, "spans": kept}
            out.write(json.dumps(line, default=str) + "\n")
    return path


_PROCESSOR: list[Any] = []  # the one span processor of the process, once made
_ON: list[Any] = []  # the provider it was last added to


def _processor() -> Any:
    """The one span processor of the process: hands finished spans to the active recording."""
    if _PROCESSOR:
        return _PROCESSOR[0]
    from opentelemetry.sdk.trace import SpanProcessor

    class Processor(SpanProcessor):
        active: Recording | None = None

        def on_end(self, span: Any) -> None:
            recording = self.active
            if recording is not None:
                recording.keep(span)

    _PROCESSOR.append(Processor())
    return _PROCESSOR[0]


def rebind_adk_tracer() -> None:
    """Make ADK's tracer look up the global provider again at its next span. It is an
    OpenTelemetry ProxyTracer (ADK's modules import that one object by name), which keeps the
    first provider it finds, while MLflow replaces the global provider whenever its tracking
    URI changes. Importing ADK's tracing here, before any provider is set, keeps it a proxy:
    imported after, it would be bound to that provider for good."""
    from google.adk.telemetry import tracing

    if hasattr(tracing.tracer, "_real_tracer"):
        tracing.tracer._real_tracer = None


def _install() -> Any:
    """Our processor on the global SDK provider (made when there is none; another library's,
    MLflow's say, gets it added), and ADK's tracer pointed at that provider."""
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider

    rebind_adk_tracer()  # imports ADK's tracer while it can still be a proxy
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    processor = _processor()
    if not _ON or _ON[0] is not provider:
        provider.add_span_processor(processor)
        _ON[:] = [provider]
        rebind_adk_tracer()
    return processor


@contextlib.contextmanager
def recording() -> Iterator[Recording]:
    """Keep the spans of the trials played in the block, with their content: ADK's spans carry
    each model call's request and response and each tool's arguments and result only under
    its legacy telemetry schema (ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN=1), which the block uses
    unless the variable is set already."""
    import os

    processor = _install()
    kept = Recording()
    processor.active = kept
    had = os.environ.get(CONTENT_SCHEMA)
    os.environ.setdefault(CONTENT_SCHEMA, "1")
    try:
        yield kept
    finally:
        processor.active = None
        if had is None:
            os.environ.pop(CONTENT_SCHEMA, None)


@contextlib.contextmanager
def trial_span(case_id: str, repeat: int) -> Iterator[None]:
    """The span every ADK span of one trial nests under."""
    from opentelemetry import trace
    from opentelemetry.context import Context

    tracer = trace.get_tracer("ops_eval")
    attributes = {"ops.case_id": case_id, "ops.repeat": repeat}
    # A root of its own (an empty context): inside a caller's span, every trial would share
    # the caller's trace id and the trials could not be told apart.
    with tracer.start_as_current_span(TRIAL_SPAN, context=Context(), attributes=attributes):
        yield


class KeptSpan(Strict):
    """One span as the spans file keeps it."""

    name: str
    span_id: str
    parent_id: str | None
    start_ns: int
    end_ns: int
    status: str
    attributes: dict[str, Any]


class KeptTrial(Strict):
    case_id: str
    repeat: int
    spans: list[KeptSpan]


class SpansError(ValueError):
    """The spans file beside a record cannot be used; the message says why."""


def read_spans(path: Path, run_id: str) -> dict[Key, list[KeptSpan]]:
    """The spans kept beside run `run_id`'s record at `path`; SpansError when the file is
    missing, unreadable, malformed, or another run's."""
    from opskit.textfiles import TextFileError, read_text

    try:
        lines = read_text(path).splitlines()
    except TextFileError as exc:
        raise SpansError(f"{path}: {exc}") from None
    try:
        header = json.loads(lines[0]) if lines else {}
    except ValueError as exc:
        raise SpansError(f"{path}: line 1 is not JSON ({exc})") from None
    except RecursionError:
        raise SpansError(f"{path}: line 1 is nested too deeply") from None
    if not isinstance(header, dict) or header.get("format") != 1:
        raise SpansError(f"{path}: not a spans file of this version (line 1)")
    if header.get("run_id") != run_id:
        raise SpansError(f"{path}: the spans of run {header.get('run_id')!r}, not of {run_id}")
    found = {}
    for number, line in enumerate(lines[1:], start=2):
        try:
            trial = KeptTrial.model_validate_json(line)
        except ValidationError as exc:
            raise SpansError(f"{path}: line {number}: {first_error(exc)}") from None
        ids = [span.span_id for span in trial.spans]
        if len(set(ids)) != len(ids):
            raise SpansError(f"{path}: line {number}: a span id appears twice")
        found[(trial.case_id, trial.repeat)] = trial.spans
    return found
