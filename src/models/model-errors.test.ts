import { describe, expect, it } from "vitest";
import { describeModelError } from "./model-errors.js";

describe("describeModelError", () => {
  it("works without endpoint context and keeps the server's words", () => {
    const err = Object.assign(new Error("403 Project does not have access"), { status: 403 });
    expect(describeModelError(err)).toBe(
      "authentication failed at the model endpoint (HTTP 403): Project does not have access. Check OPENAI_API_KEY.",
    );
  });

  it("finds a refused connection in nested causes", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    const err = new TypeError("fetch failed", { cause: refused });
    expect(describeModelError(err, { baseURL: "http://127.0.0.1:1/v1", model: "m" })).toBe(
      "cannot reach http://127.0.0.1:1/v1 (ECONNREFUSED). Is the server running? Check OPENAI_BASE_URL.",
    );
  });

  it("redacts keys a server echoes back", () => {
    const err = Object.assign(new Error("x"), {
      status: 401,
      error: { message: "bad key sk-abc123defghijklmnopqrstuv" },
    });
    expect(describeModelError(err)).not.toContain("sk-abc123defghijklmnopqrstuv");
  });
});
