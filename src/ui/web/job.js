// A job's page (#/job/NS/NAME for a Volcano Job, #/job/NS/NAME/podgroup for a PodGroup of its
// own): its phase and queue, why it waits (the text `etna explain` prints, from the server's
// GET /ui/explain, which makes it with the CLI's code), its tasks and where each runs, its
// Events, each pod's log followed live, and the suspend/resume/delete actions.
import * as api from './api.js';
import {h, clear, confirmed} from './dom.js';
import * as model from './model.js';

const EVENTS_PERIOD_MS = 3000;

export function mount(main, cluster, params) {
  const [ns, name, kind] = params;
  const isGroup = kind === 'podgroup';
  const header = h('div');
  const why = h('section', {id: 'why', 'aria-labelledby': 'why-title'});
  const tasks = h('section', {id: 'tasks'});
  const events = h('section', {id: 'events'});
  const logTitle = h('h2', {}, 'Log');
  const logView = h('pre', {class: 'log', id: 'log', 'aria-live': 'off', tabindex: '0'}, 'Choose a pod’s “Log” to follow it.');
  const status = h('p', {role: 'status', id: 'action-status'});
  main.append(header, status, why, tasks, events, h('section', {}, logTitle, logView));
  let following = null;
  let eventsTimer = null;
  let lastEvents = [];
  let explanation = '';  // the server's `etna explain` text
  let explainedVersion = '';  // the object's resourceVersion when it was asked last

  function find() {
    const key = `${ns}/${name}`;
    const object = isGroup ? cluster.get('podgroups').get(key) : cluster.get('jobs').get(key);
    if (!object) return null;
    const groups = isGroup ? [object] : model.jobPodGroups(object, cluster.get('podgroups'));
    const groupNames = new Set(groups.map((g) => g.metadata.name));
    const pods = [...cluster.get('pods').values()].filter((p) => p.metadata.namespace === ns &&
      (groupNames.has(model.groupName(p)) || (!isGroup && (p.metadata.labels || {})['volcano.sh/job-name'] === name)));
    pods.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name, undefined, {numeric: true}));
    return {object, groups, pods};
  }

  function follow(pod) {
    if (following) following.abort();
    logTitle.textContent = `Log of ${pod}`;
    logView.textContent = '';
    following = api.followLog(ns, pod, '', (text) => {
      const atEnd = logView.scrollTop + logView.clientHeight >= logView.scrollHeight - 4;
      logView.append(text);
      if (atEnd) logView.scrollTop = logView.scrollHeight;
    }, (error) => logView.append(error ? `\n[log ended: ${error}]\n` : '\n[log ended]\n'));
  }

  function actions(job, phase) {
    if (isGroup) return [];
    const target = {...job, apiVersion: 'batch.volcano.sh/v1alpha1', kind: 'Job'};
    const suspended = phase === 'Aborted' || phase === 'Aborting';
    const finished = ['Completed', 'Failed', 'Terminated'].includes(phase);
    return [
      suspended ?
        h('button', {type: 'button', id: 'resume', onclick: () => confirmed(`Resume job ${ns}/${name}?`,
            () => api.busCommand('ResumeJob', target, ns), status)}, 'Resume') :
        h('button', {type: 'button', id: 'suspend', disabled: finished, onclick: () => confirmed(
            `Suspend job ${ns}/${name}? Its pods are stopped and its GPUs freed until it is resumed.`,
            () => api.busCommand('AbortJob', target, ns), status)}, 'Suspend'),
      h('button', {type: 'button', class: 'danger', id: 'delete', onclick: () => confirmed(
          `Delete job ${ns}/${name} and its pods?`,
          () => api.del(`/apis/batch.volcano.sh/v1alpha1/namespaces/${ns}/jobs/${name}`), status)}, 'Delete'),
    ];
  }

  function renderEvents(found) {
    const names = new Set([name, ...found.groups.map((g) => g.metadata.name), ...found.pods.map((p) => p.metadata.name)]);
    const mine = lastEvents.filter((e) => names.has((e.involvedObject || {}).name));
    mine.sort((a, b) => Date.parse(b.lastTimestamp || b.eventTime || 0) - Date.parse(a.lastTimestamp || a.eventTime || 0));
    clear(events);
    events.append(h('h2', {}, 'Events'), mine.length ? h('table', {},
        h('thead', {}, h('tr', {}, ['Type', 'Reason', 'Object', 'Message', 'Count', 'Last seen'].map((t) => h('th', {scope: 'col'}, t)))),
        h('tbody', {}, mine.slice(0, 100).map((e) => h('tr', {},
            h('td', {}, e.type || ''), h('td', {}, e.reason || ''),
            h('td', {}, `${(e.involvedObject || {}).kind || ''}/${(e.involvedObject || {}).name || ''}`),
            h('td', {style: {whiteSpace: 'normal'}}, e.message || ''), h('td', {class: 'num'}, `${e.count || 1}`),
            h('td', {}, e.lastTimestamp || e.eventTime || ''))))) : h('p', {class: 'muted'}, 'No events.'));
  }

  async function explain() {
    const params = new URLSearchParams({namespace: ns, name, ...(isGroup ? {kind: 'PodGroup'} : {})});
    try {
      const response = await fetch(`/ui/explain?${params}`, {headers: {Authorization: `Bearer ${api.token()}`}});
      explanation = response.ok ? await response.text() : `etna explain: ${response.status} ${(await response.text()).slice(0, 300)}`;
    } catch (e) {
      explanation = `etna explain: ${e.message}`;
    }
  }

  // Events and the explanation (which also reads nodes and the queue) every few seconds.
  async function pollEvents() {
    try {
      const list = await api.get(`/api/v1/namespaces/${encodeURIComponent(ns)}/events`);
      lastEvents = list.items || [];
    } catch (e) {
      lastEvents = [];
    }
    await explain();
    update();
  }

  function update() {
    const found = find();
    clear(header);
    if (!found) {
      header.append(h('h1', {}, `${ns}/${name}`), h('p', {class: 'error'},
          cluster.synced() ? 'No such job (deleted, or not visible to you).' : 'Loading…'));
      clear(why);
      clear(tasks);
      return;
    }
    const {object, pods} = found;
    if (object.metadata.resourceVersion !== explainedVersion) {
      explainedVersion = object.metadata.resourceVersion;  // it changed: ask again now
      explain().then(update);
    }
    const phase = isGroup ? ((object.status || {}).phase || 'Pending') : ((object.status || {}).state || {}).phase || 'Pending';
    const queueName = (object.spec || {}).queue || 'default';
    header.append(
        h('h1', {}, `${isGroup ? 'PodGroup' : 'Job'} ${ns}/${name} `, h('span', {class: `phase-${phase}`, id: 'job-phase'}, phase)),
        h('p', {class: 'muted'}, `queue ${queueName}`,
            (object.spec || {}).priorityClassName ? ` · priority ${object.spec.priorityClassName}` : '',
            ` · created ${new Date(object.metadata.creationTimestamp).toLocaleString()}`),
        h('div', {class: 'toolbar'}, actions(object, phase)));
    const waiting = pods.filter((p) => !p.spec.nodeName && !model.isTerminal(p));
    const podReasons = waiting.flatMap((p) => ((p.status || {}).conditions || [])
        .filter((c) => c.type === 'PodScheduled' && c.status === 'False' && c.message)
        .map((c) => `Pod ${p.metadata.name}: ${c.reason || 'Unschedulable'}: ${c.message}`));
    clear(why);
    why.append(h('h2', {id: 'why-title'}, ['Pending', 'Inqueue'].includes(phase) || waiting.length ? 'Why it waits' : 'Scheduler'),
        h('div', {class: waiting.length || ['Pending', 'Inqueue'].includes(phase) ? 'reason' : 'reason settled', id: 'reason'},
            [explanation.trimEnd() || 'Asking the server…', ...podReasons].join('\n')));
    clear(tasks);
    tasks.append(h('h2', {}, `Tasks (${pods.length} pods)`), h('table', {},
        h('thead', {}, h('tr', {}, ['Pod', 'Task', 'Phase', 'Node', 'GPUs', 'Restarts', 'Since', ''].map((t) => h('th', {scope: 'col'}, t)))),
        h('tbody', {}, pods.map((p) => {
          const devices = model.boundDevices(p);
          const since = model.podSince(p);
          const restarts = ((p.status || {}).containerStatuses || []).reduce((n, c) => n + (c.restartCount || 0), 0);
          const gpuText = [...devices.gpus.map(String), ...devices.mig.map((m) => `${m.gpu}:${m.profile}`)].join(',') || '-';
          return h('tr', {'data-pod': p.metadata.name},
              h('td', {}, p.metadata.name), h('td', {}, (p.metadata.labels || {})['volcano.sh/task-spec'] || '-'),
              h('td', {class: `phase-${(p.status || {}).phase}`}, p.metadata.deletionTimestamp ? 'Terminating' : (p.status || {}).phase || 'Pending'),
              h('td', {}, p.spec.nodeName || '-'), h('td', {}, gpuText), h('td', {class: 'num'}, `${restarts}`),
              h('td', {}, isNaN(since) ? '-' : new Date(since).toLocaleString()),
              h('td', {}, h('button', {type: 'button', disabled: !p.spec.nodeName, onclick: () => follow(p.metadata.name)}, 'Log')));
        }))));
    renderEvents(found);
  }

  const unsubscribe = cluster.subscribe(update);
  update();
  pollEvents();
  eventsTimer = setInterval(pollEvents, EVENTS_PERIOD_MS);
  return {unmount() {
    unsubscribe();
    clearInterval(eventsTimer);
    if (following) following.abort();
  }};
}
