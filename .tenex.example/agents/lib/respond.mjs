// Shared by the demo agents: read the request tenexd writes on stdin (docs/agent-protocol.md),
// print one JSON answer on stdout. Plain scripts, no LLM: they show the whole flow running.

export async function readInput() {
  let text = "";
  for await (const chunk of process.stdin) text += chunk;
  return JSON.parse(text);
}

export function answer(output) {
  process.stdout.write(`${JSON.stringify(output)}\n`);
}
