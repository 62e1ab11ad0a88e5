// The GPU map page: every node as a block of its GPUs (NVLink domains side by side, MIG
// instances and shares drawn inside their GPU), coloured by the queue of the job holding each,
// with the agents' live readings; filters, a legend with counts (the text for the colours),
// keyboard navigation, a details panel with the node's actions, and the fragmentation view.
import * as api from './api.js';
import {h, clear, confirmed} from './dom.js';
import * as model from './model.js';

const READING_PERIOD_MS = 5000;
const READING_CONCURRENCY = 8;

// Geometry of one map for a width in CSS pixels: where each node block and GPU cell is.
function layout(nodes, width) {
  const cell = nodes.length > 200 ? 10 : 18;
  const gap = 2;
  const domainGap = cell > 10 ? 6 : 3;
  const pad = 4;
  const label = cell > 10 ? 14 : 0;
  const perRow = 8;
  const blocks = [];
  let x = 0;
  let y = 0;
  let rowHeight = 0;
  for (const node of nodes) {
    const domains = new Set(node.gpus.map((g) => g.domain)).size;
    const columns = Math.min(Math.max(node.gpus.length, 1), perRow);
    const rows = Math.max(1, Math.ceil(node.gpus.length / perRow));
    const w = pad * 2 + columns * (cell + gap) - gap + Math.max(0, Math.min(domains, perRow) - 1) * domainGap;
    const bh = pad * 2 + label + rows * (cell + gap) - gap;
    if (x > 0 && x + w > width) {
      x = 0;
      y += rowHeight + 6;
      rowHeight = 0;
    }
    const cells = [];
    let cx = x + pad;
    let cy = y + pad + label;
    let col = 0;
    let lastDomain = node.gpus.length ? node.gpus[0].domain : 0;
    for (const gpu of node.gpus) {
      if (col === perRow) {
        col = 0;
        cx = x + pad;
        cy += cell + gap;
      } else if (col > 0 && gpu.domain !== lastDomain) {
        cx += domainGap;
      }
      lastDomain = gpu.domain;
      cells.push({gpu, x: cx, y: cy, w: cell, h: cell});
      cx += cell + gap;
      col++;
    }
    blocks.push({node, x, y, w, h: bh, cells, label});
    x += w + 6;
    rowHeight = Math.max(rowHeight, bh);
  }
  return {blocks, height: y + rowHeight + 2, cell};
}

