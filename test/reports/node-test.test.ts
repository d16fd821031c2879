import { describeRunnerFixture } from "./runner-scenario.js";

describeRunnerFixture("node-test", { namesFiles: true, hasTodo: true });
