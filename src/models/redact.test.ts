import { describe, expect, it } from "vitest";
import { redactDeep, redactSecrets } from "./redact.js";

describe("redactSecrets", () => {
  it("removes known secret values and secret-shaped tokens", () => {
    const text =
      "key=my-local-secret-value auth: Bearer abcdefghijklmnop1234 sk-abcdefghijklmnopqrstu AKIAABCDEFGHIJKLMNOP";
    expect(redactSecrets(text, ["my-local-secret-value"])).toBe(
      "key=[REDACTED] auth: Bearer [REDACTED] [REDACTED] [REDACTED]",
    );
  });

  it("leaves short known values and ordinary text alone", () => {
    expect(redactSecrets("test the sky", ["test"])).toBe("test the sky");
  });

  it("reaches strings nested in objects and arrays", () => {
    expect(redactDeep({ a: ["x sk-abcdefghijklmnopqrstu"], b: 1 })).toEqual({ a: ["x [REDACTED]"], b: 1 });
  });
});
