// The Director's dashboard at scale (issue 17): the daemon on 1,000,000 stored events (20,000
// conversations of 50, the shape of the restart figures) or, at 10k, on the restart figures'
// 200 × 50 signed store. The 1,000,000 events are unsigned look-alikes written through the real
// log and index (bench-project.ts fillStore), as index-queries.ts does: stored events are
// never verified again, and signing a million takes longer than everything else here (the
// restart figures' signed store is not copied either: asking writes to the store).
//   - every page's API calls, over HTTP with the owner's token, median of 20 each;
//   - the overview's first meaningful paint in Chromium: from navigation start until the relay
//     table (the status, fetched by the page) is on screen, median of 5 fresh page loads, with
//     the first contentful paint beside it;
//   - an event reaching an open page: the page's live stream (EventSource on /api/v1/events)
//     receives a `message` for each of 60 conversations asked one after another (POST
//     /api/v1/ask, answered once the event is durable and indexed, i.e. acknowledged); timed
//     from the moment the request is sent, so an upper bound on the time from the
//     acknowledgement (the stream sends it when the index holds it, before the answer is back).

import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NostrEvent } from "../src/types.js";
import { launchBrowser } from "./browser.js";
import { median, round, type BenchContext } from "./bench-context.js";
import { fillStore, writeBenchProject } from "./bench-project.js";
import { logLine, startDaemon, startRelay } from "./child-daemon.js";
import type { Figure } from "./figure.js";
import { goalText } from "./goals.js";
import { setUp } from "./restart.js";
import { conversationEvents } from "./workload-signer.js";
import { benchCoordinate, benchKeys, SHAPES } from "./workload.js";

const API_RUNS = 20;
const PAINT_RUNS = 5;
const EVENTS = 60;

