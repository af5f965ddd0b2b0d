#!/usr/bin/env python3
"""End-to-end scenarios of the web console in headless Chromium (Debian's chromium and
chromium-driver, driven by Debian's python3-selenium) against a real `offer-signer serve`
with a temporary database, history imported through the real import endpoint.

Usage: e2e.py [--binary .build/debug/offer-signer] [--screenshots var/console-screenshots] [--keep]
Each scenario saves screenshots at 1280×800 and 390×844 into the screenshots folder.
Exits non-zero on the first failed check, naming it; prints 'N passed, 0 failed' at the end.
"""
import argparse, base64, csv, glob, json, os, shutil, signal, socket, subprocess, sys, tempfile, time, urllib.error, urllib.parse, urllib.request, uuid, zlib

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
CHAIN = os.path.join(ROOT, "Tests", "OfferSignerServiceTests", "Fixtures", "appstore-chain")
PRODUCT = "com.example.app.pro_monthly"
DESKTOP, PHONE = (1280, 800), (390, 844)
XSS_OFFER = '"><b>probe<i>x'
APP_APPLE_ID = 1234567890                   # dev-setup's app
MESSAGE, FALLBACK = "3f1c5a0e-6d2b-4c8e-9a41-0b7e2d9c6f15", "9b2e7c44-1f0a-4d3b-8e65-2c9a7d1b3e80"
GROUP = "21000001"                          # make_history.py's subscription group


def original_transaction(index):
    """The original transaction ID make_history.py gives its `index`-th subscription (from 1)."""
    return "2%014d" % (index * 1000)


class Failure(Exception):
    pass


def check(condition, what):
    if not condition:
        raise Failure(what)


class Service_:
    """offer-signer serve on a free port, over a fresh database with imported history."""

    def __init__(self, binary, folder, extra=()):
        self.folder = folder
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        database = os.path.join(folder, "db.sqlite")
        self.binary, self.database, self.keys = binary, database, os.path.join(folder, "dev", "keys.json")
        setup = subprocess.run([binary, "dev-setup", "--dir", os.path.join(folder, "dev"), "--database", database,
                                "--listen", f"127.0.0.1:{self.port}"], capture_output=True, text=True, check=True).stdout
        self.tokens = {}
        for line in setup.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] in ("client", "marketing", "auditor", "admin"):
                self.tokens[parts[0]] = parts[1]
        check(len(self.tokens) == 4, "dev-setup printed a token per role")
        self.log = open(os.path.join(folder, "serve.log"), "w")
        self.args = [binary, "serve", "--keys", os.path.join(folder, "dev", "keys.json"), "--database", database,
                     "--listen", f"127.0.0.1:{self.port}", "--log-level", "warning",
                     "--apple-roots", os.path.join(CHAIN, "root.pem"), *extra]
        self.start()

    def start(self):
        self.process = subprocess.Popen(self.args, stdout=self.log, stderr=self.log)
        for _ in range(100):
            try:
                urllib.request.urlopen(self.base + "/healthz", timeout=1).read()
                return
            except OSError:
                time.sleep(0.05)
        raise Failure("the service started")

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def call(self, method, path, role=None, body=None, content_type="application/json", accept=None):
        headers = {}
        if role:
            headers["Authorization"] = "Bearer " + self.tokens[role]
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            headers["Content-Type"] = content_type
        if accept:
            headers["Accept"] = accept
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()


class MockAppleAPI:
    """What the mocks of Apple's APIs share: a threaded HTTP server on a free loopback port (`serve`, `stop`) and the
    check of the JWT Apple's APIs take (ES256 with a kid, aud appstoreconnect-v1, an iss; its signature is not verified
    here, the Swift mocks verify it). Each mock pins what its API requires beyond that: `pinned()` gives the header
    and claim values it must carry."""

    def pinned(self):
        """({header: value}, {claim: value}) every request's token must carry."""
        return {}, {}

    def token_ok(self, authorization):
        parts = authorization.removeprefix("Bearer ").split(".")
        if len(parts) != 3:
            return False
        decode = lambda part: json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
        try:
            header, claims = decode(parts[0]), decode(parts[1])
        except ValueError:
            return False
        pinned_header, pinned_claims = self.pinned()
        return header.get("alg") == "ES256" and bool(header.get("kid")) and claims.get("aud") == "appstoreconnect-v1" \
            and bool(claims.get("iss")) and all(header.get(k) == v for k, v in pinned_header.items()) \
            and all(claims.get(k) == v for k, v in pinned_claims.items())

    def serve(self, handler):
        import http.server, threading
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()


class MockAppleMessaging(MockAppleAPI):
    """Apple's Retention Messaging API for the service (`--appstore-api-url`), in memory: messages and
    images (PENDING after an upload, as in Production), defaults of approved messages, the real-time URL
    (after a passed performance test), Apple's error bodies. Requests need an ES256 JWT with kid, aud
    appstoreconnect-v1 and the app's bid (the Swift mock also checks its signature)."""

    def __init__(self, bundle_id, approved=()):
        import http.server, threading
        self.bundle_id = bundle_id
        self.messages = {m: {"state": "APPROVED", "images": []} for m in approved}
        self.images, self.defaults, self.tests = {}, {}, {}
        self.realtime_url, self.passed = None, False
        self.refused = 0
        mock = self

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
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                if not mock.token_ok(self.headers.get("Authorization", "")):
                    mock.refused += 1
                    return self.answer(401)
                status, answer = mock.respond(self.command, urllib.parse.urlparse(self.path), body, self.headers.get("Content-Type"))
                self.answer(status, answer)

            do_GET = do_PUT = do_POST = do_DELETE = handle_any

        self.serve(Handler)

    def pinned(self):
        return {}, {"bid": self.bundle_id}                     # the App Store Server API's token names the app

    @staticmethod
    def error(status, code, message):
        return status, {"errorCode": code, "errorMessage": message}

    def respond(self, method, url, body, content_type):
        parts = url.path.removeprefix("/inApps/v1/messaging/").split("/")
        parts = [urllib.parse.unquote(p) for p in parts]
        data = json.loads(body) if body and content_type == "application/json" else {}
        if parts == ["message", "list"] and method == "GET":
            return 200, {"messageIdentifiers": [{"messageIdentifier": k, "messageState": v["state"]} for k, v in self.messages.items()]}
        if parts == ["image", "list"] and method == "GET":
            return 200, {"imageIdentifiers": [{"imageIdentifier": k, "imageState": v} for k, v in self.images.items()]}
        if parts[0] == "message" and len(parts) == 2:
            if method == "PUT":
                if parts[1] in self.messages:
                    return self.error(409, 4090001, "Message already exists.")
                self.messages[parts[1]] = {"state": "PENDING", "images": [data["image"]["imageIdentifier"]] if data.get("image") else []}
                return 200, None
            if method == "DELETE":
                return (200, None) if self.messages.pop(parts[1], None) else self.error(404, 4040015, "Message not found.")
        if parts[0] == "image" and len(parts) == 2:
            if method == "PUT":
                if content_type != "image/png" or not body.startswith(b"\x89PNG"):
                    return self.error(400, 4000161, "Invalid image.")
                self.images[parts[1]] = "PENDING"
                return 200, None
            if method == "DELETE":
                return (200, None) if self.images.pop(parts[1], None) else self.error(404, 4040014, "Image not found.")
        if parts[0] == "default" and len(parts) == 3:
            key = (parts[1], parts[2])
            if method == "PUT":
                message = self.messages.get(data.get("messageIdentifier"))
                if not message:
                    return self.error(404, 4040015, "Message not found.")
                if message["state"] != "APPROVED":
                    return self.error(403, 4030017, "Message not approved.")
                self.defaults[key] = data["messageIdentifier"]
                return 200, None
            if key not in self.defaults:
                return self.error(404, 4040020, "Default message not found.")
            return (200, {"messageIdentifier": self.defaults[key]}) if method == "GET" else (200, self.defaults.pop(key) and None)
        if parts == ["realtime", "url"]:
            if method == "PUT":
                if not self.passed:
                    return self.error(403, 4030026, "A passing performance test is required.")
                self.realtime_url = data["realtimeURL"]
                return 200, None
            if self.realtime_url is None:
                return self.error(404, 4040021, "Realtime URL not found.")
            if method == "DELETE":
                self.realtime_url = None
                return 200, None
            return 200, {"realtimeURL": self.realtime_url}
        config = {"maxConcurrentRequests": 10, "responseTimeThreshold": 700, "successRateThreshold": 95, "totalDuration": 60000, "totalRequests": 600}
        if parts == ["performanceTest"] and method == "POST":
            request_id = str(uuid.uuid4())
            self.tests[request_id] = "PASS"
            self.passed = True
            return 200, {"requestId": request_id, "config": config}
        if parts[:2] == ["performanceTest", "result"] and len(parts) == 3:
            if parts[2] not in self.tests:
                return self.error(404, 4040018, "Performance test run not found.")
            return 200, {"config": config, "target": "https://signer.example.com/v1/retention/appstore", "result": "PASS", "successRate": 100,
                         "numPending": 0, "responseTimes": {"average": 118, "p50": 96, "p90": 175, "p95": 230, "p99": 410}, "failures": {}}
        return 404, None


