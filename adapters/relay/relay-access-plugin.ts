// The project's rules at the relay's message level, as a @nostr-relay/core plugin: AUTH (NIP-42,
// on the library's own challenge, the connection's id, sent on connect), REQ (needs AUTH by one
// of the project's people; filters and subscriptions bounded) and EVENT (only the project's
// people, only up to the event size limit). Anything refused is answered, counted and goes no
// further.

import {
  EventUtils, createOutgoingClosedMessage, createOutgoingOkMessage,
  type ClientContext, type Event, type HandleMessagePlugin, type HandleMessageResult, type IncomingMessage,
} from "@nostr-relay/common";
import { mayAuthenticate, mayRead, mayWrite, type AccessPolicy } from "../../src/relay-guard/access.js";
import { refuseRequest, tierAfterAuth, type ClientLimits } from "../../src/relay-guard/client-limits.js";
import { authEventProblem } from "../../src/relay-guard/nip42.js";
import { oversizedEvent } from "../../src/relay-guard/transport-limits.js";
import type { RelayCounters } from "./relay-counters.js";
import type { RelaySession } from "./relay-session.js";

export interface AccessPluginOptions {
  counters: RelayCounters;
  /** Undefined: anyone reads and writes, AUTH is not asked. */
  access?: AccessPolicy;
  /** Pubkeys whose authenticated connections are the daemon's own (no rate or buffer limits). */
  trusted?: ReadonlySet<string>;
  client?: ClientLimits;
  maxEventBytes?: number;
  /** Where the relay listens: what an AUTH event's relay tag must name. */
  host: string;
  port: () => number;
  nowSecs: () => number;
}

export class AccessPlugin implements HandleMessagePlugin {
  constructor(private readonly o: AccessPluginOptions) {}

  async handleMessage(ctx: ClientContext, message: IncomingMessage, next: () => Promise<HandleMessageResult>): Promise<HandleMessageResult> {
    const session = ctx.client as RelaySession;
    switch (message[0]) {
      case "AUTH":
        // A relay that asks for no AUTH takes any (the library's behaviour).
        if (!this.o.access || this.o.access.auth === "off") return next();
        return this.auth(ctx, session, this.o.access, message[1]);
      case "REQ":
        return this.req(ctx, session, message[1], message.length - 2, next);
      case "EVENT":
        return this.event(ctx, session, message[1], next);
      default:
        return next();
    }
  }

  private auth(ctx: ClientContext, session: RelaySession, access: AccessPolicy, ev: Event): HandleMessageResult {
    const problem = EventUtils.validate(ev) ?? authEventProblem(ev, ctx.id, this.o.host, this.o.port(), this.o.nowSecs());
    const allowed = mayAuthenticate(access, ev.pubkey);
    if (problem !== undefined || !allowed.ok) {
      this.o.counters.refuse("auth_refused");
      ctx.sendMessage(createOutgoingOkMessage(ev.id, false, problem ?? (allowed.ok ? "" : allowed.message)));
      return { messageType: "AUTH", success: false };
    }
    if (session.authed === undefined) this.o.counters.authenticated++;
    session.authed = ev.pubkey;
    ctx.pubkey = ev.pubkey;
    session.tier = tierAfterAuth(ev.pubkey, this.o.trusted);
    ctx.sendMessage(createOutgoingOkMessage(ev.id, true));
    return { messageType: "AUTH", success: true };
  }

  private async req(ctx: ClientContext, session: RelaySession, subId: string, filters: number, next: () => Promise<HandleMessageResult>): Promise<HandleMessageResult> {
    const refused = (reason: Parameters<RelayCounters["refuse"]>[0], text: string): HandleMessageResult => {
      this.o.counters.refuse(reason);
      ctx.sendMessage(createOutgoingClosedMessage(subId, text));
      return { messageType: "REQ", events: [] };
    };
    if (this.o.access) {
      const read = mayRead(this.o.access, session.authed);
      if (!read.ok) return refused(read.reason, read.message);
    }
    if (this.o.client) {
      const limit = refuseRequest(filters, ctx.subscriptions.size, ctx.subscriptions.has(subId), this.o.client);
      if (limit) return refused(limit.reason, limit.message);
    }
    return next();
  }

  private async event(ctx: ClientContext, session: RelaySession, ev: Event, next: () => Promise<HandleMessageResult>): Promise<HandleMessageResult> {
    const refused = (reason: Parameters<RelayCounters["refuse"]>[0], text: string): HandleMessageResult => {
      this.o.counters.refuse(reason);
      ctx.sendMessage(createOutgoingOkMessage(ev.id, false, text));
      return { messageType: "EVENT", success: false, message: text };
    };
    if (this.o.access) {
      const write = mayWrite(this.o.access, ev.pubkey, session.authed);
      if (!write.ok) return refused(write.reason, write.message);
    }
    const tooLarge = this.o.maxEventBytes !== undefined ? oversizedEvent(Buffer.byteLength(JSON.stringify(ev)), this.o.maxEventBytes) : undefined;
    if (tooLarge) return refused("event_too_large", tooLarge);
    return next();
  }
}
