/**
 * Hostile review, session 23 (review23): issue 11 added two memories on the way to disk, redactDeep's
 * per-string answers (src/util/redact.ts) and the artifact store's last parse of each file
 * (src/artifacts/store.ts parsedOnce/remember). Attacks: a secret that becomes known after a string
 * was memoized escapes into an artifact through the stale answer; a file changed on disk (same size,
 * other bytes; changed between two reads) is served from the cache; a caller that edits a value it
 * got from a read or a write changes what the next read returns; a value devflow wrote reads back
 * from the cache differently from a cold read of the same bytes. The first three held.
 *
 * Regression (the last one worked): a write kept the value it serialized as what its bytes parse to,
 * but JSON loses what the value held beyond it (-0 reads back 0, a key holding undefined is absent,
 * a toJSON changes the shape), so a read from the cache answered other than a cold read of the same
 * file. Nothing devflow writes today depends on that, but the cache's promise is "exactly what the
 * file says". Fix: a write keeps JSON.parse of the bytes it wrote (no ajv/zod pass: the schema has
 * just checked the value those bytes serialize).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ArtifactStore } from "../../../src/artifacts/store.js";
import { redactDeep } from "../../../src/util/redact.js";
import { clearRegisteredSecrets, registerSecret } from "../../../src/util/secrets.js";

const dirs: string[] = [];
afterEach(() => {
  clearRegisteredSecrets();
  delete process.env.ATTACK23_API_KEY;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const store = () => {
  const dir = mkdtempSync(join(tmpdir(), "devflow-attack23-store-"));
  dirs.push(dir);
  return new ArtifactStore(dir);
};
const Note = z.object({
  text: z.string(),
  tags: z.array(z.string()),
  n: z.number(),
  opt: z.string().optional(),
});
const ATTEMPT = "attempt-001";

describe("redactDeep's memo and the store's parse cache (attack23)", () => {
  it("a secret registered after its string was memoized is redacted in the next artifact", async () => {
    const secret = "s3cr3t-value-attack23-0123456789abcdef";
    const value = { text: `token is ${secret}`, tags: [secret], n: 1 };
    // Memoized while the secret is unknown (nothing to redact yet).
    expect(redactDeep(value)).toEqual(value);
    registerSecret("ATTACK23", secret);
    const s = store();
    await s.writeAttemptJson(ATTEMPT, "note.json", Note, value);
    const onDisk = readFileSync(join(s.dir, "attempts", ATTEMPT, "note.json"), "utf8");
    expect(onDisk).not.toContain(secret);
    // And one that appears in the environment (no registration) after the memo was filled.
    const other = "envsecret-attack23-abcdefghijklmnop0123";
    const second = { text: `key ${other}`, tags: [], n: 2 };
    expect(redactDeep(second)).toEqual(second);
    process.env.ATTACK23_API_KEY = other;
    await s.writeAttemptJson(ATTEMPT, "note2.json", Note, second);
    expect(readFileSync(join(s.dir, "attempts", ATTEMPT, "note2.json"), "utf8")).not.toContain(other);
  });

  it("a file rewritten on disk with other bytes of the same size is parsed again", async () => {
    const s = store();
    await s.writeAttemptJson(ATTEMPT, "note.json", Note, { text: "aaaa", tags: [], n: 1 });
    const file = join(s.dir, "attempts", ATTEMPT, "note.json");
    expect((await s.readAttemptJson(ATTEMPT, "note.json", Note))?.text).toBe("aaaa");
    const before = readFileSync(file, "utf8");
    const after = before.replace("aaaa", "bbbb");
    expect(after.length).toBe(before.length);
    writeFileSync(file, after);
    expect((await s.readAttemptJson(ATTEMPT, "note.json", Note))?.text).toBe("bbbb");
    // Bytes that no longer pass the schema are refused, not served from the last good parse.
    writeFileSync(file, before.replace('"n": 1', '"n": "1"').replace('"n":1', '"n":"1"'));
    await expect(s.readAttemptJson(ATTEMPT, "note.json", Note)).rejects.toThrow();
  });

  it("editing a value returned by a write or a read does not change the next read", async () => {
    const s = store();
    const written = await s.writeAttemptJson(ATTEMPT, "note.json", Note, { text: "t", tags: ["a"], n: 1 });
    written.tags.push("from-write");
    written.text = "edited";
    const first = await s.readAttemptJson(ATTEMPT, "note.json", Note);
    expect(first).toEqual({ text: "t", tags: ["a"], n: 1 });
    first?.tags.push("from-read");
    const second = await s.readAttemptJson(ATTEMPT, "note.json", Note);
    expect(second).toEqual({ text: "t", tags: ["a"], n: 1 });
    second?.tags.push("from-hit");
    expect(await s.readAttemptJson(ATTEMPT, "note.json", Note)).toEqual({ text: "t", tags: ["a"], n: 1 });
  });

  it("what a write leaves in the cache reads back as a cold read of the same bytes does", async () => {
    const s = store();
    await s.writeAttemptJson(ATTEMPT, "note.json", Note, { text: "t", tags: [], n: -0, opt: undefined });
    const warm = await s.readAttemptJson(ATTEMPT, "note.json", Note);
    const cold = await new ArtifactStore(s.dir).readAttemptJson(ATTEMPT, "note.json", Note);
    expect(warm).toStrictEqual(cold);
  });
});
