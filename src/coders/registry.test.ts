import { describe, expect, it } from "vitest";
import { type CoderBackend, CoderUnavailableError } from "./contract.js";
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
    expect(() => resolveCoder("command:")).toThrow(CoderUnavailableError);
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
    expect(error).toBeInstanceOf(CoderUnavailableError);
    const message = (error as CoderUnavailableError).message;
    expect(message).toContain('unknown coder "nope"');
    expect(message).toContain("alpha");
    expect(message).toContain("command:<shell>");
    expect((error as CoderUnavailableError).hint).toContain("DEVFLOW_PROMPT_FILE");
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
