import { hasAny } from "./env.js";
import type { OpenAiEndpoint, SourceEnv } from "./types.js";

const FULL_PATH = /\/(?:chat\/completions|responses)$/;

/** The endpoint's base URL without a trailing slash (the OPENAI_BASE_URL form, e.g. .../v1). */
export function endpointBase(endpoint: OpenAiEndpoint): string {
  return endpoint.baseUrl.replace(/\/+$/, "").replace(FULL_PATH, "");
}

/** The full request URL for CLIs that append no path themselves (Junie's model profiles). */
export function endpointUrl(endpoint: OpenAiEndpoint): string {
  return `${endpointBase(endpoint)}/${endpoint.api === "responses" ? "responses" : "chat/completions"}`;
}

export function endpointKeyEnv(endpoint: OpenAiEndpoint): string | undefined {
  const name = endpoint.apiKeyEnv?.trim();
  return name === undefined || name === "" ? undefined : name;
}

/** A keyless endpoint (a local server) needs nothing; a named key variable must be set. */
export function endpointKeyAvailable(endpoint: OpenAiEndpoint, env: SourceEnv): boolean {
  const name = endpointKeyEnv(endpoint);
  return name === undefined || hasAny(env, [name]);
}
