import { describe, expect, it } from "vitest";
import { replaceAssignments, replaceUrlPasswords } from "./redact-scans.js";

/*
 * The scans replace two regexes of the secret boundary (redact.ts), so they are checked against
 * those regexes themselves, the oracle: on hand-picked edge cases and on random text built from the
 * characters and words the patterns turn on. Any difference is a redaction bug one way or the other.
 */

const ASSIGNMENT =
  /(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]{1,128})([ \t]*=[ \t]*)("[^"\n]+"|'[^'\n]+'|[^\s"'&;,]+)/g;
const URL_PASSWORD = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]{0,31}:\/\/[^\s:/@]{1,256}:)[^\s@/]{1,256}@/gi;

/** Marks every pair whose name contains "K", so both kept and replaced pairs are exercised. */
const mark = (name: string, eq: string, value: string) =>
  name.includes("K") ? `<${name}|${eq}|${value}>` : null;
const byRegex = {
  assignments: (text: string) =>
    text.replace(
      ASSIGNMENT,
      (match, name: string, eq: string, value: string) => mark(name, eq, value) ?? match,
    ),
  urls: (text: string) => text.replace(URL_PASSWORD, "$1[R]@"),
};
const byScan = {
  assignments: (text: string) => replaceAssignments(text, mark),
  urls: (text: string) => replaceUrlPasswords(text, "[R]"),
};

/** A small deterministic generator (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  "a",
  "Z",
  "K",
  "0",
  "_",
  ".",
  "-",
  "+",
  ":",
  "/",
  "@",
  "=",
  " ",
  "\t",
  "\n",
  '"',
  "'",
  "&",
  ";",
  ",",
  "KEY",
  "x=",
  " = ",
  "://",
  "http",
  "h9+.-",
  "user",
  ":pw@",
  "[redacted:X]",
  "é",
  "==",
];

function randomText(next: () => number, pieces: number): string {
  let out = "";
  for (let i = 0; i < pieces; i++) {
    const roll = next();
    // Now and then a long run, to cross the 32/128/256 bounds of the patterns.
    if (roll < 0.03) out += "k".repeat(Math.floor(next() * 300));
    else out += PIECES[Math.floor(next() * PIECES.length)];
  }
  return out;
}

describe("the redaction scans equal their regexes", () => {
  const cases = [
    "",
    "KEY=1",
    "a KEY = 'x y' b",
    'KEY="unterminated\nnext K=2',
    "a=b=KEY=c",
    "K= ",
    "x=1;K=2&K=3,K=4",
    `${"K".repeat(128)}=v ${"K".repeat(129)}=v`,
    "é K=v",
    "[redacted:X]=v K= [redacted:Y]",
    "postgres://admin:pa55word@db:5432/x",
    "HTTP://U:P@h and 1x://u:p@h and +x://u:p@h and x://u:p:q@h",
    `${"s".repeat(32)}://u:p@h ${"s".repeat(33)}://u:p@h`,
    `x://${"u".repeat(257)}:p@h x://u:${"p".repeat(257)}@h x://u:${"p".repeat(256)}@h`,
    "a://u:p@b://v:q@c",
    "x://u:p/q@h x://u:p q@h x://:p@h x://u:@h",
  ];
  it.each(cases)("on %j", (text) => {
    expect(byScan.assignments(text)).toBe(byRegex.assignments(text));
    expect(byScan.urls(text)).toBe(byRegex.urls(text));
  });

  it("on 20,000 random texts of the characters and words the patterns turn on", () => {
    const next = random(20261204);
    for (let i = 0; i < 20_000; i++) {
      const text = randomText(next, 1 + Math.floor(next() * 40));
      const assignments = byScan.assignments(text);
      if (assignments !== byRegex.assignments(text))
        expect({ text, assignments }).toEqual({ text, assignments: byRegex.assignments(text) });
      const urls = byScan.urls(text);
      if (urls !== byRegex.urls(text)) expect({ text, urls }).toEqual({ text, urls: byRegex.urls(text) });
    }
  });
});
