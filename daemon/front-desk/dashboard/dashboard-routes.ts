// The API endpoints the dashboard adds (docs/api.md, "Dashboard"): a login code for
// `tenexd dashboard` (owner's token), the Agents page's overview, and stopping an agent's run.
// The live stream (GET /api/v1/events) is answered by the server itself: it stays open.

import { byPriority, type AgentOverview } from "../../../src/dashboard/agent-overview.js";
import type { DaemonStatus } from "../../../src/daemon-status.js";
import { byParam, type Route } from "../api/router.js";
import type { ApiServices } from "../api/services.js";
import type { LoadedProject } from "../../config/index.js";
import type { Sessions } from "./sessions.js";

export function dashboardRoutes(s: ApiServices, project: LoadedProject, sessions: Sessions, port: () => number): Route[] {
  return [
    {
      method: "POST", path: "/api/v1/dashboard/login", ownerOnly: "open the dashboard",
      handler: async () => {
        const { code, expiresAt } = sessions.newCode();
        // The code in the fragment: a browser never sends it to a server, and the page removes it.
        return { url: `http://127.0.0.1:${port()}/login#code=${code}`, expiresAt };
      },
    },
    { method: "GET", path: "/api/v1/agents", handler: () => agentsOverview(s, project) },
    {
      method: "POST", path: "/api/v1/agents/:agent/stop", ownerOnly: "stop an agent's run", actor: byParam("agent"),
      handler: async (r) => {
        const agent = s.actions.reads.agents.resolve(r.params.agent!);
        const body = (r.body ?? {}) as { conversation?: unknown };
        const conversation = typeof body.conversation === "string" ? s.actions.reads.aliases.conversation(body.conversation) : undefined;
        // Owner only: the run is recorded as stopped by the owner.
        const stopped = await s.actions.commands.stopRun(agent.pubkey, project.info.ownerPubkey, conversation);
        return { agent: agent.slug, stopped };
      },
    },
  ];
}

async function agentsOverview(s: ApiServices, project: LoadedProject): Promise<AgentOverview[]> {
  const stats = await s.reads.stats();
  const status: DaemonStatus | undefined = await s.status().catch(() => undefined);
  const { reader, now } = s.actions.reads;
  return stats.agents.map((a) => {
    return {
      slug: a.slug, role: a.role, backend: project.agents.find((x) => x.slug === a.slug)?.backend.type ?? "command",
      unread: a.unread, overThreshold: a.overThreshold, byPriority: byPriority(reader.unread.byPriorityRank(a.pubkey, now())),
      running: status?.runs.filter((r) => r.agent === a.slug) ?? [], lastRun: status?.lastRuns[a.slug] ?? null,
      responseTime: a.responseTime,
    };
  });
}
