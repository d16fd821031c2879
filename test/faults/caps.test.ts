import { existsSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { statePath } from "../../src/home/index.js";
import { DEFAULT_MAX_REQUEST_BYTES } from "../../src/lanes/request-size.js";
import { cli } from "../support/cli.js";
import { useLoopbackEndpoints } from "./loopback-endpoints.js";

/**
 * Regression "a 1 MiB request is accepted and state.sqlite grows to 58 MiB": nothing bounded the
 * request, which is copied into every prompt and every checkpoint. Fix: src/lanes/request-size.ts,
 * checked by the iterate lane (run.ts) and `devflow route` before anything is stored or sent;
 * --max-request-bytes / DEVFLOW_MAX_REQUEST_BYTES raise it.
 */

const { liveEndpoint } = useLoopbackEndpoints();

const ONE_MIB_REQUEST = `fix the csv import ${"x".repeat(1024 * 1024)}`;

describe("request size cap", () => {
  it("a 1 MiB request is accepted and state.sqlite grows to 58 MiB (regression): iterate refuses it in one line, nothing stored or sent", async () => {
    const server = await liveEndpoint();
    const repo = createFixtureRepo("csv-import");
    const r = await cli("iterate", ONE_MIB_REQUEST, "-r", repo, "--coder", "command:true", "--no-input");
    expect(r.code, r.err).toBe(2);
    const lines = r.err.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `the request is ${Buffer.byteLength(ONE_MIB_REQUEST)} bytes, over the limit of ${DEFAULT_MAX_REQUEST_BYTES} bytes .*DEVFLOW_MAX_REQUEST_BYTES=<bytes>`,
      ),
    );
    expect(server.requests).toHaveLength(0);
    expect(existsSync(statePath(repo))).toBe(false);
  });

  it("devflow route refuses it too, before the router is asked", async () => {
    const server = await liveEndpoint();
    const r = await cli("route", ONE_MIB_REQUEST);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/over the limit of 65536 bytes/);
    expect(server.requests).toHaveLength(0);
  });

  it("the limit is raised by DEVFLOW_MAX_REQUEST_BYTES and lowered by --max-request-bytes (the flag wins)", async () => {
    const server = await liveEndpoint();
    vi.stubEnv("DEVFLOW_MAX_REQUEST_BYTES", String(2 * 1024 * 1024));
    // Past the cap, the route call reaches the endpoint (whose empty script answers 500).
    const raised = await cli("route", ONE_MIB_REQUEST, "--model-retries", "0");
    expect(raised.err).not.toMatch(/over the limit/);
    expect(server.requests).toHaveLength(1);
    const repo = createFixtureRepo("csv-import");
    const lowered = await cli(
      "iterate",
      "fix the csv import",
      "-r",
      repo,
      "--coder",
      "command:true",
      "--max-request-bytes",
      "10",
    );
    expect(lowered.code).toBe(2);
    expect(lowered.err).toMatch(/the request is 18 bytes, over the limit of 10 bytes/);
    vi.stubEnv("DEVFLOW_MAX_REQUEST_BYTES", "lots");
    const bad = await cli("route", "hello");
    expect(bad.code).toBe(2);
    expect(bad.err.trim()).toBe(
      'devflow: DEVFLOW_MAX_REQUEST_BYTES must be a whole number of bytes ≥ 1 (got "lots")',
    );
  });
});
