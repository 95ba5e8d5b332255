"""snodo_mrtr: MCP multi round-trip requests (MRTR, protocol 2026-07-28) for
Python servers, on the snodo Rust core.

The flow of a handler::

    engine = Engine([("k1", secret_bytes)])
    ask_color = elicit_form("Which colour?", schema)   # a Question: built once, asked every round
    begun = engine.begin(request_bytes, "alice")   # None: explicit anonymous
    if isinstance(begun, Response):          # a ready error: send it
        send(begun.http_status, begun.to_json())
    else:
        call = begun
        answer = call.response("color", ask_color)
        if answer.is_accepted:
            outcome = complete({"content": [{"type": "text", "text": answer.value["color"]}]})
        elif answer.is_declined or answer.is_cancelled:   # the user said no: end the flow
            outcome = tool_error("No colour chosen")
        else:
            outcome = input_required({"color": ask_color})
        response = engine.decide(call, outcome)
        send(response.http_status, response.to_json())

JSON given as ``str``/``bytes`` is read exactly (``1.0`` stays ``1.0``).
JSON given as Python values is spelled as :func:`json.dumps` would spell it
(``int`` exactly, ``float`` by its shortest ``repr``); wrap text in
:class:`RawJSON` to embed an exact spelling inside a dict. A
:class:`Question` inside a value is its request.
"""

from __future__ import annotations

from ._native import (
    DEFAULT_LEGACY_VERSIONS,
    ERROR_CODES,
    LEGACY_ID_PREFIX,
    LOOPBACK_HOSTS,
    MRTR_METHODS,
    MRTR_VERSION,
    TASKS_EXTENSION,
    TOKEN_REASONS,
    VERSION,
    Answer,
    Call,
    Engine,
    Feed,
    Opened,
    OriginPolicy,
    PendingFlow,
    Question,
    RawJSON,
    Response,
    Session,
    binding_digest,
    canonicalize,
    check_http_headers,
    check_http_origin,
    check_task_input_requests,
    declares_tasks,
    task_required_capabilities,
    elicit_form,
    elicit_form_without_lint,
    elicit_url,
    elicit_url_without_lint,
    filter_supported,
    list_roots,
    missing_capabilities,
    sampling,
    unknown_session,
)
from .errors import (
    ERROR_CLASSES,
    ArgumentError,
    AlreadyDecidedError,
    ConfigError,
    InputRequestError,
    JsonError,
    NotARequestError,
    SamplingError,
    SchemaError,
    SnodoError,
    StateTooLargeError,
    StoreError,
    TokenError,
    UrlError,
)
from .outcomes import Outcome, complete, error, input_required, raw, run_as_task, tool_error
from ._native import (
    DEFAULT_CLOCK_SKEW_SECS,
    DEFAULT_ONCE_LEASE_SECS,
    DEFAULT_ONCE_MAX_BYTES,
    DEFAULT_ONCE_MAX_BYTES_PER_PRINCIPAL,
    DEFAULT_ONCE_PREFIX,
    DEFAULT_ONCE_WAIT_SECS,
    DEFAULT_REDIS_TIMEOUT_MS,
    ONCE_CLAIM_SCRIPT,
    ONCE_COMPLETE_SCRIPT,
    ONCE_EXTEND_SCRIPT,
    ONCE_FLOW_KEY_PART,
    ONCE_LOOKUP_SCRIPT,
    ONCE_RELEASE_SCRIPT,
    ONCE_REPLAYED_MESSAGE,
    ONCE_SAFE_EVICTION_POLICY,
    MemoryStore,
    OnceCommand,
    OnceRun,
    OnceStep,
    OnceTicket,
    check_once_eviction_policy,
    check_once_prefix,
)
from .once import (
    AsyncOnceLease,
    AsyncRedisStore,
    OnceLease,
    RedisStore,
    check_once,
    check_once_async,
    run_once,
    run_once_async,
)
from ._native import (
    DEFAULT_MAX_TASKS,
    DEFAULT_TASK_POLL_MS,
    DEFAULT_TASK_TTL_MS,
    TASK_ANSWER_SCRIPT,
    TASK_CANCEL_SCRIPT,
    TASK_CREATE_SCRIPT,
    TASK_FINISH_SCRIPT,
    TASK_GET_SCRIPT,
    TASK_PARK_SCRIPT,
    MemoryTaskStore,
    TaskCommand,
    TaskStep,
)
from .tasks import Tasks
from .literals import AnswerKind, ErrorName, TokenReason

