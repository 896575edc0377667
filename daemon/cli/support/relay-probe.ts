// `tenexd doctor`'s look at each configured relay: one connection each, answering AUTH with the
// key config.json names (relayAuth.signer), asking for the project's own event (31933), with a
// short timeout. src/relay-probe.ts says what the answer means.

import { KeySigner } from "../../../adapters/nostr/key-signer.js";
import { QueryConnection } from "../../../adapters/nostr/query-connection.js";
import { KIND } from "../../../src/kinds.js";
import { relayVerdict, type RelayProbe, type RelayVerdict } from "../../../src/relay-probe.js";
import { transportLimits } from "../../../src/relay-guard/transport-limits.js";
import type { LoadedProject } from "../../config/index.js";

const PROBE_TIMEOUT_MS = 4_000;

export async function probeRelay(url: string, project: LoadedProject, timeoutMs = PROBE_TIMEOUT_MS): Promise<RelayVerdict> {
  const { relayAuth } = project;
  const probe: RelayProbe = { url, complete: false, asked: false, signer: relayAuth.signer, pubkey: relayAuth.pubkey };
  const conn = new QueryConnection(url, {
    connectTimeoutMs: timeoutMs,
    maxFrameBytes: transportLimits(project.config.limits.maxEventBytes).clientMaxFrameBytes,
    authSigner: new KeySigner(relayAuth.secretKey),
    authHooks: { onAsked: () => (probe.asked = true), onAnswered: (o) => (probe.answered = o) },
  });
  try {
    const end = await conn.query([{ kinds: [KIND.PROJECT], authors: [project.owner.pubkey], "#d": [project.config.project.d], limit: 1 }], () => undefined, timeoutMs);
    probe.complete = end.complete;
    if (end.reason !== undefined) probe.reason = end.reason;
  } finally {
    conn.close();
  }
  return relayVerdict(probe);
}
