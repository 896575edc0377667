// A small typed client for the local API (docs/api.md), used by the CLI and usable by agents:
//   const api = TenexClient.forProject("/path/to/project");           // the owner's token
//   const coder = TenexClient.forProject("/path/to/project", { agent: "coder" }); // acts as coder only
//   const inbox = await api.inbox("reviewer", { limit: 20, offset: 0 });
//   await api.sendDirect({ from: "coder", to: "reviewer", content: "Please review the diff" });
// Reads implement the same ReadApi the CLI uses when no daemon runs.

import { join } from "node:path";
import type { AgentInput } from "../../../src/agent-input.js";
import type { OutputResult } from "../actions/mailbox.js";
import type { StopAnswer } from "../api/route-stop.js";
import type { AskRequest } from "../actions/ask.js";
import type { DirectRequest } from "../actions/messaging.js";
import type { MessageOptions, ReplyRequest } from "../actions/posting.js";
import type { ConversationsQuery, InboxQuery, MessagesQuery, ReadApi } from "../reads/reads.js";
import type {
  AuditView, ConversationDetail, ConversationPage, InboxView, MarkResult, MessageDetail, MessageItem, Page,
  PostResult, RoutingView, StatsView,
} from "../shapes.js";
import { discoverDaemon, type DaemonEndpoint } from "./discover.js";
import { ApiClientError, DaemonUnreachableError } from "./errors.js";
import { httpRequest, type HttpAnswer } from "./http-request.js";
import type { DaemonStatus } from "../../../src/daemon-status.js";

export interface DiscussRequest extends MessageOptions {
  from: string;
  scope: "all" | { role: string };
  title?: string;
  content: string;
}

type QueryValue = string | number | boolean | undefined;

const enc = encodeURIComponent;

export class TenexClient implements ReadApi {
  constructor(private readonly endpoint: Pick<DaemonEndpoint, "url" | "token">, private readonly timeoutMs = 30_000) {}

  /**
   * The client for the daemon running on `projectDir`, with the owner's token, or with
   * `agent`'s own token (a mailbox agent: `.tenex/tokens/<slug>.token`, new at every start of
   * the daemon). DaemonUnreachableError when none runs.
   */
  static forProject(projectDir: string, opts: { agent?: string } = {}): TenexClient {
    const endpoint = discoverDaemon(join(projectDir, ".tenex"), opts.agent);
    if (!endpoint) {
      const whose = opts.agent === undefined ? "" : ` with a token for ${opts.agent} (is it a mailbox agent?)`;
      throw new DaemonUnreachableError(`no tenexd is running on ${projectDir}${whose} (start it with \`tenexd start\`)`);
    }
    return new TenexClient(endpoint);
  }

  status(): Promise<DaemonStatus> {
    return this.get("/status");
  }

  stats(): Promise<StatsView> {
    return this.get("/stats");
  }

  conversations(q: ConversationsQuery): Promise<ConversationPage> {
    return this.get("/conversations", { ...q });
  }

  conversation(ref: string, opts: { includeExpired?: boolean } = {}): Promise<ConversationDetail> {
    return this.get(`/conversations/${enc(ref)}`, opts);
  }

  auditTrail(ref: string): Promise<AuditView> {
    return this.get(`/conversations/${enc(ref)}/messages`);
  }

  routing(ref: string): Promise<RoutingView> {
    return this.get(`/conversations/${enc(ref)}/routing`);
  }

  messages(q: MessagesQuery): Promise<Page<MessageItem>> {
    return this.get("/messages", { ...q });
  }

  message(ref: string): Promise<MessageDetail> {
    return this.get(`/messages/${enc(ref)}`);
  }

  inbox(agent: string, q: InboxQuery): Promise<InboxView> {
    return this.get(`/agents/${enc(agent)}/inbox`, { ...q });
  }

  context(agent: string, conversation: string, trigger?: string): Promise<AgentInput> {
    return this.get(`/agents/${enc(agent)}/context`, { conversation, trigger });
  }

  /** A new conversation from the project owner (the daemon signs with the owner's key). */
  ask(req: AskRequest): Promise<PostResult> {
    return this.post("/ask", req);
  }

  sendDirect(req: DirectRequest): Promise<PostResult> {
    return this.post("/messages", req);
  }

  discuss(req: DiscussRequest): Promise<PostResult> {
    return this.post("/messages", req);
  }

  reply(req: ReplyRequest): Promise<PostResult> {
    const { conversation, ...body } = req;
    return this.post(`/conversations/${enc(conversation)}/messages`, body);
  }

  markViewed(conversation: string, agent: string, upTo?: number): Promise<MarkResult> {
    return this.post(`/conversations/${enc(conversation)}/viewed`, { agent, upTo });
  }

  markRead(conversation: string, agent: string, upTo?: number): Promise<MarkResult> {
    return this.post(`/conversations/${enc(conversation)}/read`, { agent, upTo });
  }

  ack(message: string, agent: string): Promise<MarkResult & { messageId: string }> {
    return this.post(`/messages/${enc(message)}/ack`, { agent });
  }

  close(conversation: string, opts: { by?: string; reason?: string } = {}): Promise<MarkResult & { status: string }> {
    return this.post(`/conversations/${enc(conversation)}/close`, opts);
  }

  reopen(conversation: string, opts: { by?: string; reason?: string } = {}): Promise<MarkResult & { status: string }> {
    return this.post(`/conversations/${enc(conversation)}/reopen`, opts);
  }

  /** Mailbox agents: act on a trigger with the same output object a command agent prints. */
  output(agent: string, req: { conversation: string; trigger?: string; output: unknown }): Promise<OutputResult> {
    return this.post(`/agents/${enc(agent)}/output`, req);
  }

  /** Asks the daemon to stop, as SIGTERM would (owner's token only); it answers before it stops. */
  stop(): Promise<StopAnswer> {
    return this.post("/stop", {});
  }

  /** A one-time login link for the dashboard (owner's token only). */
  dashboardLogin(): Promise<{ url: string; expiresAt: number }> {
    return this.post("/dashboard/login", {});
  }

  private get<T>(path: string, query: Record<string, QueryValue> = {}): Promise<T> {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
    const qs = params.size > 0 ? `?${params}` : "";
    return this.request("GET", `${path}${qs}`);
  }

  private post<T>(path: string, body: object): Promise<T> {
    return this.request("POST", path, JSON.stringify(body));
  }

  private async request<T>(method: string, path: string, body?: string): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.endpoint.token}` };
    if (body !== undefined) {
      headers["content-type"] = "application/json";
      headers["content-length"] = String(Buffer.byteLength(body));
    }
    let res: HttpAnswer;
    try {
      res = await httpRequest(`${this.endpoint.url}/api/v1${path}`, { method, headers, ...(body !== undefined ? { body } : {}), timeoutMs: this.timeoutMs });
    } catch (err) {
      const why = (err as { code?: string }).code ?? (err as Error).message;
      throw new DaemonUnreachableError(`cannot reach tenexd at ${this.endpoint.url} (${why})`);
    }
    const parsed = res.text === "" ? undefined : (JSON.parse(res.text) as unknown);
    if (res.status < 200 || res.status > 299) {
      const e = (parsed as { error?: { code?: string; message?: string } } | undefined)?.error;
      throw new ApiClientError(res.status, e?.code ?? "http_error", e?.message ?? `HTTP ${res.status}`);
    }
    return parsed as T;
  }
}