const pct = (xs: readonly number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

export async function benchDashboard(ctx: BenchContext, size: "10k" | "1m"): Promise<Figure[]> {
  const s = size === "1m" ? await unsignedMillion(ctx) : await setUp(SHAPES.c200x50, false, ctx);
  try {
    const d = await startDaemon(s.project.dir);
    try {
      await logLine(d, "caught up", 300_000);
      return await measure(ctx, s.project.tenexDir, size, s.stored);
    } finally {
      await d.stop();
    }
  } finally {
    await s.close();
  }
}

/** 1,000,000 unsigned look-alike events (random ids, zero signatures) through the real log and index; an empty relay. */
async function unsignedMillion(ctx: BenchContext) {
  const dir = mkdtempSync(join(tmpdir(), "tenexd-dashboard-bench-"));
  const relay = await startRelay(join(dir, "relay.sqlite"));
  const close = async () => {
    await relay.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const keys = benchKeys();
    const project = writeBenchProject(join(dir, "project"), keys, [relay.url]);
    const shape = SHAPES.million;
    const sign = (ev: Omit<NostrEvent, "id" | "pubkey" | "sig">, sk: string): NostrEvent => ({
      ...ev, id: randomBytes(32).toString("hex"), pubkey: [keys.owner, ...keys.agents].find((k) => k.sk === sk)!.pubkey, sig: "0".repeat(128),
    });
    async function* conversations() {
      for (let c = 0; c < shape.conversations; c++) {
        if (c % 2000 === 0) ctx.progress(`storing unsigned look-alikes: ${c * shape.perConversation}/1000000 events`);
        yield conversationEvents({ shape, keys, coordinate: benchCoordinate(keys), from: c, to: c + 1 }, c, sign);
      }
    }
    const fill = await fillStore(project.tenexDir, keys, conversations(), relay.url);
    return { project, close, stored: `${fill.events} unsigned look-alike events in ${fill.conversations} conversations (filled in ${round(fill.ms / 1000)} s)` };
  } catch (err) {
    await close();
    throw err;
  }
}

async function measure(ctx: BenchContext, tenexDir: string, size: string, stored: string): Promise<Figure[]> {
  const port = readFileSync(join(tenexDir, "daemon.port"), "utf8").trim();
  const token = readFileSync(join(tenexDir, "daemon.token"), "utf8").trim();
  const base = `http://127.0.0.1:${port}`;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}/api/v1${path}`, {
      method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
    return json as any;
  };

  // The calls each page makes when it opens.
  const latest = (await call("GET", "/conversations?limit=1")).items[0];
  const agent = (await call("GET", "/stats")).agents[0].slug as string;
  const pages: Record<string, string[]> = {
    overview: ["/status"],
    conversations: ["/conversations?limit=25&offset=0", "/conversations?limit=25&offset=0&q=lorem"],
    conversation: [`/conversations/${latest.id}`, `/conversations/${latest.id}/routing`, "/stats"],
    agents: ["/agents"],
    inbox: [`/agents/${agent}/inbox?limit=100`],
    stats: ["/stats"],
  };
  const perCall: { page: string; path: string; ms: number }[] = [];
  for (const [page, paths] of Object.entries(pages)) {
    for (const path of paths) {
      const times: number[] = [];
      for (let i = 0; i < API_RUNS; i++) {
        const t0 = performance.now();
        await call("GET", path);
        times.push(performance.now() - t0);
      }
      perCall.push({ page, path, ms: median(times) });
    }
  }
  const slowest = perCall.reduce((a, b) => (b.ms > a.ms ? b : a));

  ctx.progress("the overview's paint and the live stream, in Chromium");
  const browser = await launchBrowser();
  try {
    const login = await browser.context.newPage();
    await login.goto((await call("POST", "/dashboard/login")).url);
    await login.waitForURL((u) => u.pathname === "/");
    const paints: { meaningful: number; fcp: number }[] = [];
    for (let i = 0; i < PAINT_RUNS; i++) {
      const page = await browser.context.newPage();
      await page.goto(`${base}/`);
      const meaningful = await (await page.waitForFunction(() => (document.querySelector("main table tbody tr") ? performance.now() : 0), undefined, { polling: "raf" })).jsonValue();
      const fcp = await page.evaluate(() => performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? -1);
      paints.push({ meaningful, fcp });
      await page.close();
    }

    const page = login;
    await page.evaluate(() => {
      const w = window as any;
      w.__got = {};
      const es = new EventSource("/api/v1/events");
      es.addEventListener("message", (e: MessageEvent) => {
        w.__got[JSON.parse(e.data).id] = performance.timeOrigin + performance.now();
      });
      return new Promise((r) => es.addEventListener("hello", r, { once: true }));
    });
    const fromRequest: number[] = [];
    const fromAnswer: number[] = [];
    for (let i = 0; i < EVENTS; i++) {
      const sent = performance.timeOrigin + performance.now();
      const asked = await call("POST", "/ask", { content: `dashboard bench ${i}`, title: `dashboard bench ${i}` });
      const answered = performance.timeOrigin + performance.now();
      const got = await (await page.waitForFunction((id) => (window as any).__got[id] ?? 0, asked.event.id, { polling: 10 })).jsonValue();
      fromRequest.push(got - sent);
      fromAnswer.push(got - answered);
      await new Promise((r) => setTimeout(r, 30));
    }
    const m = (xs: number[]) => round(median(xs), 1);
    return [
      {
        name: `dashboard_api_${size}_ms`, value: round(slowest.ms, 2), unit: "ms", goal: goalText(`dashboard_api_${size}_ms`),
        note: `the slowest of the pages' API calls (${slowest.page}: GET ${slowest.path}), median of ${API_RUNS} each over HTTP; all: `
          + perCall.map((c) => `${c.page} ${c.path.split("?")[0]} ${round(c.ms, 1)}`).join(", ") + `; ${stored}`,
      },
      {
        name: `dashboard_overview_paint_${size}_ms`, value: m(paints.map((p) => p.meaningful)), unit: "ms", goal: goalText(`dashboard_overview_paint_${size}_ms`),
        note: `Chromium (headless): navigation start to the overview's relay table on screen, median of ${PAINT_RUNS} loads (${paints.map((p) => round(p.meaningful)).join(", ")}); first contentful paint ${m(paints.map((p) => p.fcp))} ms`,
      },
      {
        name: `dashboard_event_p50_${size}_ms`, value: m(fromRequest), unit: "ms", goal: goalText(`dashboard_event_p50_${size}_ms`),
        note: `${EVENTS} conversations asked one at a time (POST /api/v1/ask): from sending the request to the page's live stream delivering the message (an upper bound on from the acknowledgement); from the answer's arrival: p50 ${m(fromAnswer)} ms, p99 ${round(pct(fromAnswer, 0.99), 1)} ms (negative: the page had it before the answer came back)`,
      },
      {
        name: `dashboard_event_p99_${size}_ms`, value: round(pct(fromRequest, 0.99), 1), unit: "ms", goal: goalText(`dashboard_event_p99_${size}_ms`),
        note: `the same ${EVENTS} events, 99th percentile (max ${round(Math.max(...fromRequest), 1)} ms)`,
      },
    ];
  } finally {
    await browser.close();
  }
}
