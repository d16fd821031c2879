import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { z } from "zod";
import type { ModelGateway, Role } from "../../models/contract.js";

export interface StructuredAsk<S extends z.ZodType> {
  gateway: ModelGateway;
  role: Role;
  /** Name of the answer (the forced function tool), e.g. "route_decision". */
  name: string;
  description: string;
  schema: S;
  /** The system prompt (from the agent's folder, filled). */
  system: string;
  /** The user message: the input the agent judges. */
  input: string;
  /** Book usage under this attempt (default: the gateway's current attempt). */
  attemptId?: string;
}

/**
 * One structured call for an agent: system prompt + one user message, answered as `schema` by the
 * gateway (src/models/structured-call.ts: a forced function tool, zod validation, one repair round
 * that shows the model its validation error, StructuredOutputError naming the role after that).
 */
export function askStructured<S extends z.ZodType>(ask: StructuredAsk<S>): Promise<z.infer<S>> {
  return ask.gateway.structured({
    role: ask.role,
    name: ask.name,
    description: ask.description,
    schema: ask.schema,
    messages: [new SystemMessage(ask.system), new HumanMessage(ask.input)],
    ...(ask.attemptId === undefined ? {} : { attemptId: ask.attemptId }),
  });
}
