// Shared by the demo agents. tenexd runs an agent's command with one JSON request on stdin and
// reads one JSON reply from stdout: {"reply": "<text>", "complete": <boolean>}.
// PLACEHOLDER: the request's fields are not settled yet, so the demos answer without reading them.

export async function respond(answer) {
  let text = "";
  for await (const chunk of process.stdin) text += chunk;
  const request = text.trim() === "" ? {} : JSON.parse(text);
  process.stdout.write(`${JSON.stringify({ reply: answer(request), complete: true })}\n`);
}
