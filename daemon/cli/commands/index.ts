// Every CLI command, in the order `tenexd --help` lists them.

import type { Command } from "../command.js";
import { ack } from "./ack.js";
import { close, reopen } from "./close.js";
import { context } from "./context.js";
import { conversations } from "./conversations.js";
import { discuss } from "./discuss.js";
import { doctor } from "./doctor.js";
import { importCommand } from "./import.js";
import { inbox } from "./inbox.js";
import { init } from "./init.js";
import { keys } from "./keys.js";
import { read } from "./read.js";
import { ask } from "./ask.js";
import { reindex } from "./reindex.js";
import { reply } from "./reply.js";
import { routing } from "./routing.js";
import { send } from "./send.js";
import { show } from "./show.js";
import { start } from "./start.js";
import { stats } from "./stats.js";
import { status } from "./status.js";

export const COMMANDS: readonly Command[] = [
  init, keys, doctor, start,
  status, conversations, show, context, routing, inbox, stats,
  ask, send, discuss, reply, read, ack, close, reopen,
  reindex, importCommand,
];
