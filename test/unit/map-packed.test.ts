// mapPacked (src/map-packed.ts): what `map` gives, and a packed array also once V8's optimizing
// compiler has the caller, where `map`'s own result turns holey (the premise, checked here too:
// if a Node release changes it, this says so). V8's natives run in a child process of their own.

import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { mapPacked } from "../../src/map-packed.js";

const COMPILED = new URL("../../dist/src/map-packed.js", import.meta.url).href;

describe("mapPacked", () => {
  it("gives what map gives: each value and its index, in order", () => {
    const xs = ["a", "b", "c"];
    expect(mapPacked(xs, (x, i) => `${x}${i}`)).toEqual(xs.map((x, i) => `${x}${i}`));
    expect(mapPacked([], () => 1)).toEqual([]);
  });

  it("is packed from optimized code, where map's result is holey", () => {
    const script = `
      const { mapPacked } = await import(${JSON.stringify(COMPILED)});
      const bang = (x) => x + "!";
      function viaMap(xs) { return xs.map(bang); }
      %PrepareFunctionForOptimization(viaMap);
      %PrepareFunctionForOptimization(mapPacked);
      const xs = ["a", "b", "c"];
      const cold = [%HasHoleyElements(viaMap(xs)), %HasHoleyElements(mapPacked(xs, bang))];
      %OptimizeFunctionOnNextCall(viaMap);
      %OptimizeFunctionOnNextCall(mapPacked);
      const hot = [%HasHoleyElements(viaMap(xs)), %HasHoleyElements(mapPacked(xs, bang))];
      process.stdout.write(JSON.stringify({ cold, hot }));`;
    const r = spawnSync(process.execPath, ["--allow-natives-syntax", "--input-type=module", "-e", script], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    // [map, mapPacked]: both packed unoptimized; optimized, map's holey and mapPacked's still packed.
    expect(JSON.parse(r.stdout)).toEqual({ cold: [false, false], hot: [true, false] });
  });
});
