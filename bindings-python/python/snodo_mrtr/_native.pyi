"""Typed stubs of the native module ``snodo_mrtr._native`` (hand-written;
``mypy.stubtest`` checks them against the built module in make test)."""

from typing import Any, Dict, Iterable, List, Literal, Mapping, Optional, Sequence, Tuple, Union, final, type_check_only

from .literals import AnswerKind

_JsonText = Union[str, bytes]
#: A JSON value as Python spells it (dict, list, str, int, float, bool, None, RawJSON, Question).
_JsonValue = Any
#: A JSON object: a dict, or JSON text of an object.
_JsonObject = Union[Dict[str, Any], str, bytes]
#: A question: a ``Question``, or a request (a dict or JSON text) the core makes one.
_QuestionLike = Union["Question", Dict[str, Any], str, bytes]
_KeyRing = Union[Sequence[Tuple[str, Union[bytes, bytearray]]], Dict[str, Union[bytes, bytearray]]]
_HeaderText = Union[str, bytes]
#: Request headers: (name, value) pairs, or a mapping / anything with ``items()``.
_Headers = Union[Iterable[Tuple[_HeaderText, _HeaderText]], Mapping[str, _HeaderText], Any]


__all__ = [
    "Engine",
    "Call",
    "Answer",
    "Response",
    "Question",
    "Opened",
    "RawJSON",
    "Session",
    "PendingFlow",
    "Feed",
    "unknown_session",
    "LEGACY_ID_PREFIX",
    "DEFAULT_LEGACY_VERSIONS",
    "elicit_form",
    "elicit_url",
    "sampling",
    "list_roots",
    "missing_capabilities",
    "filter_supported",
    "canonicalize",
    "run_cli",
    "binding_digest",
    "elicit_form_without_lint",
    "elicit_url_without_lint",
    "check_http_headers",
    "OriginPolicy",
    "check_http_origin",
    "LOOPBACK_HOSTS",
    "check_task_input_requests",
    "declares_tasks",
    "task_required_capabilities",
    "TASKS_EXTENSION",
    "TaskStep",
    "TaskCommand",
    "MemoryTaskStore",
    "TASK_CREATE_SCRIPT",
    "TASK_GET_SCRIPT",
    "TASK_ANSWER_SCRIPT",
    "TASK_CANCEL_SCRIPT",
    "TASK_PARK_SCRIPT",
    "TASK_FINISH_SCRIPT",
    "DEFAULT_TASK_TTL_MS",
    "DEFAULT_TASK_POLL_MS",
    "DEFAULT_MAX_TASKS",
    "_register_errors",
    "ERROR_CODES",
    "TOKEN_REASONS",
    "VERSION",
    "MRTR_VERSION",
    "MRTR_METHODS",
    "OnceRun",
    "OnceStep",
    "OnceCommand",
    "OnceTicket",
    "MemoryStore",
    "check_once_prefix",
    "check_once_eviction_policy",
    "_once_text",
    "_once_parse",
    "DEFAULT_ONCE_PREFIX",
    "ONCE_FLOW_KEY_PART",
    "ONCE_CLAIM_SCRIPT",
    "ONCE_COMPLETE_SCRIPT",
    "ONCE_RELEASE_SCRIPT",
    "ONCE_EXTEND_SCRIPT",
    "ONCE_LOOKUP_SCRIPT",
    "ONCE_SAFE_EVICTION_POLICY",
    "ONCE_REPLAYED_MESSAGE",
    "DEFAULT_ONCE_LEASE_SECS",
    "DEFAULT_ONCE_WAIT_SECS",
    "DEFAULT_ONCE_MAX_BYTES",
    "DEFAULT_ONCE_MAX_BYTES_PER_PRINCIPAL",
    "DEFAULT_CLOCK_SKEW_SECS",
    "DEFAULT_REDIS_TIMEOUT_MS",
]

#: ``(number, name, description)`` of every misuse error code, in the core's order.
ERROR_CODES: List[Tuple[int, str, str]]
#: Every reason a token can fail to open (``TokenError.reason``), in the core's order.
TOKEN_REASONS: List[str]
VERSION: str
MRTR_VERSION: str
MRTR_METHODS: List[str]
#: ``"io.modelcontextprotocol/tasks"``, the key under ``capabilities.extensions``.
TASKS_EXTENSION: str
#: ``"snodo-"``: every id of a request the legacy bridge sends starts with it.
LEGACY_ID_PREFIX: str
#: The 2025 revisions a default engine serves through the legacy bridge.
DEFAULT_LEGACY_VERSIONS: List[str]
#: ``["localhost", "127.0.0.1", "[::1]"]``: the hosts of the loopback ``OriginPolicy``.
LOOPBACK_HOSTS: List[str]

