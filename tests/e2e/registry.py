"""A local image registry for end-to-end tests (Debian's docker-registry on loopback), and a
tiny image built on this machine (Debian's static busybox, packed by umoci, pushed by skopeo):
no download.

    with Registry(work) as reg:
        image = reg.push_busybox("bb:1")
"""
import crypt
import os
import shutil
import socket
import subprocess
import time
import warnings

BUSYBOX = "/bin/busybox"
APPLETS = ("sh", "cat", "ls", "echo", "sleep", "hostname", "head", "grep", "nc", "wget",
           "env", "printf", "true", "tr", "id", "tar", "httpd", "mkdir", "stty")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(*argv):
    r = subprocess.run(list(argv), capture_output=True, text=True)
    assert r.returncode == 0, f"{' '.join(argv)}: {r.stdout}{r.stderr}"
    return r.stdout


class Registry:
    """A registry on a free loopback port; with `user`/`password`, behind htpasswd auth."""

    def __init__(self, work, name="registry", user=None, password=None):
        self.dir = os.path.join(work, name)
        self.port = free_port()
        self.host = f"127.0.0.1:{self.port}"
        self.user, self.password = user, password

    def __enter__(self):
        os.makedirs(self.dir, exist_ok=True)
        config = ["version: 0.1", "storage:", "  filesystem:",
                  f"    rootdirectory: {self.dir}/data", "http:", f"  addr: {self.host}"]
        if self.user:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                hashed = crypt.crypt(self.password, crypt.mksalt(crypt.METHOD_BLOWFISH))
            with open(os.path.join(self.dir, "htpasswd"), "w") as f:
                f.write(f"{self.user}:{hashed}\n")
            config += ["auth:", "  htpasswd:", "    realm: etna-test",
                       f"    path: {self.dir}/htpasswd"]
        with open(os.path.join(self.dir, "config.yml"), "w") as f:
            f.write("\n".join(config) + "\n")
        self.log = open(os.path.join(self.dir, "registry.log"), "w")
        self.proc = subprocess.Popen(["docker-registry", "serve", f"{self.dir}/config.yml"],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                assert self.proc.poll() is None, open(self.log.name).read()
                assert time.monotonic() < deadline, "the registry did not start"
                time.sleep(0.05)
        return self

    def __exit__(self, *exc):
        self.proc.terminate()
        self.proc.wait(timeout=10)
        return False

    def push_busybox(self, name_tag, layout_dir):
        """Builds (once per layout_dir) an image of busybox with a few applets, /bin/sh its
        Cmd, and pushes it as HOST/name_tag; returns the reference."""
        layout = os.path.join(layout_dir, "layout")
        if not os.path.isdir(layout):
            bundle = os.path.join(layout_dir, "bundle")
            run("umoci", "init", "--layout", layout)
            run("umoci", "new", "--image", f"{layout}:bb")
            run("umoci", "unpack", "--image", f"{layout}:bb", bundle)
            root = os.path.join(bundle, "rootfs")
            os.makedirs(os.path.join(root, "bin"), exist_ok=True)
            os.makedirs(os.path.join(root, "etc"), exist_ok=True)
            shutil.copy(BUSYBOX, os.path.join(root, "bin", "busybox"))
            for applet in APPLETS:
                os.symlink("busybox", os.path.join(root, "bin", applet))
            with open(os.path.join(root, "etc", "passwd"), "w") as f:
                f.write("root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534::/:/bin/sh\n")
            run("umoci", "repack", "--image", f"{layout}:bb", bundle)
            run("umoci", "config", "--image", f"{layout}:bb", "--config.cmd", "/bin/sh",
                "--config.env", "PATH=/bin")
        ref = f"{self.host}/{name_tag}"
        argv = ["skopeo", "copy", "--quiet", "--dest-tls-verify=false"]
        if self.user:
            argv += ["--dest-creds", f"{self.user}:{self.password}"]
        run(*argv, f"oci:{layout}:bb", f"docker://{ref}")
        return ref
