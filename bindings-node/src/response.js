// The JavaScript half of the addon, evaluated once per JavaScript
// environment (the main thread and each worker) by src/response.rs, which
// embeds this file at build time: the addon and its helper cannot disagree,
// and the package needs no extra file at run time. It gives:
//
// * makeResponse(json, httpStatus, diagnostic): a Response. `httpStatus`,
//   `json` and `diagnostic` (only when present) are own data properties.
//   `body` is a getter on a shared prototype that runs `JSON.parse(json)` on
//   first read and then replaces itself with an own data property, so
//   `r.body === r.body` and later reads are plain reads: a server that only
//   sends `json` never pays for the object (about 5 µs per call in the Node
//   benchmark). The setter keeps `r.body = x` working (a getter-only
//   accessor would throw in strict code); `toJSON` keeps `JSON.stringify(r)`
//   equal to what an eagerly built object gave.
// * makeAnswer(kind, valueJson, reason): `call.response`'s Answer, built in
//   one crossing (issue 16) rather than an object, a JSON.parse call and a
//   property set per field through N-API: `{kind}`, plus `value`
//   (JSON.parse of valueJson) and `reason` when given, in that order, as
//   the #[napi(object)] Answer was.
// * complete, inputRequired, raw: the outcome helpers most handlers call
//   every round, put on the module's exports in place of the Rust functions
//   of the same names (src/response.rs, which still give the typings). An
//   object literal here costs a few nanoseconds; a native call that builds
//   it property by property cost over a microsecond (issue 16). Same rules:
//   `type` first, then each field in order when it is neither `undefined`
//   nor `null`; extra arguments ignored; `length` 0, as the native ones.
(function () {
  'use strict';
  const own = (target, value) =>
    Object.defineProperty(target, 'body', { value, writable: true, enumerable: true, configurable: true });
  const proto = {
    get body() {
      const body = JSON.parse(this.json);
      own(this, body);
      return body;
    },
    set body(value) {
      own(this, value);
    },
    toJSON() {
      const out = { body: this.body, httpStatus: this.httpStatus };
      if (this.diagnostic !== undefined) out.diagnostic = this.diagnostic;
      out.json = this.json;
      return out;
    },
  };
  Object.defineProperty(proto, 'toJSON', { enumerable: false });
  const parse = JSON.parse;
  return {
    makeResponse(json, httpStatus, diagnostic) {
      const r = { __proto__: proto, httpStatus, json };
      if (diagnostic != null) r.diagnostic = diagnostic;
      return r;
    },
    makeAnswer(kind, valueJson, reason) {
      const a = { kind };
      if (valueJson != null) a.value = parse(valueJson);
      if (reason != null) a.reason = reason;
      return a;
    },
    complete: function complete() {
      const o = { type: 'complete' };
      if (arguments[0] != null) o.result = arguments[0];
      return o;
    },
    inputRequired: function inputRequired() {
      const o = { type: 'input_required' };
      if (arguments[0] != null) o.inputRequests = arguments[0];
      if (arguments[1] != null) o.state = arguments[1];
      return o;
    },
    raw: function raw() {
      const o = { type: 'raw' };
      if (arguments[0] != null) o.result = arguments[0];
      return o;
    },
  };
})()
