import { describeRunnerFixture } from "./runner-scenario.js";

describeRunnerFixture("mocha", { namesFiles: true, hasTodo: false });
