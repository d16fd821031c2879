import { describe, expect, it } from "vitest";
import { excerpt, HeadTailBuffer, OMITTED_MARKER_LINE, utf8Prefix, utf8Suffix } from "./truncate.js";

const bytes = (text: string): number => Buffer.byteLength(text, "utf8");

describe("excerpt", () => {
  it("returns a text within the cap unchanged", () => {
    expect(excerpt("short\ntext", 1024)).toEqual({ text: "short\ntext", truncated: false, omittedBytes: 0 });
    const exact = "x".repeat(1024);
    expect(excerpt(exact, 1024).truncated).toBe(false);
  });

  it("keeps head and tail around a marker line, within maxBytes, counting what was omitted", () => {
    const text = `HEAD\n${"middle line\n".repeat(10_000)}TAIL`;
    const result = excerpt(text, 1000);
    expect(result.truncated).toBe(true);
    expect(bytes(result.text)).toBeLessThanOrEqual(1000);
    expect(result.text.startsWith("HEAD\n")).toBe(true);
    expect(result.text.endsWith("TAIL")).toBe(true);
    const marker = result.text.match(/\n\[\.\.\. (\d+) bytes omitted \.\.\.\]\n/);
    expect(Number(marker?.[1])).toBe(result.omittedBytes);
    const [head = "", tail = ""] = result.text.split(OMITTED_MARKER_LINE);
    // The split swallows one newline before the marker: the head's own or the one added after a mid-line cut.
    const accounted = bytes(head) + bytes(tail) + result.omittedBytes;
    expect(Math.abs(accounted - bytes(text))).toBeLessThanOrEqual(1);
  });

  it("never splits a multi-byte character", () => {
    for (const char of ["é", "€", "😀"]) {
      for (let cap = 128; cap < 140; cap++) {
        const result = excerpt(char.repeat(500), cap);
        expect(result.text).not.toContain("\uFFFD");
        expect(bytes(result.text)).toBeLessThanOrEqual(cap);
        const [head = "", tail = ""] = result.text.split(OMITTED_MARKER_LINE);
        expect(bytes(head) + bytes(tail) + result.omittedBytes).toBe(bytes(char) * 500);
      }
    }
  });

  it("refuses a cap too small for the marker", () => {
    expect(() => excerpt("text", 10)).toThrow(/at least 128/);
  });
});

describe("HeadTailBuffer", () => {
  it("gives the same excerpt for streamed chunks as for the whole text, in bounded memory", () => {
    const line = "0123456789 ünïcödé line\n";
    const whole = line.repeat(20_000);
    const buffer = new HeadTailBuffer(4096);
    // Odd chunk sizes cut characters in half between chunks.
    const raw = Buffer.from(whole, "utf8");
    for (let i = 0; i < raw.length; i += 997) buffer.push(raw.subarray(i, i + 997));
    expect(buffer.totalBytes).toBe(raw.length);
    expect(buffer.result()).toEqual(excerpt(whole, 4096));
  });

  it("keeps everything while the total fits, even when it arrives in many chunks", () => {
    const buffer = new HeadTailBuffer(1000);
    const pieces = Array.from({ length: 100 }, (_, i) => `${i % 10}`.repeat(10));
    for (const piece of pieces) buffer.push(piece);
    expect(buffer.result()).toEqual({ text: pieces.join(""), truncated: false, omittedBytes: 0 });
  });
});

describe("utf8Prefix / utf8Suffix", () => {
  it("cut at character boundaries", () => {
    const euro = Buffer.from("a€b", "utf8"); // 61 e2 82 ac 62
    expect(Buffer.from(utf8Prefix(euro, 2)).toString()).toBe("a");
    expect(Buffer.from(utf8Prefix(euro, 4)).toString()).toBe("a€");
    expect(Buffer.from(utf8Suffix(euro, 3)).toString()).toBe("b");
    expect(Buffer.from(utf8Suffix(euro, 4)).toString()).toBe("€b");
  });

  it("drop a character that was already cut upstream", () => {
    const cut = Buffer.from("ab€", "utf8").subarray(0, 4); // 61 62 e2 82
    expect(Buffer.from(utf8Prefix(cut, 10)).toString()).toBe("ab");
  });
});
