import { existsSync, readFileSync } from "node:fs";
import { Annotation, StateGraph } from "@langchain/langgraph";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ArtifactStore } from "../../src/artifacts/store.js";
import { DevflowError } from "../../src/errors/index.js";
import { openCheckpointer } from "../../src/home/checkpointer.js";
import { statePath } from "../../src/home/paths.js";
import { redact, redactDeep } from "../../src/util/redact.js";
import {
  clearRegisteredSecrets,
  knownSecrets,
  registerSecret,
  SECRET_MIN_LENGTH,
  secretEntriesFromEnv,
} from "../../src/util/secrets.js";
import { cli } from "../support/cli.js";
import { tempDir } from "../support/lane-harness.js";

/**
 * Each redaction boundary on its own (ADR 0030), so that turning one off fails here even where
 * the end-to-end suite (planted-secrets.test.ts) is covered by another boundary upstream.
 */

const TOKEN = "svc-tok-boundary-4c3b2a1908";
const CONFIGURED = "configured-coder-key-77aa88bb";

beforeAll(() => {
  process.env.DEVFLOW_BOUNDARY_TEST_TOKEN = TOKEN;
});
afterAll(() => {
  delete process.env.DEVFLOW_BOUNDARY_TEST_TOKEN;
});
afterEach(() => clearRegisteredSecrets());

describe("the secret registry", () => {
  it("collects secret-named variables and URL passwords, not locations, names that merely contain AUTH, or short values", () => {
    const found = secretEntriesFromEnv({
      MY_SERVICE_TOKEN: "svc-tok-1234567",
      AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG",
      NPM_AUTH: "npm-auth-value-1",
      DATABASE_URL: "postgres://app:Db-pa55w0rd@db:5432/app",
      GIT_AUTHOR_NAME: "Ada Lovelace Byron",
      SSH_AUTH_SOCK: "/tmp/ssh-XXXX/agent.1234",
      SHORT_TOKEN: "abc1234",
      PATH: "/usr/bin:/bin",
    });
    expect(found).toEqual([
      { name: "MY_SERVICE_TOKEN", value: "svc-tok-1234567" },
      { name: "AWS_SECRET_ACCESS_KEY", value: "wJalrXUtnFEMI/K7MDENG" },
      { name: "NPM_AUTH", value: "npm-auth-value-1" },
      { name: "DATABASE_URL:password", value: "Db-pa55w0rd" },
    ]);
    expect("abc1234".length).toBeLessThan(SECRET_MIN_LENGTH);
  });

  it("names what it replaces, keeps commands that only look secret, and catches token shapes", () => {
    registerSecret("JUNIE_API_KEY", CONFIGURED);
    expect(knownSecrets().map((s) => s.name)).toContain("JUNIE_API_KEY");
    expect(redact(`key ${CONFIGURED} and ${TOKEN}`)).toBe(
      "key [redacted:JUNIE_API_KEY] and [redacted:DEVFLOW_BOUNDARY_TEST_TOKEN]",
    );
    // A seam command is run again from the artifact: NAME=value heuristics must not rewrite it.
    expect(redact("API_TOKEN=abc123 node --test")).toBe("API_TOKEN=abc123 node --test");
    expect(redact("aws AKIAZQ3PLANTED7EXAMP")).toBe("aws [REDACTED]");
    const value = { a: ["plain", { b: `x ${TOKEN}` }], n: 3 };
    expect(redactDeep(value)).toEqual({
      a: ["plain", { b: "x [redacted:DEVFLOW_BOUNDARY_TEST_TOKEN]" }],
      n: 3,
    });
    const clean = { a: ["plain"] };
    expect(redactDeep(clean)).toBe(clean);
  });
});

