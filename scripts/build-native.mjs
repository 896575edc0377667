// Builds tenexd's native modules with node-gyp: run by `npm ci` (the package's install script)
// and by `npm run build:native`. Both are optional, as bcrypto is: when one does not build (no
// compiler, no Node headers), this says why and the install goes on; `tenexd status` and
// `tenexd doctor` say what the daemon does instead.
//  - native/spawn: posix_spawn for agents' programs (adapters/spawn/native-spawn.ts); without it
//    programs start with child_process, which forks (~2 ms a program instead of ~0.5).
//  - native/malloc: glibc's malloc_trim (adapters/malloc/malloc-trim.ts); without it the freed
//    memory of the daemon's threads stays resident (a few MB after start and after a back-fill).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const MODULES = [
  { name: "spawn", built: "agents' programs start with posix_spawn", without: "agents' programs will start with child_process (a fork each)" },
  { name: "malloc", built: "freed memory is handed back after start and after each back-fill", without: "freed memory of the daemon's threads stays resident" },
];

// npm hands its scripts its own node-gyp; outside npm, the one on PATH.
const gyp = process.env.npm_config_node_gyp;
const [cmd, args] = gyp ? [process.execPath, [gyp, "rebuild"]] : ["node-gyp", ["rebuild"]];
for (const m of MODULES) {
  const dir = fileURLToPath(new URL(`../native/${m.name}/`, import.meta.url));
  const started = Date.now();
  const r = spawnSync(cmd, args, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (r.status === 0) {
    console.log(`tenexd: native/${m.name} built in ${((Date.now() - started) / 1000).toFixed(1)} s: ${m.built}`);
  } else {
    const said = `${r.stdout ?? ""}${r.stderr ?? ""}`.trim().split("\n").filter((l) => !l.startsWith("gyp info")).slice(-6).join("\n  ");
    console.log(`tenexd: native/${m.name} did not build (${r.error?.message ?? `node-gyp exit ${r.status}`}); ${m.without}. node-gyp said:\n  ${said}`);
  }
}
