"""Watches that miss no write: one thread per collection lists it, then watches from the list's
resourceVersion and resumes from the last event's. When the server answers 410 Gone (the
revision was compacted) or the stream errs, it lists again and turns the difference from what it
knew into ADDED, MODIFIED and DELETED events, so the consumer always ends up with every object's
latest state and every deletion. Each event goes to `sink(kind, type, object)` in order."""
import http.client
import json
import ssl
import threading
import time


class CollectionWatch(threading.Thread):
    def __init__(self, cluster, kind, path, sink):
        super().__init__(daemon=True, name=f"watch-{kind}")
        self.cluster, self.kind, self.path, self.sink = cluster, kind, path, sink
        self.stop = threading.Event()
        self.known = {}  # uid -> (resourceVersion, object)
        self.relists = 0
        self.resumes = 0

    def _connect(self, timeout):
        c = self.cluster
        ctx = ssl.create_default_context(cafile=c.ca)
        return http.client.HTTPSConnection("127.0.0.1", c.port, context=ctx, timeout=timeout)

    def _headers(self):
        return {"Authorization": f"Bearer {self.cluster.token}"}

    def _emit(self, event_type, obj):
        uid = obj["metadata"]["uid"]
        if event_type == "DELETED":
            self.known.pop(uid, None)
        else:
            self.known[uid] = (obj["metadata"].get("resourceVersion"), obj)
        self.sink(self.kind, event_type, obj)

    def _relist(self):
        conn = self._connect(60)
        try:
            conn.request("GET", self.path, headers=self._headers())
            resp = conn.getresponse()
            body = resp.read()
        finally:
            conn.close()
        if resp.status != 200:
            raise OSError(f"list {self.path}: HTTP {resp.status}")
        listing = json.loads(body)
        seen = set()
        for obj in listing["items"]:
            uid = obj["metadata"]["uid"]
            seen.add(uid)
            old = self.known.get(uid)
            if old is None:
                self._emit("ADDED", obj)
            elif old[0] != obj["metadata"].get("resourceVersion"):
                self._emit("MODIFIED", obj)
        for uid in [u for u in self.known if u not in seen]:
            self._emit("DELETED", self.known[uid][1])
        self.relists += 1
        return listing["metadata"]["resourceVersion"]

    def _watch(self, rv):
        """Streams events from rv; returns the revision to resume from, or None to list again."""
        conn = self._connect(90)
        try:
            conn.request("GET", f"{self.path}?watch=1&resourceVersion={rv}&timeoutSeconds=60",
                         headers=self._headers())
            resp = conn.getresponse()
            if resp.status == 410:
                return None
            if resp.status != 200:
                raise OSError(f"watch {self.path}: HTTP {resp.status}")
            for line in resp:
                if self.stop.is_set():
                    return rv
                line = line.strip()
                if not line:
                    continue
                event = json.loads(line)
                if event["type"] == "ERROR":
                    return None  # 410 Gone, or another error: list again
                if event["type"] == "BOOKMARK":
                    rv = event["object"]["metadata"]["resourceVersion"]
                    continue
                self._emit(event["type"], event["object"])
                rv = event["object"]["metadata"].get("resourceVersion") or rv
            return rv
        finally:
            conn.close()

    def run(self):
        rv = None
        while not self.stop.is_set():
            try:
                if rv is None:
                    rv = self._relist()
                rv = self._watch(rv)
                self.resumes += 1
            except (OSError, http.client.HTTPException, ValueError):
                # the stream broke mid-way: its last events are in, list again to be sure
                rv = None
                time.sleep(0.5)


def watch_all(cluster, sink):
    """Starts watches of every pod, Volcano Job, PodGroup and Event; returns the threads."""
    watches = [
        CollectionWatch(cluster, "Pod", "/api/v1/pods", sink),
        CollectionWatch(cluster, "Job", "/apis/batch.volcano.sh/v1alpha1/jobs", sink),
        CollectionWatch(cluster, "PodGroup", "/apis/scheduling.volcano.sh/v1beta1/podgroups",
                        sink),
        CollectionWatch(cluster, "Event", "/api/v1/events", sink),
    ]
    for w in watches:
        w.start()
    return watches
