import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { AIMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import type { Role } from "./contract.js";
import type { UsageLedger } from "./usage-ledger.js";

/**
 * Books the usage of every call a chat model makes (e.g. inside createAgent), so callers of
 * gateway.chatModel() never account tokens themselves.
 */
export class UsageCallbackHandler extends BaseCallbackHandler {
  name = "devflow_usage";

  constructor(
    private readonly ledger: UsageLedger,
    private readonly role: Role,
    private readonly model: string,
    private readonly currentAttempt: () => string | null,
  ) {
    // Awaited, not backgrounded: usage() right after a call must already include it.
    super({ _awaitHandler: true });
  }

  override handleLLMEnd(output: LLMResult): void {
    for (const generation of output.generations.flat()) {
      const message = "message" in generation ? generation.message : undefined;
      if (!AIMessage.isInstance(message)) continue;
      const usage = message.usage_metadata;
      this.ledger.book(
        this.role,
        this.model,
        { input_tokens: usage?.input_tokens ?? 0, output_tokens: usage?.output_tokens ?? 0 },
        this.currentAttempt(),
      );
    }
  }
}
