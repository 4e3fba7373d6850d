"""A raw client for the multi-process tests: a TCP connection to a gridpeer,
over mutual TLS with a certificate of the test grid (grid_tls.sh) when
GRIDCTL_TLS_DIR is set, in plaintext otherwise (a peer run with --plaintext).
The tests send hand-made frames through it, as a third-party or hostile
client would."""
import os
import socket
import ssl


def connect(port, cert=None, server_name="A", timeout=5.0, host="127.0.0.1"):
    """A connected socket to the peer at host:port; over TLS as `cert` (a
    certificate name in GRIDCTL_TLS_DIR, default GRIDCTL_CERT), checking that
    the peer's certificate names `server_name`."""
    raw = socket.create_connection((host, port), timeout=timeout)
    tls_dir = os.environ.get("GRIDCTL_TLS_DIR")
    if not tls_dir:
        return raw
    cert = cert or os.environ.get("GRIDCTL_CERT", "alice")
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=f"{tls_dir}/ca.pem")
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.load_cert_chain(f"{tls_dir}/{cert}.pem", f"{tls_dir}/{cert}-key.pem")
    return context.wrap_socket(raw, server_hostname=server_name)


def read_until_closed(sock, enough=None):
    """What the peer sends until it closes, the timeout passes, or enough(data) says so."""
    data = b""
    try:
        while enough is None or not enough(data):
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    except (socket.timeout, ConnectionResetError, ssl.SSLError):
        pass
    return data
