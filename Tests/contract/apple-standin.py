"""A stand-in for Apple's Retention Messaging API during the contract run (the run has no network):
lists are empty, changes succeed, what is not there is Apple's 404 with its error code; the App
Store Server API's history and statuses know no transaction (4040010). It checks
only that a bearer token came; the JWT itself is checked by the Swift tests' mock of Apple.
Prints its port, then serves until killed."""
import http.server, json, sys, uuid


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body=None):
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def handle_any(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if not self.headers.get("Authorization", "").startswith("Bearer "):
            return self.answer(401)
        path = self.path.split("?")[0]
        if path.startswith(("/inApps/v2/history/", "/inApps/v1/subscriptions/")):
            # The App Store Server API as for a transaction it does not know (history refresh).
            return self.answer(404, {"errorCode": 4040010, "errorMessage": "Transaction id not found."})
        parts = path.removeprefix("/inApps/v1/messaging/").split("/")
        if self.command == "GET" and parts == ["message", "list"]:
            return self.answer(200, {"messageIdentifiers": []})
        if self.command == "GET" and parts == ["image", "list"]:
            return self.answer(200, {"imageIdentifiers": []})
        if self.command == "POST" and parts == ["performanceTest"]:
            return self.answer(200, {"requestId": str(uuid.uuid4()), "config": {"responseTimeThreshold": 700}})
        if self.command in ("PUT", "DELETE") and parts[0] in ("message", "image", "default", "realtime"):
            return self.answer(200)
        codes = {"default": 4040020, "realtime": 4040021, "performanceTest": 4040018}
        self.answer(404, {"errorCode": codes.get(parts[0], 4040015), "errorMessage": "Not found."})

    do_GET = do_PUT = do_POST = do_DELETE = handle_any


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
