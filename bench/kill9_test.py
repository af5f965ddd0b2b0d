#!/usr/bin/env python3
"""Kill -9 the server under concurrent signing load; check that every signature a client
received is in the signature log after a restart.

Usage: kill9_test.py BINARY WORKDIR
Creates a development setup in WORKDIR, serves it, signs from 16 threads with keep-alive,
SIGKILLs the server mid-run, then opens the database (as the restarted service would, WAL
recovery included) and looks up every nonce the clients received. Exits non-zero on loss.
"""
import http.client, json, os, signal, sqlite3, subprocess, sys, threading, time

binary, workdir = sys.argv[1], sys.argv[2]
os.makedirs(workdir, exist_ok=True)
db = os.path.join(workdir, "offer-signer.sqlite")
port = 18400 + os.getpid() % 500
setup = subprocess.run([binary, "dev-setup", "--dir", os.path.join(workdir, "dev"), "--database", db,
                        "--listen", f"127.0.0.1:{port}"], capture_output=True, text=True, check=True).stdout
token = next((line.split()[1] for line in setup.splitlines() if line.strip().startswith("client ")), None)
if token is None:
    sys.exit("delete %s first: the client token is printed only on first set-up" % workdir)
server = subprocess.Popen([binary, "serve", "--keys", os.path.join(workdir, "dev", "keys.json"), "--database", db,
                           "--listen", f"127.0.0.1:{port}", "--log-level", "error"])
time.sleep(1.0)

received, lock, stop = [], threading.Lock(), threading.Event()

def client(n):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    i = 0
    while not stop.is_set():
        i += 1
        body = json.dumps({"productId": "com.example.app.pro_monthly", "offerId": "demo_winback", "userId": f"kill9-{n}-{i}"})
        try:
            conn.request("POST", "/v1/offers/sign", body, {"Authorization": "Bearer " + token, "Content-Type": "application/json"})
            response = conn.getresponse()
            data = response.read()
        except Exception:
            return
        if response.status == 200:
            with lock:
                received.append(json.loads(data)["nonce"])

threads = [threading.Thread(target=client, args=(n,)) for n in range(16)]
for t in threads: t.start()
time.sleep(3.0)
os.kill(server.pid, signal.SIGKILL)
server.wait()
stop.set()
for t in threads: t.join()

conn = sqlite3.connect(db)
logged = {row[0] for row in conn.execute("SELECT nonce FROM signatures")}
missing = [n for n in received if n not in logged]
print(f"signatures received by clients: {len(received)}; in the log after kill -9: {len(received) - len(missing)}; "
      f"missing: {len(missing)}; log records: {len(logged)}")
sys.exit(1 if missing or not received else 0)
