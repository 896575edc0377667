// What every connection to the embedded relay may send, all together, per second (the daemon's
// own excepted): the relay runs on the daemon's main thread, and a crowd of clients each within
// its own limits must not take all of it. Over the budget, connections are not cut but paused:
// they wait in their own sockets while the debt is paid back.

import { fullBucket, takeOnCredit, type Bucket, type BucketRate } from "../../src/relay-guard/token-bucket.js";

export class InboundBudget {
  private bucket: Bucket;

  constructor(private readonly rate: BucketRate, private readonly now: () => number) {
    this.bucket = fullBucket(rate, now());
  }

  /** Charges a frame of `bytes`; how long its connection should wait before reading more (0: none). */
  charge(bytes: number): number {
    const r = takeOnCredit(this.bucket, this.rate, bytes, this.now());
    this.bucket = r.bucket;
    return r.waitMs;
  }
}
