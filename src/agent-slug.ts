// What an agent's slug may be: its name in agents.json, in the CLI and in agent token file names
// (which is why it can never hold a path separator or a dot).

export const AGENT_SLUG = /^[a-z0-9][a-z0-9-]{0,63}$/;
