// `Array.prototype.map` gives a packed array while its caller runs unoptimized and a holey one
// once V8's optimizing compiler has inlined it (it allocates the result at its full length, then
// fills it). A function optimized on arrays of one kind meets the other and is thrown away and
// compiled again ("wrong map"): in a cold live run, the ingest's route, the store's commit, the
// verifier's batches and the index thread's (docs/performance.md, session 29). The arrays a hot
// path hands on are built here instead, by push: packed either way.

/** `xs.map(f)`, always a packed array. */
export function mapPacked<T, U>(xs: readonly T[], f: (x: T, i: number) => U): U[] {
  const out: U[] = [];
  for (let i = 0; i < xs.length; i++) out.push(f(xs[i]!, i));
  return out;
}
