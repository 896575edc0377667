// Every CLI command, in the order `tenexd --help` lists them.

import type { Command } from "../command.js";
import { doctor } from "./doctor.js";
import { init } from "./init.js";
import { keys } from "./keys.js";
import { start } from "./start.js";

export const COMMANDS: readonly Command[] = [init, keys, doctor, start];
