// What `tenexd doctor` says of one configured relay after asking it for the project's own event
// with the key that answers AUTH (config.json `relayAuth.signer`): reachable or not, whether it
// asked for NIP-42 AUTH, whether it accepted the answer, and what to do when something fails.

export interface RelayProbe {
  url: string;
  /** The query ended with EOSE. */
  complete: boolean;
  /** Why it did not (connect error, CLOSED reason, timeout). */
  reason?: string;
  /** The relay sent an AUTH challenge. */
  asked: boolean;
  /** The relay's answer to ours, when it asked. */
  answered?: { accepted: true } | { accepted: false; reason: string };
  /** Who answered: `relayAuth.signer` and its pubkey. */
  signer: string;
  pubkey: string;
}

export interface RelayVerdict {
  ok: boolean;
  detail: string;
}

export function relayVerdict(p: RelayProbe): RelayVerdict {
  const who = `${p.signer} (${p.pubkey.slice(0, 12)}…)`;
  if (p.answered && !p.answered.accepted) {
    return { ok: false, detail: `requires AUTH and refused ours as ${who}: ${p.answered.reason}; have the relay admit that key, or set relayAuth.signer in config.json to a key it admits` };
  }
  const auth = p.asked ? (p.answered?.accepted ? `AUTH required, accepted as ${who}` : "AUTH asked, not answered in time") : "no AUTH asked";
  if (p.complete) return { ok: true, detail: `reachable; ${auth}` };
  if (!p.asked && p.reason?.startsWith("connect")) {
    return { ok: false, detail: `unreachable (${p.reason}): check the URL in config.json relays, and that the relay runs and this machine can reach it` };
  }
  return { ok: false, detail: `${auth}; the query did not complete (${p.reason ?? "no reason given"}): check the relay, or remove it from config.json relays` };
}
