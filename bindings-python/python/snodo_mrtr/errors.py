"""Exceptions raised by snodo_mrtr.

Exceptions are for *misuse* only: a bad engine configuration, an invalid
builder argument, state too large to seal. Protocol outcomes that a server
sends to its client (``-32602``, ``-32021``, ...) are never exceptions: they
are :class:`~snodo_mrtr.Response` values.

Every class carries the core's stable ``code`` (int) and ``name`` (str).
Messages name the offending field and never contain key bytes or token
contents.
"""

from __future__ import annotations

from typing import ClassVar, Dict, Optional, Type

from .literals import TokenReason

from . import _native

__all__ = [
    "SnodoError",
    "ConfigError",
    "SchemaError",
    "UrlError",
    "SamplingError",
    "InputRequestError",
    "JsonError",
    "StateTooLargeError",
    "TokenError",
    "NotARequestError",
    "ArgumentError",
    "AlreadyDecidedError",
    "StoreError",
    "ERROR_CLASSES",
]


class SnodoError(Exception):
    """Base class of every snodo error."""

    code: ClassVar[int] = 0
    name: ClassVar[str] = "SNODO"  # one of ErrorName on every subclass

    @property
    def message(self) -> str:
        """The detail, naming the offending field."""
        return str(self.args[0]) if self.args else ""


class ConfigError(SnodoError, ValueError):
    """The engine configuration is invalid (keys, limits, versions)."""

    code = 1
    name = "CONFIG"


class SchemaError(SnodoError, ValueError):
    """A form-elicitation ``requestedSchema`` is outside the spec's flat subset."""

    code = 2
    name = "SCHEMA"


class UrlError(SnodoError, ValueError):
    """A URL-elicitation URL is not acceptable."""

    code = 3
    name = "URL"


class SamplingError(SnodoError, ValueError):
    """A (deprecated) sampling request is malformed."""

    code = 4
    name = "SAMPLING"


class InputRequestError(SnodoError, ValueError):
    """An input request object or key is invalid."""

    code = 5
    name = "INPUT_REQUEST"


class JsonError(SnodoError, ValueError):
    """A JSON argument is not valid JSON (or a Python value has no JSON form)."""

    code = 6
    name = "JSON"


class StateTooLargeError(SnodoError, ValueError):
    """The state to seal would exceed the configured token size."""

    code = 7
    name = "STATE_TOO_LARGE"


class TokenError(SnodoError, ValueError):
    """A continuation token failed to open (low-level ``Engine.open`` only).

    ``reason`` is one of ``TOKEN_REASONS`` (``"signature"``, ``"expired"``, ...).
    """

    code = 8
    name = "TOKEN"
    reason: Optional[TokenReason] = None


class NotARequestError(SnodoError, ValueError):
    """The message given to ``begin`` is a notification or a response: send nothing."""

    code = 9
    name = "NOT_A_REQUEST"


class ArgumentError(SnodoError, TypeError, ValueError):
    """Any other invalid argument: a wrong type or a wrong value
    (empty principal, bad outcome shape, ...)."""

    code = 10
    name = "ARGUMENT"


class AlreadyDecidedError(SnodoError, ValueError):
    """``decide`` was called a second time for the same call: one request
    gets exactly one response."""

    code = 11
    name = "ALREADY_DECIDED"


class StoreError(SnodoError, RuntimeError):
    """The once store failed (unreachable, full, an evicting Redis), or the
    flow's effect is still running elsewhere past the wait; the effect did
    not run here (fail closed)."""

    code = 12
    name = "STORE"


#: Every error class by its code number; tests check it equals the core enum.
ERROR_CLASSES: Dict[int, Type[SnodoError]] = {
    cls.code: cls
    for cls in (
        ConfigError,
        SchemaError,
        UrlError,
        SamplingError,
        InputRequestError,
        JsonError,
        StateTooLargeError,
        TokenError,
        NotARequestError,
        ArgumentError,
        AlreadyDecidedError,
        StoreError,
    )
}

_native._register_errors(ERROR_CLASSES)
