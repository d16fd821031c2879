/**
 * The compiled module of `src/<rel>` from dist/, as `bin/devflow.js` runs devflow: what the bench
 * measures is the code users run, not tsx's transpiled copy of the sources (under tsx the same
 * attempt costs 30–50 ms more CPU, session 24). Typed through the source module:
 * `await built<typeof import("../src/x.js")>("x.js")`. `npm run bench` builds first.
 */
export async function built<T>(rel: string): Promise<T> {
  return (await import(new URL(`../dist/src/${rel}`, import.meta.url).href)) as T;
}
