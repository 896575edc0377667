// One-shot query over several relays: resolves when every relay asked has sent EOSE (or closed
// the request, or dropped), or at the timeout with what arrived; deduplicated by event id.

import type NDK from "@nostr-dev-kit/ndk";
import type { NDKSubscription } from "@nostr-dev-kit/ndk";
import type { RelayFilter } from "../../src/ports.js";
import type { NostrEvent } from "../../src/types.js";
import type { RelayLink } from "./relay-links.js";
import { openRelaySub } from "./relay-sub.js";

export function fetchFromRelays(
  ndk: NDK,
  links: readonly RelayLink[],
  filters: RelayFilter[],
  timeoutMs: number,
  onDelivered: (url: string) => void,
): Promise<NostrEvent[]> {
  return new Promise((resolve) => {
    const events = new Map<string, NostrEvent>();
    const pending = new Set(links.map((l) => l.url));
    const subs: NDKSubscription[] = [];
    const detach: (() => void)[] = [];
    let done = false;

    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      for (const sub of subs) sub.stop();
      for (const off of detach) off();
      resolve([...events.values()]);
    };
    const settle = (url: string) => {
      pending.delete(url);
      if (pending.size === 0) finish();
    };
    const timer = setTimeout(finish, timeoutMs);

    for (const link of links) {
      // A relay that drops mid-query will never send its EOSE: stop waiting for it.
      const onDrop = () => settle(link.url);
      link.relay.on("disconnect", onDrop);
      detach.push(() => link.relay.off("disconnect", onDrop));
      subs.push(
        openRelaySub(ndk, link.relay, filters, {
          closeOnEose: true,
          onEvent: (ev) => {
            if (done) return;
            onDelivered(link.url);
            if (!events.has(ev.id)) events.set(ev.id, ev);
          },
          onEose: () => settle(link.url),
          onClosed: () => settle(link.url),
        }),
      );
    }
    if (pending.size === 0) finish();
  });
}
