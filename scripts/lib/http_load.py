#!/usr/bin/env python3
"""Load and hostile clients for `proofpipe serve` (scripts/bench_service_load.sh).

Every mode talks to 127.0.0.1 only, runs for a bounded time and prints one
JSON object:
  submit  N clients, each on one kept-alive connection, POST /v1/jobs (JSON
          form, a server path) as fast as answers come: submits/s, p50, p99;
  slow    N connections trickling a request's header one byte per 100 ms
          while /healthz is probed on fresh connections every 20 ms: the
          probes' p50, p99, max and failures (a probe gives up after 2 s);
  attack  one unauthenticated attack while the server's RSS is sampled
          every 10 ms: line (a request line without newline, 4 connections),
          headers (200,000 headers of 1 KB), body (a 300 MB body): the RSS
          rise in MiB;
  soak    jobs of --witnesses partitions each, submitted so that about
          two jobs wait at any time, until --partitions have ended: the
          server's RSS (VmRSS) at every --every ended partitions, while a
          dashboard reads GET /v1/jobs?limit=10000 every 5 s;
  body    one POST /v1/jobs of a JSON body of --shape and about --mib MiB
          (scripts/bench_json_bodies.sh): the server's peak RSS rise over
          the request (VmHWM, reset first through /proc/PID/clear_refs, and
          VmRSS sampled every 10 ms) and its answer.
"""
import argparse
import http.client
import json
import socket
import sys
import threading
import time


def pct(values, p):
    if not values:
        return None
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100.0 * (len(s) - 1))))]


