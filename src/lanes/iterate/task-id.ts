import slugify from "@sindresorhus/slugify";
import { DevflowError } from "../../errors/index.js";

const MAX_LENGTH = 60;

/** Default task id: the slug of the request (seeds/00: "Add login form" → add-login-form), bounded. */
export function taskIdFromRequest(request: string): string {
  const slug = slugify(request).slice(0, MAX_LENGTH).replace(/-+$/, "");
  if (!slug)
    throw new DevflowError(
      "TASK_ID_INVALID",
      "the request has no letters or digits to name the task; pass --task-id <id>",
    );
  return slug;
}
