// The agent runs under way, by conversation and agent: who is working where (the operations
// status, kind 24133, says so to clients), and the handle a stop request (kind 24134) ends a
// run with. A run is open from the moment it is set to work until its record is committed.

export interface StopMark {
  /** The stop request's event id (kind 24134); none for a stop from the dashboard. */
  eventId?: string;
  /** Who asked: its author, or the owner for a stop from the dashboard. */
  by: string;
}

export interface ActiveRun {
  readonly conversationId: string;
  readonly agent: string;
  /** Aborted by a stop: the command's process group is killed (command-backend.ts). */
  readonly controller: AbortController;
  stoppedBy?: StopMark;
}

export class ActiveRuns {
  private readonly byConversation = new Map<string, Set<ActiveRun>>();

  /** `changed`: the agents working on a conversation changed (a run opened, or its last one closed). */
  constructor(private readonly changed: (conversationId: string) => void = () => undefined) {}

  open(conversationId: string, agent: string): ActiveRun {
    const run: ActiveRun = { conversationId, agent, controller: new AbortController() };
    let runs = this.byConversation.get(conversationId);
    if (!runs) this.byConversation.set(conversationId, (runs = new Set()));
    const before = this.working(conversationId).length;
    runs.add(run);
    if (this.working(conversationId).length !== before) this.changed(conversationId);
    return run;
  }

  close(run: ActiveRun): void {
    const runs = this.byConversation.get(run.conversationId);
    if (!runs?.delete(run)) return;
    if (runs.size === 0) this.byConversation.delete(run.conversationId);
    if (!this.working(run.conversationId).includes(run.agent)) this.changed(run.conversationId);
  }

  /** Ends `agent`'s runs on the conversation; how many there were. */
  stop(conversationId: string, agent: string, mark: StopMark): number {
    let stopped = 0;
    for (const run of this.byConversation.get(conversationId) ?? []) {
      if (run.agent !== agent || run.stoppedBy) continue;
      run.stoppedBy = mark;
      run.controller.abort();
      stopped++;
    }
    return stopped;
  }

  /** The agents working on the conversation now, each once. */
  working(conversationId: string): string[] {
    return [...new Set([...(this.byConversation.get(conversationId) ?? [])].map((r) => r.agent))];
  }
}