def submit(a):
    lat, errors = [], []
    lock = threading.Lock()
    stop_at = time.monotonic() + a.seconds
    headers = {"Content-Type": "application/json"}
    if a.token:
        headers["Authorization"] = "Bearer " + a.token

    def client(n):
        conn = http.client.HTTPConnection("127.0.0.1", a.port, timeout=10)
        i = 0
        while time.monotonic() < stop_at:
            body = json.dumps({"id": f"load-{a.tag}-{n}-{i}", "key": a.key, "witnesses": [a.witness]})
            i += 1
            t0 = time.monotonic()
            try:
                conn.request("POST", "/v1/jobs", body, headers)
                r = conn.getresponse()
                r.read()
                ok = r.status in (200, 201)
            except (OSError, http.client.HTTPException) as e:
                ok = False
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", a.port, timeout=10)
                r = e
            dt = (time.monotonic() - t0) * 1000
            with lock:
                (lat if ok else errors).append(dt if ok else str(getattr(r, "status", r)))
        conn.close()

    t0 = time.monotonic()
    threads = [threading.Thread(target=client, args=(n,)) for n in range(a.clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - t0
    return {"clients": a.clients, "submits": len(lat), "submits_per_s": round(len(lat) / wall, 1),
            "p50_ms": round(pct(lat, 50), 2) if lat else None, "p99_ms": round(pct(lat, 99), 2) if lat else None,
            "errors": len(errors), "first_errors": errors[:3]}


def probe(port):
    t0 = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
            s.settimeout(2)
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            got = b""
            while b"\r\n\r\n" not in got:
                chunk = s.recv(4096)
                if not chunk:
                    break
                got += chunk
            ok = got.startswith(b"HTTP/1.1 200")
    except OSError:
        ok = False
    return ok, (time.monotonic() - t0) * 1000


def slow(a):
    socks = []
    for _ in range(a.clients):
        try:
            s = socket.create_connection(("127.0.0.1", a.port), timeout=2)
            s.setblocking(False)
            socks.append(s)
        except OSError:
            break
    head = b"GET /v1/keys HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 4096
    lat, failed, byte = [], 0, 0
    stop_at = time.monotonic() + a.seconds
    next_byte = time.monotonic()
    while time.monotonic() < stop_at:
        if time.monotonic() >= next_byte:
            for s in socks:
                try:
                    s.send(head[byte:byte + 1])
                except OSError:
                    pass
            byte += 1
            next_byte += 0.1
        ok, ms = probe(a.port)
        lat.append(ms)
        failed += 0 if ok else 1
        time.sleep(0.02)
    open_at_end = 0
    for s in socks:
        try:
            s.send(b"a")
            open_at_end += 1
        except OSError:
            pass
        s.close()
    return {"slow_clients": len(socks), "still_open": open_at_end, "probes": len(lat), "failed": failed,
            "p50_ms": round(pct(lat, 50), 2), "p99_ms": round(pct(lat, 99), 2), "max_ms": round(max(lat), 2)}


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def rss_kib(pid):
    return status_kib(pid, "VmRSS")


def pour(port, first, byte, total, stop_at):
    """Sends `first`, then `total` bytes of `byte` in 64 KiB pieces, until
    the server closes or stop_at; the bytes it took."""
    sent = 0
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
            s.settimeout(2)
            s.sendall(first)
            piece = byte * 65536
            while sent < total and time.monotonic() < stop_at:
                sent += s.send(piece)
    except OSError:
        pass
    return sent


def attack(a):
    base = rss_kib(a.pid)
    peak = [base]
    done = threading.Event()

    def sample():
        while not done.is_set():
            try:
                peak[0] = max(peak[0], rss_kib(a.pid))
            except OSError:
                return
            time.sleep(0.01)

    sampler = threading.Thread(target=sample)
    sampler.start()
    stop_at = time.monotonic() + a.seconds
    sent = []
    t0 = time.monotonic()
    if a.kind == "line":
        def one():
            sent.append(pour(a.port, b"GET /", b"a", 64 << 20, stop_at))
        ts = [threading.Thread(target=one) for _ in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    elif a.kind == "headers":
        line = b"X-H: " + b"v" * 1017 + b"\r\n"  # 1 KB each
        sent.append(pour(a.port, b"GET /v1/keys HTTP/1.1\r\nHost: x\r\n", line, 200000 * len(line), stop_at))
    else:
        head = (b"POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: 300000000\r\n\r\n")
        sent.append(pour(a.port, head, b"x", 300000000, stop_at))
    wall = time.monotonic() - t0
    time.sleep(0.2)
    done.set()
    sampler.join()
    return {"attack": a.kind, "bytes_taken": sum(sent), "seconds": round(wall, 2),
            "rss_before_mib": round(base / 1024, 1), "rss_peak_mib": round(peak[0] / 1024, 1),
            "rss_rise_mib": round((peak[0] - base) / 1024, 1), "alive": probe(a.port)[0]}


def json_body(shape, key, size):
    """A body of about `size` bytes, in one of the shapes whose trees cost
    8-43x their text: the bytes, and what the shape is."""
    head = b'{"key":"' + key.encode() + b'",'
    if shape == "long_array":  # one input holding one long array
        n = (size - 40) // 2
        return head + b'"inputs":{"a":{"x":[' + b"1," * n + b'1]}}}'
    if shape == "tiny_inputs":  # a list of many empty inputs
        n = (size - 30) // 3
        return head + b'"inputs":[' + b"{}," * n + b"{}]}"
    if shape == "witness_list":  # a list of many short paths
        n = (size - 30) // 15
        return head + b'"witnesses":[' + b'"/w/aaaa.wtns",' * n + b'"/w/b.wtns"]}'
    if shape == "inputs_object":  # an object of many named inputs
        n = (size - 30) // 16
        return head + b'"inputs":{' + b",".join(b'"i%09d":{}' % i for i in range(n)) + b"}}"
    if shape == "unknown_members":  # many members the API does not know
        n = (size - 40) // 17
        return b"{" + b",".join(b'"u%09d":[1]' % i for i in range(n)) + b',"key":"' + key.encode() + b'"}'
    raise ValueError(shape)


def body(a):
    data = json_body(a.shape, a.key, int(a.mib * (1 << 20)))
    try:  # the peak from here on (Linux >= 4.0; root or the owner)
        with open(f"/proc/{a.pid}/clear_refs", "w") as f:
            f.write("5")
        hwm_reset = True
    except OSError:
        hwm_reset = False
    base = status_kib(a.pid, "VmRSS")
    peak = [base]
    done = threading.Event()

    def sample():
        while not done.is_set():
            try:
                peak[0] = max(peak[0], status_kib(a.pid, "VmRSS"))
            except OSError:
                return
            time.sleep(0.01)

    sampler = threading.Thread(target=sample)
    sampler.start()
    t0 = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", a.port, timeout=600)
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {a.token}"}
    conn.request("POST", "/v1/jobs", body=data, headers=headers)
    r = conn.getresponse()
    answer = r.read().decode(errors="replace")
    wall = time.monotonic() - t0
    done.set()
    sampler.join()
    hwm = status_kib(a.pid, "VmHWM") if hwm_reset else peak[0]
    top = max(hwm, peak[0])
    try:
        said = json.loads(answer).get("error", "")
    except ValueError:
        said = answer[:100]
    return {"shape": a.shape, "body_bytes": len(data), "status": r.status, "error": said[:120],
            "seconds": round(wall, 2), "rss_before_mib": round(base / 1024, 1),
            "rss_peak_mib": round(top / 1024, 1), "rise_mib": round((top - base) / 1024, 1),
            "rise_x": round((top - base) * 1024 / len(data), 2), "hwm_reset": hwm_reset}


def get_json(port, path, token):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path, headers={"Authorization": "Bearer " + token} if token else {})
        r = conn.getresponse()
        body = r.read()
        if r.status != 200:
            raise RuntimeError(f"GET {path}: {r.status} {body[:200]!r}")
        return body
    finally:
        conn.close()


def ended_partitions(port, token):
    """Proofs ended, from /metrics (proofpipe_proofs_total, every result)."""
    total = 0.0
    for line in get_json(port, "/metrics", token).decode().splitlines():
        if line.startswith("proofpipe_proofs_total"):
            total += float(line.rsplit(" ", 1)[1])
    return int(total)


def soak(a):
    witnesses = a.witness.split(",")
    headers = {"Content-Type": "application/json"}
    if a.token:
        headers["Authorization"] = "Bearer " + a.token
    conn = http.client.HTTPConnection("127.0.0.1", a.port, timeout=30)
    stop = threading.Event()

    def dashboard():  # the 5 s poll of a large list that fragmented the heap
        while not stop.wait(5):
            try:
                get_json(a.port, "/v1/jobs?limit=10000", a.token)
            except (OSError, RuntimeError, http.client.HTTPException):
                pass

    dash = threading.Thread(target=dashboard)
    dash.start()
    submitted, job, samples, t0 = 0, 0, [], time.monotonic()
    next_sample = 0
    try:
        while True:
            ended = ended_partitions(a.port, a.token)
            while ended >= next_sample:
                samples.append({"partitions": next_sample, "rss_kib": rss_kib(a.pid),
                                "seconds": round(time.monotonic() - t0, 1)})
                print(json.dumps(samples[-1]), file=sys.stderr, flush=True)
                next_sample += a.every
            if ended >= a.partitions:
                break
            if submitted < a.partitions and submitted - ended < 2 * len(witnesses):
                body = json.dumps({"id": f"soak-{a.tag}-{job}", "key": a.key, "witnesses": witnesses})
                conn.request("POST", "/v1/jobs", body, headers)
                r = conn.getresponse()
                text = r.read()
                if r.status not in (200, 201):
                    raise RuntimeError(f"submit: {r.status} {text[:200]!r}")
                submitted += len(witnesses)
                job += 1
            else:
                time.sleep(0.05)
    finally:
        stop.set()
        dash.join()
        conn.close()
    # Growth after warm-up: the first sample past a.warmup against the last.
    warm = next((s for s in samples if s["partitions"] >= a.warmup), samples[0])
    last = samples[-1]
    span = max(1, last["partitions"] - warm["partitions"])
    return {"partitions": last["partitions"], "jobs": job, "seconds": last["seconds"],
            "rss_warm_kib": warm["rss_kib"], "rss_last_kib": last["rss_kib"],
            "rise_kib_per_10k": round((last["rss_kib"] - warm["rss_kib"]) * 10000 / span, 1),
            "samples": samples}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["submit", "slow", "attack", "soak", "body"])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--clients", type=int, default=16)
    p.add_argument("--seconds", type=float, default=5)
    p.add_argument("--token", default="")
    p.add_argument("--key", default="g")
    p.add_argument("--witness", default="", help="a server path (soak: several, comma-separated)")
    p.add_argument("--partitions", type=int, default=20000)
    p.add_argument("--every", type=int, default=1000)
    p.add_argument("--warmup", type=int, default=2000)
    p.add_argument("--tag", default="a")
    p.add_argument("--pid", type=int, default=0)
    p.add_argument("--kind", choices=["line", "headers", "body"], default="line")
    p.add_argument("--shape", default="long_array",
                   choices=["long_array", "tiny_inputs", "witness_list", "inputs_object", "unknown_members"])
    p.add_argument("--mib", type=float, default=10)
    a = p.parse_args()
    out = {"submit": submit, "slow": slow, "attack": attack, "soak": soak, "body": body}[a.mode](a)
    print(json.dumps(out))


if __name__ == "__main__":
    sys.exit(main())
