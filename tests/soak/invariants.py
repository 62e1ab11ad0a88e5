"""The soak's invariant checker: pure bookkeeping, no I/O, no clock of its own.

It is fed, in the order things happened, with times in seconds from any one clock:
  - every watch event of pods, Volcano Jobs and PodGroups  (on_event)
  - the soak's own record: jobs the API acknowledged (2xx) and jobs it deleted
  - when a component (scheduler, agent-<node>) went down or came back  (on_component)
  - samples of the pods' processes found under /proc  (on_processes)
  - samples of the server's and scheduler's resident memory  (on_rss)
and reports each violation once, with the objects and times involved:

  gpu-double-hold     one GPU (node, device index from the bind annotation etna.io/gpu-ids)
                      held by two pods at once; a pod holds its GPUs from its bind until it is
                      Succeeded, Failed or gone (a pod being deleted still holds them: its
                      process runs through its grace period and the scheduler counts it as
                      Releasing). GPU shares (etna.io/gpu-memory-mib) are left out.
  gpu-double-use      the same seen on the processes: two pods' live processes on one node whose
                      CUDA_VISIBLE_DEVICES share a device, in one /proc sample.
  partial-gang        a bind left a PodGroup with fewer than spec.minMember placed pods (bound,
                      not being deleted; Succeeded and Failed members count as placed) for longer
                      than gang_grace_s of scheduler uptime. Only a bind opens the window: a
                      running gang that loses members (node lost, preemption, our deletes) is
                      not a scheduling decision.
  job-lost            at finish: a job the API acknowledged and we did not delete that is neither
                      in a terminal phase (Completed, Failed, Terminated, Aborted) nor Running,
                      or that vanished without having been terminal.
  pod-after-delete    a watch event for a pod after its DELETED event.
  process-after-delete a process of a pod seen more than orphan_grace_s after the pod was
                      deleted and after its node's agent came back up.
  memory-growth       at finish, per component: with at least 9 samples in time order, the mean
                      of the last third exceeds the mean of the middle third by more than
                      rss_growth_ratio (25 %) and rss_growth_mb (50 MB) both.
"""
import collections

TERMINAL_POD_PHASES = ("Succeeded", "Failed")
TERMINAL_JOB_PHASES = ("Completed", "Failed", "Terminated", "Aborted")
GPU_IDS = "etna.io/gpu-ids"
GPU_SHARE = "etna.io/gpu-memory-mib"
GROUP_NAME = "scheduling.k8s.io/group-name"

Violation = collections.namedtuple("Violation", "kind t message")


class PodView:
    """What the checker keeps of one pod: its last watched state."""

    def __init__(self, obj):
        meta, spec, status = obj["metadata"], obj.get("spec", {}), obj.get("status", {})
        annotations = meta.get("annotations") or {}
        self.uid = meta["uid"]
        self.key = f"{meta.get('namespace', '')}/{meta['name']}"
        self.group = annotations.get(GROUP_NAME)
        self.node = spec.get("nodeName") or ""
        self.phase = status.get("phase", "")
        self.deleting = "deletionTimestamp" in meta
        shared = GPU_SHARE in annotations
        ids = [] if shared else [i for i in annotations.get(GPU_IDS, "").split(",") if i]
        self.gpus = tuple(ids)

    def holds_gpus(self):
        return bool(self.node) and self.phase not in TERMINAL_POD_PHASES

    def placed(self):
        return bool(self.node) and not self.deleting

    def describe(self):
        extra = " deleting" if self.deleting else ""
        return f"{self.key} (uid {self.uid[:8]}, node {self.node or '-'}, " \
               f"gpus {','.join(self.gpus) or '-'}, {self.phase or 'no phase'}{extra})"


class JobRecord:
    """One Volcano Job: what we did to it and the phases the watch showed."""

    def __init__(self):
        self.acked_t = None
        self.delete_t = None
        self.phases = []  # (t, phase)
        self.gone_t = None

    @property
    def phase(self):
        return self.phases[-1][1] if self.phases else None


class Intervals:
    """Down intervals of one component, to discount from a grace period."""

    def __init__(self):
        self.down_since = None
        self.closed = []  # (start, end)
        self.up_since = 0.0

    def down(self, t):
        if self.down_since is None:
            self.down_since = t

    def up(self, t):
        if self.down_since is not None:
            self.closed.append((self.down_since, t))
            self.down_since = None
        self.up_since = t

    def is_up(self):
        return self.down_since is None

    def downtime(self, start, end):
        total = sum(max(0.0, min(e, end) - max(s, start)) for s, e in self.closed)
        if self.down_since is not None:
            total += max(0.0, end - max(self.down_since, start))
        return total


