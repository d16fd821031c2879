import { describe, expect, it } from "vitest";
import { createStreamRedactor, REDACTED, redactDeep, redactSecrets, secretsFromEnv } from "./redact.js";
import { clearRegisteredSecrets, registerSecret } from "./secrets.js";

describe("redactSecrets patterns", () => {
  const cases: Array<[string, string, string]> = [
    ["OpenAI key", "key: sk-abc123DEF456ghi789JKL012", `key: ${REDACTED}`],
    ["OpenAI project key", "sk-proj-Ab12Cd34Ef56Gh78Ij90_Kl-Mn", REDACTED],
    ["Anthropic key", "x sk-ant-api03-AbCdEf0123456789xyz y", `x ${REDACTED} y`],
    ["Bearer token", "Authorization: Bearer eyAbC.123-xyz_tok", `Authorization: Bearer ${REDACTED}`],
    ["GitHub classic token", "ghp_0123456789abcdefghijABCDEFGHIJ012345", REDACTED],
    ["GitHub OAuth token", "gho_0123456789abcdefghijABCDEFGHIJ012345", REDACTED],
    ["GitHub fine-grained PAT", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop", REDACTED],
    ["Slack token", "xoxb-1234567890-abcdefghij", REDACTED],
    ["AWS access key id", "id=AKIAIOSFODNN7EXAMPLE.", `id=${REDACTED}.`],
    [
      "JWT",
      "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U end",
      `jwt ${REDACTED} end`,
    ],
    ["NAME=value", "OPENAI_API_KEY=abc.def-123", `OPENAI_API_KEY=${REDACTED}`],
    ["quoted NAME=value", `export DB_PASSWORD="two words"`, `export DB_PASSWORD="${REDACTED}"`],
    ["TOML assignment", `api_key = "k3y-value"`, `api_key = "${REDACTED}"`],
    ["CLI flag", "--api-key=letmein99 --verbose", `--api-key=${REDACTED} --verbose`],
    [
      "JSON field",
      `{"client_secret": "s3cr3t \\" quoted", "n": 1}`,
      `{"client_secret": "${REDACTED}", "n": 1}`,
    ],
    ["camelCase JSON", `{"accessToken":"abcdef"}`, `{"accessToken":"${REDACTED}"}`],
    ["URL credentials", "postgres://admin:pa55word@db:5432/x", `postgres://admin:${REDACTED}@db:5432/x`],
  ];
  for (const [name, input, expected] of cases) {
    it(`redacts ${name}`, () => {
      expect(redactSecrets(input)).toBe(expected);
    });
  }

  it("leaves ordinary text, token counts and key-like words alone", () => {
    const text = [
      `{"input_tokens": 1200, "output_tokens": "34", "max_tokens": 100}`,
      "input_tokens=1200 tokenizer=fast secretary=Ann",
      "sk-learn-compatible-pipeline-for-everyone and task-runner",
      "http://localhost:8080/path@v2 and git@github.com:org/repo.git",
      "TOKEN=",
      "a Bearer",
    ].join("\n");
    expect(redactSecrets(text)).toBe(text);
  });

  // Regression: `\b[A-Za-z0-9_.-]*TOKEN...` backtracked quadratically, so one 256 KiB line of
  // "a.a.a." or base64 took minutes and stalled the coder's output pipe (vitest's timeout catches it).
  it("redacts huge lines of token characters without quadratic backtracking", () => {
    const blobs = [
      "a.".repeat(128 * 1024),
      "sk-".repeat(80_000),
      "eyJ-".repeat(65_000),
      "TOKEN_".repeat(45_000),
      "x".repeat(200_000).replace(/x{64}/g, (m) => `${m}-`),
    ];
    for (const blob of blobs) {
      expect(redactSecrets(`${blob} API_TOKEN=abcdef ${blob}`)).toBe(`${blob} API_TOKEN=${REDACTED} ${blob}`);
    }
  });

  it("is idempotent", () => {
    const once = redactSecrets("API_TOKEN=abcdef sk-abc123DEF456ghi789JKL012");
    expect(redactSecrets(once)).toBe(once);
  });
});

describe("redactSecrets known literals", () => {
  it("replaces every occurrence of each literal of at least 6 characters, longest first", () => {
    const text = "pw hunter2hunter2 and hunter2 and abc";
    expect(redactSecrets(text, ["hunter2", "hunter2hunter2", "abc"])).toBe(
      `pw ${REDACTED} and ${REDACTED} and abc`,
    );
  });

  it("redacts each line of a multi-line secret such as a PEM key", () => {
    const pem = "-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0B\n-----END KEY-----";
    const out = redactSecrets(`key:\n${pem}\n`, [pem]);
    expect(out).not.toContain("MIIEvQIBADANBgkqhkiG9w0B");
  });
});

describe("secretsFromEnv", () => {
  it("returns the values of secret-looking variables only", () => {
    const secrets = secretsFromEnv({
      OPENAI_API_KEY: "sk-live-value",
      GITHUB_TOKEN: "ghp_value123",
      AWS_SECRET_ACCESS_KEY: "aws-secret-value",
      DB_PASSWORD: "pa55word",
      STRIPE_KEY: "stripe-value",
      SHORT_TOKEN: "abc",
      UNSET_TOKEN: undefined,
      PATH: "/usr/bin:/bin",
      HOME: "/root",
      INPUT_TOKENS_LIMIT: "120000",
    });
    expect(secrets.sort()).toEqual(
      ["aws-secret-value", "ghp_value123", "pa55word", "sk-live-value", "stripe-value"].sort(),
    );
  });
});

describe("createStreamRedactor", () => {
  const runStream = (chunks: string[], secrets: string[] = [], maxPending?: number): string => {
    const redactor = createStreamRedactor(secrets, maxPending);
    return chunks.map((chunk) => redactor.push(chunk)).join("") + redactor.flush();
  };

  it("catches a secret split across chunks", () => {
    const out = runStream(
      ["the key is sk-proj-abc12", "3DEF456ghi789jkl\nnext line hunt", "er2-secret\n"],
      ["hunter2-secret"],
    );
    expect(out).toBe(`the key is ${REDACTED}\nnext line ${REDACTED}\n`);
  });

  it("emits complete lines at once and holds back only the unterminated rest", () => {
    const redactor = createStreamRedactor();
    expect(redactor.push("one\ntw")).toBe("one\n");
    expect(redactor.push("o\nthr")).toBe("two\n");
    expect(redactor.flush()).toBe("thr");
  });

  it("bounds memory on a huge line without newlines and still redacts secrets inside it", () => {
    const filler = "word ".repeat(20_000);
    const chunks = [filler, "sk-proj-abc123DEF456ghi789jkl ", filler, "end"];
    const redactor = createStreamRedactor([], 16 * 1024);
    let out = "";
    for (const chunk of chunks) {
      out += redactor.push(chunk);
      // Everything but the last 16 KiB has been emitted after each push.
      expect(chunks.join("").startsWith(out.replace(REDACTED, "sk-proj-abc123DEF456ghi789jkl"))).toBe(true);
    }
    out += redactor.flush();
    expect(out).toBe(`${filler}${REDACTED} ${filler}end`);
  });
});

/**
 * issue 11 (per-attempt CPU): every checkpoint redacted the whole lane state string by string
 * again. Fix: redactDeep keeps its answer per string for as long as `knownSecrets()` returns the
 * same list. Pinned: a secret that becomes known after a string was redacted (registered, or set
 * in the environment) is redacted in that same string on the next call; unregistered, it is not.
 */
describe("redactDeep answers kept per string", () => {
  it("never serves an answer given before a secret became known", () => {
    const value = { note: "deploy with zq9-late-secret-7781 today", list: ["zq9-late-secret-7781"] };
    expect(redactDeep(value)).toBe(value);
    registerSecret("LATE_KEY", "zq9-late-secret-7781");
    try {
      expect(redactDeep(value)).toEqual({
        note: "deploy with [redacted:LATE_KEY] today",
        list: ["[redacted:LATE_KEY]"],
      });
    } finally {
      clearRegisteredSecrets();
    }
    expect(redactDeep(value)).toBe(value);
    process.env.DEVFLOW_TEST_LATE_TOKEN = "zq9-late-secret-7781";
    try {
      expect(redactDeep(value).note).toBe("deploy with [redacted:DEVFLOW_TEST_LATE_TOKEN] today");
    } finally {
      delete process.env.DEVFLOW_TEST_LATE_TOKEN;
    }
    expect(redactDeep(value)).toBe(value);
  });
});
