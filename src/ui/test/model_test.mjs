// Unit tests of the dashboard's model (src/ui/web/model.js) under node's test runner:
// `node --test src/ui/test/` (ctest: ui_model_test).
import assert from 'node:assert/strict';
import test from 'node:test';

import * as model from '../web/model.js';

const node = (name, gpus, extra = {}) => ({
  metadata: {name, labels: {'topology.etna.io/switch': extra.switchName || 's1'},
    annotations: {'etna.io/gpus': JSON.stringify(gpus)}},
  spec: {unschedulable: extra.cordoned || undefined},
  status: {conditions: [{type: 'Ready', status: extra.notReady ? 'False' : 'True'}]},
});
const gpus = (n, mig = {}) => Array.from({length: n}, (_, i) => ({
  index: i, uuid: `GPU-${i}`, model: 'H100', memoryMiB: 81559, healthy: true,
  nvlinkDomain: i < n / 2 ? 0 : 1, ...(mig[i] ? {mig: mig[i]} : {}),
}));
const pod = (name, nodeName, ids, {group = '', phase = 'Running', mig = ''} = {}) => ({
  metadata: {name, namespace: 'team', annotations: {
    'etna.io/gpu-ids': ids, 'scheduling.k8s.io/group-name': group, 'etna.io/mig-instances': mig}},
  spec: {nodeName},
  status: {phase},
});
const map = (items) => new Map(items.map((o) => [o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name, o]));

test('quantities', () => {
  assert.equal(model.parseQuantity('64Gi'), 64 * 1024 ** 3);
  assert.equal(model.parseQuantity('500m'), 0.5);
  assert.equal(model.parseQuantity('8'), 8);
  assert.equal(model.parseQuantity('bad'), 0);
});

test('the map puts each pod on the GPUs the scheduler bound it to, in its queue', () => {
  const nodes = map([node('n1', gpus(4)), node('n2', gpus(2, {1: [{profile: '1g.10gb', id: 7}, {profile: '1g.10gb', id: 8}]}))]);
  const podgroups = map([{metadata: {name: 'train', namespace: 'team'}, spec: {queue: 'research'}}]);
  const pods = map([
    pod('train-0', 'n1', '0,1', {group: 'train'}),
    pod('done', 'n1', '2', {phase: 'Succeeded'}),
    pod('infer', 'n2', '', {mig: '1:1g.10gb:8'}),
    pod('share-a', 'n2', '0'), pod('share-b', 'n2', '0'),
  ]);
  const m = model.gpuMap(nodes, pods, podgroups);
  assert.deepEqual(m.map((n) => n.name), ['n1', 'n2']);
  const n1 = m[0].gpus;
  assert.deepEqual(n1[0].holders.map((x) => [x.pod, x.queue, x.job]), [['train-0', 'research', 'train']]);
  assert.equal(n1[2].holders.length, 0, 'a finished pod holds nothing');
  const n2 = m[1].gpus;
  assert.equal(n2[0].holders.length, 2, 'a shared GPU has both holders');
  assert.equal(n2[1].mig[1].holder.pod, 'infer');
  assert.equal(n2[1].mig[0].holder, null);
  const {byQueue, total} = model.gpusByQueue(m);
  assert.equal(total, 6);
  assert.equal(byQueue.get('research'), 2);
  assert.equal(byQueue.get('default'), 1 + 0.5, 'two halves of a shared GPU and half a MIG GPU');
});

test('fragmentation: free GPUs per node, largest gang per node, domain and switch', () => {
  const nodes = map([
    node('a', gpus(8)), node('b', gpus(8), {switchName: 's1'}), node('c', gpus(8), {cordoned: true}),
    node('d', gpus(8), {switchName: 's2'})]);
  const pods = map([pod('p', 'a', '0,1,2,3,4'), pod('q', 'b', '0,1,2,3,4,5,6'), pod('r', 'd', '0')]);
  const f = model.fragmentation(model.gpuMap(nodes, pods, new Map()));
  assert.deepEqual([...f.histogram].sort(), [[1, 1], [3, 1], [7, 1]]);
  assert.equal(f.largest.node, 7);
  assert.equal(f.largest.nodeName, 'd');
  assert.equal(f.largest.domain, 4, 'd has 3 free in domain 0 and 4 in domain 1');
  assert.equal(f.largest.switch, 7, 's2 has d (7); s1 has a and b (3 + 1)');
});

test('job rows: GPUs from the tasks, wait until the first pod bound, PodGroups of their own', () => {
  const created = '2026-01-01T00:00:00Z';
  const jobs = map([{metadata: {name: 'j', namespace: 'team', uid: 'u1', creationTimestamp: created},
    spec: {queue: 'research', tasks: [{replicas: 2, template: {spec: {containers: [{resources: {limits: {'nvidia.com/gpu': '4'}}}]}}}]},
    status: {state: {phase: 'Running'}}}]);
  const podgroups = map([
    {metadata: {name: 'j-u1', namespace: 'team', ownerReferences: [{kind: 'Job', uid: 'u1'}]}, spec: {queue: 'research'}},
    {metadata: {name: 'alone', namespace: 'team', creationTimestamp: created}, spec: {queue: 'q2'}, status: {phase: 'Pending'}}]);
  const p = pod('j-w-0', 'n1', '0,1,2,3', {group: 'j-u1'});
  p.metadata.labels = {'volcano.sh/job-name': 'j'};
  p.status.conditions = [{type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-01-01T00:00:30Z'}];
  const rows = model.jobRows(jobs, podgroups, map([p]), Date.parse('2026-01-01T01:00:00Z'));
  assert.equal(rows.length, 2);
  const [j, alone] = rows;
  assert.equal(j.gpus, 8);
  assert.equal(j.wait, 30000);
  assert.equal(j.waiting, false);
  assert.equal(alone.kind, 'PodGroup');
  assert.equal(alone.waiting, true);
  const queues = map([
    {metadata: {name: 'root'}, spec: {}}, {metadata: {name: 'q2'}, spec: {parent: 'root', deserved: {'nvidia.com/gpu': '8'}}},
    {metadata: {name: 'research'}, spec: {}, status: {allocated: {'nvidia.com/gpu': '8', memory: '1Gi'}}}]);
  const q = model.queueRows(queues, rows, Date.parse('2026-01-01T01:00:00Z'));
  assert.deepEqual(q.map((r) => [r.name, r.depth]), [['research', 0], ['root', 0], ['q2', 1]]);
  assert.equal(q[0].allocated['nvidia.com/gpu'], 8);
  assert.equal(q[0].allocated.memory, 1024 ** 3);
  assert.equal(q[2].pending, 1);
  assert.equal(q[2].oldestWaitMs, 3600000);
  assert.equal(q[2].deserved['nvidia.com/gpu'], 8);
});
