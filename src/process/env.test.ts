import { describe, expect, it } from "vitest";
import { baseEnv } from "./env.js";

const source = {
  PATH: "/usr/bin:/bin",
  HOME: "/home/dev",
  USER: "dev",
  LOGNAME: "dev",
  SHELL: "/bin/bash",
  LANG: "C.UTF-8",
  LC_ALL: "C.UTF-8",
  LC_CTYPE: "C.UTF-8",
  TERM: "xterm",
  TMPDIR: "/tmp",
  TZ: "UTC",
  NODE_EXTRA_CA_CERTS: "/etc/ca.pem",
  SSL_CERT_FILE: "/etc/ssl/cert.pem",
  OPENAI_API_KEY: "sk-should-not-leak",
  GITHUB_TOKEN: "ghp_should_not_leak",
  CLAUDECODE: "1",
  EJ_RUNNER_PWD: "/elsewhere",
  NODE_OPTIONS: "--inspect",
  UNSET: undefined,
};

describe("baseEnv", () => {
  it("keeps only the allowlisted variables", () => {
    expect(baseEnv({}, source)).toEqual({
      PATH: "/usr/bin:/bin",
      HOME: "/home/dev",
      USER: "dev",
      LOGNAME: "dev",
      SHELL: "/bin/bash",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      LC_CTYPE: "C.UTF-8",
      TERM: "xterm",
      TMPDIR: "/tmp",
      TZ: "UTC",
      NODE_EXTRA_CA_CERTS: "/etc/ca.pem",
      SSL_CERT_FILE: "/etc/ssl/cert.pem",
    });
  });

  it("adds extra variables, which win over inherited ones", () => {
    const env = baseEnv({ OPENAI_API_KEY: "sk-passed-on-purpose", HOME: "/run/home" }, source);
    expect(env.OPENAI_API_KEY).toBe("sk-passed-on-purpose");
    expect(env.HOME).toBe("/run/home");
    expect(env.GITHUB_TOKEN).toBeUndefined();
  });

  it("reads process.env by default without leaking its secrets", () => {
    const previous = process.env.DEVFLOW_TEST_API_KEY;
    process.env.DEVFLOW_TEST_API_KEY = "sk-from-process-env";
    try {
      const env = baseEnv();
      expect(env.DEVFLOW_TEST_API_KEY).toBeUndefined();
      expect(env.PATH).toBe(process.env.PATH);
    } finally {
      if (previous === undefined) delete process.env.DEVFLOW_TEST_API_KEY;
      else process.env.DEVFLOW_TEST_API_KEY = previous;
    }
  });
});
