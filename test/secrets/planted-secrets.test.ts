import { spawn } from "node:child_process";
import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { DEMO_REQUEST } from "../../src/fixtures/demo.js";
import type { Cassette } from "../../src/models/cassette.js";
import { DEVFLOW_BIN } from "../support/devflow-bin.js";
import { demoCassette, tempDir } from "../support/lane-harness.js";
import { type RoleServer, type RoleServerMode, startRoleServer } from "./role-server.js";

/**
 * The secret suite of issue 10 (ADR 0030): secrets planted in devflow's own environment must not
 * appear in any byte devflow writes (the whole `.devflow/` tree, state.sqlite and its WAL included,
 * the coder's scratch dir, stdout, stderr) or sends (every request body the model endpoint got),
 * although a coder prints devflow's environment read from /proc, the model repeats secrets in its
 * answers, and the endpoint echoes the key in a 401 body.
 */

const PACKAGE_ROOT = join(dirname(new URL(import.meta.url).pathname), "..", "..");
const MARKER = "DEVFLOW_SECRET_SUITE=planted";

const PLANTED = {
  AWS_ACCESS_KEY_ID: "AKIAZQ3PLANTED7EXAMP",
  AWS_SECRET_ACCESS_KEY: "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",
  DATABASE_URL: "postgres://app:Db-pa55w0rd-planted-77@db.internal:5432/app",
  MY_SERVICE_TOKEN: "svc-tok-planted-9f8e7d6c5b4a",
  // No sk- prefix: only the registry (not a token pattern) can know this is the key.
  OPENAI_API_KEY: "plain-model-key-planted-0123456789",
} as const;
/** What must never appear: every planted value, and the password inside the URL on its own. */
const NEEDLES = [...Object.values(PLANTED), "Db-pa55w0rd-planted-77"];

/**
 * A coder that does what a hostile or careless agent can: read devflow's environment from /proc
 * (walking up its ancestors to the devflow process, which carries the suite's marker) and print
 * it, then make the demo's near miss or, once repair context arrived, the real fix.
 */
const LEAKY_CODER = `
import { readFileSync, writeFileSync } from "node:fs";
const read = (p) => { try { return readFileSync(p, "utf8"); } catch { return ""; } };
let pid = Number(/PPid:\\s+(\\d+)/.exec(read("/proc/self/status"))?.[1] ?? 0);
for (let hops = 0; pid > 1 && hops < 12; hops++) {
  const environ = read("/proc/" + pid + "/environ");
  if (environ.includes(${JSON.stringify(MARKER)})) {
    // Values without their names too: a NAME=value heuristic alone would not catch these.
    const pairs = environ.split("\\0").filter(Boolean);
    console.log("environment of " + pid + ":\\n" + pairs.join("\\n"));
    console.log("values: " + pairs.map((kv) => kv.slice(kv.indexOf("=") + 1)).join(" "));
  }
  pid = Number(/PPid:\\s+(\\d+)/.exec(read("/proc/" + pid + "/status"))?.[1] ?? 0);
}
console.error("stderr too: " + ${JSON.stringify(PLANTED.MY_SERVICE_TOKEN)}.length + " chars, see above");
const prompt = readFileSync(process.env.DEVFLOW_PROMPT_FILE, "utf8");
const file = "src/csv-import.js";
const source = readFileSync(file, "utf8");
const repaired = prompt.includes("Known errors from prior attempts");
const current = source.includes("if (!EMAIL.test(row.email))") ? "if (!EMAIL.test(row.email))" : "if (!EMAIL.test(row.email.trimEnd()))";
writeFileSync(file, source.replace(current, repaired ? "if (!EMAIL.test(row.email.trim()))" : "if (!EMAIL.test(row.email.trimEnd()))"));
console.log("done; my final words repeat the database URL ${PLANTED.DATABASE_URL}");
`;

/** The demo's answers, with the model repeating secrets in the framer's, iterator's and critic's. */
function echoingCassette(): Cassette {
  const cassette = demoCassette();
  const structured = (role: "framer" | "iterator" | "critic") => {
    const entry = cassette.calls[role]?.[0];
    if (!entry || !("structured" in entry)) throw new Error(`demo cassette lost its ${role} answer`);
    return entry.structured as Record<string, unknown>;
  };
  // A tool-calling turn that says a secret: the agent's history carries it into the next request
  // and into the agent's checkpoint, where only the request and checkpoint boundaries can catch it.
  const observerTurn = cassette.calls.observer?.[0];
  if (!observerTurn || !("content" in observerTurn)) throw new Error("demo cassette lost its observer turn");
  observerTurn.content = `Reading the importer first (the service token is ${PLANTED.MY_SERVICE_TOKEN}).`;
  const framer = structured("framer");
  framer.current_behavior = `${String(framer.current_behavior)} (the import runs with MY_SERVICE_TOKEN ${PLANTED.MY_SERVICE_TOKEN})`;
  const iterator = structured("iterator");
  iterator.lesson = `${String(iterator.lesson)} The logs showed ${PLANTED.AWS_SECRET_ACCESS_KEY}.`;
  const critic = structured("critic");
  critic.summary = `${String(critic.summary)} Key in use: ${PLANTED.OPENAI_API_KEY}; db ${PLANTED.DATABASE_URL}.`;
  return cassette;
}

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runCli(args: string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DEVFLOW_BIN, ...args], { cwd: PACKAGE_ROOT, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Every regular file under `dir` (symlinks not followed), relative path → bytes. */
function everyFile(dir: string, prefix = ""): Array<[string, Buffer]> {
  const out: Array<[string, Buffer]> = [];
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    if (stat.isDirectory()) out.push(...everyFile(path, `${prefix}${name}/`));
    else if (stat.isFile()) out.push([`${prefix}${name}`, readFileSync(path)]);
  }
  return out;
}

