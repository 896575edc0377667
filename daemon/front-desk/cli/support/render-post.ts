// The human line for a message the daemon published for an agent.

import type { PostResult } from "../../shapes.js";

export function postText(r: PostResult): string {
  const conv = r.conversationAlias ?? r.conversationId.slice(0, 12);
  const msg = r.alias ?? r.event.id.slice(0, 12);
  return `${r.created ? "Started" : "Posted in"} ${conv}: ${msg} (event ${r.event.id})\n`;
}