class MockAppStoreConnect(MockAppleAPI):
    """App Store Connect's API (`--appstore-connect-url`) for the catalog sync, in memory: the app of
    dev-setup with one subscription group, two subscriptions with their regular prices, and their promotional offers with prices
    (Apple's JSON:API shapes: `included` territories and price points). Requests need an ES256 JWT with
    kid, iss and aud appstoreconnect-v1 (not verified here; the Swift mock checks the signature).
    `failing`: every request answers 401 with Apple's errors[].
    Writing offers as the console asks the service to: the subscriptions' price points per territory
    and their equalizations (`TIERS`: the same tier in every territory), `POST /v1/subscriptionPromotionalOffers`,
    `PATCH`/`DELETE /v1/subscriptionPromotionalOffers/{id}`. Each write body is held to Apple's schemas
    member by member (`SubscriptionPromotionalOfferCreateRequest`/`UpdateRequest` with inline prices, as
    Tests/AppStoreServerAPIMock/MockConnectOfferBody.swift does): a fault answers Apple's 409 and is kept in
    `body_errors`; each write is kept in `writes`. `refuse_next`: the next create answers Apple's 409."""

    KEY_ID, ISSUER = "2X9R4HXF34", "69a6de7e-0000-47e3-e053-5b8c7c11a4d1"
    MONTHLY, YEARLY = PRODUCT, "com.example.app.pro_yearly"
    MARKUP_NAME = '"><img src=x onerror=window.__xss=1>'
    TIERS = {"USA": ("USD", ["0.99", "1.99", "2.99", "3.99", "4.99", "9.99"]), "GBR": ("GBP", ["0.99", "1.99", "2.49", "3.49", "4.49", "8.99"]),
             "FRA": ("EUR", ["0.99", "1.99", "2.99", "3.99", "4.99", "9.99"]), "JPN": ("JPY", ["150", "300", "400", "500", "700", "1500"])}
    DURATIONS = {"THREE_DAYS", "ONE_WEEK", "TWO_WEEKS", "ONE_MONTH", "TWO_MONTHS", "THREE_MONTHS", "SIX_MONTHS", "ONE_YEAR"}
    MODES = {"PAY_AS_YOU_GO", "PAY_UP_FRONT", "FREE_TRIAL"}

    def __init__(self):
        import http.server, threading
        self.failing = False
        self.refuse_next = False
        self.requests = 0
        self.writes, self.body_errors = [], []
        self.next_id = 7100000100
        mock = self
        self.offers = offers = {
            "6400000001": [("7100000001", "winback_e2e", "Win back, 3 months at 2.99", "ONE_MONTH", "PAY_AS_YOU_GO", 3,
                            [("USA", "USD", "2.99"), ("GBR", "GBP", "2.49"), ("FRA", "EUR", "2.99"), ("JPN", "JPY", "400"), ("BRA", "BRL", "9.90")]),
                           ("7100000002", "spring_free", self.MARKUP_NAME, "ONE_MONTH", "FREE_TRIAL", 1, [("USA", "USD", None)])],
            "6400000002": [("7100000003", "spring_free", "Spring: a free month", "ONE_MONTH", "FREE_TRIAL", 1, [("USA", "USD", None)])],
        }
        subscriptions = [("6400000001", self.MONTHLY, "Pro Monthly", "ONE_MONTH", 2), ("6400000002", self.YEARLY, "Pro Yearly", "ONE_YEAR", 1)]
        regular = {"6400000001": [("USA", "USD", "9.99"), ("GBR", "GBP", "8.99")], "6400000002": [("USA", "USD", "79.99")]}

        def resource(kind, identifier, **attributes):
            return {"type": kind, "id": identifier, "attributes": attributes}

        def points(pairs):
            """Price points [(territory, price)] with their territories included."""
            data, included = [], []
            for territory, price in pairs:
                currency = mock.TIERS[territory][0]
                point = resource("subscriptionPricePoints", f"pp-{territory}-{price}", customerPrice=price, proceeds=f"{float(price) * 0.7:.2f}")
                point["relationships"] = {"territory": {"data": {"type": "territories", "id": territory}}}
                data.append(point)
                if not any(t["id"] == territory for t in included):
                    included.append(resource("territories", territory, currency=currency))
            return data, included

        def respond(path, query):
            if path == "/v1/apps":
                return [resource("apps", str(APP_APPLE_ID), bundleId="com.example.app", name="Example")], []
            if path == f"/v1/apps/{APP_APPLE_ID}/subscriptionGroups":
                return [resource("subscriptionGroups", GROUP, referenceName="Pro")], []
            if path == f"/v1/subscriptionGroups/{GROUP}/subscriptions":
                return [resource("subscriptions", i, productId=p, name=n, state="APPROVED", subscriptionPeriod=d, groupLevel=l)
                        for i, p, n, d, l in subscriptions], []
            parts = path.strip("/").split("/")
            wanted = [t for t in query.get("filter[territory]", [""])[0].split(",") if t]
            if len(parts) == 4 and parts[1] == "subscriptions" and parts[3] == "pricePoints" and parts[2] in offers:
                return points([(t, price) for t in (wanted or mock.TIERS) if t in mock.TIERS for price in mock.TIERS[t][1]])
            if len(parts) == 4 and parts[1] == "subscriptionPricePoints" and parts[3] == "equalizations":
                _, territory, price = parts[2].split("-", 2)
                tier = mock.TIERS[territory][1].index(price)
                return points([(t, mock.TIERS[t][1][tier]) for t in mock.TIERS if t != territory and (not wanted or t in wanted)])
            if len(parts) == 4 and parts[1] == "subscriptions" and parts[3] == "promotionalOffers":
                return [resource("subscriptionPromotionalOffers", i, offerCode=c, name=n, duration=d, offerMode=m, numberOfPeriods=k)
                        for i, c, n, d, m, k, _ in offers.get(parts[2], [])], []
            if len(parts) == 4 and parts[1] == "subscriptionPromotionalOffers" and parts[3] == "prices":
                found = next((o for group in offers.values() for o in group if o[0] == parts[2]), None)
                data, included = [], []
                for territory, currency, price in (found[6] if found else []):
                    relationships = {"territory": {"data": {"type": "territories", "id": territory}}}
                    included.append(resource("territories", territory, currency=currency))
                    if price:
                        point = f"pp-{territory}-{price}"
                        relationships["subscriptionPricePoint"] = {"data": {"type": "subscriptionPricePoints", "id": point}}
                        included.append(resource("subscriptionPricePoints", point, customerPrice=price))
                    data.append({"type": "subscriptionPromotionalOfferPrices", "id": f"{parts[2]}-{territory}", "relationships": relationships})
                return data, included
            if len(parts) == 4 and parts[1] == "subscriptions" and parts[3] == "prices":     # the regular prices, in force since 2020
                data, included = [], []
                for territory, currency, price in regular.get(parts[2], []):
                    point = f"pp-{territory}-{price}"
                    included += [resource("territories", territory, currency=currency), resource("subscriptionPricePoints", point, customerPrice=price)]
                    data.append({"type": "subscriptionPrices", "id": f"{parts[2]}-{territory}", "attributes": {"startDate": "2020-01-01"},
                                 "relationships": {"territory": {"data": {"type": "territories", "id": territory}},
                                                   "subscriptionPricePoint": {"data": {"type": "subscriptionPricePoints", "id": point}}}})
                return data, included
            if len(parts) == 4 and parts[1] == "subscriptions" and parts[3] in ("introductoryOffers", "winBackOffers", "offerCodes"):
                return [], []
            return None

        def apple_error(status, code, title, detail):
            return status, {"errors": [{"status": str(status), "code": code, "title": title, "detail": detail}]}

        def write(method, path, body):
            """A create, update or delete of a promotional offer: (status, answer)."""
            parts = path.strip("/").split("/")
            if parts[:2] != ["v1", "subscriptionPromotionalOffers"]:
                return apple_error(404, "NOT_FOUND", "The specified resource does not exist", path)
            if method == "DELETE" and len(parts) == 3:
                for group in offers.values():
                    for offer in list(group):
                        if offer[0] == parts[2]:
                            group.remove(offer)
                            mock.writes.append(("DELETE", path, None))
                            return 204, None
                return apple_error(404, "NOT_FOUND", "The specified resource does not exist", path)
            try:
                parsed = mock.offer_body(json.loads(body), create=method == "POST")
            except (ValueError, KeyError, TypeError, AttributeError) as fault:
                mock.body_errors.append(f"{method} {path}: {fault}")
                return apple_error(409, "ENTITY_ERROR", "The provided entity is invalid", str(fault))
            mock.writes.append((method, path, parsed))
            prices = [(t, mock.TIERS.get(t, ("USD",))[0], point.rsplit("-", 1)[1] if point else None) for t, point in parsed["prices"]]
            if method == "POST" and len(parts) == 2:
                if mock.refuse_next:
                    mock.refuse_next = False
                    return apple_error(409, "ENTITY_ERROR.ATTRIBUTE.INVALID", "An attribute value is invalid.",
                                       "The reference name is already used by another promotional offer of this subscription.")
                group = offers.setdefault(parsed["subscription"], [])
                if any(o[1] == parsed["offerCode"] for o in group):
                    return apple_error(409, "ENTITY_ERROR.ATTRIBUTE.INVALID.DUPLICATE", "The offer code is already used.", parsed["offerCode"])
                mock.next_id += 1
                a = parsed["attributes"]
                group.append((str(mock.next_id), a["offerCode"], a["name"], a["duration"], a["offerMode"], a["numberOfPeriods"], prices))
                return 201, {"data": resource("subscriptionPromotionalOffers", str(mock.next_id), **a)}
            if method == "PATCH" and len(parts) == 3 and parsed["id"] == parts[2]:
                for group in offers.values():
                    for index, offer in enumerate(group):
                        if offer[0] == parts[2]:
                            group[index] = offer[:6] + (prices,)
                            return 200, {"data": resource("subscriptionPromotionalOffers", offer[0], offerCode=offer[1], name=offer[2])}
            return apple_error(404, "NOT_FOUND", "The specified resource does not exist", path)

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self, status, body):
                data = json.dumps(body).encode() if body is not None else b""
                self.send_response(status)
                if body is not None:
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def handle_any(self):
                mock.requests += 1
                url = urllib.parse.urlparse(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                if mock.failing or not mock.token_ok(self.headers.get("Authorization", "")):
                    return self.answer(401, {"errors": [{"status": "401", "code": "NOT_AUTHORIZED", "title": "Authentication credentials are missing or invalid.",
                                                         "detail": "Provide a properly configured and signed bearer token, and make sure that it has not expired."}]})
                if self.command != "GET":
                    return self.answer(*write(self.command, url.path, body))
                found = respond(url.path, urllib.parse.parse_qs(url.query))
                if found is None:
                    return self.answer(404, {"errors": [{"status": "404", "code": "NOT_FOUND", "title": "The specified resource does not exist", "detail": url.path}]})
                data, included = found
                self.answer(200, {"data": data, "included": included, "links": {"self": mock.base + self.path}})

            do_GET = do_POST = do_PATCH = do_DELETE = handle_any

        self.serve(Handler)

    @staticmethod
    def offer_body(root, create):
        """A create or update body held to Apple's schemas: no member they lack, each required one with its type,
        every relationships.prices entry matched by one included price and the other way round. Raises on a fault."""
        def only(obj, allowed, required, where):
            if not isinstance(obj, dict):
                raise TypeError(f"{where} must be an object")
            extra, missing = set(obj) - set(allowed), set(required) - set(obj)
            if extra or missing:
                raise KeyError(f"{where}: unknown {sorted(extra)}, missing {sorted(missing)}")
            return obj

        def identifier(obj, kind, where):
            only(obj, ("type", "id"), ("type", "id"), where)
            if obj["type"] != kind or not isinstance(obj["id"], str):
                raise ValueError(f"{where} must be a {kind} identifier")
            return obj["id"]

        only(root, ("data", "included"), ("data",), "the document")
        data = only(root["data"], ("type", "attributes", "relationships") if create else ("type", "id", "relationships"),
                    ("type", "attributes", "relationships") if create else ("type", "id"), "data")
        if data["type"] != "subscriptionPromotionalOffers":
            raise ValueError("data.type must be subscriptionPromotionalOffers")
        parsed = {"id": data.get("id")}
        relationships = data.get("relationships", {})
        if create:
            attributes = only(data["attributes"], ("name", "offerCode", "duration", "offerMode", "numberOfPeriods"),
                              ("name", "offerCode", "duration", "offerMode", "numberOfPeriods"), "data.attributes")
            if not all(isinstance(attributes[k], str) for k in ("name", "offerCode", "duration", "offerMode")) \
                    or type(attributes["numberOfPeriods"]) is not int:
                raise TypeError("data.attributes: a member has the wrong type")
            if attributes["duration"] not in MockAppStoreConnect.DURATIONS or attributes["offerMode"] not in MockAppStoreConnect.MODES:
                raise ValueError("data.attributes: duration or offerMode outside Apple's enums")
            parsed["attributes"], parsed["offerCode"] = attributes, attributes["offerCode"]
            only(relationships, ("subscription", "prices"), ("subscription", "prices"), "data.relationships")
            parsed["subscription"] = identifier(only(relationships["subscription"], ("data",), ("data",), "subscription")["data"], "subscriptions",
                                                "data.relationships.subscription.data")
        else:
            only(relationships, ("prices",), (), "data.relationships")
        ids = [identifier(item, "subscriptionPromotionalOfferPrices", "data.relationships.prices.data[]")
               for item in only(relationships.get("prices", {"data": []}), ("data",), ("data",), "prices")["data"]]
        included = {}
        for item in root.get("included", []):
            only(item, ("type", "id", "relationships"), ("type", "id", "relationships"), "included[]")
            if item["type"] != "subscriptionPromotionalOfferPrices" or item["id"] in included:
                raise ValueError("included[] must be subscriptionPromotionalOfferPrices, each ID once")
            links = only(item["relationships"], ("territory", "subscriptionPricePoint"), ("territory",), "included[].relationships")
            territory = identifier(only(links["territory"], ("data",), ("data",), "territory")["data"], "territories", "territory.data")
            point = identifier(only(links["subscriptionPricePoint"], ("data",), ("data",), "subscriptionPricePoint")["data"], "subscriptionPricePoints",
                               "subscriptionPricePoint.data") if "subscriptionPricePoint" in links else None
            included[item["id"]] = (territory, point)
        if sorted(ids) != sorted(included) or len(set(ids)) != len(ids):
            raise ValueError("relationships.prices.data and included name different prices")
        parsed["prices"] = [included[i] for i in ids]
        return parsed

    def pinned(self):
        return {"kid": self.KEY_ID}, {"iss": self.ISSUER}      # the Team key given to the app, and no bid

    def give_team_key(self, keys_path):
        """Writes a Team key (P-256, PKCS#8) beside the keys file and names it as the app's appStoreConnect."""
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        key = ec.generate_private_key(ec.SECP256R1()).private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                                      serialization.NoEncryption())
        folder = os.path.dirname(keys_path)
        with open(os.path.join(folder, f"AuthKey_{self.KEY_ID}.p8"), "wb") as f:
            f.write(key)
        os.chmod(os.path.join(folder, f"AuthKey_{self.KEY_ID}.p8"), 0o600)
        with open(keys_path) as f:
            keys = json.load(f)
        for app in keys["apps"]:
            app["appStoreConnect"] = {"issuerId": self.ISSUER, "keyId": self.KEY_ID, "privateKeyPath": f"AuthKey_{self.KEY_ID}.p8"}
        with open(keys_path, "w") as f:
            json.dump(keys, f, indent=2)


class WebhookReceiver:
    """A webhook receiver on loopback: answers each POST with the status and body set (`answer`), and keeps
    every request's headers (names in lower case) and body, in order."""

    def __init__(self):
        import http.server, threading
        self.status, self.body = 500, b"<b>down</b> for maintenance"
        self.received = []
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                receiver.received.append(({name.lower(): value for name, value in self.headers.items()}, body))
                self.send_response(receiver.status)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(receiver.body)))
                self.end_headers()
                self.wfile.write(receiver.body)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer(self, status, body=b"ok"):
        self.status, self.body = status, body

    def stop(self):
        self.server.shutdown()

    @staticmethod
    def signed_with(secret, headers, body):
        """Whether the Offer-Signer-Signature header carries a v1= of HMAC-SHA256(secret, "t.body")."""
        import hashlib, hmac
        parts = [part.split("=", 1) for part in headers.get("offer-signer-signature", "").split(",") if "=" in part]
        t = next((value for key, value in parts if key == "t"), "")
        expected = hmac.new(secret.encode(), t.encode() + b"." + body, hashlib.sha256).hexdigest()
        return any(key == "v1" and hmac.compare_digest(value, expected) for key, value in parts)


class Console:
    """A headless Chromium on the console, with screenshots at both widths and console-log checks."""

    def __init__(self, base, shots, downloads, docs=False):
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                         "--window-size=1280,800", "--force-device-scale-factor=1", "--lang=en-US"):
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        options.add_experimental_option("prefs", {"download.default_directory": downloads, "download.prompt_for_download": False})
        driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
        self.driver = webdriver.Chrome(service=Service(driver_path), options=options)
        self.driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
        self.base = base
        self.shots = shots
        self.downloads = downloads
        self.docs = docs
        self.viewport(*DESKTOP)

    def viewport(self, width, height):
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})

    def open(self, fragment=""):
        self.driver.get(f"{self.base}/console/{fragment}")

    def wait(self, css, timeout=10, visible=True):
        condition = EC.visibility_of_element_located if visible else EC.presence_of_element_located
        try:
            return WebDriverWait(self.driver, timeout).until(condition((By.CSS_SELECTOR, css)))
        except Exception:
            raise Failure(f"'{css}' appeared") from None

    def wait_text(self, css, text, timeout=10):
        try:
            WebDriverWait(self.driver, timeout, ignored_exceptions=[StaleElementReferenceException]).until(lambda d: any(
                text in (e.get_attribute("textContent") or "") for e in d.find_elements(By.CSS_SELECTOR, css)))
        except Exception:
            found = [e.get_attribute("textContent") for e in self.driver.find_elements(By.CSS_SELECTOR, css)][:3]
            raise Failure(f"'{css}' shows '{text}' (it shows {found!r})") from None
        for _ in range(20):
            try:
                return next(e for e in self.driver.find_elements(By.CSS_SELECTOR, css) if text in (e.get_attribute("textContent") or ""))
            except (StaleElementReferenceException, StopIteration):
                time.sleep(0.05)
        raise Failure(f"'{css}' kept showing '{text}'")

    def wait_gone(self, css, timeout=10):
        try:
            WebDriverWait(self.driver, timeout).until(lambda d: not d.find_elements(By.CSS_SELECTOR, css))
        except Exception:
            raise Failure(f"'{css}' went away") from None

    def find(self, css):
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def all(self, css):
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def type(self, css, text, clear=True):
        element = self.find(css)
        if clear:
            element.clear()
        element.send_keys(text)
        return element

    def click(self, css):
        element = self.find(css)
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        element.click()

    def click_text(self, tag, text):
        for element in self.all(tag):
            if element.text.strip() == text:
                self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
                element.click()
                return
        raise Failure(f"a {tag} reading '{text}'")

    def shot(self, name, at=None):
        """Screenshots at both widths (the page re-lays itself out, then `at` is scrolled to the top), back to desktop after."""
        os.makedirs(self.shots, exist_ok=True)
        self.driver.execute_script("document.getElementById('toasts').replaceChildren()")
        for label, (width, height) in (("desktop", DESKTOP), ("phone", PHONE)):
            self.viewport(width, height)
            time.sleep(0.15)
            if at:
                self.driver.execute_script("document.querySelector(arguments[0]).scrollIntoView({block: 'start'})", at)
            else:
                self.driver.execute_script("window.scrollTo(0, 0)")
            time.sleep(0.05)
            self.driver.save_screenshot(os.path.join(self.shots, f"{name}-{label}.png"))
        self.viewport(*DESKTOP)
        time.sleep(0.05)

    def docs_shot(self, path):
        """A small desktop screenshot for the README (1280×800 scaled to 60%), when asked for."""
        if not self.docs:
            return
        os.makedirs(os.path.dirname(path), exist_ok=True)
        self.driver.execute_script("document.getElementById('toasts').replaceChildren(); window.scrollTo(0, 0)")
        time.sleep(0.1)
        shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "clip": {
            "x": 0, "y": 0, "width": DESKTOP[0], "height": DESKTOP[1], "scale": 0.6}})
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))

    def console_errors(self, allow_network=()):
        """Browser console entries that are errors, except network errors of the allowed statuses."""
        errors = []
        for entry in self.driver.get_log("browser"):
            if entry["level"] not in ("SEVERE", "ERROR"):
                continue
            if entry.get("source") == "network" and any(f"status of {status}" in entry["message"] for status in allow_network):
                continue
            errors.append(entry["message"])
        return errors

    def no_console_errors(self, allow_network=(), where=""):
        """Fails when the browser logged errors since the last read, but for network errors of the
        allowed statuses. (Reading the log empties it: every read must be checked, or the errors
        logged before it are lost.)"""
        errors = self.console_errors(allow_network=allow_network)
        check(not errors, f"no browser console errors{' ' + where if where else ''} ({errors})")

    def main_text(self):
        """The text of the page's main element, as the reader sees it (markup shown as text included)."""
        return self.driver.execute_script("return document.querySelector('main').textContent")

    def sign_in(self, token):
        """Signs in with a token the console accepts and waits until it has left the sign-in page, so that a
        page opened next is not replaced by the role's first page."""
        self.open("#/sign-in")
        self.wait("#token")
        self.type("#token", token + Keys.ENTER)
        try:
            WebDriverWait(self.driver, 10).until(lambda d: "/sign-in" not in d.current_url)
        except Exception:
            raise Failure("the console left the sign-in page after signing in") from None

    def sign_out(self):
        self.click("#sign-out")
        self.wait("#token")


