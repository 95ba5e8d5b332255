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
// * install(Engine, Call, kinds, natives): puts `begin`, `decide` and
//   `decideLegacy` on Engine.prototype and `response` on Call.prototype in
//   place of the native methods (issue 16, seventh pass), and makes the
//   Call that `begin` gives a JS object over the core's call (eighth
//   pass), see `install` below. It returns the constructors that replace
//   the native classes taking a Call (`OnceRun`) on the exports.
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
  // Responses are made with `new`, not as `{ __proto__: proto, ... }`: V8
  // gives an object literal its prototype with a runtime call (about 50 ns
  // a response, against 6 ns for a constructor; issue 16, eighth pass).
  // Same object: the same prototype (which has no `constructor`, so
  // util.inspect prints a plain object) and the same own properties, in
  // the same order.
  function Made(json, httpStatus) {
    this.httpStatus = httpStatus;
    this.json = json;
  }
  Made.prototype = proto;
  const parse = JSON.parse;
  return {
    makeResponse(json, httpStatus, diagnostic) {
      const r = new Made(json, httpStatus);
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
    // `engine.decide` and `call.response` turn a JS value into JSON text
    // with `JSON.stringify` and build their result with a factory above.
    // Done from Rust, each of those was a call from native code back into
    // JS (`napi_call_function`: a handle scope, a try/catch and a JS entry
    // frame, about half a microsecond each); done here, they are plain
    // calls the JIT sees. The native halves return the commonest results
    // as a bare string or number:
    //
    // * natives.decideWith(handle, call, text): the response's JSON text
    //   when it is a 200 with no diagnostic, else the whole Response (made
    //   in Rust, as before);
    // * Call#responseText(key, text): the accepted value's JSON text, the
    //   index of a kind with no payload in `kinds`, or the whole Answer
    //   (made in Rust, as before) for `invalid`;
    // * natives.decideExt(handle, call, outcome) and
    //   natives.callResponseText(call, key, text): the same for the Call
    //   that `begin` makes (`call` is its External; below), through the
    //   plain N-API callbacks of src/raw_entry.rs.
    //
    // `begin` and `decide` reach the engine through its `handle` (an
    // External, fetched once per engine and kept in a WeakMap), not as a
    // method's receiver: napi-rs records a borrow of every receiver, about
    // 230 ns a call (src/engine.rs). `responseText` is taken off the
    // prototype and the natives off the exports, so only the JS methods are
    // visible.
    //
    // Same results and the same errors, in the same order, as the native
    // methods: anything but an object or a string (a Buffer, `undefined`,
    // a BigInt ...), a receiver or call that is not what it claims, or a
    // value `JSON.stringify` cannot write goes to the native method itself,
    // which checks its arguments first and words every error. (The one
    // visible difference: for a `call` that passes `instanceof` but is not
    // a real Call, the outcome's `toJSON`, if any, runs before the error.)
    install(Engine, Call, kinds, natives) {
      const engineProto = Engine.prototype;
      const callProto = Call.prototype;
      const nativeBegin = engineProto.begin;
      const nativeDecide = engineProto.decide;
      const handle = natives.engineHandle;
      const nativeResponse = callProto.response;
      const responseText = callProto.responseText;
      const beginWith = natives.beginWith;
      const decideWith = natives.decideWith;
      delete callProto.responseText;
      const handles = new WeakMap();
      // The engine's handle, or undefined for an object that only claims
      // to be an Engine (then the native method gives its error).
      const handleOf = (engine) => {
        let h = handles.get(engine);
        if (h === undefined) {
          try {
            h = handle(engine);
          } catch {
            return undefined;
          }
          handles.set(engine, h);
        }
        return h;
      };
      const stringify = JSON.stringify;
      const isView = ArrayBuffer.isView;
      const makeResponse = this.makeResponse;
      const makeAnswer = this.makeAnswer;
      // Stand-ins for a value whose JSON.stringify threw or gave no text:
      // the native method words the same error for them as for the value,
      // without reading the caller's value a second time (a getter, toJSON
      // or Proxy trap that behaves differently on a second read must not
      // turn an error into a success).
      const threw = { toJSON() { throw threw; } };
      const noText = { toJSON() { return undefined; } };
      // The JSON text of `value` (a string); a stand-in above; or undefined
      // where the native reading must decide (and word the error) from the
      // value itself, which this did not read.
      const textOf = (value) => {
        if (typeof value === 'string') return value;
        if (typeof value !== 'object' || value === null || isView(value)) return undefined;
        let text;
        try {
          text = stringify(value);
        } catch {
          return threw;
        }
        return typeof text === 'string' ? text : noText;
      };
      // Defined as the native methods were: writable, enumerable,
      // configurable, `length` 0.
      const define = (proto, name, f) =>
        Object.defineProperty(proto, name, { value: f, writable: true, enumerable: true, configurable: true });
      // The Call that `begin` gives (issue 16, eighth pass): a plain JS
      // object whose private field holds the core's call as an External
      // (src/call_handle.rs), on a prototype that inherits from
      // Call.prototype, so `instanceof Call`, `constructor` and what
      // util.inspect prints are as before. Its getters and methods, own
      // properties of that prototype shadowing the native ones of the
      // same names, call native functions that take the External: no
      // napi-rs class instance to create, no borrow to record per read.
      // Each getter computes what the class getter does and gives a new
      // value on every read, as before; JSON-valued ones come as text and
      // are parsed here. Calls from `beginParts` and the legacy entries
      // stay class instances and keep the native members.
      const {
        beginExt, decideExt, decideLegacyExt, callField, callResponseText, callResponse, callRawResponse,
        plainFields, jsonFields,
      } = natives;
      class JsCall {
        #c;
        constructor(c) {
          this.#c = c;
        }
        // The External of a Call made here, or undefined for any other
        // value that passed `instanceof Call`.
        static of(o) {
          return #c in o ? o.#c : undefined;
        }
        // Throws a TypeError for a receiver not made here (a getter taken
        // off the prototype and called on something else).
        static own(o) {
          return o.#c;
        }
      }
      const of = JsCall.of;
      const own = JsCall.own;
      const jsProto = JsCall.prototype;
      Object.setPrototypeOf(jsProto, callProto);
      // `constructor` is Call's, found on Call.prototype.
      delete jsProto.constructor;
      const members = {
        response() {
          const c = own(this);
          const key = arguments[0];
          if (typeof key === 'string') {
            const text = textOf(arguments[1]);
            if (text !== undefined && typeof text !== 'string') return callResponse(c, key, text);
            if (text !== undefined) {
              const r = callResponseText(c, key, text);
              if (typeof r === 'string') return makeAnswer('accepted', r);
              return typeof r === 'number' ? { kind: kinds[r] } : r;
            }
          }
          return callResponse(c, key, arguments[1]);
        },
        rawResponse() {
          const c = own(this);
          return parse(callRawResponse(c, arguments[0]));
        },
      };
      const parse = JSON.parse;
      const getters = {};
      plainFields.forEach((name, i) => {
        if (name === 'toJSON') {
          members.toJSON = { toJSON() { return callField(own(this), i); } }.toJSON;
        } else {
          getters[name] = function () { return callField(own(this), i); };
        }
      });
      jsonFields.forEach((name, j) => {
        const i = plainFields.length + j;
        getters[name] = function () { return parse(callField(own(this), i)); };
      });
      // In Call.prototype's order, with its attributes.
      for (const name of Object.getOwnPropertyNames(callProto)) {
        const d = Object.getOwnPropertyDescriptor(callProto, name);
        if (name === 'constructor') continue;
        if (getters[name] !== undefined && d.get !== undefined) {
          Object.defineProperty(getters[name], 'name', { value: `get ${name}` });
          Object.defineProperty(jsProto, name, { get: getters[name], set: undefined, enumerable: d.enumerable, configurable: d.configurable });
        } else if (members[name] !== undefined && 'value' in d) {
          Object.defineProperty(jsProto, name, { value: members[name], writable: d.writable, enumerable: d.enumerable, configurable: d.configurable });
        } else {
          throw new Error(`snodo-mrtr: internal: Call.${name} has no JS twin`);
        }
      }
      const responseProto = proto;
      const getPrototypeOf = Object.getPrototypeOf;
      define(engineProto, 'begin', {
        begin() {
          const h = this instanceof Engine ? handleOf(this) : undefined;
          if (h !== undefined) {
            const r = beginExt(h, arguments[0], arguments[1]);
            return getPrototypeOf(r) === responseProto ? r : new JsCall(r);
          }
          return nativeBegin.apply(this, arguments);
        },
      }.begin);
      define(engineProto, 'decide', {
        decide() {
          const call = arguments[0];
          const h = this instanceof Engine && call instanceof Call ? handleOf(this) : undefined;
          if (h !== undefined) {
            const c = of(call);
            const text = textOf(arguments[1]);
            if (c !== undefined) {
              // Anything but text goes as it is: decideExt reads it as the
              // native method does (and words its errors).
              const r = decideExt(h, c, text === undefined ? arguments[1] : text);
              return typeof r === 'string' ? makeResponse(r, 200) : r;
            }
            if (typeof text === 'string') {
              const r = decideWith(h, call, text);
              return typeof r === 'string' ? makeResponse(r, 200) : r;
            }
            if (text !== undefined) return nativeDecide.call(this, call, text);
          }
          return nativeDecide.apply(this, arguments);
        },
      }.decide);
      const nativeDecideLegacy = engineProto.decideLegacy;
      define(engineProto, 'decideLegacy', {
        decideLegacy() {
          const call = arguments[0];
          const c = call instanceof Call ? of(call) : undefined;
          const h = c !== undefined && this instanceof Engine ? handleOf(this) : undefined;
          if (h !== undefined) return decideLegacyExt(h, c, arguments[1]);
          return nativeDecideLegacy.apply(this, arguments);
        },
      }.decideLegacy);
      define(callProto, 'response', {
        response() {
          const key = arguments[0];
          if (typeof key === 'string' && this instanceof Call) {
            const text = textOf(arguments[1]);
            if (text !== undefined && typeof text !== 'string') return nativeResponse.call(this, key, text);
            if (text !== undefined) {
              const r = responseText.call(this, key, text);
              if (typeof r === 'string') return makeAnswer('accepted', r);
              return typeof r === 'number' ? { kind: kinds[r] } : r;
            }
          }
          return nativeResponse.apply(this, arguments);
        },
      }.response);
      // `new OnceRun(call, options)` reaches the core's call as `decide`
      // does: a Call made here goes to the native factory as its External,
      // any other value to the native constructor, which takes the class
      // Call (or words the error). The prototype is the native class's, so
      // the instance, its methods and `instanceof OnceRun` are native.
      const NativeOnceRun = natives.OnceRun;
      const onceRunExt = natives.onceRunExt;
      const OnceRun = function OnceRun(call, options) {
        if (new.target === undefined) throw new TypeError("Class constructor OnceRun cannot be invoked without 'new'");
        const c = call instanceof Call ? of(call) : undefined;
        return c !== undefined ? onceRunExt(c, options) : new NativeOnceRun(call, options);
      };
      OnceRun.prototype = NativeOnceRun.prototype;
      Object.defineProperty(NativeOnceRun.prototype, 'constructor', {
        value: OnceRun, writable: true, enumerable: false, configurable: true,
      });
      return { OnceRun };
    },
  };
})()
