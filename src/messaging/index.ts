// Messaging rules (docs/contract.md "Messaging extensions"): pure, state in, decision out.

export { directKey, decideDirect, type DirectDecision, type DirectEntry, type DirectRegistry } from "./direct.js";
export { inScope, isRecipient, recipientsOf, scopeRecipients, type MessageAddressing } from "./scope.js";
export { threadOf, type ThreadEntry } from "./threads.js";
export { excludesOrchestrator, participationOf, TEAM, type Participation } from "./participation.js";
export { compareInbox, priorityRank, type InboxItem } from "./priority.js";
export { formatConversationAlias, formatMessageAlias, parseAlias, type AliasKind } from "./aliases.js";
export { isExpired, isPastExpiry, isUnread, type UnreadCandidate } from "./unread.js";
export {
  decideBackpressure, decideStallEscalation, escalationMessage,
  type Escalation, type FlagDecision, type FlagState,
} from "./escalation.js";
export { decideImportedProblems, type ImportedProblems, type ImportedState } from "./imported-problems.js";
export { decideHandoff, handoffMessage, type HandoffDecision, type HandoffRequest, type HandoffText } from "./handoff.js";