@final
class RawJSON:
    """Exact JSON text, usable wherever a JSON value is taken."""

    def __new__(cls, text: _JsonText) -> RawJSON: ...
    @property
    def text(self) -> str: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Engine:
    """The MRTR engine: immutable and safe to share between threads.

    Keyword arguments are the core's configuration table in snake_case
    (``ttl_secs``, ``max_rounds``, ...); ranges and error messages are the
    core's and name the keyword. ``min_token_version=2`` refuses v1 tokens
    (at most ``token_version``). ``fixed_time`` (a frozen clock) and
    ``test_random_seed`` (predictable ids and nonces) are test-only: a wheel
    built without the cargo feature ``test-knobs`` (every installed one)
    refuses them with a ``ConfigError``.
    """

    def __new__(
        cls,
        keys: _KeyRing,
        *,
        ttl_secs: Optional[int] = None,
        max_rounds: Optional[int] = None,
        max_flow_age_secs: Optional[int] = None,
        max_token_bytes: Optional[int] = None,
        max_request_bytes: Optional[int] = None,
        max_input_responses: Optional[int] = None,
        clock_skew_secs: Optional[int] = None,
        supported_versions: Optional[Sequence[str]] = None,
        server_info: Optional[Dict[str, Any]] = None,
        strict_answers: Optional[bool] = None,
        audience: Optional[str] = None,
        fixed_time: Optional[int] = None,
        legacy_versions: Optional[Sequence[str]] = None,
        token_version: Optional[int] = None,
        min_token_version: Optional[int] = None,
        test_random_seed: Optional[int] = None,
    ) -> Engine: ...
    @classmethod
    def from_env(
        cls,
        *,
        ttl_secs: Optional[int] = None,
        max_rounds: Optional[int] = None,
        max_flow_age_secs: Optional[int] = None,
        max_token_bytes: Optional[int] = None,
        max_request_bytes: Optional[int] = None,
        max_input_responses: Optional[int] = None,
        clock_skew_secs: Optional[int] = None,
        supported_versions: Optional[Sequence[str]] = None,
        server_info: Optional[Dict[str, Any]] = None,
        strict_answers: Optional[bool] = None,
        audience: Optional[str] = None,
        fixed_time: Optional[int] = None,
        legacy_versions: Optional[Sequence[str]] = None,
        token_version: Optional[int] = None,
        min_token_version: Optional[int] = None,
        test_random_seed: Optional[int] = None,
    ) -> Engine:
        """The key ring of ``SNODO_KEYS`` (``id:hex`` or ``id:base64`` entries,
        comma-separated, the first signs) and the constructor's keywords. Unset
        or blank, or a bad entry: ``ConfigError`` naming it by position and id,
        never key bytes."""
    @classmethod
    def development(cls) -> Engine:
        """One random key for the life of the process: development only."""
    def now(self) -> int:
        """The engine's clock, Unix seconds."""
    def begin(self, request: Union[_JsonText, Dict[str, Any]], principal: Optional[str]) -> Union[Call, Response]:
        """Reads a request that may be an MRTR retry: a ``Call`` for the
        handler, or a ready ``Response`` to send. ``principal`` is required:
        the verified user name, or ``None`` for the explicit anonymous one."""
    def begin_parts(
        self,
        id: Union[str, int, None],
        method: str,
        params: Union[_JsonText, Dict[str, Any], None],
        principal: Optional[str],
    ) -> Union[Call, Response]:
        """``begin`` for a request an SDK already parsed: the JSON-RPC id,
        the method and the params as received (``_meta``, ``inputResponses``
        and ``requestState`` left in; ``None`` for no params). Same checks,
        binding and token as ``begin`` on the bytes."""
    def decide(self, call: Call, outcome: _JsonObject) -> Response:
        """The response to send for the handler's outcome; once per call
        (a second decide raises ``AlreadyDecidedError``)."""
    def task_step(self, call: Call, outcome: Optional[_JsonObject] = None) -> TaskStep:
        """The task machine's step (``snodo_mrtr.tasks`` drives it): for a
        ``tasks/get``, ``tasks/update`` or ``tasks/cancel`` request (no
        ``outcome``), or for the handler's outcome on a request or on a run
        of the handler as a task (``call.task_id`` set). An outcome other
        than ``run_as_task`` on a request is decided as ``decide`` would."""
    def seal(
        self,
        *,
        principal: Optional[str],
        binding: bytes,
        round: Optional[int] = None,
        flow_start: Optional[int] = None,
        questions: Optional[Dict[str, _QuestionLike]] = None,
        state: _JsonValue = None,
    ) -> str:
        """Low level: a continuation token (round 1, flow starting now by default)."""
    def begin_legacy(
        self, request: Union[_JsonText, Dict[str, Any]], session: Session, principal: Optional[str]
    ) -> Union[Call, Response]:
        """Reads a request that arrived on a 2025-era ``session``.
        Returns the same ``Call`` a 2026 request gives (``mrtr_allowed``
        False, ``is_legacy`` True) or a ready ``Response`` (an unsupported
        session version is ``-32602``)."""
    def decide_legacy(self, call: Call, outcome: _JsonObject) -> Union[Response, PendingFlow, Call]:
        """Decides a legacy call: a ``Response`` for the originating request,
        a ``PendingFlow`` whose ``requests`` go to the client on the session,
        or a ``Call`` (a round with state only) to run the handler again."""
    def feed(self, pending: PendingFlow, response: Union[_JsonText, Dict[str, Any]], principal: Optional[str]) -> Feed:
        """Feeds one client response (a JSON-RPC result or error whose id
        ``pending.awaits``) sent by ``principal`` (required; ``None`` for the
        explicit anonymous one). Raises ``ArgumentError``/``JsonError`` for a
        response that is not of this flow, answered twice, late, malformed
        or from another principal than the flow's; the flow is then unchanged."""
    def timeout(self, pending: PendingFlow) -> Feed:
        """Call at ``pending.deadline``: fails the flow (kind ``"respond"``)."""
    def legacy_version_for(self, requested: str) -> Optional[str]:
        """The version to answer ``initialize`` with: ``requested`` when
        accepted, else the first configured; None when legacy is disabled."""
    def open(self, token: str, *, principal: Optional[str], binding: bytes) -> Opened:
        """Low level: what a token says; ``TokenError`` (with ``.reason``) if it fails."""

