// Which verifier checks signatures, chosen once at start: bcrypto's native BIP-340 when it
// loads natively and passes its self-test (self-test.ts), else nostr-wasm. The daemon shows the
// choice, and why the native one was passed over, in `tenexd status` and `tenexd doctor`.
// TENEXD_VERIFIER=nostr-wasm forces the fallback (to compare them, or to rule the native module
// out); any other value is refused at start.

import { VerifierChoiceError } from "./errors.js";
import { eventHash, loadNativeCheck, type Check, type JsonCheck } from "./native-verify.js";
import { selfTest } from "./self-test.js";

export const VERIFIER_BACKENDS = ["bcrypto-native", "nostr-wasm"] as const;
export type VerifierBackend = (typeof VERIFIER_BACKENDS)[number];

export interface VerifierChoice {
  backend: VerifierBackend;
  /** Why the native verifier is not the one running (absent when it is). */
  fallback?: string;
}

export const VERIFIER_ENV = "TENEXD_VERIFIER";
export { VerifierChoiceError };

/** `loadNative` is bcrypto's loader (tests hand in a broken one). */
export function chooseVerifier(env: NodeJS.ProcessEnv = process.env, loadNative: () => { check: Check } | { reason: string } = loadNativeCheck): VerifierChoice {
  const asked = env[VERIFIER_ENV];
  if (asked !== undefined && asked !== "" && !(VERIFIER_BACKENDS as readonly string[]).includes(asked)) {
    throw new VerifierChoiceError(`${VERIFIER_ENV}=${asked} is not a verifier: use ${VERIFIER_BACKENDS.join(" or ")}, or unset it`);
  }
  if (asked === "nostr-wasm") return { backend: "nostr-wasm", fallback: `${VERIFIER_ENV}=nostr-wasm` };
  const native = loadNative();
  if ("reason" in native) return { backend: "nostr-wasm", fallback: native.reason };
  const failed = selfTest(native.check, eventHash);
  if (failed) return { backend: "nostr-wasm", fallback: `bcrypto failed its ${failed}` };
  return { backend: "bcrypto-native" };
}

/**
 * The chosen backend's check in this thread (nostr-wasm's compiles on first import, ~60 ms).
 * A native check that no longer loads (a worker of a process whose choice was made in the main
 * thread) falls back to nostr-wasm rather than leaving the thread without a verifier.
 */
export async function loadCheck(backend: VerifierBackend): Promise<Check> {
  const native = backend === "bcrypto-native" ? loadNativeCheck() : undefined;
  if (native && "check" in native) return native.check;
  return (await import("./wasm-verify.js")).wasmCheck;
}

/** The check of `backend` that also gives each passing event's JSON (native-verify.ts JsonCheck). */
export async function loadJsonCheck(backend: VerifierBackend): Promise<JsonCheck> {
  const native = backend === "bcrypto-native" ? loadNativeCheck() : undefined;
  if (native && "jsonCheck" in native) return native.jsonCheck;
  const check = await loadCheck(backend);
  return (ev) => {
    const verdict = check(ev);
    if (verdict !== "ok") return { verdict };
    try {
      return { verdict, json: JSON.stringify(ev) };
    } catch {
      return { verdict };
    }
  };
}

/** One line for the status and doctor. */
export function choiceText(c: VerifierChoice): string {
  return c.fallback === undefined ? c.backend : `${c.backend} (native verifier not used: ${c.fallback})`;
}
