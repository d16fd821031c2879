import { describe, expect, it } from "vitest";
import { isDevflowError } from "../../../errors/index.js";
import { wholeNumberFromEnv } from "./env-number.js";

const NAME = "DEVFLOW_MAX_IDLE_CODER_CHECKOUTS";
const parse = (value: string | undefined, range?: { min?: number; max?: number }) =>
  wholeNumberFromEnv({ [NAME]: value }, NAME, 1, range);

describe("wholeNumberFromEnv", () => {
  it("gives the fallback when unset or blank, the number when plain digits", () => {
    expect(parse(undefined)).toBe(1);
    expect(parse("  ")).toBe(1);
    expect(parse("0")).toBe(0);
    expect(parse(" 7 ")).toBe(7);
    expect(parse("3", { min: 1, max: 3 })).toBe(3);
  });

  it.each(["-1", "1.5", "1e3", "0x10", "lots", "99999999999999999999"])(
    "rejects %j in one line naming the variable and the range",
    (value) => {
      let thrown: unknown;
      try {
        parse(value);
      } catch (error) {
        thrown = error;
      }
      expect(isDevflowError(thrown) && thrown.code).toBe("BAD_OPTION");
      const message = (thrown as Error).message;
      expect(message).toBe(`${NAME} must be a whole number ≥ 0 (got ${JSON.stringify(value)})`);
      expect(message).not.toContain("\n");
    },
  );

  it("names a bounded range as 'from min to max'", () => {
    expect(() => parse("4", { min: 1, max: 3 })).toThrow(
      `${NAME} must be a whole number from 1 to 3 (got "4")`,
    );
    expect(() => parse("0", { min: 1, max: 3 })).toThrow(
      `${NAME} must be a whole number from 1 to 3 (got "0")`,
    );
  });
});
