"""Record and replay model traffic, so a harness or scorer change can be re-checked without a model.

`RecordingLlm` wraps any ADK model and appends every request with its responses to a JSON-lines
file (`ops-eval run --record FILE`). `ReplayLlm` (`--model replay:FILE`, or OPS_AGENT_MODEL for
`ops-eval run` and for the `evals/replay_agent` that `adk eval` loads) answers from that file by
the normalised request:
system instruction, tool declarations and conversation, with the volatile parts (call ids,
thought signatures) left out. A request that was never recorded is an error that names the eval
case and turn and says what changed -- the prompt, the tools, or the history (and where).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from pydantic import PrivateAttr

from ...core.model_call import LABEL

RECORD_VERSION = 1


class ReplayMiss(RuntimeError):
    """A request the recording does not hold."""


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _part(part: Any) -> dict[str, Any] | None:
    if part.function_call:
        return {"call": part.function_call.name, "args": part.function_call.args or {}}
    if part.function_response:
        return {"result": part.function_response.name, "response": part.function_response.response}
    if part.text and not part.thought:
        return {"text": part.text}
    return None


def normalise(request: LlmRequest) -> dict[str, Any]:
    """The parts of a request that decide the answer, in a stable, comparable form."""
    config = request.config
    system = config.system_instruction if config else None
    if system is not None and not isinstance(system, str):
        system = "".join(p.text or "" for p in getattr(system, "parts", None) or [])
    tools = []
    for tool in config.tools if config and config.tools else []:
        for decl in getattr(tool, "function_declarations", None) or []:
            tools.append(decl.model_dump(mode="json", exclude_none=True))
    contents = []
    for content in request.contents or []:
        parts = [p for p in (_part(x) for x in content.parts or []) if p is not None]
        if parts:
            contents.append({"role": content.role, "parts": parts})
    return {
        "system": system or "",
        "tools": sorted(tools, key=lambda d: d.get("name", "")),
        "contents": contents,
    }


def request_key(norm: dict[str, Any]) -> str:
    return _digest(norm)


class RecordingLlm(BaseLlm):
    """Passes every call to `inner` and appends request and responses to `path` (JSON lines)."""

    inner: BaseLlm
    path: str
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @classmethod
    def to_file(cls, inner: Any, path: Path) -> RecordingLlm:
        from ...base.data_policy import refuse_text

        refuse_text("--record", "a recording holds every model request and response")
        if isinstance(inner, str):
            from google.adk.models.google_llm import Gemini

            inner = Gemini(model=inner)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"version": RECORD_VERSION, "model": inner.model}) + "\n")
        return cls(model=inner.model, inner=inner, path=str(path))

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        responses = []
        async for response in self.inner.generate_content_async(llm_request, stream=stream):
            responses.append(response)
            yield response
        norm = normalise(llm_request)
        entry = {
            "key": request_key(norm),
            "label": LABEL.get(),
            "system": _digest(norm["system"]),
            "tools": _digest(norm["tools"]),
            "contents": norm["contents"],
            "responses": [r.model_dump(mode="json", exclude_none=True) for r in responses],
        }
        line = json.dumps(entry, default=str) + "\n"
        from ...base.data_policy import refuse_text

        refuse_text("--record", "a recording holds every model request and response")
        with self._lock, open(self.path, "a", encoding="utf-8") as fh:
            fh.write(line)


class ReplayLlm(BaseLlm):
    """Answers from a recording; a miss raises ReplayMiss naming what changed."""

    model: str = "replay"
    source: str = ""
    entries: list[dict[str, Any]] = []
    # Every recording of one request, in order: repeats of a case share their first request but
    # may have been answered differently, so the n-th asking gets the n-th answer.
    _by_key: dict[str, list[dict[str, Any]]] = PrivateAttr(default_factory=dict)
    _served: dict[str, int] = PrivateAttr(default_factory=dict)

    @classmethod
    def from_file(cls, path: Path, origin: str = "OPS_AGENT_MODEL") -> ReplayLlm:
        """Load a recording; ModelConfigError, prefixed with `origin` (the setting or option
        that named the file), for anything that is not one."""
        from opskit.textfiles import TextFileError, read_text

        from ...agents.project import ModelConfigError

        where = f"{origin}: replay file {path}"
        if path.is_dir():
            raise ModelConfigError(f"{where}: is a folder, not a recording")
        try:
            lines = read_text(path).splitlines()
        except TextFileError as exc:
            raise ModelConfigError(f"{where}: {exc}") from None
        if not lines:
            raise ModelConfigError(f"{where}: empty, not a recording")
        entries = []
        for number, line in enumerate(lines, start=1):
            try:
                data = json.loads(line)
            except ValueError:
                raise ModelConfigError(f"{where}, line {number}: not JSON") from None
            except RecursionError:
                raise ModelConfigError(f"{where}, line {number}: nested too deeply") from None
            if number == 1:
                if not isinstance(data, dict) or data.get("version") != RECORD_VERSION:
                    raise ModelConfigError(f"{where}: not a version-{RECORD_VERSION} recording")
                continue
            if not (
                isinstance(data, dict)
                and isinstance(data.get("key"), str)
                and isinstance(data.get("contents"), list)
                and isinstance(data.get("responses"), list)
            ):
                raise ModelConfigError(
                    f"{where}, line {number}: an entry needs key, contents and responses"
                )
            entries.append(data)
        replay = cls(source=str(path), entries=entries)
        for entry in entries:
            replay._by_key.setdefault(entry["key"], []).append(entry)
        return replay

    def explain_miss(self, norm: dict[str, Any], label: str | None) -> str:
        where = f"case {label}" if label else "this request"
        same = [e for e in self.entries if label and e.get("label") == label] or self.entries
        if not same:
            return f"{where}: the recording {self.source} is empty"
        contents = norm["contents"]

        def shared_prefix(entry: dict[str, Any]) -> int:
            n = 0
            for a, b in zip(entry["contents"], contents, strict=False):
                if a != b:
                    break
                n += 1
            return n

        best = max(same, key=shared_prefix)
        if best["system"] != _digest(norm["system"]):
            what = "the prompt (system instruction) changed"
        elif best["tools"] != _digest(norm["tools"]):
            what = "the tools (names, parameters or descriptions) changed"
        else:
            at = shared_prefix(best)
            got = contents[at] if at < len(contents) else None
            had = best["contents"][at] if at < len(best["contents"]) else None
            what = (
                f"the history changed at message {at + 1}: recorded "
                f"{json.dumps(had, default=str)[:160]}, now {json.dumps(got, default=str)[:160]}"
            )
        if label and not any(e.get("label") == label for e in self.entries):
            what = f"nothing was recorded for it ({what} against the nearest recording)"
        return f"replay miss for {where}: {what}"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        norm = normalise(llm_request)
        key = request_key(norm)
        recorded = self._by_key.get(key)
        if not recorded:
            raise ReplayMiss(self.explain_miss(norm, LABEL.get()))
        nth = self._served.get(key, 0)
        self._served[key] = nth + 1
        entry = recorded[nth % len(recorded)]
        for data in entry["responses"]:
            yield LlmResponse.model_validate(data)
