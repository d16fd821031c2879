/** devflow's Coder is Junie-backed unless the user picks another backend. A leaf module: the CLI's
 * option defaults read it without loading the backends (ADR 0042). */
export const DEFAULT_CODER = "junie";
