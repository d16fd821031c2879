import { describe, expect, it } from "vitest";
import { mapBounded } from "./bounded-pool.js";

/** A promise the test resolves by hand, so concurrency is observed without timing. */
function deferred() {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe("mapBounded", () => {
  it("never runs more than the limit at once and keeps the input order", async () => {
    const gates = [deferred(), deferred(), deferred(), deferred(), deferred()];
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const done = mapBounded([0, 1, 2, 3, 4], 2, async (i) => {
      started.push(i);
      running++;
      peak = Math.max(peak, running);
      await gates[i]?.promise;
      running--;
      return i * 10;
    });
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    // Finish out of order: the result order must still follow the input.
    for (const i of [1, 0, 3, 2, 4]) {
      gates[i]?.resolve();
      await new Promise((r) => setImmediate(r));
    }
    expect(await done).toEqual([0, 10, 20, 30, 40]);
    expect(peak).toBe(2);
  });

  it("refuses a limit that is not a whole number of at least 1", async () => {
    await expect(mapBounded([1], 0, async (x) => x)).rejects.toThrow(
      /concurrency must be a whole number ≥ 1, got 0/,
    );
  });

  it("rejects when a call rejects", async () => {
    await expect(
      mapBounded([1, 2], 2, async (x) => {
        if (x === 2) throw new Error("boom");
        return x;
      }),
    ).rejects.toThrow("boom");
  });

  it("returns an empty list for no items", async () => {
    expect(await mapBounded([], 2, async (x: number) => x)).toEqual([]);
  });
});
