// The dashboard's shell: the login (a bearer token, checked with the API), the informers every
// page reads, and the router between pages (#/gpus, #/queues, #/jobs, #/job/NS/NAME).
import * as api from './api.js';
import {h, clear} from './dom.js';
import * as gpus from './gpus.js';
import * as queues from './queues.js';
import * as jobs from './jobs.js';
import * as job from './job.js';

// The resources every page reads, kept current by one informer each: the namespaced ones in
// every namespace, or in `ns` only (a team's user who may not read the others').
function resources(ns) {
  const scope = ns ? `/namespaces/${encodeURIComponent(ns)}` : '';
  return {
    nodes: '/api/v1/nodes',
    pods: `/api/v1${scope}/pods`,
    podgroups: `/apis/scheduling.volcano.sh/v1beta1${scope}/podgroups`,
    queues: '/apis/scheduling.volcano.sh/v1beta1/queues',
    jobs: `/apis/batch.volcano.sh/v1alpha1${scope}/jobs`,
  };
}

// The cluster as the informers see it; subscribers are called at most once per frame.
class Cluster {
  constructor() {
    this.hub = null;
    this.listeners = new Set();
    this.scheduled = false;
    this.version = 0;
  }
  start() {
    this.stop();
    this.hub = new api.WatchHub(resources(api.namespace()), () => this.changed()).start();
  }
  stop() {
    if (this.hub) this.hub.stop();
    this.hub = null;
  }
  informers() {
    return this.hub ? Object.entries(this.hub.informers) : [];
  }
  get(name) {
    return this.hub ? this.hub.informers[name].items : new Map();
  }
  synced() {
    return this.hub !== null && this.informers().every(([, i]) => i.synced || i.refused);
  }
  errors() {
    return this.informers().filter(([, i]) => i.error && !i.refused).map(([n, i]) => `${n}: ${i.error}`);
  }
  // What the user may not read (a team's user and the nodes): said, but not as a fault.
  refused() {
    return this.informers().filter(([, i]) => i.refused).map(([n]) => n);
  }
  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
  changed() {
    this.version++;
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => {
      this.scheduled = false;
      this.listeners.forEach((fn) => fn());
    });
  }
}

const cluster = new Cluster();
let page = null;
let loggedIn = false;

function showLogin(message) {
  loggedIn = false;
  cluster.stop();
  if (page) page.unmount();
  page = null;
  document.querySelector('nav').hidden = true;
  document.getElementById('logout').hidden = true;
  document.getElementById('user').textContent = '';
  document.getElementById('live').textContent = '';
  const input = h('input', {id: 'token', type: 'password', autocomplete: 'off', required: true,
    'aria-describedby': 'token-help'});
  const nsInput = h('input', {id: 'namespace', type: 'text', autocomplete: 'off', value: api.namespace(),
    'aria-describedby': 'namespace-help'});
  const error = h('p', {class: 'error', role: 'alert'}, message || '');
  const form = h('form', {class: 'login', id: 'login'},
      h('h1', {}, 'Log in to etna'),
      h('label', {for: 'token'}, 'Bearer token'), input,
      h('p', {id: 'token-help', class: 'muted'},
          'The token of your kubeconfig (kubectl config view --raw -o ',
          h('code', {}, "jsonpath='{.users[0].user.token}'"), '). Every read and action is an ' +
          'API request made with it, under the same authorization as kubectl.'),
      h('label', {for: 'namespace'}, 'Namespace (optional)'), nsInput,
      h('p', {id: 'namespace-help', class: 'muted'},
          'Only this namespace’s jobs and pods, for a user who may not read every namespace.'),
      error, h('button', {type: 'submit'}, 'Log in'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    api.setToken(input.value.trim());
    api.setNamespace(nsInput.value.trim());
    await login(error);
  });
  const main = document.getElementById('main');
  clear(main);
  main.append(form);
  input.focus();
}

async function login(errorElement) {
  try {
    const user = await api.whoami();
    const ns = api.namespace();
    document.getElementById('user').textContent = `${user.username || ''}${ns ? ` in ${ns}` : ''}`;
  } catch (e) {
    api.setToken('');
    const text = e.status === 401 ? 'The server did not accept this token.' : e.message;
    if (errorElement) errorElement.textContent = text;
    else showLogin(text);
    return;
  }
  loggedIn = true;
  document.querySelector('nav').hidden = false;
  document.getElementById('logout').hidden = false;
  cluster.start();
  if (!location.hash || location.hash === '#/login') location.hash = '#/gpus';
  route();
}

function updateLive() {
  const live = document.getElementById('live');
  const errors = cluster.errors();
  const refused = cluster.refused();
  live.textContent = errors.length ? `not live: ${errors.join('; ')}` : cluster.synced() ?
    `live${refused.length ? ` (not allowed to read: ${refused.join(', ')}${refused.includes('pods') && !api.namespace() ?
      '; log in naming your namespace' : ''})` : ''}` : 'loading…';
  live.classList.toggle('error', errors.length > 0);
}

function route() {
  if (!api.token()) return showLogin();
  const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  const views = {gpus, queues, jobs, job};
  const view = views[parts[0]] || gpus;
  if (page) page.unmount();
  const main = document.getElementById('main');
  clear(main);
  document.querySelectorAll('nav a').forEach((a) => {
    const current = a.getAttribute('href') === `#/${parts[0] === 'job' ? 'jobs' : parts[0]}`;
    if (current) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  });
  page = view.mount(main, cluster, parts.slice(1));
  main.focus({preventScroll: true});
}

function start() {
  // A login link may carry the token in its fragment (#token=...): kept for this tab, then
  // dropped from the address so it is neither bookmarked nor shown.
  const m = /^#token=([^&]+)/.exec(location.hash);
  if (m) {
    api.setToken(decodeURIComponent(m[1]));
    history.replaceState(null, '', `${location.pathname}#/gpus`);
  }
  api.onUnauthorized(() => {
    if (loggedIn) showLogin('Your token was refused; log in again.');
  });
  document.getElementById('logout').addEventListener('click', () => {
    api.setToken('');
    showLogin();
  });
  window.addEventListener('hashchange', () => {
    if (api.token() && cluster.hub) route();
  });
  cluster.subscribe(updateLive);
  if (api.token()) login(null);
  else showLogin();
}

start();
