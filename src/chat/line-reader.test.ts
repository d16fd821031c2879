import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { LineReader } from "./line-reader.js";

const readers: LineReader[] = [];
afterEach(() => {
  for (const r of readers.splice(0)) r.close();
});

function piped() {
  const input = new PassThrough();
  const reader = new LineReader(input, new PassThrough(), false);
  readers.push(reader);
  return { input, reader };
}

describe("LineReader", () => {
  it("hands out lines in order, whether they arrived before or after they were asked for", async () => {
    const { input, reader } = piped();
    input.write("first\nsecond\n");
    const third = (async () => {
      expect(await reader.next()).toBe("first");
      expect(await reader.next()).toBe("second");
      return reader.next();
    })();
    input.write("third\n");
    expect(await third).toBe("third");
  });

  it("returns the lines still queued after the input ended, then null", async () => {
    const { input, reader } = piped();
    input.end("a\nb\n");
    expect(await reader.next()).toBe("a");
    expect(await reader.next()).toBe("b");
    expect(await reader.next()).toBeNull();
    expect(await reader.next()).toBeNull();
  });

  it("an aborted wait rejects and does not swallow the next line", async () => {
    const { input, reader } = piped();
    const controller = new AbortController();
    const waiting = reader.next(controller.signal);
    controller.abort(new Error("stopped by Ctrl-C"));
    await expect(waiting).rejects.toThrow("stopped by Ctrl-C");
    input.write("kept\n");
    expect(await reader.next()).toBe("kept");
  });

  it("reports a process SIGINT to the interrupt handler instead of dying", async () => {
    const listeners = process.listenerCount("SIGINT");
    const { reader } = piped();
    let interrupts = 0;
    reader.onInterrupt(() => {
      interrupts += 1;
    });
    process.emit("SIGINT");
    expect(interrupts).toBe(1);
    reader.close();
    expect(process.listenerCount("SIGINT")).toBe(listeners);
  });
});
