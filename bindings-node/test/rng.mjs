// A small seeded generator (xorshift32) for the tests that compare a fast
// path with the reference path on random cases: seeded so that a failure
// reproduces, good enough to spread the cases.
export function rng(seed) {
  let x = seed >>> 0 || 1;
  const next = () => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return x;
  };
  return { below: (n) => next() % n, pick: (xs) => xs[next() % xs.length] };
}
