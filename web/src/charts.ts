// Hand-written SVG charts: a bar list, a donut, a stacked histogram and a timeline. Each
// draws into a viewBox and scales with its container; colours come from CSS classes.

const NS = "http://www.w3.org/2000/svg";

function s<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number> = {},
  text?: string,
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

function svg(width: number, height: number, label: string): SVGSVGElement {
  return s("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label, class: "chart" });
}

function tip(el: SVGElement, text: string): void {
  el.appendChild(s("title", {}, text));
}

export interface Bar {
  label: string;
  value: number;
  text?: string; // shown at the bar's end (default: the value)
  kind?: string; // CSS class suffix
}

// Horizontal bars, one per row, sharing one scale.
export function barList(bars: Bar[], label: string): SVGSVGElement {
  const row = 22;
  const width = 480;
  const labelWidth = 170;
  const el = svg(width, Math.max(row, bars.length * row), label);
  const max = Math.max(1, ...bars.map((b) => b.value));
  bars.forEach((b, i) => {
    const y = i * row;
    el.appendChild(s("text", { x: labelWidth - 6, y: y + 15, "text-anchor": "end", class: "chart-label" }, b.label));
    const w = Math.max(1, ((width - labelWidth - 70) * b.value) / max);
    const rect = s("rect", { x: labelWidth, y: y + 4, width: w, height: row - 8, rx: 2, class: `bar bar-${b.kind ?? "default"}` });
    tip(rect, `${b.label}: ${b.text ?? b.value}`);
    el.appendChild(rect);
    el.appendChild(s("text", { x: labelWidth + w + 4, y: y + 15, class: "chart-value" }, b.text ?? String(b.value)));
  });
  return el;
}

export interface Slice {
  label: string;
  value: number;
  kind: string;
}

// A donut with a legend; zero slices are listed but not drawn.
export function donut(slices: Slice[], label: string, centre: string): SVGSVGElement {
  const el = svg(320, 160, label);
  const total = slices.reduce((a, b) => a + b.value, 0);
  const cx = 80;
  const cy = 80;
  const r = 60;
  const circumference = 2 * Math.PI * r;
  el.appendChild(s("circle", { cx, cy, r, class: "donut-track", fill: "none", "stroke-width": 22 }));
  let offset = 0;
  for (const slice of slices) {
    if (slice.value <= 0 || total === 0) continue;
    const len = (slice.value / total) * circumference;
    const arc = s("circle", {
      cx,
      cy,
      r,
      fill: "none",
      "stroke-width": 22,
      class: `slice slice-${slice.kind}`,
      "stroke-dasharray": `${len} ${circumference - len}`,
      "stroke-dashoffset": -offset,
      transform: `rotate(-90 ${cx} ${cy})`,
    });
    tip(arc, `${slice.label}: ${slice.value}`);
    el.appendChild(arc);
    offset += len;
  }
  el.appendChild(s("text", { x: cx, y: cy + 6, "text-anchor": "middle", class: "donut-centre" }, centre));
  slices.forEach((slice, i) => {
    const y = 18 + i * 20;
    el.appendChild(s("rect", { x: 170, y: y - 10, width: 12, height: 12, rx: 2, class: `swatch slice-${slice.kind}` }));
    el.appendChild(s("text", { x: 188, y, class: "chart-label" }, `${slice.label}: ${slice.value}`));
  });
  return el;
}

export interface Column {
  label: string;
  parts: { value: number; kind: string; name: string }[];
}

// Vertical stacked columns over a category axis (a histogram when the categories are bins).
export function columns(cols: Column[], label: string): SVGSVGElement {
  const width = 640;
  const height = 220;
  const bottom = 40;
  const el = svg(width, height, label);
  const max = Math.max(1, ...cols.map((c) => c.parts.reduce((a, p) => a + p.value, 0)));
  const step = width / Math.max(1, cols.length);
  el.appendChild(s("line", { x1: 0, y1: height - bottom, x2: width, y2: height - bottom, class: "axis" }));
  cols.forEach((c, i) => {
    let y = height - bottom;
    const x = i * step + step * 0.15;
    let total = 0;
    for (const p of c.parts) {
      if (p.value <= 0) continue;
      const hgt = ((height - bottom - 20) * p.value) / max;
      y -= hgt;
      const rect = s("rect", { x, y, width: step * 0.7, height: hgt, class: `bar bar-${p.kind}` });
      tip(rect, `${c.label}: ${p.value} ${p.name}`);
      el.appendChild(rect);
      total += p.value;
    }
    if (total > 0) el.appendChild(s("text", { x: x + step * 0.35, y: y - 4, "text-anchor": "middle", class: "chart-value" }, String(total)));
    el.appendChild(s("text", { x: i * step + step / 2, y: height - bottom + 16, "text-anchor": "middle", class: "chart-label small" }, c.label));
  });
  return el;
}

export interface Point {
  t: number;
  kind: string;
  label: string;
  mark?: string; // a ref name drawn above the point
}

// Points on a time axis (the snapshot timeline), coloured by kind, with ref names above.
export function timeline(points: Point[], label: string): SVGSVGElement {
  const width = 640;
  const height = 110;
  const el = svg(width, height, label);
  const y = 60;
  el.appendChild(s("line", { x1: 10, y1: y, x2: width - 10, y2: y, class: "axis" }));
  if (points.length === 0) return el;
  const min = Math.min(...points.map((p) => p.t));
  const max = Math.max(...points.map((p) => p.t));
  const span = Math.max(1, max - min);
  // Equal spacing by order when times bunch up keeps every point visible; the label keeps
  // the real time.
  const sorted = [...points].sort((a, b) => a.t - b.t);
  sorted.forEach((p, i) => {
    const byTime = 20 + ((width - 40) * (p.t - min)) / span;
    const byOrder = sorted.length === 1 ? width / 2 : 20 + ((width - 40) * i) / (sorted.length - 1);
    const x = (byTime + byOrder) / 2;
    const dot = s("circle", { cx: x, cy: y, r: 7, class: `dot dot-${p.kind}` });
    tip(dot, p.label);
    el.appendChild(dot);
    if (p.mark) el.appendChild(s("text", { x, y: y - 16, "text-anchor": "middle", class: "chart-label small" }, p.mark));
  });
  el.appendChild(s("text", { x: 10, y: height - 8, class: "chart-label small" }, new Date(min).toISOString().slice(0, 19) + "Z"));
  el.appendChild(s("text", { x: width - 10, y: height - 8, "text-anchor": "end", class: "chart-label small" }, new Date(max).toISOString().slice(0, 19) + "Z"));
  return el;
}

export interface Series {
  name: string;
  kind: string;
  values: number[];
  format: (v: number) => string;
}

// Lines over a time axis, each series on its own scale (labelled by its last value), for
// sizes and counts that differ by orders of magnitude.
export function lines(times: number[], series: Series[], label: string): SVGSVGElement {
  const width = 640;
  const height = 180;
  const left = 10;
  const right = 150;
  const top = 10;
  const bottom = 30;
  const el = svg(width, height, label);
  el.appendChild(s("line", { x1: left, y1: height - bottom, x2: width - right, y2: height - bottom, class: "axis" }));
  if (times.length === 0) return el;
  const t0 = Math.min(...times);
  const span = Math.max(1, Math.max(...times) - t0);
  const x = (t: number) => left + ((width - left - right) * (t - t0)) / span;
  series.forEach((ser, si) => {
    const max = Math.max(1, ...ser.values);
    const y = (v: number) => height - bottom - ((height - bottom - top) * v) / max;
    // A step line: a table's size holds from one snapshot to the next.
    let d = "";
    ser.values.forEach((v, i) => {
      d += i === 0 ? `M${x(times[i])},${y(v)}` : `H${x(times[i])}V${y(v)}`;
    });
    const path = s("path", { d, class: `line line-${ser.kind}`, fill: "none" });
    tip(path, ser.name);
    el.appendChild(path);
    const last = ser.values[ser.values.length - 1];
    el.appendChild(s("text", { x: width - right + 8, y: top + 14 + si * 18, class: `chart-label legend-${ser.kind}` }, `${ser.name}: ${ser.format(last)}`));
  });
  el.appendChild(s("text", { x: left, y: height - 8, class: "chart-label small" }, new Date(t0).toISOString().slice(0, 19) + "Z"));
  el.appendChild(s("text", { x: width - right, y: height - 8, "text-anchor": "end", class: "chart-label small" }, new Date(t0 + span).toISOString().slice(0, 19) + "Z"));
  return el;
}

export interface TimeSeries {
  name: string;
  kind: string; // CSS class suffix: ts-<kind>
  values: number[];
}

// Line charts over real time sharing one value scale (the overview's history): the first
// series is drawn as an area, every sample is a point with its time and value as a tooltip,
// the y axis shows zero, half and the maximum in `format`.
export function timeSeries(times: number[], series: TimeSeries[], label: string, format: (v: number) => string): SVGSVGElement {
  const width = 640;
  const height = 200;
  const left = 64;
  const right = 12;
  const top = 26;
  const bottom = 24;
  const el = svg(width, height, label);
  el.classList.add("time-series");
  const base = height - bottom;
  el.appendChild(s("line", { x1: left, y1: base, x2: width - right, y2: base, class: "axis" }));
  const max = Math.max(0, ...series.flatMap((ser) => ser.values));
  const scale = max > 0 ? max : 1;
  for (const frac of [0.5, 1]) {
    const y = base - (base - top) * frac;
    el.appendChild(s("line", { x1: left, y1: y, x2: width - right, y2: y, class: "ts-grid" }));
    el.appendChild(s("text", { x: left - 6, y: y + 4, "text-anchor": "end", class: "chart-label small" }, format(scale * frac)));
  }
  el.appendChild(s("text", { x: left - 6, y: base + 4, "text-anchor": "end", class: "chart-label small" }, format(0)));
  // The legend above the plot, each name with its latest value.
  let lx = left;
  series.forEach((ser) => {
    const last = ser.values.length ? ser.values[ser.values.length - 1] : 0;
    const text = `${ser.name}: ${format(last)}`;
    el.appendChild(s("rect", { x: lx, y: 6, width: 10, height: 10, rx: 2, class: `swatch ts-fill-${ser.kind}` }));
    el.appendChild(s("text", { x: lx + 14, y: 15, class: "chart-label" }, text));
    lx += 24 + text.length * 6.5;
  });
  if (times.length === 0) return el;
  const t0 = times[0];
  const span = Math.max(1, times[times.length - 1] - t0);
  const x = (t: number) => (times.length === 1 ? (left + width - right) / 2 : left + ((width - left - right) * (t - t0)) / span);
  const y = (v: number) => base - ((base - top) * v) / scale;
  series.forEach((ser, si) => {
    const pts = ser.values.map((v, i) => `${x(times[i]).toFixed(1)},${y(v).toFixed(1)}`);
    if (si === 0 && pts.length > 1) {
      const area = s("path", { d: `M${x(times[0]).toFixed(1)},${base}L${pts.join("L")}L${x(times[times.length - 1]).toFixed(1)},${base}Z`, class: `ts-area ts-fill-${ser.kind}` });
      el.appendChild(area);
    }
    el.appendChild(s("path", { d: `M${pts.join("L")}`, class: `ts-line ts-${ser.kind}`, fill: "none" }));
    ser.values.forEach((v, i) => {
      const dot = s("circle", { cx: x(times[i]).toFixed(1), cy: y(v).toFixed(1), r: 2.5, class: `ts-point ts-fill-${ser.kind}` });
      tip(dot, `${new Date(times[i]).toISOString().slice(0, 19)}Z · ${ser.name}: ${format(v)}`);
      el.appendChild(dot);
    });
  });
  const clock = (t: number) => new Date(t).toISOString().slice(span > 86_400_000 ? 5 : 11, 16).replace("T", " ");
  el.appendChild(s("text", { x: left, y: height - 6, class: "chart-label small" }, clock(t0)));
  el.appendChild(s("text", { x: width - right, y: height - 6, "text-anchor": "end", class: "chart-label small" }, `${clock(t0 + span)} UTC`));
  return el;
}
