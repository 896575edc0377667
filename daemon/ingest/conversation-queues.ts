// One ordered queue per conversation (never two handlers on one conversation at once) under a
// global bound on how many conversations run at the same time.

import PQueue from "p-queue";

export class ConversationQueues {
  private readonly queues = new Map<string, PQueue>();
  private readonly global: PQueue;

  constructor(maxConcurrentConversations: number) {
    this.global = new PQueue({ concurrency: maxConcurrentConversations });
  }

  /** Run `task` after every earlier task of the same conversation. */
  run<T>(conversationId: string, task: () => Promise<T>): Promise<T> {
    let q = this.queues.get(conversationId);
    if (!q) {
      q = new PQueue({ concurrency: 1 });
      this.queues.set(conversationId, q);
      // Drop idle queues so memory stays bounded by the conversations that are busy.
      q.on("idle", () => {
        if (q!.size === 0 && q!.pending === 0) this.queues.delete(conversationId);
      });
    }
    return q.add(() => this.global.add(task)) as Promise<T>;
  }

  isBusy(conversationId: string): boolean {
    const q = this.queues.get(conversationId);
    return !!q && (q.size > 0 || q.pending > 0);
  }

  depths(): { conversations: number; queued: number; running: number } {
    let queued = 0;
    for (const q of this.queues.values()) queued += q.size;
    return { conversations: this.queues.size, queued, running: this.global.pending };
  }

  async idle(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.onIdle()));
    await this.global.onIdle();
  }
}