@final
class Call:
    @property
    def id(self) -> Union[int, str]: ...
    @property
    def method(self) -> str: ...
    @property
    def params(self) -> Dict[str, Any]: ...
    @property
    def name(self) -> Optional[str]: ...
    @property
    def uri(self) -> Optional[str]: ...
    @property
    def arguments(self) -> Optional[Any]: ...
    @property
    def principal(self) -> Optional[str]: ...
    @property
    def protocol_version(self) -> str: ...
    @property
    def mrtr_allowed(self) -> bool: ...
    @property
    def is_legacy(self) -> bool:
        """The request came through ``begin_legacy`` (a 2025-era session)."""
    @property
    def client_capabilities(self) -> Dict[str, Any]: ...
    @property
    def client_info(self) -> Optional[Dict[str, Any]]: ...
    @property
    def meta(self) -> Dict[str, Any]: ...
    @property
    def round(self) -> int: ...
    @property
    def is_retry(self) -> bool: ...
    @property
    def flow_start(self) -> int: ...
    @property
    def flow_id(self) -> Optional[str]:
        """The flow id of the opened token (the same on every round of a
        flow; 22 base64url characters); ``None`` on a first round."""
    @property
    def token_id(self) -> Optional[str]:
        """The random id of the opened token (22 base64url characters);
        ``None`` on a first round."""
    @property
    def token_expires_at(self) -> Optional[int]:
        """When the opened token expires (Unix seconds); ``None`` on a first round."""
    @property
    def answers_digest(self) -> str:
        """base64url SHA-256 of the canonical ``inputResponses`` (``{}`` when
        absent): with ``flow_id``, the key of a remembered result."""
    @property
    def state(self) -> Optional[Any]: ...
    @property
    def asked_keys(self) -> List[str]: ...
    @property
    def task_id(self) -> Optional[str]:
        """The task this run of the handler belongs to; ``None`` in a request."""
    @property
    def input_responses(self) -> Dict[str, Any]:
        """Every ``inputResponses`` entry as sent, unvalidated (read-only copy)."""
    def response(self, key: str, question: _QuestionLike) -> _AnyAnswer:
        """The answer to input request ``key``, which this handler asks as
        ``question``: an ``Answer`` of one of six kinds (see ``Answer``)."""
    def raw_response(self, key: str) -> Optional[Any]:
        """The raw answer for a key asked last round, unvalidated; ``None`` if none."""

