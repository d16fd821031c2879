import { describeRunnerFixture } from "./runner-scenario.js";

describeRunnerFixture("jest", { namesFiles: true, hasTodo: true });
