// What the dashboard shows, computed from the API objects the informers hold: pure functions,
// no DOM, unit-tested with node (model_test.mjs). The annotation formats are etna's own:
// src/client/node_gpus.h (a node's `etna.io/gpus`) and src/api/types/bound_devices.h (a pod's
// `etna.io/gpu-ids` and `etna.io/mig-instances`, written by the scheduler when it binds).

export const GPU = 'nvidia.com/gpu';

// A Kubernetes quantity ("64Gi", "500m", "8") as a number of base units (bytes, cores).
export function parseQuantity(text) {
  if (typeof text === 'number') return text;
  if (typeof text !== 'string') return 0;
  const m = /^([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)([a-zA-Z]*)$/.exec(text.trim());
  if (!m) return 0;
  const scale = {
    '': 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15,
    Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4, Pi: 1024 ** 5,
  }[m[2]];
  return scale === undefined ? 0 : parseFloat(m[1]) * scale;
}

export function formatBytes(n) {
  if (!n) return '0';
  const units = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${Math.round(n * 10) / 10}${units[i]}`;
}

export function formatDuration(ms) {
  if (!(ms >= 0)) return '-';
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${s % 60 ? `${s % 60}s` : ''}`;
  if (s < 86400) return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86400)}d${Math.floor((s % 86400) / 3600)}h`;
}

const annotations = (o) => (o.metadata && o.metadata.annotations) || {};
const labels = (o) => (o.metadata && o.metadata.labels) || {};
const time = (text) => (text ? Date.parse(text) : NaN);

// The node's devices from its `etna.io/gpus` annotation; [] when it has none or it is malformed.
function nodeGpus(node) {
  const text = annotations(node)['etna.io/gpus'];
  if (!text) return [];
  try {
    const list = JSON.parse(text);
    return Array.isArray(list) ? list : [];
  } catch (e) {
    return [];
  }
}

// The devices the scheduler bound a pod to: whole GPUs and shares by index, MIG instances as
// {gpu, profile, id}.
export function boundDevices(pod) {
  const a = annotations(pod);
  const gpus = (a['etna.io/gpu-ids'] || '').split(',').filter((s) => s !== '').map(Number);
  const mig = (a['etna.io/mig-instances'] || '').split(',').filter((s) => s !== '').map((s) => {
    const [gpu, profile, id] = s.split(':');
    return {gpu: Number(gpu), profile, id: Number(id)};
  });
  return {gpus, mig};
}

export function isTerminal(pod) {
  const phase = pod.status && pod.status.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

// Ready, NotReady or Cordoned (spec.unschedulable wins: the scheduler places nothing there).
export function nodeState(node) {
  if (node.spec && node.spec.unschedulable) return 'Cordoned';
  const ready = ((node.status && node.status.conditions) || []).find((c) => c.type === 'Ready');
  return ready && ready.status === 'True' ? 'Ready' : 'NotReady';
}

export function groupName(pod) {
  return annotations(pod)['scheduling.k8s.io/group-name'] || '';
}

// The queue a pod runs in: its PodGroup's spec.queue, else the queue annotation admission or
// the job controller wrote, else "default".
function podQueue(pod, podgroups) {
  const group = groupName(pod);
  if (group) {
    const pg = podgroups.get(`${pod.metadata.namespace}/${group}`);
    if (pg && pg.spec && pg.spec.queue) return pg.spec.queue;
  }
  return annotations(pod)['scheduling.volcano.sh/queue-name'] || labels(pod)['volcano.sh/queue-name'] || 'default';
}

// The job a pod belongs to, as the dashboard names it: the Volcano Job, else its PodGroup.
function podJob(pod) {
  return labels(pod)['volcano.sh/job-name'] || groupName(pod) || pod.metadata.name;
}

// When a pod was bound: its PodScheduled condition, else its start.
export function podSince(pod) {
  const status = pod.status || {};
  const scheduled = (status.conditions || []).find((c) => c.type === 'PodScheduled' && c.status === 'True');
  return time((scheduled && scheduled.lastTransitionTime) || status.startTime);
}

// The GPUs a pod's containers ask for (limits, which is where Kubernetes takes extended
// resources from; a request stands in when no limit is set).
function podGpus(spec) {
  let total = 0;
  for (const c of (spec && spec.containers) || []) {
    const r = c.resources || {};
    total += parseQuantity((r.limits || {})[GPU] || (r.requests || {})[GPU] || 0);
  }
  return total;
}

// The map of every node's GPUs and who holds each: [{name, state, model, switchName,
// gpus: [{index, uuid, model, memoryMiB, healthy, domain, holders: [holder], mig: [{profile,
// id, holder}]}]}], sorted by node name. A holder is {pod, ns, job, queue, since}.
export function gpuMap(nodes, pods, podgroups) {
  const held = new Map();  // "node/index" -> [holder]
  const migHeld = new Map();  // "node/index/id" -> holder
  for (const pod of pods.values()) {
    const node = pod.spec && pod.spec.nodeName;
    if (!node || isTerminal(pod)) continue;
    const devices = boundDevices(pod);
    if (!devices.gpus.length && !devices.mig.length) continue;
    const holder = {
      pod: pod.metadata.name,
      ns: pod.metadata.namespace,
      job: podJob(pod),
      queue: podQueue(pod, podgroups),
      since: podSince(pod),
    };
    for (const g of devices.gpus) {
      const key = `${node}/${g}`;
      if (!held.has(key)) held.set(key, []);
      held.get(key).push(holder);
    }
    for (const m of devices.mig) migHeld.set(`${node}/${m.gpu}/${m.id}`, holder);
  }
  const out = [];
  for (const node of nodes.values()) {
    const name = node.metadata.name;
    const gpus = nodeGpus(node).map((g) => ({
      index: g.index,
      uuid: g.uuid || '',
      model: g.model || '',
      memoryMiB: g.memoryMiB || 0,
      healthy: g.healthy !== false,
      domain: g.nvlinkDomain === undefined ? -1 : g.nvlinkDomain,
      holders: held.get(`${name}/${g.index}`) || [],
      mig: (g.mig || []).map((m) => ({
        profile: m.profile, id: m.id, holder: migHeld.get(`${name}/${g.index}/${m.id}`) || null,
      })),
    }));
    gpus.sort((a, b) => a.domain - b.domain || a.index - b.index);
    out.push({
      name,
      state: nodeState(node),
      model: labels(node)['nvidia.com/gpu.model'] || (gpus[0] && gpus[0].model) || '',
      switchName: labels(node)['topology.etna.io/switch'] || '',
      gpus,
    });
  }
  out.sort((a, b) => a.name.localeCompare(b.name, undefined, {numeric: true}));
  return out;
}

// A GPU no pod holds, healthy, not split into MIG instances with one in use.
export function gpuIsFree(gpu) {
  return gpu.healthy && gpu.holders.length === 0 && gpu.mig.every((m) => !m.holder);
}

// Held GPUs per queue (a GPU split between pods counts for each holder's share), and all GPUs.
export function gpusByQueue(map) {
  const byQueue = new Map();
  let total = 0;
  for (const node of map) {
    for (const gpu of node.gpus) {
      total++;
      const holders = gpu.holders.length ? gpu.holders : gpu.mig.filter((m) => m.holder).map((m) => m.holder);
      const parts = gpu.holders.length ? gpu.holders.length : gpu.mig.length || 1;
      for (const h of holders) byQueue.set(h.queue, (byQueue.get(h.queue) || 0) + 1 / parts);
    }
  }
  return {byQueue, total};
}

// Free whole GPUs per schedulable node as a histogram (free count -> nodes), and the largest
// gang that could start now: in one node, in one NVLink domain, in one switch.
export function fragmentation(map) {
  const histogram = new Map();
  const largest = {node: 0, nodeName: '', domain: 0, domainName: '', switch: 0, switchName: ''};
  const perSwitch = new Map();
  for (const node of map) {
    if (node.state !== 'Ready' || !node.gpus.length) continue;
    const free = node.gpus.filter(gpuIsFree);
    histogram.set(free.length, (histogram.get(free.length) || 0) + 1);
    if (free.length > largest.node) Object.assign(largest, {node: free.length, nodeName: node.name});
    const domains = new Map();
    for (const g of free) domains.set(g.domain, (domains.get(g.domain) || 0) + 1);
    for (const [d, n] of domains) {
      if (n > largest.domain) Object.assign(largest, {domain: n, domainName: `${node.name} NVLink ${d}`});
    }
    const sw = node.switchName || node.name;
    perSwitch.set(sw, (perSwitch.get(sw) || 0) + free.length);
  }
  for (const [sw, n] of perSwitch) {
    if (n > largest.switch) Object.assign(largest, {switch: n, switchName: sw});
  }
  return {histogram, largest};
}

// A PodGroup's owning Volcano Job uid, if any.
function ownerUid(pg) {
  const ref = ((pg.metadata && pg.metadata.ownerReferences) || []).find((r) => r.kind === 'Job');
  return ref ? ref.uid : '';
}

// The PodGroups of a Volcano Job (owned by it, else named after it as Volcano names them).
export function jobPodGroups(job, podgroups) {
  const m = job.metadata;
  const out = [];
  for (const pg of podgroups.values()) {
    if (pg.metadata.namespace !== m.namespace) continue;
    const name = pg.metadata.name;
    if (ownerUid(pg) === m.uid || name === `podgroup-${m.uid}` || name === `${m.name}-${m.uid}`) out.push(pg);
  }
  return out;
}

// One row per job: Volcano Jobs, and PodGroups no Volcano Job owns (a Deployment's, a bare
// pod group's). {kind, ns, name, phase, queue, priority, gpus, created, started, pods}.
export function jobRows(jobs, podgroups, pods, now) {
  const podsByJob = new Map();
  for (const pod of pods.values()) {
    const key = `${pod.metadata.namespace}/${podJob(pod)}`;
    if (!podsByJob.has(key)) podsByJob.set(key, []);
    podsByJob.get(key).push(pod);
  }
  const rows = [];
  const owned = new Set();
  for (const job of jobs.values()) {
    for (const pg of jobPodGroups(job, podgroups)) owned.add(`${pg.metadata.namespace}/${pg.metadata.name}`);
    const spec = job.spec || {};
    let gpus = 0;
    for (const task of spec.tasks || []) {
      gpus += (task.replicas || 0) * podGpus(task.template && task.template.spec);
    }
    const state = (job.status && job.status.state) || {};
    rows.push(makeRow('Job', job, state.phase || 'Pending', spec.queue || 'default',
        spec.priorityClassName || '', gpus, podsByJob.get(`${job.metadata.namespace}/${job.metadata.name}`) || [], now));
  }
  for (const pg of podgroups.values()) {
    const key = `${pg.metadata.namespace}/${pg.metadata.name}`;
    if (owned.has(key) || ownerUid(pg)) continue;
    const members = podsByJob.get(key) || [];
    const gpus = members.filter((p) => !isTerminal(p)).reduce((n, p) => n + podGpus(p.spec), 0);
    rows.push(makeRow('PodGroup', pg, (pg.status && pg.status.phase) || 'Pending',
        (pg.spec && pg.spec.queue) || 'default', (pg.spec && pg.spec.priorityClassName) || '', gpus, members, now));
  }
  return rows;
}

function makeRow(kind, object, phase, queue, priority, gpus, pods, now) {
  const created = time(object.metadata.creationTimestamp);
  const starts = pods.map(podSince).filter((t) => !isNaN(t));
  const started = starts.length ? Math.min(...starts) : NaN;
  return {
    kind, ns: object.metadata.namespace, name: object.metadata.name, phase, queue, priority, gpus,
    created, age: now - created, wait: (isNaN(started) ? now : started) - created,
    waiting: isNaN(started), pods: pods.length,
  };
}

// One row per queue, parents before their children: {name, depth, state, weight, allocated,
// deserved, guarantee, capability (maps of resource -> number), pending, oldestWaitMs, window}.
export function queueRows(queues, rows, now) {
  const pendingByQueue = new Map();
  for (const r of rows) {
    if (!['Pending', 'Inqueue'].includes(r.phase)) continue;
    const q = pendingByQueue.get(r.queue) || {count: 0, oldest: 0};
    q.count++;
    q.oldest = Math.max(q.oldest, now - r.created);
    pendingByQueue.set(r.queue, q);
  }
  const numbers = (map) => {
    const out = {};
    for (const [k, v] of Object.entries(map || {})) out[k] = parseQuantity(v);
    return out;
  };
  const byName = new Map();
  for (const q of queues.values()) byName.set(q.metadata.name, q);
  const children = new Map();
  for (const q of queues.values()) {
    const parent = (q.spec && q.spec.parent) || '';
    const key = parent && parent !== q.metadata.name && byName.has(parent) ? parent : '';
    if (!children.has(key)) children.set(key, []);
    children.get(key).push(q);
  }
  const out = [];
  const visit = (parent, depth) => {
    const list = (children.get(parent) || []).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    for (const q of list) {
      const spec = q.spec || {};
      const status = q.status || {};
      const guarantee = spec.guarantee ? (spec.guarantee.resource || spec.guarantee) : {};
      const pending = pendingByQueue.get(q.metadata.name) || {count: 0, oldest: 0};
      out.push({
        name: q.metadata.name, depth,
        state: status.state || spec.state || 'Open',
        weight: spec.weight || 1,
        allocated: numbers(status.allocated), deserved: numbers(spec.deserved),
        guarantee: numbers(guarantee), capability: numbers(spec.capability),
        pending: pending.count, oldestWaitMs: pending.oldest,
        window: status.timeWindow || null, hasWindows: (spec.timePolicies || []).length > 0,
      });
      if (depth < 16) visit(q.metadata.name, depth + 1);
    }
  };
  visit('', 0);
  return out;
}

// A palette with enough contrast on light and dark backgrounds; queues get colours in name
// order so the same queue keeps its colour across reloads.
const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#b07aa1', '#76b7b2', '#edc948',
  '#ff9da7', '#9c755f', '#86bcb6', '#d37295', '#a0cbe8', '#8cd17d', '#f1ce63', '#bab0ac'];
export function queueColours(names) {
  const sorted = [...new Set(names)].sort();
  const out = new Map();
  sorted.forEach((name, i) => out.set(name, PALETTE[i % PALETTE.length]));
  return out;
}
