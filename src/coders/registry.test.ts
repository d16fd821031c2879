import { describe, expect, it } from "vitest";
import { isDevflowError } from "../errors/index.js";
import type { CoderBackend } from "./contract.js";
import { knownCoders, registerCoder, resolveCoder } from "./registry.js";

const stub = (name: string): CoderBackend => ({
  name,
  probe: async () => ({ name, installed: true, version: "1.0", hint: null }),
  run: async () => {
    throw new Error("not used");
  },
});

describe("coder registry", () => {
  it("resolves command:<shell> without registration", () => {
    expect(resolveCoder("command:./fix.sh --all").name).toBe("command:./fix.sh --all");
    expect(resolveCoder(" Command:make ").name).toBe("command:make");
  });

  it("refuses command: without a shell command", () => {
    expect(() => resolveCoder("command:")).toThrow(expect.objectContaining({ code: "CODER_UNKNOWN" }));
    expect(() => resolveCoder("command:   ")).toThrow(/needs a shell command/);
  });

  it("resolves registered backends case-insensitively and passes deps to the factory", () => {
    let seen: unknown;
    registerCoder("stubby", (deps) => {
      seen = deps;
      return stub("stubby");
    });
    const deps = {};
    expect(resolveCoder("Stubby", deps).name).toBe("stubby");
    expect(seen).toBe(deps);
    expect(knownCoders()).toContain("stubby");
    expect(knownCoders().at(-1)).toBe("command:<shell>");
  });

  it("rejects an unknown name with the list of known coders", () => {
    registerCoder("alpha", () => stub("alpha"), { replace: true });
    let error: unknown;
    try {
      resolveCoder("nope");
    } catch (caught) {
      error = caught;
    }
    if (!isDevflowError(error, "CODER_UNKNOWN")) throw new Error(`expected CODER_UNKNOWN, got ${error}`);
    const message = error.message;
    expect(message).toContain('unknown coder "nope"');
    expect(message).toContain("alpha");
    expect(message).toContain("command:<shell>");
    expect(error.hint).toContain("DEVFLOW_PROMPT_FILE");
  });

  it("refuses duplicate and malformed registrations", () => {
    registerCoder("beta", () => stub("beta"));
    expect(() => registerCoder("beta", () => stub("beta"))).toThrow(/already registered/);
    registerCoder("beta", () => stub("beta2"), { replace: true });
    expect(resolveCoder("beta").name).toBe("beta2");
    expect(() => registerCoder("command", () => stub("x"))).toThrow(/reserved/);
    expect(() => registerCoder("Bad Name", () => stub("x"))).toThrow(/lower-case/);
  });
});
