import { isDevflowError } from "../../errors/index.js";

/**
 * The live endpoint the daemon's readiness probe asks (ADR 0052): OPENAI_BASE_URL / OPENAI_API_KEY
 * as the live model reads them. None configured → null (no probe): every ticket's run then meets
 * MODEL_CONFIG, which latches the provider gate `misconfig` with that one-line error.
 */
export async function probeTarget(
  env: NodeJS.ProcessEnv,
): Promise<{ baseURL: string; apiKey: string } | null> {
  const { DEFAULT_BASE_URL, resolveEndpoint } = await import("../../models/endpoint.js");
  try {
    const endpoint = resolveEndpoint(env);
    return { baseURL: endpoint.baseURL ?? DEFAULT_BASE_URL, apiKey: endpoint.apiKey };
  } catch (error) {
    if (isDevflowError(error, "MODEL_CONFIG")) return null;
    throw error;
  }
}
