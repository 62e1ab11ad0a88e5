"""Helpers for tests of the container runtime: fake GPU device nodes, and cleanup of what the
runtime leaves behind a test or benchmark that stopped its agents without letting them remove
their pods: runc's containers, the overlay and tmpfs mounts under the test's directory, and
the pods' cgroups. (The shims are killed by the callers.) Leftover mounts slow every later
mount and runc call on the machine."""
import os
import subprocess


def make_gpu_devices(work, count=8):
    """Character devices nvidia0..count-1 and nvidiactl (major 195, as the driver's) in
    <work>/gpu-dev, for the agent's --gpu-device-dir."""
    dev_dir = os.path.join(work, "gpu-dev")
    os.makedirs(dev_dir, exist_ok=True)
    for i in range(count):
        os.mknod(os.path.join(dev_dir, f"nvidia{i}"), 0o666 | 0o020000, os.makedev(195, i))
    os.mknod(os.path.join(dev_dir, "nvidiactl"), 0o666 | 0o020000, os.makedev(195, 255))
    return dev_dir


def release_containers(work):
    """Deletes every runc container whose state lives under `work`, unmounts every mount under
    `work` and removes the cgroups of the pods whose directories are there."""
    uids = set()
    for root, dirs, _ in os.walk(work):
        if os.path.basename(root) == "runc":
            for cid in dirs:
                subprocess.run(["runc", "--root", root, "delete", "--force", cid],
                               capture_output=True)
            dirs[:] = []
        elif os.path.basename(root) == "pods":
            uids.update(dirs)
            dirs[:] = []
    with open("/proc/self/mounts") as f:
        mounts = [line.split()[1] for line in f]
    for m in sorted((m for m in mounts if m.startswith(work + "/")), reverse=True):
        subprocess.run(["umount", "-l", m], capture_output=True)
    for controller in os.listdir("/sys/fs/cgroup") if os.path.isdir("/sys/fs/cgroup") else []:
        for uid in uids:
            pod = os.path.join("/sys/fs/cgroup", controller, "etna", "pod" + uid)
            if not os.path.isdir(pod):
                continue
            for child in os.listdir(pod):
                if os.path.isdir(os.path.join(pod, child)):
                    try:
                        os.rmdir(os.path.join(pod, child))
                    except OSError:
                        pass
            try:
                os.rmdir(pod)
            except OSError:
                pass
