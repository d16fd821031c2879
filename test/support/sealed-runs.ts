import { afterEach, beforeEach } from "vitest";
import { WRITABLE_DIRS_ENV } from "../../src/process/mount-seal.js";

/**
 * For the tests of the seal itself (ADR 0075): confined runs of this file get no writable dir of
 * the user's. The suite's runs may write the test temp root (vitest.config.ts), where stub coders
 * keep their state; a test that checks nothing leaves a run must not have that hole.
 */
export function withoutUserWritableDirs(): void {
  let before: string | undefined;
  beforeEach(() => {
    before = process.env[WRITABLE_DIRS_ENV];
    delete process.env[WRITABLE_DIRS_ENV];
  });
  afterEach(() => {
    if (before !== undefined) process.env[WRITABLE_DIRS_ENV] = before;
  });
}
