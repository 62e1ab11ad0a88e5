"""What the soak reads from /proc: the live processes of its pods (found by the SOAK_RUN
variable every soak pod carries, with SOAK_POD_UID, SOAK_NODE and the agent's
CUDA_VISIBLE_DEVICES); a process's resident memory is cluster.rss_mb."""
import os
import signal


def pod_processes(run_id):
    """pod uid -> (node, GPU indices, pid) for every live (not zombie) process of this run (one
    process per pod: the first found)."""
    found = {}
    marker = f"SOAK_RUN={run_id}".encode()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                environ = f.read()
            if marker not in environ:
                continue
            with open(f"/proc/{pid}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if state in (b"Z", b"X"):
            continue
        env = dict(item.split(b"=", 1) for item in environ.split(b"\0") if b"=" in item)
        uid = env.get(b"SOAK_POD_UID", b"").decode()
        if not uid:
            continue
        gpus = tuple(g for g in env.get(b"CUDA_VISIBLE_DEVICES", b"").decode().split(",") if g)
        found.setdefault(uid, (env.get(b"SOAK_NODE", b"").decode(), gpus, int(pid)))
    return found


def describe_process(pid):
    """'pid P (ppid Q): command line' for a report, or just the pid when it is gone."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmdline = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        with open(f"/proc/{pid}/stat", "rb") as f:
            ppid = f.read().rsplit(b")", 1)[1].split()[1].decode()
        return f"pid {pid} (ppid {ppid}): {cmdline}"
    except (OSError, IndexError):
        return f"pid {pid}"


def kill_run_processes(run_id):
    """SIGKILLs every process left of this run's pods; returns their descriptions."""
    left = []
    for _, (_, _, pid) in pod_processes(run_id).items():
        left.append(describe_process(pid))
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return left
