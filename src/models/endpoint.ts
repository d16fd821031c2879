/**
 * Which OpenAI-compatible endpoint the live model talks to. Kept apart from live-chat-model.ts so
 * that reading it (doctor, the gateway's configuration check) does not load @langchain/openai.
 */
import { DevflowError } from "../errors/index.js";
import { registerSecret } from "../util/secrets.js";

export const DEFAULT_BASE_URL = "https://api.openai.com/v1";
// Local OpenAI-compatible servers (llama.cpp, vLLM, Ollama) ignore the key but the SDK requires one.
const PLACEHOLDER_API_KEY = "devflow-local-no-key";

export interface Endpoint {
  apiKey: string;
  /** undefined: the SDK default (api.openai.com). */
  baseURL: string | undefined;
  /** The real key, when one was given (so cassettes and messages can redact it). */
  secret: string | undefined;
}

/** Reads OPENAI_API_KEY / OPENAI_BASE_URL; neither set is a configuration error, before any work. */
export function resolveEndpoint(env: NodeJS.ProcessEnv): Endpoint {
  const apiKey = env.OPENAI_API_KEY?.trim() || undefined;
  const baseURL = env.OPENAI_BASE_URL?.trim() || undefined;
  if (apiKey === undefined && baseURL === undefined) {
    throw new DevflowError(
      "MODEL_CONFIG",
      "set OPENAI_API_KEY (or OPENAI_BASE_URL for a local OpenAI-compatible endpoint)",
    );
  }
  // The configured key is a secret wherever it came from (an `env` other than process.env too).
  registerSecret("OPENAI_API_KEY", apiKey);
  return { apiKey: apiKey ?? PLACEHOLDER_API_KEY, baseURL, secret: apiKey };
}
