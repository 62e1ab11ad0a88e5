// The jobs page: Volcano Jobs and the PodGroups no Volcano Job owns, searchable (name,
// namespace, queue, phase) and sortable by any column; each links to its job page.
import {h, SortedTable} from './dom.js';
import * as model from './model.js';

function jobLink(row) {
  const path = `#/job/${encodeURIComponent(row.ns)}/${encodeURIComponent(row.name)}`;
  return h('a', {href: row.kind === 'PodGroup' ? `${path}/podgroup` : path}, row.name);
}

export function mount(main, cluster) {
  const search = h('input', {type: 'search', id: 'job-search', placeholder: 'name, namespace, queue or phase',
    'aria-label': 'Search jobs'});
  const count = h('span', {class: 'muted', role: 'status'});
  const table = new SortedTable([
    {key: 'name', title: 'Job', render: jobLink},
    {key: 'ns', title: 'Namespace'},
    {key: 'phase', title: 'Phase', render: (r) => h('span', {class: `phase-${r.phase}`}, r.phase)},
    {key: 'queue', title: 'Queue'},
    {key: 'priority', title: 'Priority', render: (r) => r.priority || '-'},
    {key: 'gpus', title: 'GPUs', num: true},
    {key: 'pods', title: 'Pods', num: true},
    {key: 'age', title: 'Age', num: true, render: (r) => model.formatDuration(r.age)},
    {key: 'wait', title: 'Wait', num: true,
      render: (r) => `${model.formatDuration(r.wait)}${r.waiting ? ' (waiting)' : ''}`},
  ], 'age');
  const holder = h('div', {id: 'jobs'});
  main.append(h('h1', {}, 'Jobs'), h('div', {class: 'toolbar'}, search, count), holder);

  function update() {
    const now = Date.now();
    const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    const rows = model.jobRows(cluster.get('jobs'), cluster.get('podgroups'), cluster.get('pods'), now)
        .filter((r) => words.every((w) => [r.name, r.ns, r.queue, r.phase].some((f) => f.toLowerCase().includes(w))));
    count.textContent = `${rows.length} jobs`;
    if (!holder.firstChild) holder.append(table.element);
    table.render(rows);
  }
  search.addEventListener('input', update);
  const unsubscribe = cluster.subscribe(update);
  const timer = setInterval(update, 5000);
  update();
  search.focus();
  return {unmount() {
    unsubscribe();
    clearInterval(timer);
  }};
}
