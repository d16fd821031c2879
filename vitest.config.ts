import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "evals/**/*.test.ts", "playground/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Tests spawn real git and child processes; two cores are shared between workers.
    pool: "forks",
  },
});
