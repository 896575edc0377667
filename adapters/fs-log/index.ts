export { FileConversationLog, type FileConversationLogOptions } from "./file-conversation-log.js";
export { FileSnapshotStore, type Snapshot } from "./snapshot-store.js";
export { CorruptLogError, InvalidIdError, InvalidRecordError, LogClosedError, LogError, LogWriteError } from "./errors.js";
export { nodeFileOps, type FileOps } from "./file-ops.js";
export type { LogProblem, ProblemListener } from "./quarantine.js";

