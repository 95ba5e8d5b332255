#!/usr/bin/env python3
"""Writes origin.json: the Streamable HTTP edge check of `Origin` and `Host`
against allowed lists (check_http_origin, docs/operations.md).

Inputs and hand-written checks only; the exact `expected` outputs are filled
by the Rust runner (SNODO_REGEN_VECTORS=1 cargo test -p snodo --test vectors
origin) after those checks pass, like the other vector files.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
tests = []


def case(comment, headers, refused=None, hosts=None, origins=None, flags=()):
    """refused: None (accepted), "host" (421) or "origin" (403). hosts/origins:
    the policy's lists, None for the loopback default."""
    t = {"tcId": len(tests) + 1, "comment": comment, "flags": list(flags), "op": "check_http_origin",
         "policy": None if hosts is None and origins is None else {"hosts": hosts or [], "origins": origins or []},
         "headers": [list(h) for h in headers], "result": "invalid" if refused else "valid"}
    if refused:
        t["check"] = {"#httpStatus": 421 if refused == "host" else 403, "/error/code": -32600,
                      "/error/data/reason": refused, "/id": None}
    tests.append(t)


LOOP = ("Host", "127.0.0.1:8080")
case("a plain loopback request (no Origin)", [LOOP])
case("localhost, any port, any case", [("host", "LocalHost:1")])
case("IPv6 loopback with a port", [("Host", "[::1]:8080")])
case("same-origin page on loopback", [("Host", "localhost:8080"), ("Origin", "http://localhost:8080")])
case("same-origin over https", [("Host", "127.0.0.1:8443"), ("Origin", "https://127.0.0.1:8443")])
case("a foreign Origin", [LOOP, ("Origin", "http://evil.example")], "origin", flags=["origin"])
case("Origin: null (a sandboxed page or a file)", [LOOP, ("Origin", "null")], "origin", flags=["origin"])
case("another loopback port is another origin", [("Host", "localhost:8080"), ("Origin", "http://localhost:3000")],
     "origin", flags=["origin"])
case("a non-http Origin", [LOOP, ("Origin", "file://")], "origin", flags=["origin"])
case("Origin with a path is malformed", [LOOP, ("Origin", "http://127.0.0.1:8080/x")], "origin", flags=["origin"])
case("Origin sent twice", [LOOP, ("Origin", "http://127.0.0.1:8080"), ("origin", "http://127.0.0.1:8080")],
     "origin", flags=["origin"])
case("DNS rebinding: a foreign Host and its own Origin", [("Host", "evil.example:8080"),
     ("Origin", "http://evil.example:8080")], "host", flags=["rebinding"])
case("DNS rebinding without Origin", [("Host", "evil.example:8080")], "host", flags=["rebinding"])
case("no Host at all", [], "host", flags=["host"])
case("Host sent twice", [LOOP, LOOP], "host", flags=["host"])
case("a Host that is not a host", [("Host", "local host")], "host", flags=["host"])
PROXY = {"hosts": ["mcp.example.com", "10.0.0.5:8443"], "origins": ["https://app.example.com"]}
case("behind a proxy: the public host and a listed origin", [("Host", "MCP.example.com"),
     ("Origin", "https://app.example.com")], **PROXY, flags=["proxy"])
case("behind a proxy: a listed host with its port", [("Host", "10.0.0.5:8443")], **PROXY, flags=["proxy"])
case("behind a proxy: the listed host on another port", [("Host", "10.0.0.5:8444")], "host", **PROXY,
     flags=["proxy"])
case("behind a proxy: loopback is not implied", [("Host", "localhost")], "host", **PROXY, flags=["proxy"])
case("behind a proxy: an unlisted origin", [("Host", "mcp.example.com"), ("Origin", "https://evil.example")],
     "origin", **PROXY, flags=["proxy"])
case("any host and any origin, but never null", [("Host", "x:1"), ("Origin", "null")], "origin",
     hosts=["*"], origins=["*"], flags=["proxy"])

path = os.path.join(HERE, "origin.json")
old = {}
if os.path.exists(path):
    old = {t["tcId"]: t for t in json.load(open(path, encoding="utf-8"))["tests"]}
for t in tests:  # keep the outputs the runner filled in
    prev = old.get(t["tcId"])
    if prev and prev.get("comment") == t["comment"] and "expected" in prev:
        t["expected"] = prev["expected"]
doc = {"schema": "snodo-vectors-v1",
       "description": "The Streamable HTTP edge check of Origin and Host (check_http_origin)",
       "tests": tests}
with open(path, "w", encoding="utf-8") as f:
    f.write(json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
print(f"{len(tests)} origin cases")
