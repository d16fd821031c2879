import { ArtifactStore } from "../artifacts/store.js";
import { taskDir } from "./paths.js";

/** The artifact store of iterate task `taskId` (`.devflow/iterate/<taskId>/`); the id is checked. */
export const openTaskStore = (repoRoot: string, taskId: string): ArtifactStore =>
  new ArtifactStore(taskDir(repoRoot, taskId));
