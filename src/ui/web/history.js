// Allocation over time (docs/dashboard.md): each queue's allocated GPUs stacked, the cluster's
// GPUs as a dashed line, the share allocated and, from a Prometheus, the GPUs' utilization (as
// busy-GPU equivalents, a solid line); from GET /ui/history (the server's own samples, or its
// --prometheus-url). Drawn as SVG with a text summary beside it.
import * as api from './api.js';
import {h, clear} from './dom.js';

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 900;
const HEIGHT = 220;
const PAD = {left: 44, right: 12, top: 10, bottom: 24};

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const c of children) el.append(c);
  return el;
}

// The chart for `samples` ({time, clusterGpus, allocatedGpus, queues}) with queue colours.
function chart(samples, colours) {
  const times = samples.map((s) => Date.parse(s.time));
  const t0 = Math.min(...times);
  const t1 = Math.max(...times, t0 + 60000);
  const top = Math.max(1, ...samples.map((s) => Math.max(s.clusterGpus, s.allocatedGpus)));
  const x = (t) => PAD.left + ((t - t0) / (t1 - t0)) * (WIDTH - PAD.left - PAD.right);
  const y = (v) => HEIGHT - PAD.bottom - (v / top) * (HEIGHT - PAD.top - PAD.bottom);
  const queues = [...new Set(samples.flatMap((s) => Object.keys(s.queues)))].sort();
  const root = svg('svg', {viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', class: 'history',
    'aria-label': 'GPUs allocated per queue over time'});
  const base = samples.map(() => 0);
  for (const q of queues) {
    const upper = samples.map((s, i) => base[i] + (s.queues[q] || 0));
    if (upper.every((v, i) => v === base[i])) continue;
    const forward = samples.map((s, i) => `${x(times[i])},${y(upper[i])}`);
    const back = samples.map((s, i) => `${x(times[i])},${y(base[i])}`).reverse();
    root.append(svg('polygon', {points: [...forward, ...back].join(' '), fill: colours.get(q) || '#888',
      'fill-opacity': '0.85', 'data-queue': q}, svg('title', {}, q)));
    upper.forEach((v, i) => (base[i] = v));
  }
  root.append(svg('polyline', {points: samples.map((s, i) => `${x(times[i])},${y(s.clusterGpus)}`).join(' '),
    fill: 'none', stroke: 'currentColor', 'stroke-dasharray': '4 3', 'stroke-width': '1.5'}));
  const busy = samples.map((s, i) => [i, s.utilizationPercent]).filter(([, u]) => u !== undefined);
  if (busy.length) {
    root.append(svg('polyline', {class: 'utilization', fill: 'none', stroke: 'currentColor', 'stroke-width': '2',
      points: busy.map(([i, u]) => `${x(times[i])},${y((samples[i].clusterGpus * u) / 100)}`).join(' ')}));
  }
  for (const v of [0, top / 2, top]) {
    const text = svg('text', {x: PAD.left - 6, y: y(v) + 4, 'text-anchor': 'end', 'font-size': '11', fill: 'currentColor'});
    text.textContent = `${Math.round(v)}`;
    root.append(text, svg('line', {x1: PAD.left, x2: WIDTH - PAD.right, y1: y(v), y2: y(v), stroke: 'currentColor', 'stroke-opacity': '0.15'}));
  }
  for (const t of [t0, t1]) {
    const text = svg('text', {x: x(t), y: HEIGHT - 6, 'text-anchor': t === t0 ? 'start' : 'end', 'font-size': '11', fill: 'currentColor'});
    text.textContent = new Date(t).toLocaleTimeString();
    root.append(text);
  }
  return root;
}

// Mounts the history section into `section`; returns a function that stops its refresh.
export function mountHistory(section, colours) {
  let timer = null;
  async function load() {
    let body;
    try {
      body = await api.get('/ui/history');
    } catch (e) {
      clear(section);
      section.append(h('h2', {}, 'Allocation over time'), h('p', {class: 'error'}, e.message));
      return;
    }
    const samples = body.samples || [];
    clear(section);
    section.append(h('h2', {id: 'history-title'}, 'Allocation over time'));
    if (samples.length < 2) {
      section.append(h('p', {class: 'muted'}, `The server samples allocation once every ${body.periodSeconds || 60} s; the chart appears after two samples.`));
      return;
    }
    const last = samples[samples.length - 1];
    const share = last.clusterGpus ? Math.round((100 * last.allocatedGpus) / last.clusterGpus) : 0;
    const since = new Date(Date.parse(samples[0].time)).toLocaleString();
    section.append(chart(samples, colours()),
        h('p', {id: 'history-summary'}, `Now ${last.allocatedGpus} of ${last.clusterGpus} GPUs allocated (${share} %); `,
            Object.entries(last.queues).filter(([, v]) => v > 0).map(([q, v]) => `${q} ${v}`).join(', ') || 'no queue holds any',
            last.utilizationPercent === undefined ? '' : `; GPU utilization ${Math.round(last.utilizationPercent)} % (solid line: busy GPUs)`,
            `. ${samples.length} samples since ${since}, from ${body.source === 'prometheus' ? 'Prometheus' : 'the server'}; dashed: the cluster's GPUs.`));
  }
  load();
  timer = setInterval(load, 30000);
  return () => clearInterval(timer);
}
