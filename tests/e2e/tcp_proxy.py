"""A TCP proxy on loopback that can cut a process off from a server, as a network partition
does: partition() closes every forwarded connection and from then on accepts new ones without
forwarding anything (a peer that has vanished, not one that refuses), heal() forwards again.

    proxy = TcpProxy(target_port)    # listens on proxy.port
    proxy.partition(); proxy.heal(); proxy.close()
"""
import select
import socket
import threading


class TcpProxy:
    def __init__(self, target_port):
        self.target = ("127.0.0.1", target_port)
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(128)
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.cut = False
        self.open = []  # every socket this proxy holds
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                self.open.append(client)
                if self.cut:
                    continue  # held open, never answered
            try:
                upstream = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.open.append(upstream)
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()

    def _pump(self, a, b):
        peers = {a: b, b: a}
        try:
            while not self.cut:
                ready, _, _ = select.select([a, b], [], [], 0.2)
                for s in ready:
                    data = s.recv(65536)
                    if not data:
                        return
                    peers[s].sendall(data)
        except OSError:
            pass
        finally:
            if not self.cut:
                a.close()
                b.close()

    def partition(self):
        """Cuts every connection; new ones are accepted and left unanswered."""
        with self.lock:
            self.cut = True
            for s in self.open:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            self.open = []

    def heal(self):
        with self.lock:
            self.cut = False

    def close(self):
        self.closed = True
        self.listener.close()
        self.partition()
