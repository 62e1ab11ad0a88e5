// The queues page: per queue (children under their parent), GPUs, CPU and memory allocated
// against deserved, guarantee and capability, pending jobs and the oldest wait, state and time
// window, and the open/close actions (bus Commands, as `etna queue operate` makes them).
import * as api from './api.js';
import {h, clear, confirmed} from './dom.js';
import * as model from './model.js';
import {mountHistory} from './history.js';

const RESOURCES = [
  {key: model.GPU, title: 'GPUs', format: (n) => `${Math.round(n * 100) / 100}`},
  {key: 'cpu', title: 'CPU', format: (n) => `${Math.round(n * 100) / 100}`},
  {key: 'memory', title: 'Memory', format: model.formatBytes},
];

// "allocated / deserved · guarantee · capability" with a bar: the fill is what it holds, the
// mark its deserved share.
function usage(row, resource) {
  const alloc = row.allocated[resource.key] || 0;
  const limits = [['deserved', row.deserved], ['guarantee', row.guarantee], ['capability', row.capability]]
      .filter(([, m]) => m[resource.key] !== undefined)
      .map(([name, m]) => `${name} ${resource.format(m[resource.key])}`);
  const scale = Math.max(alloc, row.capability[resource.key] || 0, row.deserved[resource.key] || 0, 1);
  const bar = h('div', {class: 'bar', 'aria-hidden': 'true'},
      h('span', {style: {width: `${(100 * alloc) / scale}%`}}),
      row.deserved[resource.key] !== undefined ?
        h('i', {style: {left: `${(100 * row.deserved[resource.key]) / scale}%`}}) : null);
  return [h('span', {}, `${resource.format(alloc)} allocated`), bar,
    limits.length ? h('small', {}, limits.join(' · ')) : null];
}

function windowText(row) {
  if (!row.hasWindows) return '-';
  if (!row.window) return 'windows set (the scheduler has not reported)';
  if (row.window.open) return 'inside its window';
  return `outside its windows${row.window.nextOpen ? `, opens ${new Date(row.window.nextOpen).toLocaleString()}` : ''}`;
}

export function mount(main, cluster) {
  const body = h('div', {id: 'queues'});
  const status = h('p', {role: 'status'});
  const historySection = h('section', {id: 'history', 'aria-labelledby': 'history-title'});
  main.append(h('h1', {}, 'Queues'), body, status, historySection);
  const stopHistory = mountHistory(historySection, () => model.queueColours([...cluster.get('queues').keys()]));

  function action(row) {
    const queue = cluster.get('queues').get(row.name);
    if (!queue) return '';
    const open = row.state === 'Open';
    const target = {...queue, apiVersion: 'scheduling.volcano.sh/v1beta1', kind: 'Queue'};
    return h('button', {type: 'button', 'data-queue': row.name, onclick: () => confirmed(
        `${open ? 'Close' : 'Open'} queue ${row.name}?${open ? ' Its pending jobs will not start.' : ''}`,
        () => api.busCommand(open ? 'CloseQueue' : 'OpenQueue', target, 'default'), status)},
    open ? 'Close' : 'Open');
  }

  function update() {
    const now = Date.now();
    const jobRows = model.jobRows(cluster.get('jobs'), cluster.get('podgroups'), cluster.get('pods'), now);
    const rows = model.queueRows(cluster.get('queues'), jobRows, now);
    const table = h('table', {},
        h('thead', {}, h('tr', {}, ['Queue', 'State', 'Weight', ...RESOURCES.map((r) => r.title),
          'Pending jobs', 'Oldest wait', 'Time window', ''].map((t) => h('th', {scope: 'col'}, t)))),
        h('tbody', {}, rows.map((r) => h('tr', {'data-queue': r.name},
            h('th', {scope: 'row', style: {paddingLeft: `${8 + r.depth * 18}px`}}, r.depth ? `└ ${r.name}` : r.name),
            h('td', {}, r.state), h('td', {class: 'num'}, `${r.weight}`),
            RESOURCES.map((res) => h('td', {class: 'usage'}, usage(r, res))),
            h('td', {class: 'num'}, `${r.pending}`),
            h('td', {class: 'num'}, r.pending ? model.formatDuration(r.oldestWaitMs) : '-'),
            h('td', {}, windowText(r)), h('td', {}, action(r))))));
    clear(body);
    body.append(h('div', {class: 'scroll'}, table));
  }
  const unsubscribe = cluster.subscribe(update);
  const timer = setInterval(update, 5000);  // waits grow without any change
  update();
  return {unmount() {
    unsubscribe();
    clearInterval(timer);
    stopHistory();
  }};
}
