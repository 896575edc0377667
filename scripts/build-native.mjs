// Builds native/spawn (posix_spawn for agents' programs, adapters/spawn/native-spawn.ts) with
// node-gyp: run by `npm ci` (the package's install script) and by `npm run build:native`.
// Optional, as bcrypto is: when it does not build (no compiler, no Node headers), this says why
// and the install goes on; the daemon then starts programs with child_process, which forks
// (~2 ms a program instead of ~0.5), and `tenexd doctor` and `tenexd status` say so.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL("../native/spawn/", import.meta.url));
// npm hands its scripts its own node-gyp; outside npm, the one on PATH.
const gyp = process.env.npm_config_node_gyp;
const [cmd, args] = gyp ? [process.execPath, [gyp, "rebuild"]] : ["node-gyp", ["rebuild"]];
const started = Date.now();
const r = spawnSync(cmd, args, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
if (r.status === 0) {
  console.log(`tenexd: native/spawn built in ${((Date.now() - started) / 1000).toFixed(1)} s: agents' programs start with posix_spawn`);
} else {
  const said = `${r.stdout ?? ""}${r.stderr ?? ""}`.trim().split("\n").filter((l) => !l.startsWith("gyp info")).slice(-6).join("\n  ");
  console.log(`tenexd: native/spawn did not build (${r.error?.message ?? `node-gyp exit ${r.status}`}); agents' programs will start with child_process (a fork each). node-gyp said:\n  ${said}`);
}
