"""Outcome helpers: what a handler hands to :meth:`Engine.decide`.

Each helper returns the outcome in its JSON spelling (a plain dict), which
``decide`` also accepts directly::

    engine.decide(call, complete({"content": [{"type": "text", "text": "hi"}]}))
    engine.decide(call, {"type": "complete", "result": {...}})
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Union

from ._native import Question

__all__ = ["Outcome", "complete", "input_required", "error", "tool_error", "raw", "run_as_task"]

#: What a handler returns: an outcome in its JSON spelling (what the helpers below build).
Outcome = Dict[str, Any]


def complete(result: Mapping[str, Any]) -> Outcome:
    """A final result object; ``resultType`` is stamped ``"complete"``."""
    return {"type": "complete", "result": result}


def input_required(requests: Optional[Mapping[str, Union[Question, Mapping[str, Any]]]] = None,
                   state: Any = None) -> Outcome:
    """Ask the client for input.

    ``requests`` maps keys to questions (from :func:`elicit_form` and
    friends, built once; a request dict is made a question by the core);
    ``state`` (any JSON value, readable by the client: never a secret)
    comes back as ``call.state`` on the retry. At least one of a non-empty
    ``requests`` or a ``state`` is required.
    """
    out: Outcome = {"type": "input_required", "inputRequests": dict(requests or {})}
    if state is not None:
        out["state"] = state
    return out


def error(code: int, message: str, data: Any = None) -> Outcome:
    """A JSON-RPC error; codes MCP reserves or forbids become -32603."""
    out: Outcome = {"type": "error", "code": code, "message": message}
    if data is not None:
        out["data"] = data
    return out


def tool_error(message: str) -> Outcome:
    """A tool-level failure (``tools/call`` only): ``isError: true`` with the message as text."""
    return {"type": "tool_error", "message": message}


def raw(result: Mapping[str, Any]) -> Outcome:
    """A raw result object, checked exactly like the typed outcomes."""
    return {"type": "raw", "result": result}


def run_as_task(state: Any = None) -> Outcome:
    """The rest may run as a task (the Tasks extension; see
    :class:`snodo_mrtr.tasks.Tasks`, which hands it to
    :meth:`Engine.task_step`). On a ``tools/call`` whose client declared
    the extension the task is created and the handler runs again as the
    task, in the background; anywhere else it runs again at once, in the
    request. Either way the next run reads ``state`` as ``call.state``:
    give one, or the handler cannot tell that run from the first."""
    out: Outcome = {"type": "task"}
    if state is not None:
        out["state"] = state
    return out