__version__ = VERSION

__all__ = [
    "DEFAULT_CLOCK_SKEW_SECS",
    "DEFAULT_ONCE_LEASE_SECS",
    "DEFAULT_ONCE_MAX_BYTES",
    "DEFAULT_ONCE_MAX_BYTES_PER_PRINCIPAL",
    "DEFAULT_ONCE_PREFIX",
    "DEFAULT_ONCE_WAIT_SECS",
    "DEFAULT_REDIS_TIMEOUT_MS",
    "ONCE_CLAIM_SCRIPT",
    "ONCE_COMPLETE_SCRIPT",
    "ONCE_EXTEND_SCRIPT",
    "ONCE_FLOW_KEY_PART",
    "ONCE_LOOKUP_SCRIPT",
    "ONCE_RELEASE_SCRIPT",
    "ONCE_REPLAYED_MESSAGE",
    "ONCE_SAFE_EVICTION_POLICY",
    "AsyncOnceLease",
    "AsyncRedisStore",
    "MemoryStore",
    "OnceCommand",
    "OnceLease",
    "OnceRun",
    "OnceStep",
    "OnceTicket",
    "RedisStore",
    "check_once",
    "check_once_async",
    "check_once_eviction_policy",
    "check_once_prefix",
    "run_once",
    "run_once_async",
    "DEFAULT_MAX_TASKS",
    "DEFAULT_TASK_POLL_MS",
    "DEFAULT_TASK_TTL_MS",
    "TASK_ANSWER_SCRIPT",
    "TASK_CANCEL_SCRIPT",
    "TASK_CREATE_SCRIPT",
    "TASK_FINISH_SCRIPT",
    "TASK_GET_SCRIPT",
    "TASK_PARK_SCRIPT",
    "MemoryTaskStore",
    "TaskCommand",
    "TaskStep",
    "Tasks",
    "run_as_task",
    "task_required_capabilities",
    "ERROR_CLASSES",
    "ERROR_CODES",
    "DEFAULT_LEGACY_VERSIONS",
    "LEGACY_ID_PREFIX",
    "LOOPBACK_HOSTS",
    "AnswerKind",
    "ErrorName",
    "TokenReason",
    "MRTR_METHODS",
    "MRTR_VERSION",
    "TASKS_EXTENSION",
    "TOKEN_REASONS",
    "VERSION",
    "Answer",
    "ArgumentError",
    "AlreadyDecidedError",
    "StoreError",
    "Call",
    "ConfigError",
    "Engine",
    "Feed",
    "InputRequestError",
    "JsonError",
    "NotARequestError",
    "Opened",
    "OriginPolicy",
    "Outcome",
    "PendingFlow",
    "Question",
    "RawJSON",
    "Response",
    "Session",
    "SamplingError",
    "SchemaError",
    "SnodoError",
    "StateTooLargeError",
    "TokenError",
    "UrlError",
    "binding_digest",
    "canonicalize",
    "check_http_headers",
    "check_http_origin",
    "check_task_input_requests",
    "declares_tasks",
    "complete",
    "elicit_form",
    "elicit_form_without_lint",
    "elicit_url",
    "elicit_url_without_lint",
    "error",
    "filter_supported",
    "input_required",
    "list_roots",
    "missing_capabilities",
    "raw",
    "sampling",
    "tool_error",
    "unknown_session",
]