/** Where each needle was found ("<where>: <needle name>"); empty when devflow kept every secret. */
function leaks(sources: Array<[string, Buffer | string]>): string[] {
  const found: string[] = [];
  for (const [where, bytes] of sources) {
    const buffer = typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes;
    for (const needle of NEEDLES)
      if (buffer.includes(needle)) found.push(`${where}: ${needle.slice(0, 12)}…`);
  }
  return found;
}

interface Planted {
  repo: string;
  tmp: string;
  server: RoleServer;
  run: CliRun;
}

const servers: RoleServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function plantedRun(mode: RoleServerMode, extraArgs: string[]): Promise<Planted> {
  const server = await startRoleServer(mode);
  servers.push(server);
  const repo = createFixtureRepo("csv-import");
  const tmp = tempDir("devflow-secret-tmp-");
  mkdirSync(join(tmp, "t"));
  const coder = join(tempDir("devflow-secret-coder-"), "leaky-coder.mjs");
  writeFileSync(coder, LEAKY_CODER);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? tmp,
    // The coder's scratch dir (and its prompt file) lands here, so it is grepped too.
    TMPDIR: join(tmp, "t"),
    OPENAI_BASE_URL: server.url,
    DEVFLOW_SECRET_SUITE: "planted",
    // Where a mount namespace works (ADR 0025) the coder gets a /proc of its own and cannot even
    // find devflow's process; this suite tests redaction, the layer every platform has, so the
    // coder must really read devflow's environment (asserted below by the named labels).
    DEVFLOW_NO_MOUNT_NAMESPACE: "1",
    ...PLANTED,
  };
  const run = await runCli(
    [
      "iterate",
      DEMO_REQUEST,
      "--repo",
      repo,
      "--coder",
      `command:node ${JSON.stringify(coder)}`,
      "--task-id",
      "trim-emails",
      "--no-input",
      ...extraArgs,
    ],
    env,
  );
  return { repo, tmp, server, run };
}

function everyByte(p: Planted): Array<[string, Buffer | string]> {
  return [
    ...everyFile(join(p.repo, ".devflow")).map(([f, b]): [string, Buffer] => [`.devflow/${f}`, b]),
    ...everyFile(p.tmp).map(([f, b]): [string, Buffer] => [`TMPDIR/${f}`, b]),
    ["stdout", p.run.stdout],
    ["stderr", p.run.stderr],
    ...p.server.bodies.map((b, i): [string, string] => [`request #${i + 1} to the model`, b]),
  ];
}

describe("planted secrets (issue 10, ADR 0030)", () => {
  it("a lane whose coder prints devflow's environment and whose model repeats secrets leaks none of them", async () => {
    const planted = await plantedRun({ kind: "cassette", cassette: echoingCassette() }, []);
    expect(planted.run.code, planted.run.stderr).toBe(0);
    // The run really went through every boundary: two attempts, a repair request, the critic.
    expect(planted.server.served).toEqual(
      expect.arrayContaining(["framer", "observer", "iterator", "critic"]),
    );
    expect(leaks(everyByte(planted))).toEqual([]);
    const transcript = readFileSync(
      join(
        planted.repo,
        ".devflow",
        "iterate",
        "trim-emails",
        "attempts",
        "attempt-001",
        "coder_transcript.log",
      ),
      "utf8",
    );
    // The coder did read and print the environment; devflow wrote it redacted, by name.
    expect(transcript).toContain("[redacted:MY_SERVICE_TOKEN]");
    expect(transcript).toContain("[redacted:AWS_SECRET_ACCESS_KEY]");
  }, 240_000);

  it("a 401 whose body echoes the key leaks it nowhere (stderr, --json stdout, events, state.sqlite)", async () => {
    const planted = await plantedRun(
      { kind: "error", status: 401, message: `Incorrect API key provided: ${PLANTED.OPENAI_API_KEY}.` },
      ["--json"],
    );
    expect(planted.server.bodies.length).toBeGreaterThan(0);
    expect(leaks(everyByte(planted))).toEqual([]);
    expect(planted.run.code).toBe(2);
    expect(planted.run.stderr).toContain("authentication failed");
    expect(planted.run.stderr).toContain("[redacted:OPENAI_API_KEY]");
  }, 120_000);
});
