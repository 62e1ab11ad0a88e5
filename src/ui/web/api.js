// The dashboard's only way to the cluster: API requests with the user's bearer token (kept in
// sessionStorage for this tab), informers that list a resource and then follow its watch
// stream, and the writes behind the operator's actions. Nothing here bypasses the API's
// authentication or authorization.

const TOKEN_KEY = 'etna-token';
const NAMESPACE_KEY = 'etna-namespace';

export function token() {
  return sessionStorage.getItem(TOKEN_KEY) || '';
}

export function setToken(value) {
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
}

// The one namespace a user works in when they may not read every namespace ('' : all).
export function namespace() {
  return sessionStorage.getItem(NAMESPACE_KEY) || '';
}

export function setNamespace(value) {
  if (value) sessionStorage.setItem(NAMESPACE_KEY, value);
  else sessionStorage.removeItem(NAMESPACE_KEY);
}

// An API error: the HTTP status and the Status object's message.
class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

// Listeners told when a request is refused for want of a valid token (the page shows the login).
const unauthorizedListeners = [];
export function onUnauthorized(fn) {
  unauthorizedListeners.push(fn);
}

function headers(extra = {}) {
  return {Authorization: `Bearer ${token()}`, Accept: 'application/json', ...extra};
}

async function check(response) {
  if (response.ok) return response;
  let message = `${response.status} ${response.statusText}`;
  try {
    const body = await response.json();
    if (body && body.message) message = body.message;
  } catch (e) {
    // not a Status object: keep the status line
  }
  if (response.status === 401) unauthorizedListeners.forEach((fn) => fn());
  throw new ApiError(response.status, message);
}

export async function request(method, path, body, contentType = 'application/json') {
  const init = {method, headers: headers(body === undefined ? {} : {'Content-Type': contentType})};
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await check(await fetch(path, init));
  const text = await response.text();
  return text ? JSON.parse(text) : null;
}

export const get = (path) => request('GET', path);
export const post = (path, body) => request('POST', path, body);
export const del = (path, body) => request('DELETE', path, body);
export const mergePatch = (path, body) =>
  request('PATCH', path, body, 'application/merge-patch+json');

// Who the token belongs to (SelfSubjectReview, as `kubectl auth whoami` asks).
export async function whoami() {
  const review = await post('/apis/authentication.k8s.io/v1/selfsubjectreviews', {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'SelfSubjectReview',
  });
  return (review.status && review.status.userInfo) || {};
}

// Reads a streamed body line by line (watch events, followed logs) until it ends or `signal`
// aborts; calls onLine for each complete line.
async function readLines(response, onLine, signal) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for (;;) {
      const {done, value} = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, {stream: true});
      let newline;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        onLine(buffered.slice(0, newline));
        buffered = buffered.slice(newline + 1);
      }
    }
    if (buffered) onLine(buffered);
  } catch (e) {
    if (!signal || !signal.aborted) throw e;
  }
}

function objectKey(object) {
  const m = object.metadata || {};
  return m.namespace ? `${m.namespace}/${m.name}` : m.name;
}

// The objects of one resource (`path`, a collection URL) as last listed and watched.
class Informer {
  constructor(path) {
    this.path = path;
    this.items = new Map();
    this.version = '';  // '' : list again before watching
    this.synced = false;
    this.error = '';
    this.refused = false;  // 401/403: not retried until the next login
  }

  async list() {
    const items = new Map();
    let next = '';
    let version = '';
    do {
      const sep = this.path.includes('?') ? '&' : '?';
      const page = await get(`${this.path}${sep}limit=500${next ? `&continue=${encodeURIComponent(next)}` : ''}`);
      for (const item of page.items || []) items.set(objectKey(item), item);
      version = page.metadata.resourceVersion;
      next = page.metadata.continue || '';
    } while (next);
    this.items = items;
    this.version = version;
    this.synced = true;
    this.error = '';
  }

  watchUrl() {
    const sep = this.path.includes('?') ? '&' : '?';
    return `${this.path}${sep}watch=true&allowWatchBookmarks=true&resourceVersion=${this.version}`;
  }

