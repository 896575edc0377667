// The unsigned events agents publish; the daemon signs them with the agent's key.

export type { EventRef, MessagingOptions } from "./common.js";
export { buildReply, buildCompletion, type ReplyInput, type CompletionInput } from "./reply.js";
export { buildNoteReply, buildNoteCompletion } from "./note.js";
export { buildRoot, type RootInput } from "./root.js";
export { buildConversationMetadata, type MetadataInput } from "./metadata.js";
export { buildOperationsStatus, type OperationsStatusInput } from "./operations.js";
export { buildStatusHeartbeat, type HeartbeatInput } from "./heartbeat.js";
export {
  checkOutgoingLimits, utf8ByteLength, OutgoingLimitError, type OutgoingLimits, type LimitField,
} from "./limits.js";