class InvariantChecker:
    def __init__(self, gang_grace_s=30.0, orphan_grace_s=10.0, rss_growth_ratio=0.25,
                 rss_growth_mb=50.0):
        self.gang_grace_s = gang_grace_s
        self.orphan_grace_s = orphan_grace_s
        self.rss_growth_ratio = rss_growth_ratio
        self.rss_growth_mb = rss_growth_mb
        self.violations = []
        self._reported = set()
        self.pods = {}             # uid -> PodView
        self.pod_seen_t = {}       # uid -> time first bound
        self.deleted_pods = {}     # uid -> (t, PodView)
        self.holders = collections.defaultdict(dict)   # (node, gpu) -> {uid: since}
        self.min_member = {}       # "ns/group" -> spec.minMember
        self.gang_windows = {}     # "ns/group" -> time a bind left it partial
        self.jobs = collections.defaultdict(JobRecord)  # "ns/name" -> JobRecord
        self.components = collections.defaultdict(Intervals)
        self.rss = collections.defaultdict(list)       # component -> [(t, mb)]
        self.events = 0
        self.gang_binds = 0          # binds that opened a gang window
        self.longest_partial_s = 0.0  # the longest a closed window stayed open

    # ---- reporting ----

    def _report(self, kind, t, key, message):
        if (kind, key) in self._reported:
            return
        self._reported.add((kind, key))
        self.violations.append(Violation(kind, t, message))

    def kinds(self):
        return sorted({v.kind for v in self.violations})

    # ---- inputs ----

    def on_event(self, t, kind, event_type, obj):
        self.events += 1
        if kind == "Pod":
            self._on_pod(t, event_type, obj)
        elif kind == "PodGroup":
            meta = obj["metadata"]
            key = f"{meta.get('namespace', '')}/{meta['name']}"
            if event_type == "DELETED":
                self.min_member.pop(key, None)
                self.gang_windows.pop(key, None)
            else:
                self.min_member[key] = int(obj.get("spec", {}).get("minMember", 1) or 1)
                self._settle_gang(key, t)
        elif kind == "Job":
            meta = obj["metadata"]
            job = self.jobs[f"{meta.get('namespace', '')}/{meta['name']}"]
            if event_type == "DELETED":
                job.gone_t = t
                return
            phase = obj.get("status", {}).get("state", {}).get("phase")
            if phase and phase != job.phase:
                job.phases.append((t, phase))

    def on_job_acknowledged(self, t, key):
        self.jobs[key].acked_t = t

    def on_job_delete_requested(self, t, key):
        if self.jobs[key].delete_t is None:
            self.jobs[key].delete_t = t

    def on_component(self, t, name, up):
        if up:
            self.components[name].up(t)
        else:
            self.components[name].down(t)

    def on_processes(self, t, procs):
        """procs: pod uid -> (node, gpu indices, pid) of a live process of that pod."""
        by_gpu = collections.defaultdict(list)
        for uid, (node, gpus, pid) in procs.items():
            for gpu in gpus:
                by_gpu[(node, gpu)].append((uid, pid))
            if uid in self.deleted_pods:
                t_del, view = self.deleted_pods[uid]
                agent = self.components[f"agent-{node}"]
                if not agent.is_up():
                    continue
                since = max(t_del, agent.up_since)
                if t - since > self.orphan_grace_s:
                    self._report("process-after-delete", t, uid,
                                 f"t={t:.1f}: pid {pid} of pod {view.describe()} still runs on "
                                 f"{node}; the pod was deleted at t={t_del:.1f} and agent-{node} "
                                 f"has been up since t={agent.up_since:.1f}")
        for (node, gpu), users in by_gpu.items():
            uids = sorted({u for u, _ in users})
            if len(uids) > 1:
                names = [self._name_of(u) for u in uids]
                self._report("gpu-double-use", t, (node, gpu, tuple(uids)),
                             f"t={t:.1f}: GPU {gpu} of {node} is in CUDA_VISIBLE_DEVICES of live "
                             f"processes of {len(uids)} pods: " +
                             "; ".join(f"{n} pid {p}" for n, (_, p) in zip(names, users)))

    def on_rss(self, t, component, mb):
        self.rss[component].append((t, mb))

    def tick(self, t):
        """Time-based rules: a gang left partial past its grace."""
        sched = self.components["scheduler"]
        for key, opened in list(self.gang_windows.items()):
            if key not in self.min_member:
                continue
            waited = (t - opened) - sched.downtime(opened, t)
            if waited > self.gang_grace_s:
                placed = self._group_pods(key)
                bound = [p.describe() for p in placed if p.placed()]
                waiting = [p.describe() for p in placed if not p.placed()]
                self._report("partial-gang", t, (key, opened),
                             f"t={t:.1f}: PodGroup {key} (minMember {self.min_member[key]}) has "
                             f"had {len(bound)} placed pods since a bind at t={opened:.1f} "
                             f"({waited:.1f} s of scheduler uptime): placed {bound}; "
                             f"not placed {waiting}")

    def finish(self, t):
        self.tick(t)
        for key, job in sorted(self.jobs.items()):
            if job.acked_t is None or job.delete_t is not None:
                continue
            history = " -> ".join(f"{p}@{pt:.1f}" for pt, p in job.phases) or "no phase seen"
            if job.gone_t is not None:
                if job.phase not in TERMINAL_JOB_PHASES:
                    self._report("job-lost", job.gone_t, key,
                                 f"job {key} acknowledged at t={job.acked_t:.1f} vanished at "
                                 f"t={job.gone_t:.1f} without being terminal or deleted by the "
                                 f"soak ({history})")
            elif job.phase not in TERMINAL_JOB_PHASES + ("Running",):
                self._report("job-lost", t, key,
                             f"job {key} acknowledged at t={job.acked_t:.1f} is neither terminal "
                             f"nor Running at t={t:.1f} ({history})")
        for component, samples in sorted(self.rss.items()):
            self._check_growth(t, component, samples)
        return self.violations

    # ---- pods ----

    def _on_pod(self, t, event_type, obj):
        view = PodView(obj)
        uid = view.uid
        if uid in self.deleted_pods:
            t_del, old = self.deleted_pods[uid]
            self._report("pod-after-delete", t, uid,
                         f"t={t:.1f}: {event_type} event for pod {view.describe()} after its "
                         f"DELETED event at t={t_del:.1f}")
            return
        old = self.pods.get(uid)
        if event_type == "DELETED":
            self.pods.pop(uid, None)
            self.deleted_pods[uid] = (t, view)
            self._update_holds(t, old, None)
        else:
            self.pods[uid] = view
            self._update_holds(t, old, view)
        group = self._group_key(view)
        if group:
            was_bound = old is not None and old.node
            if event_type != "DELETED" and view.node and not was_bound:
                if group not in self.gang_windows:
                    self.gang_binds += 1
                    self.gang_windows[group] = t
            self._settle_gang(group, t)

    def _update_holds(self, t, old, new):
        """Moves the pod's GPU holds from its old state to its new one (None: gone)."""
        before = {(old.node, g) for g in old.gpus} if old and old.holds_gpus() else set()
        after = {(new.node, g) for g in new.gpus} if new and new.holds_gpus() else set()
        uid = (old or new).uid
        for gpu_key in before - after:
            self.holders[gpu_key].pop(uid, None)
        shared = collections.defaultdict(list)  # other pod -> [(gpu, since)]
        for gpu_key in sorted(after - before):
            holders = self.holders[gpu_key]
            for other, other_since in holders.items():
                shared[other].append((gpu_key[1], other_since))
            holders[uid] = t
        for other, gpus in sorted(shared.items()):
            node = new.node
            self._report("gpu-double-hold", t, (node, tuple(sorted((other, uid)))),
                         f"t={t:.1f}: GPU {','.join(g for g, _ in gpus)} of {node} held by "
                         f"{self._describe(other)} since t={min(s for _, s in gpus):.1f} and "
                         f"by {new.describe()} from t={t:.1f}")

    @staticmethod
    def _group_key(view):
        return view.group and f"{view.key.split('/')[0]}/{view.group}"

    def _group_pods(self, group):
        return [p for p in self.pods.values() if self._group_key(p) == group]

    def _settle_gang(self, group, t):
        """Closes the group's window once it is whole again or empty."""
        if group not in self.gang_windows or group not in self.min_member:
            return
        placed = sum(1 for p in self._group_pods(group) if p.placed())
        if placed == 0 or placed >= self.min_member[group]:
            opened = self.gang_windows.pop(group)
            self.longest_partial_s = max(self.longest_partial_s, t - opened)

    def _describe(self, uid):
        view = self.pods.get(uid) or (self.deleted_pods.get(uid) or (None, None))[1]
        return view.describe() if view else f"pod uid {uid}"

    def _name_of(self, uid):
        view = self.pods.get(uid) or (self.deleted_pods.get(uid) or (None, None))[1]
        return view.key if view else f"uid {uid[:8]}"

    # ---- memory ----

    def _check_growth(self, t, component, samples):
        samples = sorted(samples)
        if len(samples) < 9:
            return
        third = len(samples) // 3
        middle = [mb for _, mb in samples[third:2 * third]]
        last = [mb for _, mb in samples[len(samples) - third:]]
        m2, m3 = sum(middle) / len(middle), sum(last) / len(last)
        if m3 > m2 * (1 + self.rss_growth_ratio) and m3 - m2 > self.rss_growth_mb:
            self._report("memory-growth", t, component,
                         f"{component} RSS: mean {m3:.0f} MB over the last third of the run "
                         f"(from t={samples[len(samples) - third][0]:.1f}) against {m2:.0f} MB "
                         f"over the middle third; max {max(mb for _, mb in samples):.0f} MB")

    def max_rss(self, component):
        return max((mb for _, mb in self.rss.get(component, [])), default=0.0)
