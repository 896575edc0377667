// Why an inbound event was refused. The codes are stable: they key the status counters and
// the rejection log, so a new reason is added at the end and none is ever renamed.

export const REJECT_REASONS = [
  /** Not an object, or a field of the wrong type (kind not an integer, tags not an array, …). */
  "malformed",
  /** `id` is not 64 lowercase hex (ids shaped like paths land here, long before any file). */
  "bad_id_format",
  "bad_pubkey_format",
  /** `sig` is not 128 lowercase hex. */
  "bad_sig_format",
  /** A kind the daemon does not handle. */
  "unknown_kind",
  /** Not a non-negative integer, or more than 15 minutes in the future. */
  "bad_created_at",
  "too_many_tags",
  /** Tags not string[][], an empty tag, or a tag we read whose value has the wrong form. */
  "bad_tag_shape",
  /** One tag entry over `maxTagValueBytes` (UTF-8). */
  "tag_too_large",
  /** Content over `maxContentBytes` (UTF-8). */
  "content_too_large",
  /** The serialized event over `maxEventBytes` (UTF-8). */
  "too_large",
  /** U+0000 in content or a tag. */
  "nul_byte",
  /** A lone UTF-16 surrogate in content or a tag: the text has no UTF-8 form, so no NIP-01 id. */
  "invalid_utf8",
  /** `id` is not the sha256 of the NIP-01 serialization (found by the verifier). */
  "bad_id",
  /** The Schnorr signature does not verify for `pubkey` (found by the verifier). */
  "bad_signature",
] as const;

export type RejectReason = (typeof REJECT_REASONS)[number];
