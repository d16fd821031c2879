import { afterEach, describe, expect, it } from "vitest";
import { killPoint, TEST_KILL_AT_ENV } from "./test-kill-point.js";

const saved = process.env[TEST_KILL_AT_ENV];
afterEach(() => {
  if (saved === undefined) delete process.env[TEST_KILL_AT_ENV];
  else process.env[TEST_KILL_AT_ENV] = saved;
});

describe("the crash-test hook (ADR 0033)", () => {
  it("is inert when the variable is unset or names another point", () => {
    delete process.env[TEST_KILL_AT_ENV];
    expect(() => killPoint("repair:end")).not.toThrow();
    process.env[TEST_KILL_AT_ENV] = "commit:end@2";
    expect(() => killPoint("repair:end")).not.toThrow();
  });

  it("refuses a point that does not exist, so a renamed point cannot make a crash test pass without crashing", () => {
    process.env[TEST_KILL_AT_ENV] = "repair.lesson-apended";
    expect(() => killPoint("repair:end")).toThrow(/names no kill point/);
    process.env[TEST_KILL_AT_ENV] = "repair:end@0";
    expect(() => killPoint("repair:end")).toThrow(/names no kill point/);
  });
});
