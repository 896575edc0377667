// Who a message is for, as the index stores it: its p-tagged pubkeys and, in a discussion
// scoped to a role or to all, the project's agents of that scope (the scope of the root
// applies to every reply in the conversation).

import type { Conversation } from "../src/conversation-state.js";
import { recipientsOf } from "../src/messaging/scope.js";
import { scopeOf } from "../src/tags.js";
import type { NostrEvent, ProjectInfo } from "../src/types.js";

export function recipientsFor(project: ProjectInfo): (ev: NostrEvent, conv: Conversation) => string[] {
  return (ev, conv) => {
    const root = conv.eventsById.get(conv.id)?.ev;
    const scope = root ? scopeOf(root.tags) : undefined;
    return recipientsOf(ev, project, scope);
  };
}
