// A small time chart (uPlot): series over epoch-ms x values, redrawn when the data changes,
// sized to its container (narrow windows too).

import uPlot from "/vendor/uplot.mjs";
import { html, useEffect, useRef } from "./lib.js";

const COLORS = ["#2f6fdf", "#d9534f", "#e6a23c", "#5cb85c", "#9b59b6", "#17a2b8"];

/** `x`: epoch ms; `series`: [{ label, values }]. */
export function TimeChart({ title, x, series, height = 140 }) {
  const box = useRef();
  const plot = useRef();
  const shape = series.map((s) => s.label).join("|");
  useEffect(() => {
    const width = Math.max(200, box.current.clientWidth);
    plot.current?.destroy();
    plot.current = new uPlot({
      width, height, legend: { show: true },
      scales: { x: { time: true } },
      axes: [{ stroke: "currentColor", grid: { stroke: "rgba(128,128,128,.2)" } }, { stroke: "currentColor", grid: { stroke: "rgba(128,128,128,.2)" } }],
      series: [{}, ...series.map((s, i) => ({ label: s.label, stroke: COLORS[i % COLORS.length], width: 2, points: { show: false } }))],
    }, [x.map((v) => v / 1000), ...series.map((s) => s.values)], box.current);
    const resize = () => plot.current?.setSize({ width: Math.max(200, box.current.clientWidth), height });
    addEventListener("resize", resize);
    return () => removeEventListener("resize", resize);
  }, [shape]);
  useEffect(() => {
    plot.current?.setData([x.map((v) => v / 1000), ...series.map((s) => s.values)]);
  }, [x, series]);
  useEffect(() => () => plot.current?.destroy(), []);
  return html`<figure class="chart"><figcaption>${title}</figcaption><div ref=${box} role="img" aria-label=${title}></div></figure>`;
}
