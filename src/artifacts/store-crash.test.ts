import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { exampleArtifacts } from "../../test/support/artifact-examples.js";
import { PACKAGE_ROOT } from "../util/paths.js";
import { ArtifactStore } from "./store.js";

/**
 * A child process that writes r2 through the real store and SIGKILLs itself at the last possible
 * moment: the new content is fully in its temp file and history/ already holds r1, but the rename
 * over task_artifact.json never happens (as after a power cut or `kill -9`).
 */
const CHILD = `
import fs from "node:fs";
const [storeUrl, dir, valueJson] = process.argv.slice(2);
const { ArtifactStore } = await import(storeUrl);
const rename = fs.rename;
fs.rename = (from, to, callback) => {
  if (String(to).endsWith("/task_artifact.json")) process.kill(process.pid, "SIGKILL");
  else rename(from, to, callback);
};
await new ArtifactStore(dir).write("task_artifact", JSON.parse(valueJson), { expectedRevision: 1 });
console.log("the write completed: the rename was not intercepted");
`;

function runChild(
  script: string,
  args: string[],
): Promise<{ signal: NodeJS.Signals | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
      cwd: PACKAGE_ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (_code, signal) => resolve({ signal, output }));
  });
}

let root = "";
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "devflow-crash-"));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe("ArtifactStore after a writer is killed mid-write", () => {
  it("keeps the previous revision intact, and the next write accepts the identical history copy", async () => {
    const store = new ArtifactStore(join(root, "crash"));
    const { revision: _revision, ...draft } = exampleArtifacts("crash").task_artifact;
    await store.write("task_artifact", { ...draft, title: "r1" }, { expectedRevision: 0 });
    const r1Bytes = readFileSync(store.path("task_artifact"), "utf8");

    const script = join(root, "kill-before-rename.mjs");
    writeFileSync(script, CHILD);
    const storeUrl = new URL("./store.ts", import.meta.url).href;
    const child = await runChild(script, [
      storeUrl,
      store.dir,
      JSON.stringify({ ...draft, title: "r2 never landed" }),
    ]);
    expect(child.signal, child.output).toBe("SIGKILL");

    // The child got as far as a complete temp file with r2 in it: the kill really was mid-write.
    const leftovers = readdirSync(store.dir).filter((f) => f.startsWith("task_artifact.json."));
    expect(leftovers).toHaveLength(1);
    expect(readFileSync(join(store.dir, leftovers[0] ?? ""), "utf8")).toContain("r2 never landed");

    expect(readFileSync(store.path("task_artifact"), "utf8")).toBe(r1Bytes);
    expect(await store.read("task_artifact")).toMatchObject({ revision: 1, title: "r1" });

    // The dead writer held no file lock of the store's (the task lock is the caller's); its identical
    // history copy is accepted, so a retry succeeds.
    const r2 = await store.write("task_artifact", { ...draft, title: "r2" }, { expectedRevision: 1 });
    expect(r2).toMatchObject({ revision: 2, title: "r2" });
    expect(await store.history("task_artifact")).toEqual([1]);
    expect(readFileSync(join(store.dir, "history", "task_artifact.r001.json"), "utf8")).toBe(r1Bytes);
  });
});
