// Sends one signed event to every relay and collects who said OK true.

import { NDKEvent } from "@nostr-dev-kit/ndk";
import type NDK from "@nostr-dev-kit/ndk";
import type { NostrEvent } from "../../src/types.js";
import { waitForConnect, type RelayLink } from "./relay-links.js";

export interface PublishOutcome {
  accepted: string[];
  /** Why each relay that did not accept it refused, failed or timed out. */
  refused: Record<string, string>;
}

export async function publishToRelays(
  ndk: NDK,
  links: readonly RelayLink[],
  ev: NostrEvent,
  timeoutMs: number,
): Promise<PublishOutcome> {
  const ndkEvent = new NDKEvent(ndk, ev);
  const results = await Promise.all(links.map((link) => publishOne(link, ndkEvent, timeoutMs)));
  const outcome: PublishOutcome = { accepted: [], refused: {} };
  links.forEach((link, i) => {
    const r = results[i];
    if (r === true) outcome.accepted.push(link.url);
    else outcome.refused[link.url] = r ?? "no result";
  });
  return outcome;
}

/** true, or the reason it was not accepted. */
async function publishOne(link: RelayLink, ev: NDKEvent, timeoutMs: number): Promise<true | string> {
  const started = Date.now();
  // Waiting ourselves keeps NDK from calling connect() on a relay that is mid-reconnect.
  if (!(await waitForConnect(link.relay, timeoutMs))) return "not connected";
  try {
    await link.relay.publish(ev, Math.max(1, timeoutMs - (Date.now() - started)));
    return true;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
