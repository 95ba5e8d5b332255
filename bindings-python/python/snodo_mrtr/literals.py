"""The closed sets of words snodo uses, as ``Literal`` types for type checkers.

Each is the core's list (``snodo::Answer::kind``, ``ErrorCode::name``,
``TokenReason::name``); a test checks them against ``ERROR_CODES`` and
``TOKEN_REASONS`` at runtime so they cannot drift.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["AnswerKind", "ErrorName", "TokenReason"]

#: What ``Call.response`` found (``Answer.kind``).
AnswerKind = Literal["missing", "accepted", "declined", "cancelled", "invalid", "changed"]

#: A misuse error's ``name`` (``SnodoError.name``).
ErrorName = Literal[
    "CONFIG",
    "SCHEMA",
    "URL",
    "SAMPLING",
    "INPUT_REQUEST",
    "JSON",
    "STATE_TOO_LARGE",
    "TOKEN",
    "NOT_A_REQUEST",
    "ARGUMENT",
    "ALREADY_DECIDED",
    "STORE",
]

#: Why a token failed to open (``TokenError.reason``).
TokenReason = Literal[
    "malformed",
    "version",
    "key",
    "signature",
    "expired",
    "not_yet_valid",
    "principal",
    "request",
    "rounds",
    "flow_age",
    "size",
]
