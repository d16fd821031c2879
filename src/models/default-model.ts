/** The model devflow's agents use unless told otherwise. A leaf module: the CLI's option defaults
 * read it without loading the gateway (langchain, openai; ADR 0042). */
export const DEFAULT_MODEL = "gpt-4.1-mini";