class Answer:
    """The client's answer to one input request, of one of six kinds:
    ``missing`` (no answer to this key), ``accepted`` (``value``: the
    answer's content, valid for the question), ``declined``, ``cancelled``,
    ``invalid`` (``reason``: why it does not fit the question) and
    ``changed`` (answered, but the question differs from the one sealed).

    ``Call.response`` is typed as the union of one class per kind below, so a
    type checker narrows it: after ``if answer.is_accepted:`` or ``if
    answer.kind == "accepted":`` the ``value`` is the content, not ``None``.
    At runtime every answer is this one class."""

    @property
    def kind(self) -> AnswerKind: ...
    @property
    def value(self) -> Optional[Any]: ...
    @property
    def reason(self) -> Optional[str]: ...
    @property
    def is_missing(self) -> bool: ...
    @property
    def is_accepted(self) -> bool: ...
    @property
    def is_declined(self) -> bool: ...
    @property
    def is_cancelled(self) -> bool: ...
    @property
    def is_invalid(self) -> bool: ...
    @property
    def is_changed(self) -> bool: ...
    def to_dict(self) -> Dict[str, Any]: ...
    def __eq__(self, other: object, /) -> bool: ...

# One class per kind, for type checkers only: each pins ``kind``, the ``is_*``
# flags, ``value`` and ``reason`` of its kind.

@type_check_only
class _MissingAnswer(Answer):
    @property
    def kind(self) -> Literal["missing"]: ...
    @property
    def value(self) -> None: ...
    @property
    def reason(self) -> None: ...
    @property
    def is_missing(self) -> Literal[True]: ...
    @property
    def is_accepted(self) -> Literal[False]: ...
    @property
    def is_declined(self) -> Literal[False]: ...
    @property
    def is_cancelled(self) -> Literal[False]: ...
    @property
    def is_invalid(self) -> Literal[False]: ...
    @property
    def is_changed(self) -> Literal[False]: ...

@type_check_only
class _AcceptedAnswer(Answer):
    @property
    def kind(self) -> Literal["accepted"]: ...
    @property
    def value(self) -> Any:
        """The answer's content (a form's fields by name; a sampling or roots result)."""
    @property
    def reason(self) -> None: ...
    @property
    def is_missing(self) -> Literal[False]: ...
    @property
    def is_accepted(self) -> Literal[True]: ...
    @property
    def is_declined(self) -> Literal[False]: ...
    @property
    def is_cancelled(self) -> Literal[False]: ...
    @property
    def is_invalid(self) -> Literal[False]: ...
    @property
    def is_changed(self) -> Literal[False]: ...

@type_check_only
class _DeclinedAnswer(Answer):
    @property
    def kind(self) -> Literal["declined"]: ...
    @property
    def value(self) -> None: ...
    @property
    def reason(self) -> None: ...
    @property
    def is_missing(self) -> Literal[False]: ...
    @property
    def is_accepted(self) -> Literal[False]: ...
    @property
    def is_declined(self) -> Literal[True]: ...
    @property
    def is_cancelled(self) -> Literal[False]: ...
    @property
    def is_invalid(self) -> Literal[False]: ...
    @property
    def is_changed(self) -> Literal[False]: ...

@type_check_only
class _CancelledAnswer(Answer):
    @property
    def kind(self) -> Literal["cancelled"]: ...
    @property
    def value(self) -> None: ...
    @property
    def reason(self) -> None: ...
    @property
    def is_missing(self) -> Literal[False]: ...
    @property
    def is_accepted(self) -> Literal[False]: ...
    @property
    def is_declined(self) -> Literal[False]: ...
    @property
    def is_cancelled(self) -> Literal[True]: ...
    @property
    def is_invalid(self) -> Literal[False]: ...
    @property
    def is_changed(self) -> Literal[False]: ...

@type_check_only
class _InvalidAnswer(Answer):
    @property
    def kind(self) -> Literal["invalid"]: ...
    @property
    def value(self) -> None: ...
    @property
    def reason(self) -> str:
        """Why the answer does not fit the question."""
    @property
    def is_missing(self) -> Literal[False]: ...
    @property
    def is_accepted(self) -> Literal[False]: ...
    @property
    def is_declined(self) -> Literal[False]: ...
    @property
    def is_cancelled(self) -> Literal[False]: ...
    @property
    def is_invalid(self) -> Literal[True]: ...
    @property
    def is_changed(self) -> Literal[False]: ...

@type_check_only
class _ChangedAnswer(Answer):
    @property
    def kind(self) -> Literal["changed"]: ...
    @property
    def value(self) -> None: ...
    @property
    def reason(self) -> None: ...
    @property
    def is_missing(self) -> Literal[False]: ...
    @property
    def is_accepted(self) -> Literal[False]: ...
    @property
    def is_declined(self) -> Literal[False]: ...
    @property
    def is_cancelled(self) -> Literal[False]: ...
    @property
    def is_invalid(self) -> Literal[False]: ...
    @property
    def is_changed(self) -> Literal[True]: ...