function css(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

export function mount(main, cluster) {
  const state = {
    filter: {queue: '', model: '', nodeState: ''},
    selected: null,  // {node, index}
    readings: new Map(),  // "node/index" -> agent reading
    map: [],
    geometry: null,
    colours: new Map(),
  };
  const status = h('p', {role: 'status', class: 'muted'});
  const selects = {
    queue: h('select', {id: 'filter-queue'}),
    model: h('select', {id: 'filter-model'}),
    nodeState: h('select', {id: 'filter-state'}),
  };
  for (const [key, select] of Object.entries(selects)) {
    select.addEventListener('change', () => {
      state.filter[key] = select.value;
      draw();
    });
  }
  const summary = h('span', {id: 'gpu-summary', class: 'muted'});
  const legend = h('ul', {class: 'legend', id: 'legend', 'aria-label': 'GPUs held per queue'});
  const canvas = h('canvas', {class: 'gpumap', id: 'gpumap', tabindex: '0', role: 'img'});
  const tooltip = h('div', {class: 'tooltip', hidden: true});
  const details = h('aside', {class: 'panel', id: 'gpu-details', 'aria-live': 'polite'},
      h('p', {class: 'muted'}, 'Hover or click a GPU (or focus the map and use the arrow keys) to see who holds it.'));
  const frag = h('section', {id: 'fragmentation', 'aria-labelledby': 'frag-title'});
  main.append(
      h('h1', {}, 'GPUs'),
      h('div', {class: 'toolbar'},
          h('label', {}, 'Queue', selects.queue), h('label', {}, 'Model', selects.model),
          h('label', {}, 'Node state', selects.nodeState), summary),
      legend,
      h('div', {class: 'layout'}, h('div', {}, canvas), details),
      frag, tooltip, status);

  function fillSelect(select, values, current, all) {
    const wanted = ['', ...values];
    const have = [...select.options].map((o) => o.value);
    if (wanted.join('\n') === have.join('\n')) return;
    clear(select);
    for (const v of wanted) select.append(h('option', {value: v, selected: v === current}, v || all));
  }

  function visibleNodes() {
    const f = state.filter;
    return state.map.filter((n) =>
      (!f.model || n.model === f.model) && (!f.nodeState || n.state === f.nodeState) &&
      (!f.queue || n.gpus.some((g) => g.holders.some((x) => x.queue === f.queue) ||
        g.mig.some((m) => m.holder && m.holder.queue === f.queue))));
  }

  function fillFor(holder, dim) {
    if (!holder) return dim ? css('--cordon') : css('--free');
    if (state.filter.queue && holder.queue !== state.filter.queue) return css('--cordon');
    return state.colours.get(holder.queue) || '#888';
  }

  function drawCell(ctx, c, dim) {
    const {gpu} = c;
    ctx.fillStyle = css('--free');
    ctx.fillRect(c.x, c.y, c.w, c.h);
    if (gpu.mig.length) {
      const part = c.w / gpu.mig.length;
      gpu.mig.forEach((m, i) => {
        ctx.fillStyle = fillFor(m.holder, dim);
        ctx.fillRect(c.x + i * part, c.y, Math.max(1, part - 1), c.h);
      });
    } else if (gpu.holders.length) {
      const part = c.h / gpu.holders.length;
      gpu.holders.forEach((holder, i) => {
        ctx.fillStyle = fillFor(holder, dim);
        ctx.fillRect(c.x, c.y + i * part, c.w, Math.max(1, part - (i < gpu.holders.length - 1 ? 1 : 0)));
      });
    } else if (dim) {
      ctx.fillStyle = css('--cordon');
      ctx.fillRect(c.x, c.y, c.w, c.h);
    }
    const reading = state.readings.get(`${c.node}/${gpu.index}`);
    if (reading && reading.utilizationGpu >= 0 && c.w > 10) {
      ctx.fillStyle = css('--fg');
      ctx.fillRect(c.x, c.y + c.h - 2, Math.round((c.w * reading.utilizationGpu) / 100), 2);
    }
    if (!gpu.healthy) {
      ctx.strokeStyle = css('--bad');
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.moveTo(c.x + 1, c.y + 1);
      ctx.lineTo(c.x + c.w - 1, c.y + c.h - 1);
      ctx.moveTo(c.x + c.w - 1, c.y + 1);
      ctx.lineTo(c.x + 1, c.y + c.h - 1);
      ctx.stroke();
    }
    if (state.selected && state.selected.node === c.node && state.selected.index === gpu.index) {
      ctx.strokeStyle = css('--accent');
      ctx.lineWidth = 2;
      ctx.strokeRect(c.x - 1, c.y - 1, c.w + 2, c.h + 2);
    }
  }

  function draw() {
    const started = performance.now();
    const nodes = visibleNodes();
    const width = Math.max(200, canvas.clientWidth || main.clientWidth - 340);
    const geometry = layout(nodes, width);
    for (const b of geometry.blocks) for (const c of b.cells) c.node = b.node.name;
    state.geometry = geometry;
    const dpr = window.devicePixelRatio || 1;
    canvas.style.height = `${geometry.height}px`;
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(geometry.height * dpr);
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, geometry.height);
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'top';
    for (const b of geometry.blocks) {
      const dim = b.node.state !== 'Ready';
      ctx.strokeStyle = css('--line');
      ctx.lineWidth = 1;
      ctx.strokeRect(b.x + 0.5, b.y + 0.5, b.w - 1, b.h - 1);
      if (b.label) {
        ctx.fillStyle = dim ? css('--muted') : css('--fg');
        const suffix = b.node.state === 'Ready' ? '' : ` (${b.node.state})`;
        ctx.fillText(`${b.node.name}${suffix}`, b.x + 4, b.y + 3, b.w - 8);
      }
      for (const c of b.cells) drawCell(ctx, c, dim);
    }
    const gpuCount = nodes.reduce((n, node) => n + node.gpus.length, 0);
    canvas.setAttribute('aria-label', `GPU map: ${nodes.length} nodes, ${gpuCount} GPUs; the legend lists GPUs held per queue`);
    window.etna.gpuMap = {nodes: nodes.length, gpus: gpuCount, renderMs: performance.now() - started, renderedAt: cluster.version};
  }

  function renderLegend() {
    const {byQueue, total} = model.gpusByQueue(state.map);
    const free = state.map.reduce((n, node) => n + (node.state === 'Ready' ? node.gpus.filter(model.gpuIsFree).length : 0), 0);
    const unhealthy = state.map.reduce((n, node) => n + node.gpus.filter((g) => !g.healthy).length, 0);
    clear(legend);
    for (const [queue, count] of [...byQueue].sort()) {
      legend.append(h('li', {'data-queue': queue, 'data-gpus': count},
          h('span', {class: 'swatch', style: {background: state.colours.get(queue)}}),
          `${queue}: ${Math.round(count * 100) / 100} GPUs`));
    }
    legend.append(h('li', {'data-free': free}, h('span', {class: 'swatch', style: {background: css('--free')}}), `free: ${free}`));
    legend.append(h('li', {}, h('span', {class: 'swatch', style: {background: css('--cordon')}}), 'not schedulable (cordoned, not ready)'));
    if (unhealthy) legend.append(h('li', {class: 'error'}, `unhealthy: ${unhealthy} (crossed out)`));
    summary.textContent = `${state.map.length} nodes, ${total} GPUs`;
  }

  function renderFragmentation() {
    const {histogram, largest} = model.fragmentation(state.map);
    const max = Math.max(1, ...histogram.values());
    const rows = [...histogram].sort((a, b) => a[0] - b[0]).flatMap(([free, count]) => [
      h('span', {}, `${free} free`),
      h('div', {class: 'bar', role: 'img', 'aria-label': `${count} nodes with ${free} free GPUs`},
          h('span', {style: {width: `${(100 * count) / max}%`}})),
      h('span', {class: 'num'}, `${count} nodes`),
    ]);
    clear(frag);
    frag.append(
        h('h2', {id: 'frag-title'}, 'Fragmentation'),
        h('p', {id: 'largest-gang'}, 'Largest gang that could start now: ',
            h('strong', {}, `${largest.node} GPUs`), ` in one node${largest.nodeName ? ` (${largest.nodeName})` : ''}, `,
            h('strong', {}, `${largest.domain}`), ` in one NVLink domain, `,
            h('strong', {}, `${largest.switch}`), ` in one switch${largest.switchName ? ` (${largest.switchName})` : ''}.`),
        h('div', {class: 'hist', 'aria-label': 'Free GPUs per schedulable node'}, rows));
  }

  function cellAt(x, y) {
    if (!state.geometry) return null;
    for (const b of state.geometry.blocks) {
      if (x < b.x || y < b.y || x > b.x + b.w || y > b.y + b.h) continue;
      for (const c of b.cells) {
        if (x >= c.x && x < c.x + c.w && y >= c.y && y < c.y + c.h) return {block: b, cell: c};
      }
    }
    return null;
  }

  function describe(node, gpu) {
    const lines = [`${node.name} GPU ${gpu.index} (${gpu.model})`, gpu.uuid];
    const reading = state.readings.get(`${node.name}/${gpu.index}`);
    if (reading) {
      lines.push(`utilization ${reading.utilizationGpu}%, memory ${reading.memoryUsedMiB}/${gpu.memoryMiB} MiB, ${reading.temperatureC} °C`);
    }
    if (!gpu.healthy) lines.push('UNHEALTHY');
    const since = (x) => (isNaN(x.since) ? '' : `, since ${new Date(x.since).toLocaleString()}`);
    for (const x of gpu.holders) lines.push(`${x.ns}/${x.pod} (job ${x.job}, queue ${x.queue}${since(x)})`);
    for (const m of gpu.mig) lines.push(`MIG ${m.profile} #${m.id}: ${m.holder ? `${m.holder.ns}/${m.holder.pod} (${m.holder.queue})` : 'free'}`);
    if (!gpu.holders.length && !gpu.mig.length) lines.push('free');
    return lines.join('\n');
  }

  function showDetails() {
    clear(details);
    const sel = state.selected;
    const node = sel && state.map.find((n) => n.name === sel.node);
    const gpu = node && node.gpus.find((g) => g.index === sel.index);
    if (!gpu) {
      details.append(h('p', {class: 'muted'}, 'Hover or click a GPU to see who holds it.'));
      return;
    }
    const reading = state.readings.get(`${node.name}/${gpu.index}`);
    const holders = gpu.holders.length ? gpu.holders : gpu.mig.filter((m) => m.holder).map((m) => m.holder);
    const rows = [
      ['Node', `${node.name} (${node.state})`], ['GPU', `${gpu.index}`], ['UUID', gpu.uuid],
      ['Model', gpu.model], ['Memory', `${gpu.memoryMiB} MiB`],
      ['NVLink domain', gpu.domain >= 0 ? `${gpu.domain}` : '-'],
      ['Health', gpu.healthy ? 'Healthy' : 'Unhealthy'],
    ];
    if (reading) {
      rows.push(['Utilization', `${reading.utilizationGpu}%`],
          ['Memory used', `${reading.memoryUsedMiB} MiB`], ['Temperature', `${reading.temperatureC} °C`]);
      if ((reading.xids || []).length) rows.push(['XIDs', reading.xids.join(', ')]);
    }
    for (const m of gpu.mig) rows.push([`MIG ${m.profile} #${m.id}`, m.holder ? `${m.holder.ns}/${m.holder.pod}` : 'free']);
    const holderItems = holders.map((x) => h('li', {},
        h('a', {href: `#/job/${encodeURIComponent(x.ns)}/${encodeURIComponent(x.job)}`}, `${x.ns}/${x.job}`),
        ` pod ${x.pod}, queue ${x.queue}`, isNaN(x.since) ? '' : `, since ${new Date(x.since).toLocaleString()}`));
    const actionStatus = h('p', {role: 'status'});
    const cordoned = node.state === 'Cordoned';
    const nodePath = `/api/v1/nodes/${encodeURIComponent(node.name)}`;
    details.append(
        h('h2', {}, `${node.name} · GPU ${gpu.index}`),
        h('dl', {}, rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])),
        h('h2', {}, 'Held by'), holders.length ? h('ul', {}, holderItems) : h('p', {}, 'Free'),
        h('h2', {}, 'Node'),
        h('div', {class: 'toolbar'},
            h('button', {type: 'button', id: 'cordon', onclick: () => confirmed(
                `${cordoned ? 'Uncordon' : 'Cordon'} node ${node.name}?`,
                () => api.mergePatch(nodePath, {spec: {unschedulable: cordoned ? null : true}}), actionStatus)},
            cordoned ? 'Uncordon' : 'Cordon'),
            h('button', {type: 'button', class: 'danger', id: 'drain', onclick: () => confirmed(
                `Drain node ${node.name}? It is cordoned and every pod on it is evicted.`,
                () => drain(node.name), actionStatus)}, 'Drain')),
        actionStatus);
  }

  async function drain(nodeName) {
    await api.mergePatch(`/api/v1/nodes/${encodeURIComponent(nodeName)}`, {spec: {unschedulable: true}});
    for (const pod of cluster.get('pods').values()) {
      if (pod.spec.nodeName !== nodeName || model.isTerminal(pod)) continue;
      const {namespace, name} = pod.metadata;
      await api.post(`/api/v1/namespaces/${namespace}/pods/${name}/eviction`, {
        apiVersion: 'policy/v1', kind: 'Eviction', metadata: {name, namespace},
      });
    }
  }

  canvas.addEventListener('mousemove', (e) => {
    const r = canvas.getBoundingClientRect();
    const hit = cellAt(e.clientX - r.left, e.clientY - r.top);
    if (!hit) {
      tooltip.hidden = true;
      return;
    }
    tooltip.textContent = describe(hit.block.node, hit.cell.gpu);
    tooltip.hidden = false;
    tooltip.style.left = `${Math.min(e.clientX + 14, window.innerWidth - 320)}px`;
    tooltip.style.top = `${e.clientY + 14}px`;
  });
  canvas.addEventListener('mouseleave', () => (tooltip.hidden = true));
  canvas.addEventListener('click', (e) => {
    const r = canvas.getBoundingClientRect();
    const hit = cellAt(e.clientX - r.left, e.clientY - r.top);
    if (!hit) return;
    state.selected = {node: hit.block.node.name, index: hit.cell.gpu.index};
    draw();
    showDetails();
  });
  canvas.addEventListener('keydown', (e) => {
    const cells = (state.geometry ? state.geometry.blocks : []).flatMap((b) => b.cells);
    if (!cells.length) return;
    let i = state.selected ? cells.findIndex((c) => c.node === state.selected.node && c.gpu.index === state.selected.index) : -1;
    const step = {ArrowRight: 1, ArrowDown: 8, ArrowLeft: -1, ArrowUp: -8, Home: -cells.length, End: cells.length}[e.key];
    if (step === undefined) return;
    e.preventDefault();
    i = Math.max(0, Math.min(cells.length - 1, (i < 0 ? 0 : i + step)));
    state.selected = {node: cells[i].node, index: cells[i].gpu.index};
    draw();
    showDetails();
  });

  // The agents' readings (utilization, memory, temperature, XIDs) through the API's node proxy,
  // a few nodes at a time, every READING_PERIOD_MS while the page is open.
  let stopped = false;
  async function pollReadings() {
    while (!stopped) {
      const names = state.map.filter((n) => n.state !== 'NotReady' && n.gpus.length).map((n) => n.name);
      let next = 0;
      const worker = async () => {
        while (!stopped && next < names.length) {
          const name = names[next++];
          try {
            const list = await api.get(`/api/v1/nodes/${encodeURIComponent(name)}/proxy/gpus`);
            for (const g of Array.isArray(list) ? list : []) state.readings.set(`${name}/${g.index}`, g);
          } catch (e) {
            // an agent without readings (or not reachable): its GPUs show none
          }
        }
      };
      await Promise.all(Array.from({length: READING_CONCURRENCY}, worker));
      if (!stopped) {
        draw();
        if (state.selected) showDetails();
      }
      await new Promise((resolve) => setTimeout(resolve, READING_PERIOD_MS));
    }
  }

  // Each update's cost (model, legend, map, fragmentation) for `make bench-ui`.
  window.etna = window.etna || {};
  window.etna.gpuUpdates = [];

  function update() {
    const started = performance.now();
    state.map = model.gpuMap(cluster.get('nodes'), cluster.get('pods'), cluster.get('podgroups'));
    state.colours = model.queueColours([...cluster.get('queues').keys(), ...state.map.flatMap((n) =>
      n.gpus.flatMap((g) => [...g.holders.map((x) => x.queue), ...g.mig.filter((m) => m.holder).map((m) => m.holder.queue)]))]);
    fillSelect(selects.queue, [...state.colours.keys()], state.filter.queue, 'all queues');
    fillSelect(selects.model, [...new Set(state.map.map((n) => n.model).filter(Boolean))].sort(), state.filter.model, 'all models');
    fillSelect(selects.nodeState, ['Ready', 'NotReady', 'Cordoned'], state.filter.nodeState, 'all states');
    renderLegend();
    draw();
    renderFragmentation();
    if (state.selected) showDetails();
    const held = model.gpusByQueue(state.map).byQueue;
    window.etna.gpuUpdates.push({ms: performance.now() - started, synced: cluster.synced(),
      nodes: state.map.length, held: [...held.values()].reduce((a, b) => a + b, 0)});
    if (window.etna.gpuUpdates.length > 1000) window.etna.gpuUpdates.shift();
  }

  const unsubscribe = cluster.subscribe(update);
  const onResize = () => draw();
  window.addEventListener('resize', onResize);
  update();
  pollReadings();
  return {
    unmount() {
      stopped = true;
      unsubscribe();
      window.removeEventListener('resize', onResize);
      tooltip.remove();
    },
  };
}
