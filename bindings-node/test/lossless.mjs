// Reads JSON text like JSON.parse, and also remembers, for every object and
// array, the exact source text it came from. The vectors compare numbers by
// their lexical text (`1.0` is not `1`), which JS numbers cannot hold, so the
// runner hands snodo the original text of each sub-document.

const WS = new Set([' ', '\t', '\n', '\r']);

export function parseLossless(text) {
  const spans = new WeakMap();
  let i = 0;
  const skip = () => { while (WS.has(text[i])) i++; };
  const fail = (why) => { throw new SyntaxError(`${why} at offset ${i}`); };
  function value() {
    skip();
    const start = i;
    const c = text[i];
    if (c === '{') {
      i++;
      const obj = {};
      skip();
      if (text[i] === '}') { i++; } else {
        for (;;) {
          skip();
          if (text[i] !== '"') fail('expected a key');
          const k = string();
          skip();
          if (text[i++] !== ':') fail('expected :');
          if (Object.hasOwn(obj, k)) fail(`duplicate key ${k}`);
          obj[k] = value();
          skip();
          if (text[i] === ',') { i++; continue; }
          if (text[i++] === '}') break;
          fail('expected , or }');
        }
      }
      spans.set(obj, text.slice(start, i));
      return obj;
    }
    if (c === '[') {
      i++;
      const arr = [];
      skip();
      if (text[i] === ']') { i++; } else {
        for (;;) {
          arr.push(value());
          skip();
          if (text[i] === ',') { i++; continue; }
          if (text[i++] === ']') break;
          fail('expected , or ]');
        }
      }
      spans.set(arr, text.slice(start, i));
      return arr;
    }
    if (c === '"') return string();
    const m = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
    if (!m) fail('unexpected character');
    i += m[0].length;
    return JSON.parse(m[0]);
  }
  function string() {
    const start = i;
    i++;
    while (text[i] !== '"') {
      if (i >= text.length) fail('unterminated string');
      i += text[i] === '\\' ? 2 : 1;
    }
    i++;
    return JSON.parse(text.slice(start, i));
  }
  const root = value();
  skip();
  if (i !== text.length) fail('trailing text');
  // The exact JSON text of `v`: its source for objects and arrays.
  const raw = (v) => (v !== null && typeof v === 'object' ? spans.get(v) : JSON.stringify(v));
  return { root, raw };
}
