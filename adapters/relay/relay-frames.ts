// Reads one client frame of the embedded relay: JSON, the message's own size bound, COUNT (not
// served: refused as a read), the library's validation, then the relay (and its plugins).

import { createOutgoingClosedMessage, createOutgoingNoticeMessage } from "@nostr-relay/common";
import type { NostrRelay } from "@nostr-relay/core";
import type { Validator } from "@nostr-relay/validator";
import { mayRead, type AccessPolicy } from "../../src/relay-guard/access.js";
import { oversizedRequest, type TransportLimits } from "../../src/relay-guard/transport-limits.js";
import type { RelayCounters } from "./relay-counters.js";
import type { RelaySession } from "./relay-session.js";

export interface FrameDeps {
  relay: NostrRelay;
  validator: Validator;
  counters: RelayCounters;
  limits?: TransportLimits;
  access?: AccessPolicy;
}

const reply = (session: RelaySession, message: unknown) => session.send(JSON.stringify(message));

export function frameHandler(d: FrameDeps): (session: RelaySession, text: string, bytes: number) => Promise<void> {
  return async (session, text, bytes) => {
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      d.counters.refuse("invalid_message");
      reply(session, createOutgoingNoticeMessage("invalid: not JSON"));
      return;
    }
    const type = Array.isArray(msg) && typeof msg[0] === "string" ? msg[0] : undefined;
    const subId = Array.isArray(msg) && typeof msg[1] === "string" ? msg[1] : undefined;
    const oversized = type !== undefined && d.limits ? oversizedRequest(type, bytes, d.limits) : undefined;
    if (oversized) {
      d.counters.refuse("request_too_large");
      reply(session, subId !== undefined && (type === "REQ" || type === "COUNT") ? createOutgoingClosedMessage(subId, oversized) : createOutgoingNoticeMessage(oversized));
      return;
    }
    if (type === "COUNT" && subId !== undefined) {
      const read = d.access ? mayRead(d.access, session.authed) : { ok: true as const };
      if (!read.ok) d.counters.refuse(read.reason);
      reply(session, createOutgoingClosedMessage(subId, read.ok ? "unsupported: COUNT is not served here" : read.message));
      return;
    }
    try {
      await d.relay.handleMessage(session, await d.validator.validateIncomingMessage(msg as Parameters<Validator["validateIncomingMessage"]>[0]));
    } catch (err) {
      d.counters.refuse("invalid_message");
      reply(session, createOutgoingNoticeMessage(err instanceof Error ? err.message : String(err)));
    }
  };
}