def scenarios(service, console, facts):
    """The scenarios, in order; each returns nothing and raises Failure on a failed check."""
    c = console

    def headers_on_console_responses():
        for path, method in (("/console/", "GET"), ("/console/app.js", "GET"), ("/console/nope.js", "GET"),
                             ("/console/style.css", "POST"), ("/console", "GET")):
            request = urllib.request.Request(service.base + path, method=method)
            try:
                response = urllib.request.urlopen(request)
                status, headers = response.status, response.headers
            except urllib.error.HTTPError as error:
                status, headers = error.code, error.headers
            csp = headers.get("Content-Security-Policy", "")
            check("default-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp,
                  f"{method} {path} ({status}) has the strict CSP")
            check(headers.get("X-Content-Type-Options") == "nosniff", f"{method} {path} has nosniff")
            check(headers.get("Referrer-Policy") == "no-referrer", f"{method} {path} has no-referrer")
        body = urllib.request.urlopen(service.base + "/console/").read().decode()
        check("<script>" not in body and "style=" not in body and "http" not in body.split("<body>")[1],
              "index.html has no inline script or style and no third-party URL")

    def sign_in_marketing():
        c.driver.get(service.base + "/console")          # redirects to /console/
        c.wait("#token")
        check(c.driver.current_url.startswith(service.base + "/console/"), "/console redirects to /console/")
        c.shot("01-sign-in")
        c.type("#token", "not-a-token" + Keys.ENTER)
        c.wait_text(".sign-in-form .notice-error", "not valid")
        c.type("#token", service.tokens["client"] + Keys.ENTER)
        c.wait_text(".sign-in-form .notice-error", "client token only signs")
        check(c.driver.execute_script("return sessionStorage.length") == 0, "a client token is not kept")
        c.no_console_errors(allow_network=(401,))  # the refused tokens' 401s are expected
        # Keyboard only: Tab from the page's start reaches the token input with a visible focus ring.
        c.open("#/sign-in")
        c.wait("#token")
        c.driver.execute_script("document.activeElement.blur()")
        for _ in range(4):
            ActionChains(c.driver).send_keys(Keys.TAB).perform()
            if c.driver.switch_to.active_element.get_attribute("id") == "token":
                break
        focused = c.driver.switch_to.active_element
        check(focused.get_attribute("id") == "token", "Tab reaches the token field")
        outline = c.driver.execute_script("const s = getComputedStyle(document.activeElement); return s.outlineStyle + ' ' + s.outlineWidth")
        check(outline.split()[0] != "none" and outline.split()[1] != "0px", f"the focused field shows a focus ring ({outline})")
        focused.send_keys(service.tokens["marketing"] + Keys.ENTER)
        c.wait_text("#nav", "Offers")
        nav = c.find("#nav").text
        check("Offers" in nav and "Retention" in nav and "Intro offers" in nav and "Users" in nav and "Activity" in nav and "Audit" not in nav,
              f"marketing sees its pages only ({nav!r})")
        check(c.driver.execute_script("return localStorage.length") == 0 and c.driver.get_cookies() == [],
              "the token is in neither localStorage nor a cookie")
        check(c.driver.execute_script("return Object.values(sessionStorage).includes(arguments[0])", service.tokens["marketing"]),
              "the token is in sessionStorage")
        check(service.tokens["marketing"] not in c.driver.current_url, "the token is not in the URL")
        c.wait_text("main table", "demo_winback")

    def phone_menu():
        c.viewport(*PHONE)
        try:
            c.open("#/offers")
            c.wait("#menu-toggle")
            check(not c.find("#nav").is_displayed(), "on a phone the navigation folds behind Menu")
            c.click("#menu-toggle")
            check(c.find("#menu-toggle").get_attribute("aria-expanded") == "true", "Menu says it is open")
            users = c.driver.find_element(By.LINK_TEXT, "Users")
            check(users.is_displayed() and c.find("#sign-out").is_displayed(), "the open menu shows the pages and Sign out")
            users.click()
            c.wait("#user-id")
            check(not c.find("#nav").is_displayed(), "the menu folds again after choosing a page")
        finally:
            c.viewport(*DESKTOP)

    def create_offer_with_error_then_fix():
        c.open("#/offers/new")
        c.wait("#f-offerId")
        c.type("#f-offerId", "winback_e2e")
        c.type("#f-productIds", PRODUCT)
        c.click("#f-eligibility-requireLapsed")
        c.type("#f-eligibility-minPaidDays", "180")
        c.type("#f-eligibility-minDaysSinceExpiry", "90")
        c.type("#f-eligibility-maxDaysSinceExpiry", "30")
        c.click("#f-eligibility-excludeRefunded")
        c.click_text("button", "Create offer")
        error = c.wait_text("#f-eligibility-minDaysSinceExpiry-error", "above")
        check(c.find("#f-eligibility-minDaysSinceExpiry").get_attribute("aria-invalid") == "true", "the wrong field is marked invalid")
        check(c.find(".error-summary").is_displayed(), "an error summary is shown")
        check(error.find_element(By.XPATH, "..").get_attribute("data-field") == "f-eligibility-minDaysSinceExpiry",
              "the error sits in the field it concerns")
        c.shot("02-editor-error", at=".error-summary")
        c.no_console_errors(allow_network=(400,))  # the refused rule's 400 is expected
        c.type("#f-eligibility-maxDaysSinceExpiry", "730")
        c.click_text("button", "Create offer")
        c.wait_text("main h1", "Offer winback_e2e")
        c.wait_text(".history", "Created")
        c.open("#/offers")
        c.wait_text("main table", "winback_e2e")
        c.shot("03-offers-list")

    def simulate():
        c.open("#/offers/edit/winback_e2e")
        c.wait("#f-eligibility-minPaidDays")
        c.type("#f-eligibility-minPaidDays", "100")   # an unsaved change: the simulation judges the form
        c.click_text("button", "Simulate")
        c.wait("#sim-eligible")
        eligible = int(c.find("#sim-eligible").text.replace(",", ""))
        check(eligible == facts["lapsedLong"] + 1, f"the simulation finds {facts['lapsedLong'] + 1} eligible users (found {eligible})")
        text = c.find(".simulation").text
        check(f"of {facts['users']} known users" in text, f"the simulation counts {facts['users']} known users")
        check("Lapsed too recently" in text and "Was refunded" in text, "per-criterion failures are shown in plain words")
        sample = [e.text for e in c.all(".sample li")]
        check(facts["xssUser"] in sample, "the sample shows the markup user ID as text")
        c.shot("04-simulate", at=".simulation")
        check(not c.all("#sim-environment"), "with only Production accepted, no environment choice is offered")

    def change_and_diff():
        c.open("#/offers/edit/winback_e2e")
        c.wait("#f-eligibility-minPaidDays")
        c.type("#f-eligibility-minPaidDays", "200")
        c.type("#f-priority", "5")
        c.click_text("button", "Save changes")
        c.wait_text(".history", "version 2")
        first = c.all(".history-item")[0]
        rows = [[cell.text for cell in row.find_elements(By.CSS_SELECTOR, "th, td")] for row in first.find_elements(By.CSS_SELECTOR, "tbody tr")]
        check(["Paid at least", "180 days", "200 days"] in rows, f"the diff reads 'Paid at least: 180 days → 200 days' ({rows})")
        check(["Priority", "0", "5"] in rows, "the diff shows the priority change")
        check(len(rows) == 2, "the diff shows only the changed fields")
        check("marketing" in first.find_element(By.CSS_SELECTOR, ".history-head").text, "the diff names who changed it")
        c.shot("05-history-diff", at="#history-title")

    def disable_and_enable():
        c.open("#/offers/edit/winback_e2e")
        c.wait("#f-offerId")
        c.click_text("button", "Disable offer")
        c.wait_text(".page-head .badge", "disabled")
        c.click_text("button", "Enable offer")
        c.wait_text(".page-head .badge", "live")

    def user_lookup():
        c.open("#/users")
        c.wait("#user-id")
        c.type("#user-id", facts["showcase"] + Keys.ENTER)
        c.wait("svg.chart")
        kinds = set(c.driver.execute_script("return [...document.querySelectorAll('svg.chart .seg, svg.chart .mark')].map(e => e.getAttribute('class'))"))
        for kind in ("seg seg-trial", "seg seg-paid", "seg seg-offer", "seg seg-code", "seg seg-retention", "seg seg-lapse", "mark mark-refund"):
            check(kind in kinds, f"the timeline shows {kind.split()[-1]}")
        verdict = c.wait_text(".verdicts", "winback_e2e")
        text = verdict.get_attribute("textContent")
        check("not eligible" in text and "refund" in text.lower(), "the verdict gives the reason in plain words")
        check("winback_spring: 1" in c.find(".facts").text, "the facts list the redemption")
        check("App Store retention offer stay_half_price" in c.find(".facts").text, "the facts name the last offer taken, of any type")
        c.shot("06-user-timeline")
        c.docs_shot(os.path.join(ROOT, "docs", "console-user.png"))

    def consent_rescinded():
        c.open("#/users/" + facts["consentUser"])
        notice = c.wait_text(".consent-notice", "Consent rescinded")
        check(facts["consentDownload"] in notice.text, "the notice names the app download whose consent was withdrawn")
        verdicts = c.wait_text(".verdicts", "Consent rescinded").get_attribute("textContent")
        check("not eligible" in verdicts, "every offer is shown as not eligible")
        c.shot("06b-user-consent-rescinded")
        status, _, body = service.call("POST", "/v1/offers/sign", "client", {"productId": PRODUCT, "offerId": "winback_e2e", "userId": facts["consentUser"]})
        check(status == 403 and json.loads(body)["code"] == "consent_rescinded", f"the sign endpoint refuses the customer ({status})")

    def activity():
        # Signatures and refusals through the public sign endpoint, then the charts.
        for user in ("lapsed-000", "lapsed-001", "lapsed-002"):
            status, _, body = service.call("POST", "/v1/offers/sign", "client", {"productId": PRODUCT, "offerId": "winback_e2e", "userId": user})
            check(status == 200, f"signing for {user} ({status} {body[:200]!r})")
        for user in ("active-000", "recent-000", "refunded-000", "short-000"):
            status, _, _ = service.call("POST", "/v1/offers/sign", "client", {"productId": PRODUCT, "offerId": "winback_e2e", "userId": user})
            check(status == 403, f"signing for {user} is refused")
        c.open("#/activity/winback_e2e")
        c.wait_text("#kpi-signatures", "3")
        c.wait_text("#kpi-refusals", "4")
        check(len(c.all("svg.chart rect.bar")) >= 2, "the charts draw bars")
        check("Was refunded" in c.find(".activity-results").text, "refusals are broken down by criterion")
        c.shot("07-activity")
        c.open("#/offers")
        row = c.wait_text("main tbody tr", "winback_e2e")
        cells = [cell.get_attribute("textContent") for cell in row.find_elements(By.CSS_SELECTOR, "td.num")]
        check(cells[1:] == ["3", "3"], f"the list counts winback_e2e's 3 signatures in 24 h and 7 days ({cells})")
        c.shot("07-offers-list-with-counts")
        c.docs_shot(os.path.join(ROOT, "docs", "console-offers.png"))

    def refusals_survive_restart():
        service.stop()
        service.start()
        status, _, body = service.call("GET", "/v1/stats/offers/winback_e2e", "marketing")
        stats = json.loads(body)
        check(status == 200 and stats["totals"]["refusals"] == 4 and stats["totals"]["signatures"] == 3,
              f"refusal counts survive a restart ({stats.get('totals')})")
        check(stats["totals"]["refusalsByCriterion"].get("excludeRefunded") == 1, "refusals are kept per criterion")

    def xss_probe():
        # The token from before the restart still works (the service's keys did not change).
        c.open("#/offers/new")
        c.wait("#f-offerId")
        c.type("#f-offerId", XSS_OFFER)
        c.type("#f-productIds", PRODUCT)
        c.click_text("button", "Create offer")
        c.wait_text("main h1", XSS_OFFER)
        status, _, _ = service.call("POST", "/v1/offers/sign", "client", {"productId": PRODUCT, "offerId": XSS_OFFER, "userId": facts["xssUser"]})
        check(status == 200, "a signature for the markup user")
        for fragment in ("#/offers", "#/users/" + urllib.parse.quote(facts["xssUser"], safe=""), "#/activity/" + urllib.parse.quote(XSS_OFFER, safe="")):
            c.open(fragment)
            c.wait("main h1")
            time.sleep(0.3)
            check(c.driver.execute_script("return window.__xss") is None, f"nothing ran on {fragment}")
            check(not c.all("main b") and not c.all("main img"), f"no markup from data became elements on {fragment}")
            # What fails when markup is parsed (the CSP keeps scripts from running, not tags from
            # being eaten): the payload's characters are on the page as text, every one.
            payload = facts["xssUser"] if fragment.startswith("#/users/") else XSS_OFFER
            c.wait_text("main", payload)
            check(payload in c.main_text(), f"the markup {payload!r} is shown as text on {fragment}")
        c.open("#/offers")
        c.wait_text("main table", XSS_OFFER)
        c.open("#/users/" + urllib.parse.quote(facts["xssUser"], safe=""))
        c.wait_text(".user-id", facts["xssUser"])
        c.shot("08-xss-probe")

    def downloaded_csv(button):
        """Clicks `button` and waits for the one CSV file it downloads: its name and rows (as dicts)."""
        for old in glob.glob(os.path.join(c.downloads, "*")):
            os.remove(old)
        c.click(button)
        deadline = time.time() + 30
        files = []
        while time.time() < deadline:
            files = glob.glob(os.path.join(c.downloads, "*.csv"))
            if files and not glob.glob(os.path.join(c.downloads, "*.crdownload")):
                break
            time.sleep(0.1)
        check(len(files) == 1, f"one CSV was downloaded ({files})")
        with open(files[0], newline="") as f:
            return os.path.basename(files[0]), list(csv.DictReader(f))

    def history_rows(item):
        return [[cell.text for cell in row.find_elements(By.CSS_SELECTOR, "th, td")] for row in item.find_elements(By.CSS_SELECTOR, "tbody tr")]

    def retention_rules():
        c.sign_in(service.tokens["marketing"])
        c.wait_text("#nav", "Retention")
        c.open("#/retention")
        c.wait_text("main .empty", "No rules yet")
        c.click_text("a", "New rule")
        c.wait("#f-ruleId")
        check(not c.find("#f-offerId").is_displayed() and not c.find("#f-alternateProductId").is_displayed(),
              "a message-only rule shows neither a plan nor an offer")
        c.type("#f-ruleId", "save_lapsing")
        c.type("#f-productIds", PRODUCT)
        c.type("#f-locales", "en, de")
        c.type("#f-priority", "10")
        c.type("#f-messageIdentifier", MESSAGE)
        c.wait_text("#rule-plain", "en, de")
        c.shot("12-retention-new")
        c.click_text("button", "Create rule")
        c.wait_text("main h1", "Rule save_lapsing")
        c.wait_text(".history", "Created · version 1")
        # Edit: the offer, with a mistyped fallback message ID the service refuses.
        c.click("#f-answer input[value='offer']")
        offer = c.wait("#f-offerId")
        options = [o.text for o in Select(offer).options]
        check("winback_e2e (live)" in options and f"{XSS_OFFER} (live)" in options, f"the offer list names the app's offers ({options})")
        check(not c.all("main b") and not c.all("main i"), "an offer ID that is markup stays text in the list")
        c.click_text("button", "Save changes")               # no offer chosen yet: said before anything is sent
        c.wait_text("#f-offerId-error", "is needed")
        Select(offer).select_by_value("winback_e2e")
        c.type("#f-fallbackMessageIdentifier", FALLBACK[:-1] + "x")
        c.wait_text("#rule-plain", "winback_e2e")
        c.click_text("button", "Save changes")
        error = c.wait_text("#f-fallbackMessageIdentifier-error", "UUID")
        check(c.find("#f-fallbackMessageIdentifier").get_attribute("aria-invalid") == "true", "the mistyped message ID is marked invalid")
        check(error.find_element(By.XPATH, "..").get_attribute("data-field") == "f-fallbackMessageIdentifier", "the error sits in its field")
        check("Message when not eligible" in c.find(".error-summary").text, "the summary names the field as the form does")
        c.shot("13-retention-error", at="[data-field='f-offerId']")
        c.no_console_errors(allow_network=(400,))
        c.type("#f-fallbackMessageIdentifier", FALLBACK)
        c.click_text("button", "Save changes")
        c.wait_text(".history", "Changed · version 2")
        rows = history_rows(c.all(".history-item")[0])
        check(["Offer", "not set", "winback_e2e"] in rows and ["With the message", "Only the message", "The message and a promotional offer"] in rows,
              f"the history shows the offer added ({rows})")
        check(["Message when not eligible", "none (the next rule is tried)", FALLBACK] in rows, "the history shows the fallback message")
        check("marketing" in c.all(".history-head")[0].text, "the history names who changed it")
        c.shot("14-retention-editor", at="#history-title")
        c.click_text("button", "Disable rule")
        c.wait_text(".page-head .badge", "disabled")
        c.wait_text(".history", "Disabled · version 3")
        check(["Enabled", "yes", "no"] in history_rows(c.all(".history-item")[0]), "the history shows the rule disabled")
        c.open("#/retention")
        row = c.wait_text("main tbody tr", "save_lapsing")
        text = row.get_attribute("textContent")
        check("disabled" in text and "winback_e2e" in text and "en, de" in text, f"the list shows the rule, its offer and state ({text!r})")
        c.shot("15-retention-list")
        # Enabled again, the App Store's request for a lapsed subscriber gets the offer: a retention signature.
        c.open("#/retention/edit/save_lapsing")
        c.wait_text(".sticky-actions", "Enable rule")        # the editor has loaded
        c.click_text("button", "Enable rule")
        c.wait_text(".page-head .badge", "enabled")
        sys.dont_write_bytecode = True          # no __pycache__ in the tree
        sys.path.insert(0, HERE)
        from make_history import Signer
        payload = {"originalTransactionId": original_transaction(6), "appAppleId": APP_APPLE_ID, "productId": PRODUCT,
                   "userLocale": "en-US", "requestIdentifier": str(uuid.uuid4()), "signedDate": int(time.time() * 1000) - 1000,
                   "environment": "Production"}
        status, _, body = service.call("POST", "/v1/retention/appstore", None, {"signedPayload": Signer(CHAIN).sign(payload)})
        answer = json.loads(body or b"{}")
        check(status == 200 and answer.get("promotionalOffer", {}).get("messageIdentifier") == MESSAGE,
              f"the App Store's request gets the rule's offer ({status} {body[:200]!r})")

    def retention_messaging():
        """The Retention page's Retention Messaging part, against the mock of Apple's API."""
        apple = service.apple
        c.open("#/retention")
        c.wait_text("#rm-messages", MESSAGE)
        check("APPROVED" in c.find("#rm-messages").text, "the messages list shows Apple's state")
        c.type("#rm-header", "Before you go")
        c.type("#rm-body", "Your plan keeps your library in sync on every device.")
        c.wait_text(".sheet-header", "Before you go")
        check("library in sync" in c.find(".sheet-body").text, "the preview reads as the sheet will")
        check(c.find("#rm-header").get_attribute("maxlength") == "66" and c.find("#rm-body").get_attribute("maxlength") == "144",
              "the form holds Apple's limits")
        check("13/66" in c.find("label[for=rm-header]").text, "the header's count is shown")
        new_id = c.find("#rm-id").get_attribute("value")
        c.shot("15b-retention-message-form", at="#rm-upload")
        c.click_text("button", "Upload message")
        row = c.wait_text("#rm-messages tbody", "Before you go")
        check(apple.messages.get(new_id, {}).get("state") == "PENDING", "the message reached Apple")
        check("PENDING" in row.text, "the new message is PENDING")
        # Twice the same ID: Apple's words come back.
        c.type("#rm-id", new_id)
        c.click_text("button", "Upload message")
        c.wait_text("#rm-upload [role=status]", "4090001")
        c.no_console_errors(allow_network=(409,))
        # A default message needs an approved message: Apple refuses, then takes it once approved.
        c.type("#rd-product", PRODUCT)
        c.type("#rd-locale", "en-US")
        c.type("#rd-message", new_id)
        c.click_text("button", "Set default")
        c.wait_text("#rd-set [role=status]", "4030017")
        c.no_console_errors(allow_network=(409,))
        apple.messages[new_id]["state"] = "APPROVED"
        c.click_text("button", "Set default")
        c.wait_text("#rm-defaults tbody", "en-US")
        check(apple.defaults.get((PRODUCT, "en-US")) == new_id, "the default reached Apple")
        # A bullet-point image, a PNG of Apple's size.
        png = os.path.join(service.folder, "bullet.png")
        with open(png, "wb") as f:
            # A sound PNG (the service checks chunks and CRCs): IHDR, one IDAT, IEND.
            def chunk(kind, data):
                return len(data).to_bytes(4, "big") + kind + data + (zlib.crc32(kind + data) & 0xFFFFFFFF).to_bytes(4, "big")
            header = (1024).to_bytes(4, "big") * 2 + bytes([8, 2, 0, 0, 0])
            pixels = zlib.compress(b"".join(b"\x00" + b"\x00\x00\x00" * 1024 for _ in range(1024)))
            f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b""))
        Select(c.find("#ri-size")).select_by_value("BULLET_POINT")
        c.find("#ri-file").send_keys(png)
        c.click_text("button", "Upload image")
        c.wait_text("#rm-images tbody", "BULLET_POINT · 1,024 × 1,024")
        c.open("#/retention")
        c.wait_text("#rm-messages tbody", "Before you go")
        c.shot("15c-retention-messages", at="#rm-title")
        c.docs_shot(os.path.join(ROOT, "docs", "console-retention-messaging.png"))
        c.sign_out()
        # The admin: the real-time URL needs a passed performance test.
        c.sign_in(service.tokens["admin"])
        c.wait_text("#nav", "Audit")
        c.open("#/retention")
        c.wait_text("#rt-current", "No real-time URL")
        c.type("#rt-url", "https://signer.example.com/v1/retention/appstore")
        c.click_text("button", "Set URL")
        c.wait_text("#rt-current", "4030026")
        c.type("#pt-transaction", original_transaction(6))
        c.click_text("button", "Start test")
        c.wait_text("#pt-result", "PASS")
        check("p99 410" in c.find("#pt-result").text, "the test's response times are shown")
        c.click_text("button", "Set URL")
        c.wait_text("#rt-current", "Apple calls https://signer.example.com/v1/retention/appstore")
        check(apple.realtime_url == "https://signer.example.com/v1/retention/appstore", "the URL reached Apple")
        c.no_console_errors(allow_network=(404, 409))
        c.shot("15d-retention-realtime", at="#pt-result")
        c.sign_out()
        # The auditor sees every change, who made it and what it was.
        c.sign_in(service.tokens["auditor"])
        c.wait_text("#nav", "Audit")
        c.open("#/audit/changes?rules=retention-messaging")
        c.wait_text(".history", "Before you go")
        text = c.find(".history").text
        check(f"Production:message:{new_id}" in text and "Production:realtimeURL:url" in text and "admin" in text and "marketing" in text,
              f"the audit lists the uploads, the default and the URL with who made them ({text[:300]!r})")
        c.shot("15e-audit-retention-messaging")
        check(apple.refused == 0, "Apple's mock accepted every token")
        c.sign_out()
        c.sign_in(service.tokens["marketing"])
        c.wait_text("#nav", "Retention")

    def introductory_rules():
        c.open("#/introductory")
        c.wait_text("main .empty", "No rules yet")
        c.click_text("a", "New rule")
        c.wait("#f-ruleId")
        check(not c.find("#f-allowAgain-minDaysSinceExpiry").is_displayed(), "the criteria for again stay folded until asked for")
        c.type("#f-ruleId", "trial_again")
        c.type("#f-subscriptionGroupIds", GROUP)
        c.click("#f-againOn")
        c.wait("#f-allowAgain-minDaysSinceExpiry")
        c.click("#f-allowAgain-requireLapsed")
        c.type("#f-allowAgain-minDaysSinceExpiry", "365")
        c.type("#f-allowAgain-minPaidDays", "30")
        c.click("#f-excludeRefunded")
        c.wait_text("#rule-plain", "Lapsed at least: 365 days")
        c.click_text("button", "Create rule")
        c.wait_text("main h1", "Rule trial_again")
        c.wait_text(".history", "Created · version 1")
        # Edit: an upper bound below the lower one is refused, beside the field it concerns.
        c.type("#f-allowAgain-maxDaysSinceExpiry", "30")
        c.click_text("button", "Save changes")
        error = c.wait_text("#f-allowAgain-minDaysSinceExpiry-error", "above")
        check("Lapsed at most" in error.text and "allowAgain" not in error.text, f"the error names the fields as the form does ({error.text!r})")
        check(c.find("#f-allowAgain-minDaysSinceExpiry").get_attribute("aria-invalid") == "true", "the wrong field is marked invalid")
        c.shot("16-introductory-error", at="[data-field='f-againOn']")
        c.no_console_errors(allow_network=(400,))
        c.type("#f-allowAgain-maxDaysSinceExpiry", "3650")
        c.click_text("button", "Save changes")
        c.wait_text(".history", "Changed · version 2")
        rows = history_rows(c.all(".history-item")[0])
        check(rows == [["Lapsed at most", "not set", "3650 days"]], f"the history shows exactly the change ({rows})")
        c.shot("17-introductory-editor", at="#history-title")
        c.click_text("button", "Disable rule")
        c.wait_text(".history", "Disabled · version 3")
        c.open("#/introductory")
        row = c.wait_text("main tbody tr", "trial_again")
        text = row.get_attribute("textContent")
        check("disabled" in text and GROUP in text and "Never for people refunded" in text, f"the list says what the rule decides ({text!r})")
        c.shot("18-introductory-list")
        # A rule ID that is markup stays text in the list and the editor.
        status, _, body = service.call("PUT", "/v1/admin/introductory-offer-rules/" + urllib.parse.quote(XSS_OFFER, safe=""), "marketing",
                                       {"ruleId": XSS_OFFER, "productIds": [PRODUCT], "enabled": False})
        check(status == 201, f"a rule whose ID is markup ({status} {body[:200]!r})")
        c.open("#/introductory?state=disabled")       # another address: the list is read again
        c.wait_text("main table", XSS_OFFER)
        c.open("#/introductory/edit/" + urllib.parse.quote(XSS_OFFER, safe=""))
        c.wait_text("main h1", XSS_OFFER)
        c.wait_text(".history", "Created")
        check(c.driver.execute_script("return window.__xss") is None and not c.all("main b") and not c.all("main i"),
              "no markup from a rule ID became elements")
        check(XSS_OFFER in c.main_text(), "the rule ID that is markup is shown as text in the editor")
        # Introductory-offer eligibility signatures (Apple's default now): one allowed, one withheld.
        for user, original, allowed in (("lapsed-006", original_transaction(7), True), (facts["showcase"], original_transaction(28), False)):
            status, _, body = service.call("POST", "/v1/offers/introductory-eligibility", "client",
                                           {"productId": PRODUCT, "userId": user, "transactionId": original})
            check(status == 200 and json.loads(body)["allowIntroductoryOffer"] is allowed, f"eligibility for {user} ({status} {body[:200]!r})")
            facts.setdefault("eligibilityAnswers", []).append(body.decode())

    def audit_sources_and_formats():
        c.sign_out()
        c.sign_in(service.tokens["auditor"])
        c.wait_text("#nav", "Audit")
        c.open("#/audit/signatures")
        c.wait("#filter-source")
        Select(c.find("#filter-source")).select_by_value("retention")
        c.click_text("button", "Apply filters")
        c.wait_text(".summary", "1 record")
        row = c.find("main tbody tr")
        text = row.get_attribute("textContent")
        check("Retention" in text and "winback_e2e" in text and "lapsed-005" in text, f"the retention signature is listed ({text!r})")
        check("source=retention" in c.driver.current_url, "the filter is in the page's address")
        c.shot("19-audit-retention")
        c.click("main table tbody th a")
        c.wait_text(".record", "retention (the App Store")
        check("app-store" in c.find(".record").text, "the record names the App Store as the asker")
        c.open("#/audit/signatures?format=introductory-offer-eligibility")
        c.wait_text(".summary", "2 records")
        check(Select(c.find("#filter-format")).first_selected_option.get_attribute("value") == "introductory-offer-eligibility",
              "the format filter shows the address's value")
        signed = sorted(e.get_attribute("textContent") for e in c.all("main tbody td[data-label='Signature']"))
        check(signed == ["Intro offer allowed", "Intro offer withheld"], f"each eligibility says whether it grants the offer ({signed})")
        c.shot("20-audit-introductory", at=".summary")
        # An introductory-offer eligibility JWS, pasted as the endpoint answered it, verifies and was issued here.
        c.open("#/audit/verify")
        c.wait("#verify-paste")
        c.driver.execute_script("const t = document.querySelector('#verify-paste'); t.value = arguments[0]; t.dispatchEvent(new Event('input'))",
                                facts["eligibilityAnswers"][1])
        check(c.find("#verify-jws").get_attribute("value").count(".") == 2, "the pasted answer fills in the JWS")
        c.click_text("button", "Verify")
        c.wait_text("#verify-valid", "is valid")
        check("logged" in c.find("#verify-issued").text and "no such" not in c.find("#verify-issued").text, "the eligibility JWS was issued here")
        c.wait_text(".verify-result .record", "introductory-offer-eligibility")
        check("no" == c.driver.execute_script(
            "return [...document.querySelectorAll('.verify-result .record dt')].find(d => d.textContent.startsWith('Allows')).nextElementSibling.textContent"),
            "the logged record says the offer is withheld")
        c.shot("21-audit-verify-jws", at=".verify-result")
        c.open("#/audit/changes?rules=retention")
        c.wait_text(".history", "save_lapsing")
        check(len(c.all(".history-item")) == 4, "the auditor sees the retention rule's four changes")
        c.shot("22-audit-rule-changes")
        c.sign_out()

    def expired_token():
        c.driver.execute_script("sessionStorage.setItem('offer-signer.token', 'revoked-token')")
        c.open("#/offers")
        c.wait_text(".sign-in-card .notice-info", "no longer valid")
        check(c.driver.execute_script("return sessionStorage.length") == 0, "an invalid token is forgotten")
        c.no_console_errors(allow_network=(401,))
        # Only the console's own notices: text in the URL is never shown, nor an unknown code.
        for fragment in ("#/sign-in?message=" + urllib.parse.quote("Your account is locked: call +1 555 0100"),
                         "#/sign-in?notice=constructor", "#/sign-in?notice=" + urllib.parse.quote("<b>phish</b>")):
            c.open(fragment)
            c.wait(".sign-in-form")
            check(not c.all(".sign-in-card .notice-info"), f"no notice for {fragment}")

    def auditor():
        c.sign_in(service.tokens["auditor"])
        c.wait_text("#nav", "Audit")
        nav = c.find("#nav").text
        check("Audit" in nav and "Activity" in nav and "Offers" not in nav and "Users" not in nav and "Retention" not in nav and "Intro" not in nav,
              f"the auditor sees Audit and Activity ({nav!r})")
        c.open("#/offers")                     # not for this role: back to its first page
        c.wait_text("main h1", "Activity")
        c.open("#/audit/signatures")
        c.wait("#filter-offerId")
        c.type("#filter-offerId", "winback_e2e" + Keys.ENTER)
        c.wait_text(".summary", "3 records")
        users = sorted(e.text for e in c.all("main table tbody td.col-user"))
        check(users == ["lapsed-000", "lapsed-001", "lapsed-002"], f"the filtered log lists the three users ({users})")
        c.shot("09-audit-log")
        rows = downloaded_csv("#download-csv")[1]
        check(len(rows) == 3 and {r["offerId"] for r in rows} == {"winback_e2e"}, f"the CSV has the filter's three rows ({len(rows)})")
        check(sorted(r["userId"] for r in rows) == users, "the CSV rows are the listed records")
        c.click("main table tbody th a")
        c.wait_text(".record", "winback_e2e")
        nonce = c.driver.execute_script("return [...document.querySelectorAll('.record dt')].find(d => d.textContent === 'Nonce').nextElementSibling.textContent")
        check(len(nonce) == 36, "the record's details show its nonce")
        c.open("#/audit/integrity")
        c.wait_text("#integrity-status", "Intact")
        check("Signed checkpoints" in c.find(".facts").text, "the integrity page says what the checkpoints showed")
        c.click_text("button", "Check every signature too (slower)")
        c.wait_text(".facts", "verified")
        check("Intact" in c.find("#integrity-status").text, "the log is intact with every signature checked")
        c.shot("10-integrity")
        # Verify a signature issued just now: paste the sign endpoint's answer.
        status, _, body = service.call("POST", "/v1/offers/sign", "client", {"productId": PRODUCT, "offerId": "winback_e2e", "userId": "lapsed-003"})
        check(status == 200, "a signature to verify")
        c.open("#/audit/verify")
        c.wait("#verify-paste")
        c.driver.execute_script("const t = document.querySelector('#verify-paste'); t.value = arguments[0]; t.dispatchEvent(new Event('input'))", body.decode())
        c.click_text("button", "Verify")
        c.wait_text("#verify-valid", "is valid")
        check("logged" in c.find("#verify-issued").text and "no such" not in c.find("#verify-issued").text, "the signature was issued here")
        c.shot("11-verify")
        c.open("#/audit/changes")
        c.wait_text(".history", "winback_e2e")
        c.wait_text(".history", "Paid at least")
        c.open("#/audit/signatures?userId=" + urllib.parse.quote(facts["xssUser"], safe=""))
        c.wait_text("main table", facts["xssUser"])
        check(c.driver.execute_script("return window.__xss") is None and not c.all("main img"), "the markup user ID is text in the log")
        check(facts["xssUser"] in c.main_text(), "the markup user ID is shown as text in the log")
        c.sign_out()


    def outcomes_and_holdout():
        # lapsed-000 was signed winback_e2e a moment ago; its redemption arrives now (within 24 hours: matched).
        sys.path.insert(0, HERE)
        import make_history
        signer = make_history.Signer(CHAIN)
        now = int(time.time() * 1000)
        payload = {"transactionId": "29999999000001", "originalTransactionId": "29999999000001", "bundleId": "com.example.app",
                   "productId": PRODUCT, "subscriptionGroupIdentifier": GROUP, "purchaseDate": now, "originalPurchaseDate": now,
                   "expiresDate": now + 30 * 86_400_000, "quantity": 1, "type": "Auto-Renewable Subscription",
                   "inAppOwnershipType": "PURCHASED", "signedDate": now, "environment": "Production", "transactionReason": "PURCHASE",
                   "storefront": "USA", "storefrontId": "143441", "price": 4990, "currency": "USD", "appAccountToken": "lapsed-000",
                   "offerType": 2, "offerIdentifier": "winback_e2e", "offerDiscountType": "PAY_AS_YOU_GO"}
        line = json.dumps({"signedTransactionInfo": signer.sign(payload)}).encode() + b"\n"
        status, _, body = service.call("POST", "/v1/admin/history/import", "admin", line, content_type="application/x-ndjson")
        check(status == 200 and json.loads(body)["accepted"] == 1, f"the redemption was imported ({body!r})")
        c.sign_in(service.tokens["marketing"])
        c.wait_text("#nav", "Offers")
        c.open("#/offers/edit/winback_e2e")
        c.wait_text("#outcomes-headline", "1 redemption from")
        check(c.find("#outcomes-matched").text == "1" and c.find("#outcomes-unmatched").text.startswith("0"),
              "the redemption is matched to its signature")
        check(c.find("#outcomes-inOffer").text == "1", "the redemption is still in the offer")
        check("USD 4.99" in c.find("#outcomes-revenue").text, f"the revenue is shown ({c.find('#outcomes-revenue').text})")
        check("No holdout comparison yet" in c.find("#outcomes-lift").text, "without a holdout there is no comparison, said in plain words")
        c.shot("23-outcomes", at="#outcomes")
        # The holdout field: refused above 50 beside the field, saved at 20.
        c.type("#f-holdoutPercent", "60")
        c.click_text("button", "Save changes")
        c.wait_text("#f-holdoutPercent-error", "between 0 and 50")
        c.no_console_errors(allow_network=(400,))
        c.type("#f-holdoutPercent", "20")
        c.click_text("button", "Save changes")
        c.wait_text(".history", "Holdout")
        check(c.find("#f-holdoutPercent").get_attribute("value") == "20", "the holdout percentage is saved")
        c.shot("24-holdout-field", at="#f-holdoutPercent")
        status, _, body = service.call("GET", "/v1/admin/offers/winback_e2e", "marketing")
        check(json.loads(body).get("holdoutPercent") == 20, "the rule carries holdoutPercent 20")
        # Back to no holdout, so that later scenarios sign as before.
        c.type("#f-holdoutPercent", "0")
        c.click_text("button", "Save changes")
        deadline = time.time() + 10
        while json.loads(service.call("GET", "/v1/admin/offers/winback_e2e", "marketing")[2]).get("holdoutPercent") != 0:
            check(time.time() < deadline, "the holdout was set back to 0")
            time.sleep(0.1)
        c.sign_out()

    def audit_redemptions():
        c.sign_in(service.tokens["auditor"])
        c.wait_text("#nav", "Audit")
        c.open("#/audit/redemptions")
        c.wait_text(".summary", "on this page")
        c.wait_text("main table", "29999999000001")
        check(any("Signed here" == e.text for e in c.all("main table td.col-signature a")), "the matched redemption links its signature")
        c.shot("25-audit-redemptions")
        Select(c.find("#redemption-matched")).select_by_value("false")
        c.click_text("button", "Apply filters")
        c.wait_text(".summary", "on this page")
        text = c.find(".results").get_attribute("textContent")
        check("29999999000001" not in text, "the unmatched filter leaves the signed redemption out")
        check("Not signed here" in text, f"the showcase's promotional month, signed by nobody here, is listed ({text[:200]!r})")
        c.shot("26-audit-redemptions-unmatched")
        c.sign_out()

    def audit_account_links():
        # An operator's link while the App Store cannot be reached: recorded as failed, with why, and listed.
        result = subprocess.run([service.binary, "appstore", "link", "--original-transaction-id", "2000000000000042",
                                 "--user", "6f0e3c52-2b8f-4f6a-9d7e-1f2a3b4c5d6e", "--keys", service.keys,
                                 "--database", service.database, "--appstore-api-url", "http://127.0.0.1:9",
                                 "--apple-roots", os.path.join(CHAIN, "root.pem")],
                                capture_output=True, text=True, env={**os.environ, "USER": "e2e-operator"})
        check(result.returncode == 1 and result.stdout.startswith("failed:"),
              f"appstore link without the App Store fails and says so ({result.stdout!r} {result.stderr!r})")
        c.sign_in(service.tokens["auditor"])
        c.wait_text("#nav", "Audit")
        c.open("#/audit/links")
        c.wait_text(".summary", "on this page")
        c.wait_text("main table", "2000000000000042")
        text = c.find(".results").get_attribute("textContent")
        check("Failed" in text and "cli:e2e-operator" in text and "could not reach the App Store Server API" in text,
              f"the link shows its outcome, who asked and why ({text[:300]!r})")
        c.shot("27-audit-account-links")
        c.type("#link-originalTransactionId", "1")
        c.click_text("button", "Apply filters")
        c.wait_text(".results", "No link matches these filters.")
        c.sign_out()

    def placements():
        """Placements: created from the app's offers, reordered with the keyboard, refused as the service words it,
        the saved order read back and used by the placement endpoint, markup shown as text, disabled."""
        def sign_by_placement(user):
            status, _, body = service.call("POST", "/v1/offers/placement", "client", {"placement": "cancel_flow", "productId": PRODUCT, "userId": user})
            return status, json.loads(body or b"{}")

        def shown_order():
            return [li.get_attribute("data-offer-id") for li in c.all("#f-offerIds-list li.order-item")]

        c.sign_in(service.tokens["marketing"])
        c.wait_text("#nav", "Placements")
        c.open("#/placements")
        c.wait_text("main .empty", "No placements yet")
        c.click_text("a", "New placement")
        c.wait("#f-placementId")
        check(c.driver.switch_to.active_element.get_attribute("id") == "f-placementId", "a new placement starts at its ID")
        c.type("#f-placementId", "cancel_flow")
        c.type("#f-description", "Shown when a subscriber taps Cancel")
        c.wait_text("#placement-plain", "No offers yet")
        # No offer yet: the service refuses, in its words, beside the offers.
        c.click_text("button", "Create placement")
        error = c.wait_text("#f-offerIds-error", "must name at least one offer")
        check(error.find_element(By.XPATH, "..").get_attribute("data-field") == "f-offerIds", "the refusal sits beside the offers")
        check("must name at least one offer" in c.find(".error-summary").text, f"the summary gives the service's words ({c.find('.error-summary').text!r})")
        check(c.find("#f-offerIds").get_attribute("aria-invalid") == "true", "the offers are marked invalid")
        c.shot("28-placement-refused", at=".error-summary")
        c.no_console_errors(allow_network=(400,))   # the refused placement's 400 is expected
        options = [o.text for o in Select(c.find("#f-offerIds-add")).options]
        check("winback_e2e (live)" in options and "demo_winback (live)" in options, f"the offers to add are the app's, with their state ({options})")
        for offer in ("winback_e2e", "demo_winback"):
            Select(c.find("#f-offerIds-add")).select_by_value(offer)
            c.click_text("button", "Add")
        check(shown_order() == ["winback_e2e", "demo_winback"], f"the offers are listed as added ({shown_order()})")
        check(not c.find("#f-offerIds-error").is_displayed() and c.find("#f-offerIds").get_attribute("aria-invalid") is None,
              "the refusal about the offers is gone once offers are added")
        # Keyboard only: demo_winback moved up; the focus stays on it (its Up button is now disabled, so on Down).
        up = c.find("[aria-label='Move demo_winback up']")
        c.driver.execute_script("arguments[0].focus()", up)
        ActionChains(c.driver).send_keys(Keys.ENTER).perform()
        c.wait_text("#f-offerIds", "demo_winback moved to position 1 of 2")
        check(shown_order() == ["demo_winback", "winback_e2e"], f"Enter on Up moved the offer ({shown_order()})")
        check(c.driver.switch_to.active_element.get_attribute("aria-label") == "Move demo_winback down", "the focus stays on the offer moved")
        plain = c.find("#placement-plain").text
        check(plain.index("demo_winback") < plain.index("winback_e2e"), f"the plain words give the order ({plain!r})")
        c.shot("28b-placement-order", at="#f-offerIds")
        c.click_text("button", "Create placement")
        c.wait_text("main h1", "Placement cancel_flow")
        c.wait_text(".history", "Created · version 1")
        check(shown_order() == ["demo_winback", "winback_e2e"], f"the saved order is read back in the editor ({shown_order()})")
        status, _, body = service.call("GET", "/v1/admin/placements/cancel_flow", "marketing")
        stored = json.loads(body)
        check(status == 200 and stored["offerIds"] == ["demo_winback", "winback_e2e"] and stored["description"] == "Shown when a subscriber taps Cancel",
              f"the service keeps the order and description ({status} {body[:300]!r})")
        status, answer = sign_by_placement("lapsed-004")
        check(status == 200 and answer.get("offerId") == "demo_winback", f"the app gets the first offer ({status} {answer})")
        # Reordered: winback_e2e first, saved, shown in the history as the order before and after.
        c.click("[aria-label='Move winback_e2e up']")
        c.click_text("button", "Save changes")
        c.wait_text(".history", "Changed · version 2")
        rows = history_rows(c.all(".history-item")[0])
        check(rows == [["Offers", "1. demo_winback, 2. winback_e2e", "1. winback_e2e, 2. demo_winback"]],
              f"the history shows the order before and after ({rows})")
        check("marketing" in c.all(".history-head")[0].text, "the history names who changed it")
        check(shown_order() == ["winback_e2e", "demo_winback"], f"the new order is read back ({shown_order()})")
        status, answer = sign_by_placement("lapsed-004")
        check(status == 200 and answer.get("offerId") == "winback_e2e", f"the app now gets the offer moved first ({status} {answer})")
        c.shot("29-placement-editor", at="#history-title")
        c.open("#/placements")
        row = c.wait_text("main tbody tr", "cancel_flow")
        items = [li.text for li in row.find_elements(By.CSS_SELECTOR, ".order-inline li")]
        check(items == ["winback_e2e", "demo_winback"], f"the list shows the offers in order ({items})")
        text = row.get_attribute("textContent")
        check("Shown when a subscriber taps Cancel" in text and "enabled" in text, f"the list shows the description and state ({text!r})")
        c.shot("30-placements-list")
        # Markup in an offer ID and in a description stays text, in the editor, its plain words, the history and the list.
        probe = '<img src=x onerror="window.__xss=1">'
        c.open("#/placements/edit/cancel_flow")
        c.wait("#f-offerIds-add")
        Select(c.find("#f-offerIds-add")).select_by_value(XSS_OFFER)
        c.click_text("button", "Add")
        c.type("#f-description", "Cancel flow " + probe)
        c.click_text("button", "Save changes")
        c.wait_text(".history", "Changed · version 3")
        for fragment in ("#/placements/edit/cancel_flow", "#/placements"):
            c.open(fragment)
            c.wait_text("main", XSS_OFFER)
            c.wait_text("main", probe)
            check(c.driver.execute_script("return window.__xss") is None and not c.all("main img") and not c.all("main b") and not c.all("main i"),
                  f"no markup became elements on {fragment}")
            text = c.main_text()
            check(XSS_OFFER in text and probe in text, f"the markup is shown as text, every character, on {fragment}")
        c.open("#/placements/edit/cancel_flow")
        c.wait_text(".history", "version 3")
        c.click_text("button", "Disable placement")
        c.wait_text(".page-head .badge", "disabled")
        c.wait_text(".history", "Disabled · version 4")
        c.wait_text("#placement-plain", "The placement is disabled")
        status, answer = sign_by_placement("lapsed-004")
        check(status == 404 and answer.get("code") == "placement_not_found", f"a disabled placement signs nothing ({status} {answer})")
        c.sign_out()

    def experiments():
        """Experiments: a draft refused as the service words it, then created and started; users assigned through the
        placement endpoint (still maturing); 100 users assigned 46–95 days ago (written into the assignments table, the
        only way to have users past a 30-day horizon; their App Store history imported through the import endpoint)
        give the report a series, drawn per arm with its interval; a second experiment on the placement is refused;
        markup in arm and offer IDs stays text; stopped with a winner, whose offer goes first in the placement."""
        sys.path.insert(0, HERE)
        import make_history
        status, _, body = service.call("PUT", "/v1/admin/placements/winback_push", "marketing",
                                       {"offerIds": ["demo_winback", "winback_e2e"], "description": "The win-back push"})
        check(status == 201, f"a placement to experiment on ({status} {body[:200]!r})")
        c.sign_in(service.tokens["marketing"])
        c.wait_text("#nav", "Experiments")
        c.open("#/experiments")
        c.wait_text("main .empty", "No experiments yet")
        c.click_text("a", "New experiment")
        c.wait("#f-experimentId")
        c.type("#f-experimentId", "push_spring")
        Select(c.find("#f-placement")).select_by_value("winback_push")
        Select(c.find("#f-arm-1-offerId")).select_by_value("winback_e2e")
        c.type("#f-arm-1-armId", "half")
        c.type("#f-horizonDays", "20")
        c.wait_text("#experiment-plain", "offered winback_e2e when eligible")
        c.click_text("button", "Create draft")
        error = c.wait_text("#f-horizonDays-error", "must be 30–365")
        check(c.find("#f-horizonDays").get_attribute("aria-invalid") == "true", "the horizon is marked invalid")
        check(error.text.startswith("“Horizon (days)”"), f"the error names the field as the form does ({error.text!r})")
        check("must be 30–365" in c.find(".error-summary").text, "the summary gives the service's words")
        c.shot("31-experiment-refused", at=".error-summary")
        c.no_console_errors(allow_network=(400,))   # the refused draft's 400 is expected
        c.type("#f-horizonDays", "30")
        c.click_text("button", "Create draft")
        c.wait_text("main h1", "Experiment push_spring")
        c.wait_text(".page-head .badge", "draft")
        c.wait_text(".history", "Created · version 1")
        status, _, body = service.call("GET", "/v1/admin/experiments/push_spring", "marketing")
        stored = json.loads(body)
        check(status == 200 and stored["arms"] == [{"armId": "control", "offerId": None, "weight": 1}, {"armId": "half", "offerId": "winback_e2e", "weight": 1}]
              and stored["metric"] == "retained" and stored["horizonDays"] == 30 and stored["placement"] == "winback_push",
              f"the draft is saved as the form had it ({body[:400]!r})")
        c.click_text("button", "Start experiment")
        c.wait_text(".page-head .badge", "running")
        c.wait_text("#exp-verdict", "Not established yet")
        check(c.find("#exp-maturing").text == "0" and c.find("#exp-assigned").text == "0", "nobody assigned yet")
        # Users reaching the placement are assigned (and keep their arm); nobody has reached the horizon yet.
        arms = {}
        for user in ("lapsed-006", "lapsed-007", "lapsed-008", "lapsed-009", "active-001", "active-002"):
            status, _, body = service.call("POST", "/v1/offers/placement", "client", {"placement": "winback_push", "productId": PRODUCT, "userId": user})
            answer = json.loads(body or b"{}")
            arms[user] = answer.get("armId")
            check(answer.get("experimentId") == "push_spring" and answer.get("armId") in ("control", "half"),
                  f"{user} is assigned an arm ({status} {body[:300]!r})")
        c.click_text("button", "Refresh")
        c.wait_text("#exp-assigned", "6")
        check(c.find("#exp-maturing").text == "6" and c.find("#exp-matured").text == "0", "the six users are still maturing")
        c.wait_text("#exp-verdict", "no assigned user has reached the horizon")
        c.no_console_errors()
        # 100 users assigned 46–95 days ago, half of them to each arm; their history: 'half' keeps 80 %, control 20 %.
        signer = make_history.Signer(CHAIN)
        now = int(time.time() * 1000)
        day = 86_400_000
        lines, rows = [], []
        for i in range(100):
            user, arm = "exp-user-%03d" % i, ("control", "half")[i % 2]
            assigned = now - (95 - i // 2) * day
            kept = (i // 2) % 5 != 0 if arm == "half" else (i // 2) % 5 == 0
            start = assigned + day
            payload = {"transactionId": "3%013d" % i, "originalTransactionId": "3%013d" % i, "bundleId": "com.example.app",
                       "productId": PRODUCT, "subscriptionGroupIdentifier": GROUP, "purchaseDate": start, "originalPurchaseDate": start,
                       "expiresDate": start + (45 if kept else 10) * day, "quantity": 1, "type": "Auto-Renewable Subscription",
                       "inAppOwnershipType": "PURCHASED", "signedDate": now, "environment": "Production", "transactionReason": "PURCHASE",
                       "storefront": "USA", "storefrontId": "143441", "price": 4990, "currency": "USD", "appAccountToken": user}
            lines.append(json.dumps({"signedTransactionInfo": signer.sign(payload)}))
            rows.append(("com.example.app", "push_spring", user, arm, assigned))
        status, _, body = service.call("POST", "/v1/admin/history/import", "admin", ("\n".join(lines) + "\n").encode(), content_type="application/x-ndjson")
        check(status == 200 and json.loads(body)["accepted"] == 100, f"the users' history was imported ({body[:300]!r})")
        import sqlite3
        with sqlite3.connect(service.database, timeout=30) as db:
            db.executemany("INSERT INTO experiment_assignments (bundle_id, experiment_id, user_key, arm_id, weight_period, environment,"
                           " assigned_at_ms, eligible, first_signed_at_ms) VALUES (?, ?, ?, ?, 0, 'Production', ?, 1, NULL)", rows)
        status, _, body = service.call("GET", "/v1/stats/experiments/push_spring", "marketing")
        report = json.loads(body)
        check(status == 200 and sum(arm["matured"] for arm in report["arms"]) == 100, f"the report analyses the 100 users ({body[:300]!r})")
        comparison = report["comparisons"][0]
        check(len(comparison["sequence"]) >= 2, f"the report has a series ({len(comparison['sequence'])} looks)")
        c.click_text("button", "Refresh")
        c.wait_text("#exp-matured", "100")
        check(c.find("#exp-maturing").text == "6", "the maturing users are counted apart")
        check(c.find("#exp-verdict").text == report["verdict"], f"the verdict is the service's words ({c.find('#exp-verdict').text!r})")
        srm = c.find("#exp-srm").text
        check(srm.startswith("Sample ratio mismatch" if report["sampleRatio"]["mismatch"] else "Sample ratio: fine"), f"the sample-ratio state is shown ({srm!r})")
        rows_shown = {cells[0].split(" ")[0]: cells for cells in
                      ([td.get_attribute("textContent") for td in r.find_elements(By.CSS_SELECTOR, "td")] for r in c.all(".experiment-results table.data tbody tr"))}
        for arm in report["arms"]:
            shown = rows_shown.get(arm["armId"])     # arm, offer, assigned, eligible, signed, redeemed, still maturing, analysed, metric
            check(shown and shown[2] == str(arm["assigned"]) and shown[6] == str(arm["maturing"]) and shown[7] == str(arm["matured"]),
                  f"arm {arm['armId']}: assigned, maturing and analysed as the report says ({shown} vs {arm})")
        polyline = c.find("#exp-comparison-0 svg.chart polyline.ci-line").get_attribute("points").split()
        check(len(polyline) == len(comparison["sequence"]), f"the chart draws every look ({len(polyline)} of {len(comparison['sequence'])})")
        check(c.all("#exp-comparison-0 svg.chart polygon.ci-band") and c.all("#exp-comparison-0 svg.chart line.ci-zero"),
              "the chart draws the interval and zero")
        sentence = c.find("#exp-comparison-0 .comparison-sentence").text
        check(("Established" in sentence) == comparison["established"] and "half" in sentence, f"the comparison in words ({sentence!r})")
        c.shot("32-experiment-results", at="#results")
        c.shot("33-experiment-chart", at="#exp-comparison-0")
        # The report as CSV: one row per arm, the control first, with the report's figures.
        name, rows = downloaded_csv("#exp-download-csv")
        c.wait_text("#toasts", "Downloaded the report of push_spring as CSV")
        check(name.startswith("experiment-push_spring-Production-"), f"the file is named after the experiment ({name})")
        check([row["armId"] for row in rows] == [arm["armId"] for arm in report["arms"]], f"one row per arm, the control first ({rows})")
        for row, arm in zip(rows, report["arms"]):
            check(row["assigned"] == str(arm["assigned"]) and row["matured"] == str(arm["matured"]) and row["maturing"] == str(arm["maturing"])
                  and row["verdict"] == report["verdict"], f"arm {arm['armId']}: the CSV's figures are the report's ({row})")
        check(rows[1]["difference"] != "" and rows[0]["difference"] == "", "the comparison is on the arm's row, not the control's")
        c.no_console_errors()
        # A second experiment on the placement: its start is refused while push_spring runs, in the service's words;
        # arm and offer IDs that are markup stay text.
        c.open("#/experiments/new")
        c.wait("#f-experimentId")
        c.type("#f-experimentId", "push_other")
        Select(c.find("#f-placement")).select_by_value("winback_push")
        Select(c.find("#f-arm-1-offerId")).select_by_value(XSS_OFFER)
        c.type("#f-arm-1-armId", '"><i>arm')
        c.click_text("button", "Start experiment")
        summary = c.wait_text(".error-summary", "is running on placement")
        check("push_spring" in summary.text and "stop it first" in summary.text, f"the refusal names the running experiment ({summary.text!r})")
        c.no_console_errors(allow_network=(409,))
        for fragment in ("#/experiments/edit/push_other", "#/experiments"):
            c.open(fragment)
            c.wait_text("main", '"><i>arm')
            check(c.driver.execute_script("return window.__xss") is None and not c.all("main b") and not c.all("main i"),
                  f"no markup became elements on {fragment}")
            check(XSS_OFFER in c.main_text() and '"><i>arm' in c.main_text(), f"the markup is shown as text on {fragment}")
        c.shot("34-experiments-list")
        # Stopped with a winner: its offer goes first in the placement; the results stay.
        c.open("#/experiments/edit/push_spring")
        c.wait("#stop-winner")
        Select(c.find("#stop-winner")).select_by_value("half")
        c.click_text("button", "Stop experiment")
        c.wait_text(".page-head .badge", "stopped")
        c.wait_text("#experiment-plain", "Winner: half")
        c.wait_text("#exp-matured", "100")
        status, _, body = service.call("GET", "/v1/admin/placements/winback_push", "marketing")
        check(json.loads(body)["offerIds"][0] == "winback_e2e", f"the winner's offer is first in the placement ({body[:200]!r})")
        c.wait_text(".history", "stopped")
        c.shot("35-experiment-stopped", at="#history-title")
        c.sign_out()

    def webhooks():
        receiver = service.receiver
        # Admin only: marketing has no Webhooks in the menu, and the address sends it back with a word why.
        c.sign_in(service.tokens["marketing"])
        c.wait_text("#nav", "Offers")
        check("Webhooks" not in c.find("#nav").text, "marketing's menu has no Webhooks")
        c.open("#/webhooks")
        c.wait_text("#toasts", "cannot open Webhooks")
        c.wait_text("main h1", "Offers")
        c.no_console_errors()
        c.sign_out()
        c.sign_in(service.tokens["admin"])
        c.wait_text("#nav", "Webhooks")
        c.open("#/webhooks")
        c.wait_text("main .empty", "No webhooks yet")
        c.no_console_errors()
        # Created with an address the service refuses: its words beside the URL; then fixed.
        c.click_text("a", "New webhook")
        c.wait("#f-id")
        offered = [box.get_attribute("value") for box in c.all("input[name='webhook-event']")]
        check(len(offered) == 11 and "offer.refused" in offered and "experiment.started" in offered, f"every event type is offered ({offered})")
        c.type("#f-id", "crm")
        c.type("#f-url", "http://192.0.2.10/hook")
        c.click("label.check-event input[value='offer.signed']")       # ticked by default: untick it
        c.click_text("button", "Create webhook")
        c.wait_text("#f-events-error", "at least one event type")
        c.click("label.check-event input[value='offer.signed']")
        c.click("label.check-event input[value='redemption.unmatched']")
        c.click("input[name='webhook-apps'][value='some']")
        c.click("input[name='webhook-app'][value='com.example.app']")
        c.click_text("button", "Create webhook")
        error = c.wait_text("#f-url-error", "The service will not send to this address")
        check("use https" in error.text and c.find("#f-url").get_attribute("aria-invalid") == "true",
              f"the refused address is named beside the URL in the service's words ({error.text!r})")
        c.no_console_errors(allow_network=(400,))
        c.type("#f-url", receiver.url)
        c.click_text("button", "Create webhook")
        # The secret, once: a warning, the secret and a copy button.
        panel = c.wait_text("#secret-once", "shown only this once")
        secret = c.find("#webhook-secret").get_attribute("value")
        status, _, body = service.call("GET", "/v1/admin/webhooks/crm", "admin")
        stored = json.loads(body)
        check(secret.startswith("whsec_") and stored["secretLast4"] == secret[-4:] and "secret" not in stored,
              f"the secret shown is the webhook's (last four {stored.get('secretLast4')!r})")
        check(stored["events"] == ["offer.signed", "redemption.unmatched"] and stored["bundleIds"] == ["com.example.app"] and stored["enabled"],
              f"the webhook is saved as the form says ({stored})")
        check(c.driver.switch_to.active_element.get_attribute("id") == "secret-once", "the secret panel has the focus")
        c.driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": c.base, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
        c.driver.execute_cdp_cmd("Emulation.setFocusEmulationEnabled", {"enabled": True})
        c.click("#copy-secret")
        c.wait_text("#copy-status", "Copied to the clipboard")
        copied = c.driver.execute_async_script("const done = arguments[arguments.length - 1]; navigator.clipboard.readText().then(done, e => done('failed: ' + e))")
        check(copied == secret, f"Copy puts the secret on the clipboard ({copied[:12]!r}…)")
        for where, text in (("sessionStorage", c.driver.execute_script("return JSON.stringify(sessionStorage)")),
                            ("localStorage", c.driver.execute_script("return JSON.stringify(localStorage)")), ("the URL", c.driver.current_url)):
            check(secret not in text, f"the secret is not in {where}")
        c.shot("36-webhook-secret-once")
        c.driver.refresh()
        c.wait_text("#secret-last4", secret[-4:])
        check(not c.all("#secret-once") and secret not in c.main_text(), "after a reload the secret is gone, only its last four shown")
        c.no_console_errors()
        # An event: the receiver answers 500 with markup; the delivery shows it as text, and when it tries next.
        status, _, body = service.call("POST", "/v1/offers/sign", "client", {"productId": PRODUCT, "offerId": "demo_winback", "userId": "lapsed-010"})
        check(status == 200, f"signing for lapsed-010 ({status} {body[:200]!r})")
        deadline = time.time() + 60
        while not receiver.received and time.time() < deadline:
            time.sleep(0.1)
        check(receiver.received, "the receiver was called")
        headers, event_body = receiver.received[0]
        event = json.loads(event_body)
        check(event["type"] == "offer.signed" and receiver.signed_with(secret, headers, event_body),
              "the delivery is signed with the secret the console showed")
        deadline = time.time() + 60
        while time.time() < deadline:       # the try is recorded once the receiver's answer is read
            delivery = json.loads(service.call("GET", "/v1/admin/webhooks/crm/deliveries", "admin")[2])["items"][0]
            if delivery["attempts"] >= 1:
                break
            time.sleep(0.1)
        c.click("#deliveries-refresh")
        row = c.wait_text("#deliveries tbody tr", "HTTP 500")
        text = row.get_attribute("textContent")
        check("Retrying" in text and event["id"] in text and "<b>down</b> for maintenance" in text and not c.all("#deliveries b"),
              f"the delivery says it is retrying, with the receiver's answer as text ({text!r})")
        tries = [td.text for td in row.find_elements(By.CSS_SELECTOR, "td.num")]
        check("Offer signed" in text and tries and int(tries[0]) >= 1, f"the event type in words and the tries ({tries})")
        check(row.find_element(By.CSS_SELECTOR, "td[data-label='Next try'] time").get_attribute("datetime"), "the next try is shown")
        c.shot("37-webhook-deliveries", at="#deliveries")
        # Retry now, the receiver fixed: delivered.
        receiver.answer(200, b"thanks")
        c.click(f"#deliveries button[data-event='{event['id']}']")
        c.wait_text("#toasts", "again now")
        changes = json.loads(service.call("GET", "/v1/admin/webhooks/crm/changes", "admin")[2])["items"]
        check([change["action"] for change in changes] == ["created", "retried"], f"the delivery was retried through the API ({changes})")
        deadline = time.time() + 60
        while time.time() < deadline:
            status, _, body = service.call("GET", "/v1/admin/webhooks/crm/deliveries", "admin")
            if json.loads(body)["items"][0]["status"] == "delivered":
                break
            time.sleep(0.2)
        c.click("#deliveries-refresh")
        row = c.wait_text("#deliveries tbody tr", "Delivered")
        check("HTTP 200" in row.get_attribute("textContent") and "thanks" in row.get_attribute("textContent"), "the delivered row shows the receiver's 200")
        # Replay: the range around now sends the event again, with the same ID.
        before = len(receiver.received)
        c.click("#replay")
        c.wait_text("#toasts", "1 event queued to be sent again")
        deadline = time.time() + 60
        while len(receiver.received) == before and time.time() < deadline:
            time.sleep(0.1)
        check(len(receiver.received) > before and json.loads(receiver.received[-1][1])["id"] == event["id"], "the replay sent the same event again")
        c.wait_text(".history", "Events replayed")
        check("Delivery retried" in c.find(".history").text, "the history shows the retry and the replay")
        Select(c.find("#delivery-status")).select_by_value("dead")
        c.wait_text("#deliveries .empty", "No delivery with this status")
        c.no_console_errors()
        # Rotate, confirmed first: a new secret, once, the old one valid 24 h beside it.
        c.click("#rotate-secret")
        c.wait_text("dialog.confirm-dialog", "stays valid for 24 hours")
        c.shot("38-webhook-rotate-confirm")
        c.click("#confirm-action")
        c.wait_text("#secret-once", "The new signing secret")
        rotated = c.find("#webhook-secret").get_attribute("value")
        check(rotated.startswith("whsec_") and rotated != secret, "a new secret is shown")
        c.wait_text("#secret-once", "previous secret stays valid until")
        c.click("#secret-stored")
        check(not c.all("#secret-once") and rotated not in c.main_text(), "'I have stored it' puts the secret away")
        c.wait_text("#secret-last4", rotated[-4:])
        c.wait_text(".history", "Secret rotated")
        # Disabled through the form; a second webhook whose ID is markup stays text in the list.
        c.click("#f-enabled")
        c.click_text("button", "Save changes")
        c.wait_text(".page-head .badge", "disabled")
        status, _, _ = service.call("PUT", "/v1/admin/webhooks/" + urllib.parse.quote('"><b>hook', safe=""), "admin",
                                    {"url": receiver.url, "events": ["consent.rescinded", "experiment.stopped"]})
        check(status == 201, f"a second webhook ({status})")
        c.open("#/webhooks")
        c.wait_text("main tbody", '"><b>hook')
        check(not c.all("main b") and "Every app" in c.main_text() and "Consent rescinded, Experiment stopped" in c.main_text(),
              "the list shows IDs as text, apps and events in words")
        c.shot("39-webhooks-list")
        # Deleted, confirmed first; Cancel keeps it.
        c.open("#/webhooks/edit/crm")
        c.click("#delete-webhook")
        c.wait_text("dialog.confirm-dialog", "cannot be retried or replayed")
        c.click_text("dialog button", "Cancel")
        c.wait_gone("dialog.confirm-dialog")  # "Cancel closes the confirmation" (it closes on the next frame)
        status, _, _ = service.call("GET", "/v1/admin/webhooks/crm", "admin")
        check(status == 200, "Cancel deletes nothing")
        c.click("#delete-webhook")
        c.wait("dialog.confirm-dialog")
        c.click("#confirm-action")
        c.wait_text("#toasts", "Deleted the webhook crm")
        c.wait_text("main h1", "Webhooks")
        status, _, _ = service.call("GET", "/v1/admin/webhooks/crm", "admin")
        check(status == 404 and "crm" not in [r.text for r in c.all("main tbody th")], "the webhook is gone")
        c.no_console_errors()
        c.sign_out()

    def catalog():
        connect, monthly, yearly = service.connect, MockAppStoreConnect.MONTHLY, MockAppStoreConnect.YEARLY

        def sign_in(role):
            """Signs in and waits until the console has left the sign-in page for the role's first page (the nav's text
            is the previous session's until then), so that the page opened next is not replaced by that one."""
            c.sign_in(service.tokens[role])
            WebDriverWait(c.driver, 10).until(lambda d: "/sign-in" not in d.current_url)
            c.wait_text("#nav", "Catalog")
        # No Team key: the editor's offer ID and products are free text, and the Catalog page says why there is none.
        sign_in("marketing")
        c.open("#/offers/new")
        c.wait_text("#catalog-freshness", "no Team key")
        check(c.find("#f-offerId").is_displayed() and c.find("#f-productIds").is_displayed() and not c.all("#f-offerId-pick, #f-productIds-pick"),
              "without a catalog the offer ID and products are typed")
        c.open("#/catalog")
        c.wait_text("#catalog-freshness", "no Team key")
        check(not c.all("#sync-now") and "appStoreConnect Team key" in c.main_text(), "the page says how to get a catalog, and offers no sync")
        check(connect.requests == 0, "nothing asked App Store Connect")
        c.no_console_errors()
        c.sign_out()
        # The Team key in the keys file, reloaded (SIGHUP): the app has a key and no catalog yet; an admin syncs it.
        connect.give_team_key(service.keys)
        service.process.send_signal(signal.SIGHUP)
        deadline = time.time() + 30
        while time.time() < deadline and json.loads(service.call("GET", "/v1/me", "admin")[2]).get("catalogApps") != ["com.example.app"]:
            time.sleep(0.1)
        check(json.loads(service.call("GET", "/v1/me", "admin")[2]).get("catalogApps") == ["com.example.app"], "the reloaded keys give the app a Team key")
        sign_in("admin")
        c.open("#/catalog")
        c.wait_text("#catalog-freshness", "no sync has run")
        c.no_console_errors(allow_network=(404,))       # GET /v1/admin/catalog: 404 catalog_not_found before the first sync
        connect.failing = True
        c.click("#sync-now")
        notice = c.wait_text("#catalog-freshness", "failed")
        check("NOT_AUTHORIZED" in notice.text or "Authentication credentials" in notice.text, f"a failed sync says Apple's words ({notice.text!r})")
        c.wait_text("#toasts", "The sync failed")
        check(not c.all(".catalog-product"), "a failed first sync shows no catalog")
        c.no_console_errors()
        connect.failing = False
        c.click("#sync-now")
        c.wait_text("#toasts", "Synced com.example.app: 2 subscriptions, 3 promotional offers")
        notice = c.wait_text("#catalog-freshness", "catalog synced")
        check("just now" in notice.text and "notice-ok" in notice.get_attribute("class"), f"the catalog is fresh ({notice.text!r})")
        text = c.main_text()
        for words in ("Pro Monthly", yearly, "Pay as you go: USD 2.99 a month for 3 periods (1 month each)", "USD 2.99 (USA; regular USD 9.99)",
                      "GBP 2.49 (GBR; regular GBP 8.99)", "EUR 2.99 (FRA)",
                      "and 2 other territories", "Free for 1 month", "rule winback_e2e", MockAppStoreConnect.MARKUP_NAME):
            check(words in text, f"the catalog shows {words!r}")
        check(not c.all("main img") and c.driver.execute_script("return window.__xss") is None, "an offer name that is markup stays text")
        c.no_console_errors()
        c.shot("40-catalog")
        # The offer editor picks the offer ID and products from the catalog, and shows the offer's terms.
        c.open("#/offers/new")
        c.wait("#f-offerId-pick")
        check(not c.find("#f-offerId").is_displayed() and not c.find("#f-productIds").is_displayed(), "with a catalog the typed fields give way to pickers")
        options = [o.text for o in Select(c.find("#f-offerId-pick")).options]
        check(any(o.startswith("winback_e2e — Win back") for o in options) and any(o.startswith("spring_free") and "2 products" in o for o in options)
              and options[-1] == "Another offer ID, typed by hand", f"the offer IDs are the catalog's ({options})")
        Select(c.find("#f-offerId-pick")).select_by_value("spring_free")
        ticked = [box.get_attribute("value") for box in c.all("#f-productIds-pick input:checked")]
        check(ticked == [monthly, yearly], f"choosing the offer ticks the products that have it ({ticked})")
        c.wait_text("#offer-terms", "Free for 1 month")
        check(c.find("#f-productIds-pick").text.count("Has spring_free at Apple") == 2, "each product says it has the offer")
        c.shot("41-offer-catalog-pickers")
        c.click_text("button", "Create offer")
        c.wait_text("main h1", "Offer spring_free")
        status, _, body = service.call("GET", "/v1/admin/offers/spring_free", "marketing")
        check(status == 200 and json.loads(body)["productIds"] == [monthly, yearly], f"the picked offer and products are saved ({body[:200]!r})")
        # An ID typed by hand that Apple does not have: refused, in words, beside the products.
        c.open("#/offers/new")
        c.wait("#f-offerId-pick")
        Select(c.find("#f-offerId-pick")).select_by_visible_text("Another offer ID, typed by hand")
        check(c.find("#f-offerId").is_displayed() and c.driver.switch_to.active_element.get_attribute("id") == "f-offerId", "typing by hand shows the field, focused")
        c.type("#f-offerId", "ghost_offer")
        c.click(f"#f-productIds-pick input[value='{monthly}']")
        c.wait_text("#f-productIds-pick", "No promotional offer ghost_offer at Apple")
        c.click_text("button", "Create offer")
        c.wait_text(".error-summary", "the offer does not exist at Apple for this product")
        error = c.wait_text("#f-productIds-error", "has no promotional offer ghost_offer at Apple")
        check("spring_free" in error.text and "winback_e2e" in error.text and "offer_not_at_apple" not in c.find(".error-summary").text,
              f"the refusal names what the product has, in words ({error.text!r})")
        c.no_console_errors(allow_network=(400,))
        c.shot("42-offer-not-at-apple")
        # A saved offer: its terms at Apple next to its outcomes.
        c.open("#/offers/edit/winback_e2e")
        terms = c.wait_text("#terms", "Pay as you go: USD 2.99 a month for 3 periods")
        check("GBP 2.49 (GBR; regular GBP 8.99)" in terms.text and c.all("#outcomes"), "the terms are shown beside the outcomes, against the regular price")
        boxes = c.find("#f-productIds-pick").text
        check("Has winback_e2e at Apple" in boxes and "No promotional offer winback_e2e at Apple" in boxes, f"each product says whether it has the offer ({boxes!r})")
        c.no_console_errors()
        c.shot("43-offer-terms", at="#terms")
        c.sign_out()
        # Create at Apple from the offer editor (marketing): an offer ID a ticked product lacks offers the form; so does "New promotional offer".
        sign_in("marketing")
        c.open("#/offers/new")
        c.wait("#f-offerId-pick")
        check(c.find("#new-at-apple").is_displayed() and not c.all(".create-at-apple"), "before an offer ID a product lacks, only the on-demand button")
        Select(c.find("#f-offerId-pick")).select_by_visible_text("Another offer ID, typed by hand")
        c.type("#f-offerId", "spring_half")
        c.click(f"#f-productIds-pick input[value='{monthly}']")
        c.wait_text("#apple-actions", "spring_half is not at Apple for this product yet")
        c.click(f".create-at-apple[data-product='{monthly}']")
        c.wait("#apple-offer-dialog")
        check(Select(c.find("#ao-product")).first_selected_option.get_attribute("value") == monthly
              and c.find("#ao-offerCode").get_attribute("value") == "spring_half", "the form starts from the editor's offer ID and product")
        # Nothing chosen yet: refused by the console before asking, beside each field.
        c.click("#ao-submit")
        c.wait_text("#ao-name-error", "reference name")
        c.wait_text("#ao-base-price-error", "Choose the price")
        check(not connect.writes, "nothing was sent to Apple")
        c.type("#ao-name", "Spring: half off")
        Select(c.find("#ao-periods")).select_by_value("3")
        c.wait("#ao-base-price option[value='4.99']", visible=False)
        Select(c.find("#ao-base-price")).select_by_value("4.99")
        c.wait_text("#ao-equalized", "Apple equalizes it to 3 other territories: GBP 4.49 (GBR), EUR 4.99 (FRA), JPY 700 (JPN)")
        c.wait_text("#ao-terms", "Pay as you go: USD 4.99 a month for 3 periods (1 month each), then Pro Monthly at its regular price")
        c.no_console_errors()
        c.shot("44-create-at-apple", at="#ao-mode")
        # A refusal: an offer ID the product already has with other terms, in words beside the offer ID; nothing sent.
        c.type("#ao-offerCode", "winback_e2e")
        c.click("#ao-submit")
        error = c.wait_text("#ao-offerCode-error", "already has an offer winback_e2e at Apple")
        check("Pay as you go: USD 2.99" in error.text and "offer_code_taken" not in c.find("#apple-offer-dialog").text,
              f"the refusal names the offer's terms, in words ({error.text!r})")
        c.wait_text("#apple-offer-dialog .error-summary", "Apple did not create the offer")
        check(not connect.writes, "a code taken is refused before anything is sent")
        c.no_console_errors(allow_network=(409,))
        c.shot("45-create-at-apple-refused")
        # Apple's own refusal comes back in Apple's words.
        connect.refuse_next = True
        c.type("#ao-offerCode", "spring_half")
        c.click("#ao-submit")
        summary = c.wait_text("#apple-offer-dialog .error-summary", "App Store Connect refused the change")
        check("reference name is already used" in summary.text and "ENTITY_ERROR.ATTRIBUTE.INVALID" in summary.text, f"Apple's detail is shown ({summary.text!r})")
        c.no_console_errors(allow_network=(409,))
        # Created: the catalog synced after it, the product has the offer, its terms show.
        c.click("#ao-submit")
        c.wait_text("#toasts", f"Created spring_half at Apple for {monthly}")
        check(not c.all("#apple-offer-dialog"), "the form closed")
        c.wait_text("#f-productIds-pick", "Has spring_half at Apple")
        c.wait_text("#offer-terms", "Pay as you go: USD 4.99 a month for 3 periods")
        check(Select(c.find("#f-offerId-pick")).first_selected_option.get_attribute("value") == "spring_half" and not c.all(".create-at-apple"),
              "the offer ID is now one of the catalog's, and no product lacks it")
        posts = [write for write in connect.writes if write[0] == "POST"]
        check(len(posts) == 2 and posts[-1][1] == "/v1/subscriptionPromotionalOffers", f"one create refused by Apple, one created ({connect.writes})")
        sent = posts[-1][2]
        check(sent["attributes"] == {"name": "Spring: half off", "offerCode": "spring_half", "duration": "ONE_MONTH", "offerMode": "PAY_AS_YOU_GO",
                                     "numberOfPeriods": 3} and sent["subscription"] == "6400000001"
              and sorted(sent["prices"]) == [("FRA", "pp-FRA-4.99"), ("GBR", "pp-GBR-4.49"), ("JPN", "pp-JPN-700"), ("USA", "pp-USA-4.99")],
              f"Apple got the offer with the base price and its equalizations ({sent})")
        check(not connect.body_errors, f"every body met Apple's schema ({connect.body_errors})")
        c.no_console_errors()
        c.shot("46-created-at-apple", at="#f-productIds-pick")
        c.click_text("button", "Create offer")
        c.wait_text("main h1", "Offer spring_half")
        status, _, body = service.call("GET", "/v1/audit/appstore-changes", "auditor")
        states = [item["after"]["state"] for item in json.loads(body)["items"] if item["ruleId"] == f"{monthly}:spring_half"]
        check(status == 200 and "created" in states and "failed" in states, f"the refused and the created request are audited ({states})")
        # The Catalog page: new prices for the offer, then delete it: refused in words while the rule names it, deleted once disabled.
        c.open("#/catalog")
        c.wait_text(".catalog-product", "spring_half")
        c.click(".reprice[data-offer='spring_half']")
        c.wait("#apple-offer-dialog")
        c.click("#ao-pricing input[value='each']")
        c.wait("#ao-p-0 option[value='3.99']", visible=False)
        Select(c.find("#ao-p-0")).select_by_value("3.99")
        c.wait("#ao-p-1 option[value='3.49']", visible=False)
        Select(c.find("#ao-p-1")).select_by_value("3.49")
        check([e.get_attribute("value") for e in c.all("#ao-prices input[type='text']")] == ["USA", "GBR"], "the rows are the product's regular territories")
        c.shot("47-reprice-at-apple")
        c.click("#ao-submit")
        c.wait_text("#toasts", "Replaced the prices of spring_half")
        c.wait_text(".catalog-product", "USD 3.99 (USA; regular USD 9.99)")
        method, path, sent = connect.writes[-1]
        check(method == "PATCH" and path.startswith("/v1/subscriptionPromotionalOffers/") and sent["prices"] == [("USA", "pp-USA-3.99"), ("GBR", "pp-GBR-3.49")],
              f"Apple got the new prices ({connect.writes[-1]})")
        c.no_console_errors()
        c.click(".delete-at-apple[data-offer='spring_half']")
        c.wait_text(".confirm-dialog", "Delete spring_half at Apple?")
        c.click("#confirm-action")
        error = c.wait_text("#catalog-action-error", f"the enabled rule spring_half names it for {monthly}. Disable it first")
        check("offer_in_use" not in error.text and connect.writes[-1][0] == "PATCH", f"refused in words, nothing sent ({error.text!r})")
        c.no_console_errors(allow_network=(409,))
        c.shot("48-delete-at-apple-in-use", at="#catalog-action-error")
        check(service.call("DELETE", "/v1/admin/offers/spring_half", "marketing")[0] in (200, 204), "the rule is disabled")
        c.click(".delete-at-apple[data-offer='spring_half']")
        c.wait("#confirm-action")
        c.click("#confirm-action")
        c.wait_text("#toasts", f"Deleted spring_half of {monthly} at Apple")
        c.wait_text("#catalog-summary", "2 subscriptions, 3 promotional offers")
        check(connect.writes[-1][0] == "DELETE" and not connect.body_errors, f"Apple got the delete ({connect.writes[-1]})")
        c.no_console_errors()
        c.sign_out()
        # An auditor reads the catalog but changes nothing at Apple.
        sign_in("auditor")
        c.open("#/catalog")
        c.wait(".catalog-product")
        check(not c.all(".reprice, .delete-at-apple, .new-at-apple"), "an auditor sees no buttons that change Apple")
        c.no_console_errors()
        # The auditor reads each step at Apple in the audit: sent, refused by Apple, created, re-priced, deleted.
        c.open("#/audit/changes?rules=appstore-offers")
        c.wait_text("main", "Promotional offers at Apple: oldest first")
        text = c.main_text()
        for words in (f"{monthly}:spring_half", "sending", "failed", "created", "repriced", "deleted", "ENTITY_ERROR.ATTRIBUTE.INVALID", "pp-USA-3.99"):
            check(words in text, f"the audit of offers at Apple shows {words!r}")
        c.no_console_errors()
        c.shot("49-audit-offers-at-apple")
        c.sign_out()

    return [headers_on_console_responses, sign_in_marketing, phone_menu, create_offer_with_error_then_fix, simulate, change_and_diff,
            disable_and_enable, user_lookup, consent_rescinded, activity, refusals_survive_restart, xss_probe, expired_token, auditor,
            retention_rules, retention_messaging, introductory_rules, audit_sources_and_formats, outcomes_and_holdout, audit_redemptions,
            audit_account_links, placements, experiments, webhooks, catalog]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "offer-signer"))
    parser.add_argument("--screenshots", default=os.path.join(ROOT, "var", "console-screenshots"))
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("--docs", action="store_true", help="also write the README's screenshots to docs/")
    parser.add_argument("--only", help="run only the scenarios whose name contains this (a quicker loop)")
    args = parser.parse_args()
    started = time.time()
    folder = tempfile.mkdtemp(prefix="offer-signer-console-")
    apple = MockAppleMessaging("com.example.app", approved=(MESSAGE, FALLBACK))
    receiver, connect = WebhookReceiver(), MockAppStoreConnect()
    # The app gets its Team key, and the catalog its sync, only in the catalog scenario (at the end): a catalog checks every offer after.
    service = Service_(args.binary, folder, extra=("--appstore-api-url", apple.base, "--webhook-allow-private", "on",
                                                   "--appstore-connect-url", connect.base, "--catalog-sync-interval", "off"))
    service.apple, service.receiver, service.connect = apple, receiver, connect
    console = None
    passed = failed = 0
    try:
        history = os.path.join(folder, "history.ndjson")
        facts = json.loads(subprocess.run([sys.executable, os.path.join(HERE, "make_history.py"), history],
                                          capture_output=True, text=True, check=True).stdout)
        with open(history, "rb") as f:
            status, _, body = service.call("POST", "/v1/admin/history/import", "admin", f.read(), content_type="application/x-ndjson")
        imported = json.loads(body)
        check(status == 200 and imported["accepted"] == facts["lines"], f"the history import accepted every line ({imported})")
        shutil.rmtree(args.screenshots, ignore_errors=True)
        console = Console(service.base, args.screenshots, os.path.join(folder, "downloads"), docs=args.docs)
        for scenario in scenarios(service, console, facts):
            name = scenario.__name__
            if args.only and args.only not in name:
                continue
            begun = time.time()
            try:
                scenario()
                errors = console.console_errors()
                check(not errors, f"no browser console errors ({errors})")
                passed += 1
                print(f"ok   {name} ({time.time() - begun:.1f} s)")
            except Failure as failure:
                failed += 1
                print(f"FAIL {name}: {failure}")
                try:
                    os.makedirs(args.screenshots, exist_ok=True)
                    console.driver.save_screenshot(os.path.join(args.screenshots, f"FAILED-{name}.png"))
                except Exception:
                    pass
                break
    finally:
        if console:
            console.driver.quit()
        service.stop()
        service.apple.stop()
        service.receiver.stop()
        service.connect.stop()
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    print(f"console e2e: {passed} passed, {failed} failed in {time.time() - started:.0f} s; screenshots in {args.screenshots}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