#: What ``Call.response`` returns, as a type checker sees it: one of the six kinds.
_AnyAnswer = Union[_MissingAnswer, _AcceptedAnswer, _DeclinedAnswer, _CancelledAnswer, _InvalidAnswer, _ChangedAnswer]

@final
class Response:
    """A JSON-RPC message ready for the wire, plus its HTTP status."""

    @property
    def body(self) -> Dict[str, Any]: ...
    @property
    def http_status(self) -> int: ...
    @property
    def diagnostic(self) -> Optional[str]: ...
    @property
    def is_error(self) -> bool: ...
    def to_json(self) -> str: ...
    def to_dict(self) -> Dict[str, Any]: ...

@final
class Opened:
    """What an opened token says: the core's one shape, in snake_case."""

    @property
    def key_id(self) -> str: ...
    @property
    def issued_at(self) -> int: ...
    @property
    def expires_at(self) -> int: ...
    @property
    def flow_start(self) -> int: ...
    @property
    def round(self) -> int: ...
    @property
    def question_keys(self) -> List[str]: ...
    @property
    def state(self) -> Optional[Any]: ...
    @property
    def token_id(self) -> str: ...
    @property
    def flow_id(self) -> str: ...
    def to_dict(self) -> Dict[str, Any]:
        """``key_id``, ``issued_at``, ``expires_at``, ``flow_start``, ``round``,
        ``question_keys``, ``state``, ``token_id``, ``flow_id``."""

@final
class Session:
    """What a 2025-era session negotiated at ``initialize``: the protocol
    revision, the client's capabilities and info, the principal that opened
    it (required: the verified user of the ``initialize``, ``None`` for the
    explicit anonymous one), and an id (the ``Mcp-Session-Id``, or any
    unique string for stdio; random when omitted). Immutable. The session
    belongs to its principal: ``begin_legacy`` refuses another one's calls,
    and a server runs ``check_principal`` on every other message."""

    def __new__(
        cls,
        protocol_version: str,
        capabilities: _JsonObject,
        client_info: Optional[Dict[str, Any]] = None,
        *,
        principal: Optional[str],
        id: Optional[str] = None,
    ) -> Session: ...
    @staticmethod
    def from_initialize(
        initialize: _JsonObject, negotiated: str, *, principal: Optional[str], id: Optional[str] = None
    ) -> Session:
        """From the client's ``initialize`` request (whole message or its
        ``params``), opened by ``principal``; ``negotiated`` is
        ``Engine.legacy_version_for``'s answer."""
    def with_id(self, id: str) -> Session:
        """The same session with the transport's id (1-128 printable ASCII)."""
    @property
    def id(self) -> str: ...
    @property
    def protocol_version(self) -> str: ...
    @property
    def client_capabilities(self) -> Dict[str, Any]: ...
    @property
    def client_info(self) -> Optional[Dict[str, Any]]: ...
    @property
    def principal(self) -> Optional[str]:
        """Who opened the session (``None``: the anonymous principal)."""
    def check_principal(self, principal: Optional[str]) -> Optional[Response]:
        """``None`` when ``principal`` opened the session, else the refusal to
        send as is: HTTP 404, ``-32001`` "Session not found", as for a session
        that does not exist. Run it on every message routed to the session
        (a call, an answer, a notification, GET, DELETE) before touching it."""
    @property
    def usable_capabilities(self) -> Dict[str, Any]:
        """Declared capabilities minus what the revision lacks (what a legacy call reports)."""
    def elicitation_complete(self, elicitation_id: str) -> Dict[str, Any]:
        """The ``notifications/elicitation/complete`` to send when a URL
        elicitation's out-of-band step is done (2025-11-25 with ``elicitation.url``)."""

@final
class PendingFlow:
    """One legacy round in flight: send ``requests`` to the client, feed each
    response with ``Engine.feed``, call ``Engine.timeout`` at ``deadline``.
    Holds no secret on the wire; drop it on disconnect. Thread-safe."""

    @property
    def requests(self) -> List[Dict[str, Any]]:
        """The JSON-RPC requests to send (ids ``snodo-<flow>-<round>-<n>``)."""
    @property
    def request_ids(self) -> List[str]: ...
    def awaits(self, id: Any) -> bool:
        """Whether a response with this JSON-RPC id would be accepted now."""
    @property
    def outstanding(self) -> List[str]: ...
    @property
    def elicitation_ids(self) -> Dict[str, str]:
        """``{key: elicitationId}`` of this round's URL elicitations."""
    @property
    def deadline(self) -> int:
        """Unix seconds after which answers are refused: call ``Engine.timeout``."""
    @property
    def round(self) -> int: ...
    @property
    def flow_start(self) -> int: ...
    @property
    def id(self) -> Union[int, str]:
        """The originating request's id (the final response goes there)."""
    @property
    def method(self) -> str: ...
    @property
    def is_ended(self) -> bool: ...
    def cancel(self, reason: Optional[str] = None) -> List[Dict[str, Any]]:
        """Ends the flow (the client cancelled the originating request);
        returns the ``notifications/cancelled`` to send. No response is sent."""

