import { describeRunnerFixture } from "./runner-scenario.js";

describeRunnerFixture("tape", { namesFiles: false, hasTodo: false });
