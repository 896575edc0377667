// The dashboard's files: its own pages, scripts and style (web/ in the package, plain ESM: no
// build step) and the browser libraries it uses, served from their installed packages (never a
// CDN): Preact and its hooks, htm, uPlot. A path is served only when it names one of the files
// listed here at start: no request path ever becomes a file path.

import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { packageRoot } from "../../cli/package-root.js";

export interface StaticFile {
  type: string;
  body: Buffer;
  /** A strong validator of the body: a browser revalidates (no-cache) and gets 304 while it holds this. */
  etag: string;
}

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".svg": "image/svg+xml",
};

const file = (type: string, body: Buffer): StaticFile => ({ type, body, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"` });
const typeOf = (name: string) => TYPES[name.slice(name.lastIndexOf("."))] ?? "application/octet-stream";
const require = createRequire(import.meta.url);
const besideMain = (pkg: string, file: string) => join(dirname(require.resolve(pkg)), file);

/** The libraries, by the path the pages import them from. hooks imports "preact": pointed at ours (no import map, which CSP would have to allow inline). */
function vendorFiles(): Map<string, StaticFile> {
  const js = (path: string, rewrite: (s: string) => string = (s) => s): StaticFile =>
    file(TYPES[".js"]!, Buffer.from(rewrite(readFileSync(path, "utf8"))));
  return new Map([
    ["/vendor/preact.mjs", js(besideMain("preact", "preact.mjs"))],
    ["/vendor/hooks.mjs", js(besideMain("preact/hooks", "hooks.mjs"), (s) => s.replace(/from\s*["']preact["']/g, 'from"./preact.mjs"'))],
    ["/vendor/htm.mjs", js(besideMain("htm", "htm.mjs"))],
    ["/vendor/uplot.mjs", js(besideMain("uplot", "uPlot.esm.js"))],
    ["/vendor/uplot.css", file(TYPES[".css"]!, readFileSync(besideMain("uplot", "uPlot.min.css")))],
  ]);
}

/** Every file under web/, by its URL path under /ui/ (read once: the files are small). */
function webFiles(root: string): Map<string, StaticFile> {
  const out = new Map<string, StaticFile>();
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name), `${prefix}${entry.name}/`);
      else out.set(`/ui/${prefix}${entry.name}`, file(typeOf(entry.name), readFileSync(join(dir, entry.name))));
    }
  };
  walk(root, "");
  return out;
}

export class StaticFiles {
  private readonly files: Map<string, StaticFile>;
  private overview: StaticFile | undefined;

  constructor(webRoot = join(packageRoot(), "web")) {
    this.files = new Map([...webFiles(webRoot), ...vendorFiles()]);
  }

  get(path: string): StaticFile | undefined {
    return this.files.get(path);
  }

  /** An HTML page of web/ (index.html, login.html). */
  page(name: string): StaticFile {
    const f = this.files.get(`/ui/${name}`);
    if (!f) throw new Error(`the dashboard's ${name} is missing from the package (web/${name})`);
    return f;
  }

  /**
   * The app's page for the overview: the status is asked for by the HTML itself (a preload the
   * page's first read then takes), beside the scripts rather than after them.
   */
  overviewPage(): StaticFile {
    this.overview ??= (() => {
      const shell = this.page("index.html");
      const preload = `<link rel="preload" href="/api/v1/status" as="fetch" crossorigin="anonymous">\n`;
      return file(shell.type, Buffer.from(shell.body.toString("utf8").replace("<link rel=\"modulepreload\"", `${preload}<link rel="modulepreload"`)));
    })();
    return this.overview;
  }
}
