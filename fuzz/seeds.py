#!/usr/bin/env python3
"""Writes seed corpora for every fuzz target from the committed vectors.

Usage: python3 fuzz/seeds.py OUTDIR  (creates OUTDIR/<target>/...)
"""
import hashlib
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
out = sys.argv[1]


def load(name):
    with open(os.path.join(ROOT, "tests", "vectors", name), encoding="utf-8") as f:
        return json.load(f)["tests"]


def put(target, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


tokens = []
for t in load("flows.json"):
    for s in t["steps"]:
        put("begin", s["request"])
        put("canonical", s["request"])
        body = s.get("expected", {}).get("body", {})
        state = body.get("result", {}).get("requestState") if isinstance(body, dict) else None
        if state:
            tokens.append(state)
        for a in s.get("answers", []):
            schema = a["request"].get("params", {}).get("requestedSchema")
            if schema is not None:
                put("answer", json.dumps([schema, {"action": "accept", "content": {}}]))
for t in load("tokens.json"):
    tok = t.get("token") or t.get("expected", {}).get("token")
    if tok:
        tokens.append(tok)
for tok in tokens:
    put("token_open", tok)
    put("inspect", tok)
    # v2 tokens (and v1 ones: a v2 engine opens both).
    put("token_open_v2", tok)
for t in load("builders.json"):
    if t["op"] == "elicit_form":
        put("form_schema", json.dumps(t["schema"]))
        put("answer", json.dumps([t["schema"], {"action": "accept", "content": {"s": "a@b.co"}}]))
for t in load("canonical.json"):
    if "input" in t:
        put("canonical", t["input"])
for t in load("legacy.json"):
    put("legacy", t["request"])
    for s in t["steps"]:
        if "response" in s:
            # The flow's own request id is filled in by the target.
            put("legacy", re.sub(r"\{\{leg:\d+\}\}", "{{leg}}", s["response"]))
for name in ("headers.json", "origin.json"):
    for t in load(name):
        head = "\n".join(f"{n}: {v}" for n, v in t["headers"])
        put("http_edge", head + "\n\n" + t.get("request", ""))
print("seeds written to", out)
