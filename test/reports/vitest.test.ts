import { describeRunnerFixture } from "./runner-scenario.js";

describeRunnerFixture("vitest", { namesFiles: true, hasTodo: true });