@final
class Feed:
    """What ``Engine.feed``/``timeout`` produced."""

    @property
    def kind(self) -> Literal["waiting", "resume", "respond"]: ...
    @property
    def call(self) -> Optional[Call]:
        """For ``"resume"``: run the handler with it, then ``decide_legacy``."""
    @property
    def response(self) -> Optional[Response]:
        """For ``"respond"``: the final response to the originating request."""
    @property
    def cancellations(self) -> List[Dict[str, Any]]:
        """For ``"respond"``: ``notifications/cancelled`` to send, possibly none."""

def unknown_session() -> Response:
    """The answer to a message naming a session id the server does not
    know (HTTP 404, ``-32001``): the same bytes as
    ``Session.check_principal``'s refusal, so the two cannot be told apart."""

@final
class Question:
    """An input request as an immutable value: validated once, its
    canonical text and digest computed once. Build it once (at start-up)
    and pass the same one every round: to ``input_required`` to ask it and
    to ``Call.response`` to read its answer. Equal to another question with
    the same canonical form; hashable."""

    def __new__(cls, request: Union[Dict[str, Any], _JsonText]) -> Question:
        """A question from a request written by hand (a dict, or JSON text
        read exactly), validated as the builders validate theirs."""
    @property
    def value(self) -> Dict[str, Any]:
        """The request as a dict (a new one on every access)."""
    @property
    def kind(self) -> Literal["form", "url", "sampling", "roots"]: ...
    @property
    def digest(self) -> bytes:
        """SHA-256 of the canonical text: what a token pins for it."""
    def to_json(self) -> str:
        """The canonical JSON text (also compact JSON for the wire)."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

def elicit_form(message: str, schema: _JsonObject) -> Question: ...
def elicit_form_without_lint(message: str, schema: _JsonObject) -> Question:
    """``elicit_form`` without the secret-field / URL-in-message heuristics."""
def elicit_url(message: str, url: str) -> Question: ...
def elicit_url_without_lint(message: str, url: str) -> Question:
    """``elicit_url`` without the credential/PII query-parameter heuristic."""
def sampling(params: _JsonObject) -> Question: ...
def list_roots() -> Question: ...
def missing_capabilities(requests: Mapping[str, _QuestionLike], capabilities: _JsonObject) -> Dict[str, Any]: ...
def filter_supported(requests: Mapping[str, _QuestionLike], capabilities: _JsonObject) -> Dict[str, Any]:
    """The requests the client can receive, in key order: the objects given."""
def canonicalize(text: _JsonText) -> str: ...
def run_cli(args: List[str], keys: Optional[str] = None, now: Optional[int] = None) -> Tuple[str, str, int]:
    """The ``snodo-mrtr`` command line (``snodo_mrtr.cli``): ``(stdout, stderr, exit_code)``."""
def binding_digest(method: str, params: Union[_JsonText, Dict[str, Any]]) -> bytes: ...
def check_http_headers(headers: _Headers, request: Union[_JsonText, Dict[str, Any]]) -> Optional[Response]:
    """``None`` when the Streamable HTTP headers match the request, else the
    ready ``-32020`` response (HTTP 400). A repeated standard header is a
    mismatch: pass every occurrence (pairs, or ``HTTPMessage.items()``)."""
@final
class OriginPolicy:
    """Which ``Host`` and ``Origin`` values a server accepts. Immutable."""

    def __new__(cls, hosts: Optional[Sequence[str]] = None, origins: Optional[Sequence[str]] = None) -> OriginPolicy:
        """``hosts``: ``name`` (any port), ``name:port`` or ``*``; ``origins``:
        ``scheme://host[:port]`` (http or https) or ``*``. Both ``None``: the
        loopback policy (``LOOPBACK_HOSTS`` on any port, no origin but the
        request's own); one given: the other is empty. ``ConfigError`` for a
        bad entry."""

def check_http_origin(policy: OriginPolicy, headers: _Headers) -> Optional[Response]:
    """``None`` when ``Host`` and ``Origin`` pass ``policy``, else the ready
    refusal: HTTP 421 (``data.reason`` "host": missing, repeated or unlisted
    ``Host``) or 403 (``data.reason`` "origin": repeated, ``null``,
    malformed, foreign or unlisted ``Origin``), a ``-32600`` error with id
    ``null``. Run it on every request, before reading the body; pass every
    occurrence of every header."""
def check_task_input_requests(task: _JsonObject, capabilities: _JsonObject) -> Dict[str, Any]:
    """The capabilities the client must add to receive a ``tasks/get``
    result's input requests (``{}``: none); ``InputRequestError`` if malformed."""
def declares_tasks(capabilities: _JsonObject) -> bool:
    """Whether the client declared the Tasks extension (a task result may be sent)."""
def task_required_capabilities() -> Dict[str, Any]:
    """``{"extensions": {TASKS_EXTENSION: {}}}``: the ``requiredCapabilities``
    of the -32021 for a client that must declare the extension."""
def _register_errors(classes: Dict[int, Any]) -> None: ...

# The task machine (docs/tasks.md): its steps and store commands, and the
# in-memory task store; the runner is tasks.py, the Redis stores once.py.

TASK_CREATE_SCRIPT: str
TASK_GET_SCRIPT: str
TASK_ANSWER_SCRIPT: str
TASK_CANCEL_SCRIPT: str
TASK_PARK_SCRIPT: str
TASK_FINISH_SCRIPT: str
#: How long a task stays readable after its creation (``ttlMs``).
DEFAULT_TASK_TTL_MS: int
#: The ``pollIntervalMs`` a task suggests.
DEFAULT_TASK_POLL_MS: int
#: The default bound of a ``MemoryTaskStore``: live tasks at once.
DEFAULT_MAX_TASKS: int

@final
class TaskCommand:
    """One task store step: run ``script`` with ``KEYS = [key]`` and
    ``ARGV = args`` and hand the reply text to ``TaskStep.finish``."""

    @property
    def op(self) -> Literal["create", "get", "answer", "cancel", "park", "finish"]: ...
    @property
    def key(self) -> str:
        """``snodo:task:{<taskId>}``."""
    @property
    def script(self) -> str: ...
    @property
    def args(self) -> List[str]: ...

@final
class TaskStep:
    """One step of the task machine: run ``command`` (if any) on a task
    store, then ``finish`` with its reply, once."""

    @property
    def command(self) -> Optional[TaskCommand]: ...
    def finish(self, reply: Optional[str]) -> Tuple[Optional[Response], Optional[Call]]:
        """``(response, leg)``: the response to send (on a run of the handler,
        set only when its end could not be stored: log it) and the next run
        of the handler. ``reply`` is ``None`` without a command or when the
        store failed (then a -32603 and no run). A second call raises
        ``ArgumentError``; a reply snodo's scripts never give ``StoreError``."""

@final
class MemoryTaskStore:
    """The core's in-memory task store: one process, thread-safe, bounded
    (``StoreError`` when full, never an eviction), expiring at ``ttlMs``."""

    def __new__(cls, max_tasks: int = ...) -> "MemoryTaskStore": ...
    def execute(self, command: TaskCommand) -> str: ...
    def __len__(self) -> int: ...

# At most once per flow (docs/once.md): the core's once machine, its store
# commands and the in-memory store; the drivers and Redis stores are once.py.

#: ``"snodo:once:"``: the default key prefix.
DEFAULT_ONCE_PREFIX: str
#: ``"flow:"``: a flow's record is the hash ``<prefix>flow:{<flow_id>}``.
ONCE_FLOW_KEY_PART: str
#: The claim Lua script, byte for byte the core's.
ONCE_CLAIM_SCRIPT: str
#: The complete Lua script, byte for byte the core's.
ONCE_COMPLETE_SCRIPT: str
#: The release Lua script, byte for byte the core's.
ONCE_RELEASE_SCRIPT: str
#: The lease extension Lua script, byte for byte the core's.
ONCE_EXTEND_SCRIPT: str
#: The read-only lookup Lua script, byte for byte the core's.
ONCE_LOOKUP_SCRIPT: str
#: ``"noeviction"``: the only ``maxmemory-policy`` a Redis store accepts unwarned.
ONCE_SAFE_EVICTION_POLICY: str
#: The ``TokenError`` message (``.reason == "replayed"``) of a final round
#: whose flow completed with other answers.
ONCE_REPLAYED_MESSAGE: str
#: 30: seconds a won claim is held before another caller may take it over.
DEFAULT_ONCE_LEASE_SECS: int
#: 35.0: seconds ``run_once`` waits at most for another caller's claim.
DEFAULT_ONCE_WAIT_SECS: float
#: 64 MiB: the default byte budget of a ``MemoryStore``.
DEFAULT_ONCE_MAX_BYTES: int
#: 16 MiB: the default share of one principal in a ``MemoryStore``.
DEFAULT_ONCE_MAX_BYTES_PER_PRINCIPAL: int
#: 60: the engine's default clock skew, seconds.
DEFAULT_CLOCK_SKEW_SECS: int
#: 2000: the connect/read/write timeout of a Redis store built from a URL.
DEFAULT_REDIS_TIMEOUT_MS: int

@final
class OnceCommand:
    """One store step: run ``script`` with ``KEYS = [key]`` and ``ARGV = args``
    and feed the reply text to the run."""

    @property
    def op(self) -> Literal["claim", "complete", "release", "extend", "lookup"]: ...
    @property
    def key(self) -> str:
        """``<prefix>flow:{<flow_id>}``."""
    @property
    def script(self) -> str:
        """The Lua script, byte for byte the core's."""
    @property
    def args(self) -> List[str]: ...
    @property
    def owner(self) -> str:
        """The random owner id of the run (empty for a lookup)."""

@final
class OnceTicket:
    """What an effect is handed: its fencing number and the lease extension."""

    @property
    def fence(self) -> int:
        """Greater than every earlier claim's of the flow."""
    @property
    def extend_command(self) -> OnceCommand:
        """The owner-checked lease extension, to run on the store."""
    def extended(self, reply: str) -> bool:
        """Whether the extension held (``False``: the claim was taken over)."""

@final
class OnceStep:
    """What to do next; ``kind`` says which of the other fields is set."""

    @property
    def kind(self) -> Literal["command", "sleep", "effect", "done", "released", "open"]: ...
    @property
    def command(self) -> Optional[OnceCommand]:
        """``"command"``: run it on the store and ``feed`` its reply."""
    @property
    def seconds(self) -> Optional[float]:
        """``"sleep"``: pause this long, then ``resume``."""
    @property
    def ticket(self) -> Optional[OnceTicket]:
        """``"effect"``: run the effect, then ``effect_done`` / ``effect_failed``."""
    @property
    def text(self) -> Optional[str]:
        """``"done"``: the final result text."""

@final
class OnceRun:
    """One run of the once protocol for one final round (sans IO): the caller
    runs each command on its store and feeds the reply back."""

    def __new__(
        cls, call: Call, prefix: str, lease_ms: int, *, wait_secs: float = 35.0, lookup: bool = False
    ) -> "OnceRun":
        """``ArgumentError`` if ``call`` is not a retry; ``ConfigError`` for a
        bad prefix or a lease under 1 ms. ``lookup=True``: only look."""
    def start(self) -> OnceStep: ...
    def feed(self, reply: str) -> OnceStep:
        """``TokenError`` (``.reason == "replayed"``) or ``StoreError`` end the run."""
    def resume(self) -> OnceStep: ...
    def effect_done(self, text: str) -> OnceStep: ...
    def effect_failed(self) -> OnceStep: ...
    @property
    def fence(self) -> int:
        """The fencing number this run won (0 before it won)."""

@final
class MemoryStore:
    """The core's in-memory once store: one process, thread-safe, bounded in
    bytes with a share per principal (``StoreError`` rather than forgetting a
    live record), expiring."""

    def __new__(
        cls, *, max_bytes: int = ..., max_bytes_per_principal: Optional[int] = None, lease_secs: float = ...
    ) -> "MemoryStore":
        """Defaults: ``DEFAULT_ONCE_MAX_BYTES``, a quarter of ``max_bytes`` per
        principal, a lease of ``DEFAULT_ONCE_LEASE_SECS``."""
    @property
    def prefix(self) -> str: ...
    @property
    def lease_ms(self) -> int: ...
    def execute(self, command: OnceCommand, *, now_ms: Optional[int] = None) -> str:
        """Runs ``command`` as of ``now_ms`` (Unix ms; default the system clock)."""
    def __len__(self) -> int: ...
    @property
    def bytes(self) -> int:
        """The bytes the records take, as the budget counts them."""

def check_once_prefix(prefix: str) -> None:
    """``ConfigError`` unless ``prefix`` is <= 128 bytes of printable ASCII
    without spaces or braces."""
def check_once_eviction_policy(policy: str) -> None:
    """``StoreError`` unless ``policy`` is ``"noeviction"``."""
def _once_text(obj: Any) -> str:
    """The canonical JSON text a result is remembered as."""
def _once_parse(text: str) -> Any:
    """A remembered result text as Python values."""
