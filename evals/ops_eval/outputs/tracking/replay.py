"""Playing conversations for MLflow: live on the real agent, or read back from a run record.

Live, each conversation is played by `play.play_trial` (a fresh session and state store, every
turn, approval pauses as the case says) on one event loop that lives for the whole evaluation --
as `ops-eval run` plays them -- while MLflow's worker threads wait for it. The caller's context
travels with each conversation, so ADK's OpenTelemetry spans (agent, model calls, tool calls)
nest under the MLflow trace of the row that asked for it.

ADK draws no span for an approval pause (it is an event it makes itself), so one is drawn per
paused write, under the row's trace, from the recognised `originalFunctionCall`.

From a run record, the model is not called. ADK's spans that `ops-eval run` kept beside the
record (`spans.py`) are replayed with their own names, attributes, parents and times; a record
without them gets each turn and tool call drawn as a span from what it kept (arguments, results,
the approval pause). The trace's `ops.trace_source` tag says which.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import threading
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from ...base.exits import describe
from .rows import trial_outputs

if TYPE_CHECKING:
    from ...core.calls import Turn
    from ...playing.spans import KeptSpan
    from ...results.records import TrialRecord

T = TypeVar("T")


class LoopThread:
    """One event loop on its own thread; `run` executes a coroutine there, in the caller's
    context, and waits for it. LiteLLM's async clients stay on one loop, as in a normal run.

    `close` cancels whatever still runs there (after Ctrl-C, MLflow's worker threads are still
    waiting on their conversations: each gets CancelledError and returns) and refuses new work,
    so the process can exit."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        context = contextvars.copy_context()
        done: concurrent.futures.Future[T] = concurrent.futures.Future()

        def start() -> None:
            if self._closed.is_set():
                done.cancel()
                coro.close()
                return
            task = self.loop.create_task(coro, context=context)

            def finish(t: asyncio.Task[T]) -> None:
                if t.cancelled():
                    done.cancel()
                elif t.exception() is not None:
                    done.set_exception(t.exception())  # type: ignore[arg-type]
                else:
                    done.set_result(t.result())

            task.add_done_callback(finish)

        if self._closed.is_set():
            coro.close()
            raise concurrent.futures.CancelledError("the evaluation was stopped")
        self.loop.call_soon_threadsafe(start)
        return done.result()

    def close(self) -> None:
        """Cancel every conversation still running, wait for them to unwind, stop the loop."""
        if self._closed.is_set():
            return
        self._closed.set()

        async def cancel_all() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        # Stop anyway after that: the loop's thread is a daemon.
        with contextlib.suppress(concurrent.futures.TimeoutError, RuntimeError):
            asyncio.run_coroutine_threadsafe(cancel_all(), self.loop).result(timeout=30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)
        if not self.loop.is_running():
            self.loop.close()


def _call_span(name: str, args: dict[str, Any], result: Any, span_type: str) -> None:
    import mlflow

    with mlflow.start_span(name=name, span_type=span_type) as span:
        span.set_inputs(args)
        if result is not None:
            span.set_outputs(result)


def pause_spans(turn: Turn) -> None:
    """A span per approval pause of `turn`: the write ADK held for a human (its
    `originalFunctionCall`), and whether it still waits when the turn ended."""
    from mlflow.entities import SpanType

    for call in turn.paused:
        _call_span(
            "adk_request_confirmation",
            {"turn": turn.index, "originalFunctionCall": {"name": call.name, "args": call.args}},
            {"still_waiting": call in turn.pending, "approvals_given": list(turn.answered)},
            SpanType.TOOL,
        )


def _span_type(name: str) -> str:
    """MLflow's span type for an ADK span, by the operation its name starts with."""
    from mlflow.entities import SpanType

    kinds = {
        "invoke_agent": SpanType.AGENT,
        "invoke_workflow": SpanType.CHAIN,
        "call_llm": SpanType.LLM,
        "generate_content": SpanType.LLM,
        "execute_tool": SpanType.TOOL,
    }
    return kinds.get(name.split(" ", 1)[0], SpanType.UNKNOWN)


def replay_spans(spans: list[KeptSpan]) -> None:
    """ADK's recorded spans under the current span, with their own names, attributes, parents
    and durations (a parent starts before its children, so one pass in start order finds it).
    They are moved in time to start with the row's own span, so they sit inside it on MLflow's
    timeline; every span started is ended, whatever happens."""
    import mlflow

    root = mlflow.get_current_active_span()
    shift = root.start_time_ns - min(s.start_ns for s in spans)
    live: list[tuple[Any, KeptSpan]] = []
    by_id: dict[str, Any] = {}
    try:
        for kept in sorted(spans, key=lambda s: s.start_ns):
            span = mlflow.start_span_no_context(
                name=kept.name,
                span_type=_span_type(kept.name),
                parent_span=by_id.get(kept.parent_id or "", root),
                attributes={
                    k: v for k, v in kept.attributes.items() if not k.startswith("mlflow.")
                },
                start_time_ns=kept.start_ns + shift,
            )
            by_id[kept.span_id] = span
            live.append((span, kept))
    finally:
        for span, kept in reversed(live):  # children end first
            status = "ERROR" if kept.status == "ERROR" else "OK"
            span.end(status=status, end_time_ns=kept.end_ns + shift)


def _draw_from_record(trial: TrialRecord) -> None:
    import mlflow
    from mlflow.entities import SpanType

    for turn in trial.turns:
        with mlflow.start_span(name=f"turn {turn.index}", span_type=SpanType.CHAIN) as span:
            span.set_inputs({"prompt": turn.prompt})
            span.set_attributes(
                {
                    "ops.seconds": turn.seconds,
                    "ops.model_calls": turn.model_calls if turn.model_calls is not None else -1,
                    "ops.prompt_tokens": turn.prompt_tokens,
                    "ops.output_tokens": turn.output_tokens,
                }
            )
            for call in turn.calls:
                _call_span(f"execute_tool {call.name}", call.args, call.result, SpanType.TOOL)
            pause_spans(turn)
            span.set_outputs({"response": turn.response, "texts": turn.texts})


def draw_trial(
    trial: TrialRecord, run_id: str, spans: list[KeptSpan] | None, spans_file: str
) -> dict[str, Any]:
    """A recorded conversation under the current trace -- ADK's own spans as `ops-eval run`
    kept them in `spans_file`, when it has this trial's, else spans drawn from the record's
    turns -- its `ops.trace_source` tag saying which; its outputs."""
    import mlflow

    source = f"drawn from run record {run_id}"
    if spans:
        try:
            replay_spans(spans)
            for turn in trial.turns:
                pause_spans(turn)
            source = f"ADK's spans as ops-eval run {run_id} recorded them ({spans_file})"
        except Exception as exc:  # a kept span MLflow will not take: the record still can
            source += f" (its kept spans could not be replayed: {describe(exc)})"
            _draw_from_record(trial)
    else:
        _draw_from_record(trial)
    tag = f"{source}; the model was not called again"
    mlflow.update_current_trace(tags={"ops.trace_source": tag})
    return trial_outputs(trial)
