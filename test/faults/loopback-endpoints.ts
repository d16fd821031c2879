import { afterAll, afterEach, vi } from "vitest";
import { type OpenAIServer, type ScriptedResponse, startOpenAIServer } from "../support/openai-server.js";

/**
 * Loopback OpenAI-compatible servers for one test file, all closed after it: `serve(script)` starts
 * one; `liveEndpoint()` starts one that answers nothing and points devflow's live mode at it
 * (OPENAI_BASE_URL, no key; undone after each test), so any request it sees is a model call spent.
 */
export function useLoopbackEndpoints() {
  const servers: OpenAIServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });
  const serve = async (script: ScriptedResponse[]): Promise<OpenAIServer> => {
    const server = await startOpenAIServer(script);
    servers.push(server);
    return server;
  };
  const liveEndpoint = async (): Promise<OpenAIServer> => {
    const server = await serve([]);
    vi.stubEnv("OPENAI_BASE_URL", server.url);
    vi.stubEnv("OPENAI_API_KEY", "");
    return server;
  };
  return { serve, liveEndpoint };
}