// knownSecrets keeps its last answer while the environment and the registry are exactly as they
// were (issue 11: it is asked on every artifact write, event and checkpoint). A memo that went stale
// would let a secret set, changed or registered after the first write through every later one.
describe("the registry's memo never goes stale", () => {
  const NAME = "DEVFLOW_MEMO_TEST_TOKEN";
  afterEach(() => {
    delete process.env[NAME];
  });

  it("knownSecrets-memo-sees-a-changed-environment-and-registry: set, changed, removed, registered, cleared", () => {
    const values = () => knownSecrets().map((s) => s.value);
    expect(values()).not.toContain("memo-first-value-1234");
    process.env[NAME] = "memo-first-value-1234";
    expect(values()).toContain("memo-first-value-1234");
    expect(redact("x memo-first-value-1234 y")).toBe(`x [redacted:${NAME}] y`);
    process.env[NAME] = "memo-second-value-5678";
    expect(values()).toContain("memo-second-value-5678");
    expect(values()).not.toContain("memo-first-value-1234");
    delete process.env[NAME];
    expect(values()).not.toContain("memo-second-value-5678");
    registerSecret("MEMO_REGISTERED", "memo-registered-value-90");
    expect(values()).toContain("memo-registered-value-90");
    clearRegisteredSecrets();
    expect(values()).not.toContain("memo-registered-value-90");
  });
});

describe("redaction boundaries", () => {
  it("the artifact store: JSON files, task logs and text files never hold a known secret", async () => {
    const dir = tempDir("devflow-secret-store-");
    const store = new ArtifactStore(dir);
    const written = await store.writeAttemptJson(
      "attempt-001",
      "notes.json",
      z.object({ said: z.string() }),
      {
        said: `the model said ${TOKEN}`,
      },
    );
    expect(written.said).toBe("the model said [redacted:DEVFLOW_BOUNDARY_TEST_TOKEN]");
    const file = await store.writeText("attempts/attempt-001/diff.patch", `+const t = "${TOKEN}";\n`);
    expect(readFileSync(file, "utf8")).not.toContain(TOKEN);
    expect(readFileSync(`${dir}/attempts/attempt-001/notes.json`, "utf8")).not.toContain(TOKEN);
  });

  it("the checkpoint: state and a node's error are redacted on their way into state.sqlite", async () => {
    const repo = tempDir("devflow-secret-state-");
    const saver = openCheckpointer(repo);
    const State = Annotation.Root({ note: Annotation<string> });
    const graph = new StateGraph(State)
      .addNode("say", () => ({ note: `the coder printed ${TOKEN}` }))
      .addNode("fail", () => {
        throw new Error(`the endpoint answered: bad key ${TOKEN}`);
      })
      .addEdge("__start__", "say")
      .addEdge("say", "fail")
      .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: "secret-thread" } };
    await expect(graph.invoke({ note: "start" }, config)).rejects.toThrow(/bad key/);
    const state = await graph.getState(config);
    expect(state.values.note).toBe("the coder printed [redacted:DEVFLOW_BOUNDARY_TEST_TOKEN]");
    saver.db.close();
    for (const file of [statePath(repo), `${statePath(repo)}-wal`]) {
      if (existsSync(file)) expect(readFileSync(file).includes(TOKEN), file).toBe(false);
    }
  });

  it("DevflowError: message, hint and details are redacted when the error is made", () => {
    const error = new DevflowError("MODEL_AUTH", `401: Incorrect API key provided: ${TOKEN}`, {
      details: { status: 401 },
      hint: `check ${TOKEN}`,
    });
    expect(error.message).toBe("401: Incorrect API key provided: [redacted:DEVFLOW_BOUNDARY_TEST_TOKEN]");
    expect(error.hint).toBe("check [redacted:DEVFLOW_BOUNDARY_TEST_TOKEN]");
  });

  it("the CLI's stdout and stderr: even commander's own messages are redacted", async () => {
    const run = await cli("route", `--${TOKEN}`);
    expect(run.code).toBe(2);
    expect(run.err).toContain("[redacted:DEVFLOW_BOUNDARY_TEST_TOKEN]");
    expect(run.err + run.out).not.toContain(TOKEN);
  });
});