  // Applies one watch event; false when the watch is too old (410) and a list must follow.
  apply(event) {
    if (event.type === 'ERROR') {
      if (event.object && event.object.code === 410) this.version = '';
      return;
    }
    const object = event.object;
    this.version = object.metadata.resourceVersion || this.version;
    if (event.type === 'BOOKMARK') return;
    if (event.type === 'DELETED') this.items.delete(objectKey(object));
    else this.items.set(objectKey(object), object);
  }
}

// Keeps every object of several resources current over one connection: each resource is listed
// (in pages of 500), then all are watched from their lists' resourceVersions through the
// server's multiplexed watch, GET /ui/watch?watch=URL&... (a browser has six connections per
// server; one watch each would leave none for anything else). When the stream ends, each
// resource resumes from the last version it saw; one whose watch was too old (410 Gone) is
// listed again. Calls onChange() after each change.
export class WatchHub {
  constructor(resources, onChange) {
    this.informers = Object.fromEntries(Object.entries(resources).map(([name, path]) => [name, new Informer(path)]));
    this.onChange = onChange;
    this.stopped = false;
    this.controller = null;
  }

  start() {
    this.run();
    return this;
  }

  stop() {
    this.stopped = true;
    if (this.controller) this.controller.abort();
  }

  async run() {
    let backoff = 250;
    while (!this.stopped) {
      const live = Object.values(this.informers).filter((i) => !i.refused);
      await Promise.all(live.filter((i) => !i.version).map(async (i) => {
        try {
          await i.list();
        } catch (e) {
          i.error = e.message;
          i.refused = e instanceof ApiError && (e.status === 401 || e.status === 403);
        }
      }));
      if (this.stopped) return;
      this.onChange();
      const watched = live.filter((i) => i.version && !i.refused);
      try {
        if (!watched.length) throw new Error('nothing to watch');
        await this.watch(watched);
        backoff = 250;
      } catch (e) {
        if (this.stopped) return;
        for (const i of watched) {
          i.error = e.message;
          i.version = '';
        }
        this.onChange();
        if (e instanceof ApiError && e.status === 401) return;
        await new Promise((resolve) => setTimeout(resolve, backoff));
        backoff = Math.min(backoff * 2, 5000);
      }
    }
  }

  async watch(informers) {
    this.controller = new AbortController();
    const query = informers.map((i) => `watch=${encodeURIComponent(i.watchUrl())}`).join('&');
    const response = await check(await fetch(`/ui/watch?${query}`, {headers: headers(), signal: this.controller.signal}));
    for (const i of informers) i.error = '';
    this.onChange();
    await readLines(response, (line) => {
      const space = line.indexOf(' ');
      if (space < 0) return;
      const informer = informers[Number(line.slice(0, space))];
      if (!informer) return;
      informer.apply(JSON.parse(line.slice(space + 1)));
      this.onChange();
    }, this.controller.signal);
  }
}

// Follows a pod's log (GET .../log?follow=true), calling onText with each piece; returns the
// AbortController that stops it.
export function followLog(ns, pod, container, onText, onEnd) {
  const controller = new AbortController();
  const params = new URLSearchParams({follow: 'true', tailLines: '1000'});
  if (container) params.set('container', container);
  const url = `/api/v1/namespaces/${ns}/pods/${pod}/log?${params}`;
  (async () => {
    try {
      const response = await check(await fetch(url, {headers: headers(), signal: controller.signal}));
      await readLines(response, (line) => onText(`${line}\n`), controller.signal);
      onEnd('');
    } catch (e) {
      if (!controller.signal.aborted) onEnd(e.message);
    }
  })();
  return controller;
}

// A bus.volcano.sh Command (AbortJob, ResumeJob, OpenQueue, CloseQueue) for `target`, as
// `etna job suspend` and `etna queue operate` create it.
export async function busCommand(action, target, ns) {
  const meta = target.metadata;
  const ref = {
    apiVersion: target.apiVersion,
    kind: target.kind,
    name: meta.name,
    uid: meta.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
  const suffix = Math.random().toString(36).slice(2, 7);
  const command = {
    apiVersion: 'bus.volcano.sh/v1alpha1',
    kind: 'Command',
    metadata: {name: `${meta.name}-${action.toLowerCase()}-${suffix}`, namespace: ns},
    action,
    target: ref,
  };
  if (meta.namespace) command.metadata.ownerReferences = [ref];
  return post(`/apis/bus.volcano.sh/v1alpha1/namespaces/${ns}/commands`, command);
}
