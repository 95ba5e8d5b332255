"""snodo inside FastMCP (`fastmcp` 4.2.x on `mcp` 2.3): ``pip install snodo-mrtr[fastmcp]``.

snodo owns every MRTR decision of the FastMCP tools, prompts and resources
you register through it: it reads the retry envelope, opens and seals
``requestState`` (once: snodo's token, never wrapped by FastMCP's AES-GCM
codec), pins and validates answers, checks capabilities (-32021) and stamps
the result. FastMCP keeps the transports, the era handshake, sessions, auth,
its middleware chain (``on_call_tool`` and friends still run), argument
validation, ``Context`` injection and the lists.

FastMCP runs on ``mcp``'s low-level ``Server`` and its ``ServerRunner``, the
same kernel ``snodo_mrtr.mcp`` is built for, so this module is that adapter
(:class:`snodo_mrtr.mcp.Snodo`: the middleware, the 2025-era legacy bridge,
worker threads for sync functions, ``check_once``/``run_once``) with FastMCP's
registration and one installation step:

* **The private hook.** FastMCP 4.2 offers no public place for an SDK-level
  ``ServerMiddleware``: its ``Middleware`` chain runs *inside* the request-state
  boundary, after the boundary opened (and before it seals) the token. So
  :meth:`Snodo.install` inserts the snodo middleware into the private
  ``server._mcp_server.middleware`` list, between FastMCP's root dispatch
  (``FastMCPServerMiddleware``) and ``mcp``'s ``RequestStateBoundary``. It
  checks that list's shape first (exactly those two, in that order) and
  refuses any other with an error naming the tested versions: an upgrade that
  changes the shape fails loudly at start-up, never silently double-seals.
  The extra pins ``fastmcp>=4.2.3,<4.3``; ``tests_sdk/test_fastmcp.py`` checks
  the shape too.

Protocol errors (a rejected token with its ``data.reason``, -32021 with
``requiredCapabilities``, -32602, -32022, the once refusals) are raised from
that middleware as ``MCPError``, outside FastMCP's tool funnel: JSON-RPC
errors, never ``isError`` results.

``fastmcp`` and ``mcp`` are imported lazily, so ``import snodo_mrtr`` never needs them.
"""

from __future__ import annotations

from typing import Any, Callable, NoReturn, Optional

from . import mcp as _mcp
from .errors import ArgumentError

__all__ = ["Snodo", "TESTED", "current_call", "middleware_chain"]

#: The FastMCP minor this adapter's private hook was checked against.
TESTED = "fastmcp 4.2 (mcp 2.3)"

current_call = _mcp.current_call


def middleware_chain(server: Any) -> Any:
    """The SDK-level middleware list of a FastMCP server (private in FastMCP
    4.2: ``server._mcp_server.middleware``), after checking that it is exactly
    ``[FastMCPServerMiddleware, RequestStateBoundary]``; anything else is a
    FastMCP this adapter was not checked against, refused with ``RuntimeError``."""
    from fastmcp.server.low_level import FastMCPServerMiddleware  # type: ignore[import-not-found, unused-ignore]  # the optional extra
    from mcp.server.request_state import RequestStateBoundary  # type: ignore[import-not-found, unused-ignore]

    low = getattr(server, "_mcp_server", None)
    chain = getattr(low, "middleware", None)
    if not isinstance(chain, list):
        raise RuntimeError(f"snodo_mrtr.fastmcp: {server!r} has no _mcp_server.middleware list "
                           f"(a FastMCP server of {TESTED} is needed)")
    kinds = [type(m) for m in chain]
    if kinds != [FastMCPServerMiddleware, RequestStateBoundary]:
        names = [k.__name__ for k in kinds]
        raise RuntimeError(
            f"snodo_mrtr.fastmcp: FastMCP's SDK middleware is {names}, not "
            f"[FastMCPServerMiddleware, RequestStateBoundary] as in {TESTED}: installing snodo there "
            "could let FastMCP seal snodo's token a second time; use the FastMCP version the extra pins "
            "(or install Snodo once per server)")
    return chain


class Snodo(_mcp.Snodo):
    """snodo as the MRTR engine of a FastMCP server.

    ``principal(ctx)`` gets the SDK's ``ServerRequestContext`` (on HTTP,
    ``ctx.request`` is the Starlette request) and returns the verified user
    name, or ``None`` for the explicit anonymous principal (the default for
    every request). ``once``: the store of :meth:`run_once`/:meth:`check_once`.

    FastMCP registers its own handlers for every method, so the low-level
    ``call_tool``/``get_prompt``/``read_resource`` of ``snodo_mrtr.mcp`` are
    refused here: register components with :meth:`tool`, :meth:`prompt`,
    :meth:`resource`.
    """

    def _low_level(self, name: str) -> NoReturn:
        raise ArgumentError(f"Snodo.{name}: not on a FastMCP server (use snodo.tool/prompt/resource)")

    def call_tool(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        return self._low_level("call_tool")

    def get_prompt(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        return self._low_level("get_prompt")

    def read_resource(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        return self._low_level("read_resource")

    def install(self, server: Any) -> "Snodo":
        """Puts snodo's middleware on the FastMCP ``server``, between FastMCP's
        root dispatch and the request-state boundary (see the module's
        docstring); ``RuntimeError`` on a FastMCP whose chain has another shape."""
        chain = middleware_chain(server)
        chain.insert(1, self)
        return self

    def tool(self, server: Any, name: Optional[str] = None, **options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """``@snodo.tool(mcp)``: registers ``fn(call, **arguments) -> outcome``
        as a FastMCP tool whose MRTR decisions are snodo's. ``options`` go to
        ``FastMCP.tool`` (``description``, ``tags``, ``annotations``, ``auth``,
        ``timeout``...). A parameter annotated ``fastmcp.Context`` is injected
        by FastMCP as usual. No output schema: snodo's result is the tool's
        answer, not FastMCP's wrapped return value."""
        if options.get("task"):
            raise ArgumentError("Snodo.tool: task=True is not supported (FastMCP's task legs seal their own state)")
        if options.get("output_schema") is not None:
            raise ArgumentError("Snodo.tool: output_schema is not supported (the outcome is the result as sent)")

        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            tool_name = name or fn.__name__
            options["output_schema"] = None
            server.tool(self._wrap(fn, lambda: ""), name=tool_name, **options)
            self._claims["tools/call"].add(tool_name)
            return fn

        return register

    def prompt(self, server: Any, name: Optional[str] = None, **options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """``@snodo.prompt(mcp)``: ``fn(call, **arguments) -> outcome`` as a FastMCP prompt."""

        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            prompt_name = name or fn.__name__
            server.prompt(self._wrap(fn, lambda: ""), name=prompt_name, **options)
            self._claims["prompts/get"].add(prompt_name)
            return fn

        return register
