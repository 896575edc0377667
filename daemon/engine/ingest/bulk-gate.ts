// Back-fill events come back from the verifier pool a few at a time. Staged as they come, each
// small group-commit flush syncs nearly one file per event (a back-fill is spread over many
// conversations) and updates nearly one conversation row per event in the index: three times
// what a large batch costs per event. Events that nobody waits for (history from a back-fill)
// pass this gate instead, which lets them through together every `lingerMs` or once `max` are
// waiting. Live events never wait here.

export class BulkGate {
  private waiting: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly lingerMs: number, private readonly max: number) {}

  /** Resolves when this event's group is let through. */
  pass(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (this.waiting.length >= this.max) this.release();
      else this.timer ??= setTimeout(() => this.release(), this.lingerMs);
    });
  }

  private release(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const group = this.waiting;
    this.waiting = [];
    for (const resolve of group) resolve();
  }
}
