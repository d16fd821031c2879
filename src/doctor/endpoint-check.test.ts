import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  errorAnswer,
  type OpenAIServer,
  startOpenAIServer,
  textAnswer,
} from "../../test/support/openai-server.js";
import { checkModelEndpoint } from "./endpoint-check.js";

const KEY = "sk-doctor-endpoint-test-0123456789abcdef";
const MODEL = "gpt-4.1-mini";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function openai(script: Parameters<typeof startOpenAIServer>[0]): Promise<OpenAIServer> {
  const server = await startOpenAIServer(script);
  closers.push(() => server.close());
  return server;
}

/** A raw server for answers the OpenAI test server never gives (HTML, no answer at all). */
async function rawServer(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

const check = (baseUrl: string, timeoutMs = 10_000) =>
  checkModelEndpoint({ env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: baseUrl }, model: MODEL, timeoutMs });

describe("checkModelEndpoint", () => {
  it("200: ok, after one 1-token chat completion with the configured model and key", async () => {
    const server = await openai([textAnswer("O")]);
    const result = await check(server.url);
    expect(result).toMatchObject({ status: "ok", http_status: 200, base_url: server.url, model: MODEL });
    expect(result.detail).toBe(`reachable; model "${MODEL}" answered (HTTP 200)`);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.path).toBe("/v1/chat/completions");
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(server.requests[0]?.body).toMatchObject({ model: MODEL, max_tokens: 1 });
  });

  it('401: "authentication failed", naming the endpoint and the variable to check', async () => {
    const server = await openai([errorAnswer(401, "Incorrect API key provided", "invalid_api_key")]);
    const result = await check(server.url);
    expect(result).toMatchObject({ status: "fail", http_status: 401 });
    expect(result.detail).toContain(`authentication failed at ${server.url} (HTTP 401)`);
    expect(result.detail).toContain("Check OPENAI_API_KEY");
  });

  it("404: the model or endpoint was not found", async () => {
    const server = await openai([errorAnswer(404, "The model `gpt-nope` does not exist", "model_not_found")]);
    const result = await check(server.url);
    expect(result).toMatchObject({ status: "fail", http_status: 404 });
    expect(result.detail).toContain("was not found");
    expect(result.detail).toContain("gpt-nope");
  });

  it('closed port: "cannot reach"', async () => {
    const server = await startOpenAIServer([]);
    await server.close();
    const result = await check(server.url);
    expect(result).toMatchObject({ status: "fail", http_status: null });
    expect(result.detail).toContain(`cannot reach ${server.url}`);
    expect(result.detail).toContain("ECONNREFUSED");
  });

  it('no key and no base URL: "no key configured", without any request', async () => {
    let requests = 0;
    const result = await checkModelEndpoint({
      env: {},
      model: MODEL,
      fetch: async () => {
        requests += 1;
        throw new Error("doctor must not make a request without a configured endpoint");
      },
    });
    expect(requests).toBe(0);
    expect(result).toMatchObject({
      status: "fail",
      base_url: "https://api.openai.com/v1",
      http_status: null,
    });
    expect(result.detail).toContain("no key configured");
    expect(result.hint).toContain("OPENAI_API_KEY");
  });

  it("a base URL alone (local server) is enough: a placeholder key is sent", async () => {
    const server = await openai([textAnswer("O")]);
    const result = await checkModelEndpoint({ env: { OPENAI_BASE_URL: server.url }, model: MODEL });
    expect(result.status).toBe("ok");
    expect(server.requests[0]?.headers.authorization).toMatch(/^Bearer \S+/);
  });

  it("a refusal of the minimal request itself (400) is a warning: the endpoint is reachable and took the key", async () => {
    const server = await openai([errorAnswer(400, "Unsupported parameter: 'max_tokens'")]);
    const result = await check(server.url);
    expect(result).toMatchObject({ status: "warn", http_status: 400 });
    expect(result.detail).toContain("Unsupported parameter");
  });

  it("an exhausted quota fails; a plain rate limit only warns", async () => {
    const server = await openai([
      errorAnswer(429, "You exceeded your current quota", "insufficient_quota"),
      errorAnswer(429, "Rate limit reached"),
    ]);
    expect(await check(server.url)).toMatchObject({ status: "fail", http_status: 429 });
    expect(await check(server.url)).toMatchObject({ status: "warn", http_status: 429 });
  });

  it("a 200 that is not a chat completion (a web page) fails with where to point OPENAI_BASE_URL", async () => {
    const url = await rawServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html>welcome</html>");
    });
    const result = await check(url);
    expect(result).toMatchObject({ status: "fail", http_status: 200 });
    expect(result.detail).toContain("not with a chat completion");
    expect(result.hint).toContain("OPENAI_BASE_URL");
  });

  it("an endpoint that never answers fails as timed out within the bound", async () => {
    const url = await rawServer(() => {});
    const result = await check(url, 300);
    expect(result.status).toBe("fail");
    expect(result.detail).toContain("timed out");
  });

  it("fetch's hidden reason for refusing a URL is shown (bad port), instead of a bare 'fetch failed'", async () => {
    const result = await check("http://127.0.0.1:9/v1");
    expect(result.status).toBe("fail");
    expect(result.detail).toContain("(bad port)");
  });

  it("a base URL that is not a URL is named", async () => {
    const result = await checkModelEndpoint({ env: { OPENAI_BASE_URL: "localhost 8080" }, model: MODEL });
    expect(result.status).toBe("fail");
    expect(result.detail).toContain('OPENAI_BASE_URL="localhost 8080" is not a URL');
  });
});
