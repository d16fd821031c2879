import { randomBytes } from "node:crypto";
import { basename } from "node:path";
import { isTaskId } from "../home/daemon-paths.js";

/**
 * A new ticket id: the submitted file's name as a slug plus 6 random hex digits
 * (`fix-cart-rounding-3f9a1c`). It names files under the queue and a folder under data/tickets,
 * so it follows the one id rule of src/home. Uniqueness is not left to chance: submit reserves the
 * id by creating its record folder (mkdir fails if it exists) and mints another on a collision.
 */
export function mintTicketId(source: string): string {
  const stem = basename(source).replace(/\.(md|markdown)$/i, "");
  const slug =
    stem
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 60)
      .replace(/-+$/, "") || "ticket";
  const id = `${slug}-${randomBytes(3).toString("hex")}`;
  return isTaskId(id) ? id : `ticket-${randomBytes(3).toString("hex")}`;
}
