import AppStoreServerAPI
import AppStoreServerAPIMock
import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
import OfferSignerHTTP
@testable import OfferSignerService
import OfferSignerStore
import Testing

/// `OFFER_SIGNER_LINK_APP_ACCOUNT_TOKENS`: token-less subscriptions linked to their user at
/// Apple (Set App Account Token) in the background, only after an answered request whose proof
/// shows the asking device holds the transaction, against the mock App Store (JWT checked), and
/// `offer-signer appstore link`.
@Suite("Linking token-less subscriptions at Apple")
struct AppAccountTokenLinkTests {
    static let user = "5b1f9c2e-8a4d-4e2b-9c1a-7d3e5f6a8b9c"
    static let other = "0d6e2f1a-3b4c-4d5e-8f9a-1b2c3d4e5f6a"
    static let original = "2000000100"
    /// The customer's device (`AppStore.deviceVerificationID`) and the nonce of its transaction.
    static let device = "6a1c0e2b-4d3f-4b5a-9c8d-7e6f5a4b3c2d"
    static let nonce = "48ccfa42-7431-4f22-9908-7e88983e105a"
    /// The customer's app download.
    static let download = "704289572911"

    /// The device verification StoreKit puts into a transaction made for `device`.
    static func madeFor(_ device: String) -> [String: Any] {
        let value = DeviceVerification.value(nonce: UUID(uuidString: nonce)!, deviceVerificationId: UUID(uuidString: device)!)
        return ["deviceVerificationNonce": nonce, "deviceVerification": Data(value).base64EncodedString()]
    }

    /// A harness whose service links (a linker with quick backoff), the mock knowing the
    /// purchase `original` (with `appleToken` set at Apple).
    func linkingHarness(appleToken: String? = nil, capacity: Int = 100,
                        backoff: @escaping @Sendable (Int) -> Duration = { _ in .milliseconds(20) }) throws -> (AppStoreAPIHarness, AppAccountTokenLinker) {
        // A generous timeout: an answer held at a gate must not time out and be retried while a test looks.
        let harness = try AppStoreAPIHarness(timeout: .seconds(120))
        harness.store.appAccountTokens.add(originalTransactionId: Self.original, renewalIds: ["2000000101"], appAccountToken: appleToken)
        let linking = AppAccountTokenLinking(clients: harness.clients, verification: harness.env.appStore, history: harness.env.history,
                                             links: harness.env.links, clock: harness.env.clock)
        let linker = AppAccountTokenLinker(linking: linking, capacity: capacity, backoff: backoff, metrics: harness.env.metrics,
                                           logger: .silent)
        harness.env.linker = linker
        return (harness, linker)
    }

    /// The customer's own token-less purchase of the subscription, as the device's StoreKit
    /// hands it over: made for `device` (nil: no device verification, as the App Store Server
    /// API gives it); `extra` adds fields.
    func tokenless(_ env: TestEnvironment, id: String = "2000000101", original: String = original, device: String? = device,
                   extra: [String: Any] = [:]) -> String {
        AppStoreFlow(env: env).period(id, original: original, user: nil, from: -20, to: 10,
                                      extra: (device.map(Self.madeFor) ?? [:]).merging(extra) { _, new in new })
    }

    /// A proven introductory-eligibility request through `router` (the backend's key), from the
    /// device `deviceVerificationId` (nil: none sent).
    func proven(_ router: Router<ServiceContext>, user: String = user, signedTransaction: String,
                deviceVerificationId: String? = device, signedAppTransaction: String? = nil,
                transactionId: String = original) -> TestResponse {
        var body: [String: Any] = ["productId": TestEnvironment.product, "userId": user, "transactionId": transactionId,
                                   "signedTransaction": signedTransaction]
        body["deviceVerificationId"] = deviceVerificationId
        body["signedAppTransaction"] = signedAppTransaction
        return post(router, "/v1/offers/introductory-eligibility", body)
    }

    /// A proven sign request of `offerId` through `router` (the backend's key), from the device `device`.
    func sign(_ router: Router<ServiceContext>, offerId: String = "winback", user: String = user, signedTransaction: String,
              deviceVerificationId: String? = device) -> TestResponse {
        var body: [String: Any] = ["productId": TestEnvironment.product, "offerId": offerId, "userId": user,
                                   "signedTransaction": signedTransaction]
        body["deviceVerificationId"] = deviceVerificationId
        return post(router, "/v1/offers/sign", body)
    }

    func post(_ router: Router<ServiceContext>, _ path: String, _ body: [String: Any]) -> TestResponse {
        var headers: HTTPHeaders = [:]
        headers.set("Authorization", "Bearer \(TestEnvironment.tokens[.client]!)")
        headers.set("Content-Type", "application/json")
        return TestResponse(response: router.respond(to: HTTPRequest(method: "POST", path: path, query: [:], headers: headers,
                                                                     body: Array(TestAppStore.json(body).utf8))))
    }

    /// Nothing asked of Apple and nothing recorded, once the linker has nothing waiting or being
    /// made: a link queued by the answered request would have been made before this returns.
    func nothingLinked(_ harness: AppStoreAPIHarness, _ linker: AppAccountTokenLinker, _ comment: Comment,
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(linker.waitUntilIdle(timeout: .seconds(60)), sourceLocation: sourceLocation)
        #expect(harness.store.appAccountTokens.updates.isEmpty, comment, sourceLocation: sourceLocation)
        #expect(try harness.env.links.links(bundleId: nil, originalTransactionId: nil, afterId: 0, limit: 10).isEmpty, comment,
                sourceLocation: sourceLocation)
    }

    @Test("off by default; on from the variable or the flag")
    func setting() throws {
        #expect(try ServiceSettings.resolve(arguments: [], environment: [:]).linkAppAccountTokens == false)
        #expect(try ServiceSettings.resolve(arguments: [], environment: ["OFFER_SIGNER_LINK_APP_ACCOUNT_TOKENS": "on"]).linkAppAccountTokens)
        #expect(try ServiceSettings.resolve(arguments: ["--link-app-account-tokens", "on"], environment: [:]).linkAppAccountTokens)
        #expect(throws: SettingsError.self) { try ServiceSettings.resolve(arguments: ["--link-app-account-tokens", "yes please"], environment: [:]) }

        // Off: a proven token-less request asks nothing of Apple.
        let harness = try AppStoreAPIHarness()
        harness.store.appAccountTokens.add(originalTransactionId: Self.original)
        let composition = harness.env.composition
        #expect(composition.linker == nil, "off: no linker, so no work can start later")
        let response = proven(composition.router, signedTransaction: tokenless(harness.env))
        #expect(response.status == 200, "\(response.text)")
        #expect(harness.store.appAccountTokens.updates.isEmpty && harness.store.requests.isEmpty)
        #expect(try harness.env.links.links(bundleId: nil, originalTransactionId: nil, afterId: 0, limit: 10).isEmpty)
    }

    @Test("a proven request links in the background: Apple fails, the link is retried and made, recorded, audited, counted; eligibility sees it")
    func backgroundLinkWithRetry() throws {
        let (harness, linker) = try linkingHarness()
        defer { linker.close() }
        // Four 500s: the client's own three retries, then the linker's retry after its backoff.
        harness.store.appAccountTokens.fail(Array(repeating: .serverError(), count: 4))
        let composition = harness.env.composition
        let response = proven(composition.router, signedTransaction: tokenless(harness.env))
        #expect(response.status == 200, "\(response.text)")
        #expect(linker.waitUntilIdle(timeout: .seconds(60)))

        #expect(harness.store.appAccountTokens.token(of: Self.original) == Self.user, "Apple now carries the user's token")
        let updates = harness.store.appAccountTokens.updates
        #expect(updates.map(\.status) == [500, 500, 500, 500, 200])
        #expect(updates.last?.body == #"{"appAccountToken":"\#(Self.user)"}"#)
        #expect(harness.store.appAccountTokens.unauthorized == 0, "every request carried a JWT the mock accepted")

        let links = try harness.env.links.links(bundleId: nil, originalTransactionId: nil, afterId: 0, limit: 10)
        #expect(links.count == 1)
        let link = try #require(links.first)
        #expect(link.outcome == .linked && link.appAccountToken == Self.user && link.originalTransactionId == Self.original)
        #expect(link.actor == "service" && link.requestId != nil && link.attempts == 2 && !link.forced)

        let audit = harness.env.send("GET", "/v1/audit/app-account-token-links", role: .auditor)
        #expect(audit.status == 200, "\(audit.text)")
        let items = try #require(audit.json["items"] as? [[String: Any]])
        #expect(items.count == 1 && items[0]["outcome"] as? String == "linked" && items[0]["appAccountToken"] as? String == Self.user)
        #expect(items[0]["originalTransactionId"] as? String == Self.original && items[0]["actor"] as? String == "service")
        #expect(harness.env.send("GET", "/v1/audit/app-account-token-links", role: .client).status == 403)

        let metrics = harness.env.metrics.render()
        #expect(metrics.contains(#"offer_signer_app_account_token_links_total{outcome="linked"} 1"#))
        #expect(metrics.contains(#"offer_signer_app_account_token_links_total{outcome="failed"} 0"#))

        // The user's own history, asked without proof, now includes the linked subscription.
        let ids = try EligibilityCheck(history: harness.env.history, links: harness.env.links)
            .history(userId: Self.user, bundleId: TestEnvironment.bundleId, provenSubscription: nil, environment: .production)
            .transactions.map(\.originalTransactionId)
        #expect(ids == [Self.original])
        #expect(try EligibilityCheck(history: harness.env.history)
            .history(userId: Self.user, bundleId: TestEnvironment.bundleId, provenSubscription: nil, environment: .production)
            .transactions.isEmpty, "without the link, the token-less subscription is not the user's")

        // Proven again: already linked, nothing more is asked of Apple.
        _ = proven(composition.router, signedTransaction: tokenless(harness.env))
        #expect(linker.waitUntilIdle(timeout: .seconds(60)))
        #expect(harness.store.appAccountTokens.updates.count == 5)
        #expect(try harness.env.links.links(bundleId: nil, originalTransactionId: nil, afterId: 0, limit: 10).count == 1,
                "a subscription linked before is not recorded again at every proven request")
    }

    @Test("never overwrites a different token: set at Apple, or in the stored history; refused and recorded, Apple's token unchanged")
    func neverOverwrite() throws {
        let (harness, linker) = try linkingHarness(appleToken: Self.other)
        defer { linker.close() }
        let composition = harness.env.composition
        #expect(proven(composition.router, signedTransaction: tokenless(harness.env)).status == 200)
        #expect(linker.waitUntilIdle(timeout: .seconds(60)))
        #expect(harness.store.appAccountTokens.updates.isEmpty, "no Set App Account Token call")
        #expect(harness.store.appAccountTokens.token(of: Self.original) == Self.other)
        let refused = try #require(try harness.env.links.links(bundleId: nil, originalTransactionId: Self.original, afterId: 0, limit: 10).first)
        #expect(refused.outcome == .refused && refused.existingToken == Self.other)
        #expect(refused.reason?.contains("at Apple") == true)
        #expect(harness.env.metrics.render().contains(#"offer_signer_app_account_token_links_total{outcome="refused"} 1"#))

        // A renewal in the stored history carries another user's token: refused without asking Apple.
        let (second, secondLinker) = try linkingHarness()
        defer { secondLinker.close() }
        AppStoreFlow(env: second.env).notify(AppStoreFlow(env: second.env).period("2000000102", original: Self.original, user: Self.other,
                                                                                   from: 10, to: 40, signed: 0))
        #expect(proven(second.env.composition.router, signedTransaction: tokenless(second.env)).status == 200)
        #expect(secondLinker.waitUntilIdle(timeout: .seconds(60)))
        #expect(second.store.appAccountTokens.updates.isEmpty && second.store.appAccountTokens.token(of: Self.original) == nil)
        let stored = try #require(try second.env.links.links(bundleId: nil, originalTransactionId: nil, afterId: 0, limit: 10).first)
        #expect(stored.outcome == .refused && stored.existingToken == Self.other && stored.reason?.contains("stored history") == true)
    }

    @Test("a user ID that is not a UUID, a proof carrying a token, or no proof: nothing is queued")
    func notLinkable() throws {
        let (harness, linker) = try linkingHarness()
        defer { linker.close() }
        let composition = harness.env.composition
        let flow = AppStoreFlow(env: harness.env)
        #expect(proven(composition.router, user: "not-a-uuid", signedTransaction: tokenless(harness.env)).status == 200)
        let carrying = flow.period("2000000101", original: Self.original, user: Self.user, from: -20, to: 10)
        #expect(proven(composition.router, signedTransaction: carrying).status == 200)
        #expect(linker.backlog == 0 && linker.waitUntilIdle(timeout: .seconds(60)))
        #expect(harness.store.appAccountTokens.updates.isEmpty)
        #expect(try harness.env.links.links(bundleId: nil, originalTransactionId: nil, afterId: 0, limit: 10).isEmpty)
    }

    @Test("the queue is bounded: a link past its capacity is dropped and counted; one subscription is queued once")
    func boundedQueue() throws {
        let (harness, linker) = try linkingHarness(capacity: 1)
        defer { linker.close() }
        for id in ["2000000200", "2000000300"] { harness.store.appAccountTokens.add(originalTransactionId: id) }
        let gate = MockGate()
        harness.store.appAccountTokens.fail([.held(gate)])
        func request(_ original: String) -> AppAccountTokenLinking.Request {
            AppAccountTokenLinking.Request(bundleId: TestEnvironment.bundleId, environment: .production, originalTransactionId: original,
                                           appAccountToken: UUID(uuidString: Self.user)!, actor: "service")
        }
        #expect(linker.enqueue(request(Self.original)))
        // The worker has taken it off the queue once Apple has its request (held at the gate).
        #expect(Self.eventually { !harness.store.appAccountTokens.updates.isEmpty })
        #expect(linker.enqueue(request("2000000200")))
        #expect(!linker.enqueue(request("2000000200")), "already queued")
        #expect(!linker.enqueue(request("2000000300")), "the queue is full")
        #expect(harness.env.metrics.render().contains(#"offer_signer_app_account_token_links_total{outcome="dropped"} 1"#))
        gate.open()
        #expect(linker.waitUntilIdle(timeout: .seconds(60)))
        #expect(harness.store.appAccountTokens.token(of: Self.original) == Self.user)
        #expect(harness.store.appAccountTokens.token(of: "2000000200") == Self.user)
        #expect(harness.store.appAccountTokens.token(of: "2000000300") == nil)
    }

    @Test("Apple's refusals end the link: Family Sharing (4000185), unknown transaction (4040005); recorded as refused, not retried")
    func appleRefusals() throws {
        let (harness, linker) = try linkingHarness()
        defer { linker.close() }
        let linking = AppAccountTokenLinking(clients: harness.clients, verification: harness.env.appStore, history: harness.env.history,
                                             links: harness.env.links, clock: harness.env.clock)
        harness.store.appAccountTokens.add(originalTransactionId: "2000000400", familyShared: true)
        let family = try linking.attempt(AppAccountTokenLinking.Request(
            bundleId: TestEnvironment.bundleId, environment: .production, originalTransactionId: "2000000400",
            appAccountToken: UUID(uuidString: Self.user)!, actor: "test", force: true))
        guard case .ended(let familyLink) = family else { Issue.record("not ended: \(family)"); return }
        #expect(familyLink.outcome == .refused && familyLink.reason?.contains("4000185") == true)
        let unknown = try linking.attempt(AppAccountTokenLinking.Request(
            bundleId: TestEnvironment.bundleId, environment: .production, originalTransactionId: "2000000999",
            appAccountToken: UUID(uuidString: Self.user)!, actor: "test", force: true))
        guard case .ended(let unknownLink) = unknown else { Issue.record("not ended: \(unknown)"); return }
        #expect(unknownLink.outcome == .refused && unknownLink.reason?.contains("4040005") == true)
        #expect(harness.store.appAccountTokens.updates.map(\.status) == [400, 404])
    }

    @Test("the mock checks the JWT: a key Apple does not know (401) fails the link, recorded, not retried")
    func refusedToken() throws {
        let harness = try AppStoreAPIHarness()
        let stranger = MockAppStore(jwt: MockAppStoreJWT(keyId: "ACTIVEKEY1", issuerId: "issuer-1", bundleId: TestEnvironment.bundleId,
                                                         publicKey: try P256PrivateKey.generate().publicKey))
        stranger.appAccountTokens.add(originalTransactionId: Self.original)
        let server = try stranger.start()
        defer { server.stop() }
        let clients = try AppStoreAPIClients(configuration: try KeyConfiguration.load(path: harness.env.keysPath), options: .init(
            environments: [.production], baseURL: server.baseURL, timeout: .seconds(5), retry: AppStoreAPIHarness.retry))
        let linking = AppAccountTokenLinking(clients: clients, verification: harness.env.appStore, history: harness.env.history,
                                             links: harness.env.links, clock: harness.env.clock)
        let attempt = try linking.attempt(AppAccountTokenLinking.Request(
            bundleId: TestEnvironment.bundleId, environment: .production, originalTransactionId: Self.original,
            appAccountToken: UUID(uuidString: Self.user)!, actor: "test", force: true))
        guard case .ended(let link) = attempt else { Issue.record("not ended: \(attempt)"); return }
        #expect(link.outcome == .failed && link.reason?.contains("401") == true, "\(link.reason ?? "")")
        #expect(stranger.appAccountTokens.unauthorized == 1 && stranger.appAccountTokens.updates.isEmpty)
        #expect(stranger.appAccountTokens.token(of: Self.original) == nil)
    }

    @Test("offer-signer appstore link: links now; refuses over a different token; --force replaces it; recorded as cli")
    func command() throws {
        let (harness, linker) = try linkingHarness(appleToken: Self.other)
        linker.close()
        harness.store.appAccountTokens.add(originalTransactionId: "2000000500")
        let linked = AppStoreCommandTests.run(harness, ["link", "--original-transaction-id", "2000000500", "--user", Self.user.uppercased()])
        #expect(linked.status == 0, "\(linked.errors)")
        #expect(linked.output.hasPrefix("linked: com.example.app Production subscription 2000000500 → \(Self.user)"), "\(linked.output)")
        #expect(harness.store.appAccountTokens.token(of: "2000000500") == Self.user)

        let refused = AppStoreCommandTests.run(harness, ["link", "--original-transaction-id", Self.original, "--user", Self.user])
        #expect(refused.status == 1 && refused.output.hasPrefix("refused:") && refused.output.contains(Self.other), "\(refused.output)")
        #expect(harness.store.appAccountTokens.token(of: Self.original) == Self.other)

        let forced = AppStoreCommandTests.run(harness, ["link", "--original-transaction-id", Self.original, "--user", Self.user, "--force"])
        #expect(forced.status == 0 && forced.output.contains("(forced)"), "\(forced.output) \(forced.errors)")
        #expect(harness.store.appAccountTokens.token(of: Self.original) == Self.user)

        let links = try harness.env.links.links(bundleId: TestEnvironment.bundleId, originalTransactionId: nil, afterId: 0, limit: 10)
        #expect(links.map(\.outcome) == [.linked, .refused, .linked])
        #expect(links.allSatisfy { $0.actor.hasPrefix("cli:") } && links.map(\.forced) == [false, false, true])

        for (arguments, message) in [
            (["link", "--user", Self.user], "needs --original-transaction-id"),
            (["link", "--original-transaction-id", "12a", "--user", Self.user], "decimal digits"),
            (["link", "--original-transaction-id", "1"], "needs --user"),
            (["link", "--original-transaction-id", "1", "--user", "someone"], "a UUID"),
            (["link", "--original-transaction-id", "1", "--user", Self.user, "--force=maybe"], "--force takes no value"),
        ] {
            let result = AppStoreCommandTests.run(harness, arguments)
            #expect(result.status == 2 && result.errors.contains(message), "\(arguments): \(result.errors)")
        }
    }

    @Test("offer-signer appstore link for a transaction Apple does not know is refused (Get Transaction Info's 404), not failed")
    func commandUnknownTransaction() throws {
        let (harness, linker) = try linkingHarness()
        linker.close()
        let unknown = AppStoreCommandTests.run(harness, ["link", "--original-transaction-id", "2000000998", "--user", Self.user])
        #expect(unknown.status == 1 && unknown.output.hasPrefix("refused:"), "\(unknown.output) \(unknown.errors)")
        let links = try harness.env.links.links(bundleId: TestEnvironment.bundleId, originalTransactionId: "2000000998", afterId: 0, limit: 10)
        #expect(links.map(\.outcome) == [.refused])
        #expect(harness.store.appAccountTokens.updates.isEmpty, "nothing was set at Apple")
    }

    /// Polls `condition` until it holds; false only when it never did within `timeout` (a
    /// generous ceiling that catches a hang, never a measure of speed).
    static func eventually(timeout: Duration = .seconds(60), _ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return condition()
    }

    @Test("the answer does not wait for Apple: it is in hand while Apple's answer to the link is still held back")
    func answerDoesNotWait() throws {
        let (harness, linker) = try linkingHarness()
        defer { linker.close() }
        let gate = MockGate()
        harness.store.appAccountTokens.fail([.held(gate)])
        let response = proven(harness.env.composition.router, signedTransaction: tokenless(harness.env))
        #expect(response.status == 200, "\(response.text)")
        #expect(try harness.env.links.links(bundleId: nil, originalTransactionId: nil, afterId: 0, limit: 10).isEmpty,
                "answered before the link ended")
        #expect(Self.eventually { !harness.store.appAccountTokens.updates.isEmpty }, "Apple was asked")
        gate.open()
        #expect(linker.waitUntilIdle(timeout: .seconds(60)))
        #expect(harness.store.appAccountTokens.token(of: Self.original) == Self.user)
        #expect(try harness.env.links.links(bundleId: nil, originalTransactionId: nil, afterId: 0, limit: 10).map(\.outcome) == [.linked])
    }

    @Test("a copy of a customer's JWS links nothing: no device ID, another device's (refused), a JWS without device verification")
    func copiedTransaction() throws {
        let (harness, linker) = try linkingHarness()
        defer { linker.close() }
        let router = harness.env.composition.router
        let attacker = Self.other
        // Sent without the device's ID: answered as before, but the subscription stays the customer's.
        let copy = proven(router, user: attacker, signedTransaction: tokenless(harness.env), deviceVerificationId: nil)
        #expect(copy.status == 200, "\(copy.text)")
        try nothingLinked(harness, linker, "a copy sent without deviceVerificationId links nothing")
        // Sent with the attacker's own device ID: the transaction was not made for it.
        let otherDevice = proven(router, user: attacker, signedTransaction: tokenless(harness.env),
                                 deviceVerificationId: "11111111-2222-4333-8444-555555555555")
        #expect(otherDevice.status == 403 && otherDevice.code == "proof_mismatch", "\(otherDevice.text)")
        #expect((otherDevice.json["detail"] as? String)?.contains("deviceVerificationId") == true)
        // A transaction as the App Store Server API gives it carries no device verification: nothing to check it against.
        let fromServer = proven(router, user: attacker, signedTransaction: tokenless(harness.env, device: nil))
        #expect(fromServer.status == 200, "\(fromServer.text)")
        try nothingLinked(harness, linker, "a transaction without device verification proves no device")
        // The attacker's user ID has not inherited the customer's subscription.
        let history = try EligibilityCheck(history: harness.env.history, links: harness.env.links)
            .history(userId: attacker, bundleId: TestEnvironment.bundleId, provenSubscription: nil, environment: .production)
        #expect(history.transactions.isEmpty, "the copy made the subscription nobody else's")
        // The customer's own device still links it to the customer.
        #expect(proven(router, signedTransaction: tokenless(harness.env)).status == 200)
        #expect(linker.waitUntilIdle(timeout: .seconds(60)))
        #expect(harness.store.appAccountTokens.token(of: Self.original) == Self.user)
    }

    @Test("a fresh signedAppTransaction of the transaction's app download shows possession; a stale one or another download does not link")
    func appTransactionProof() throws {
        let (harness, linker) = try linkingHarness()
        defer { linker.close() }
        let router = harness.env.composition.router
        let transaction = tokenless(harness.env, device: nil, extra: ["appTransactionId": Self.download])
        let fresh = TestAppStore.appTransaction(created: harness.env.now - 60, appTransactionId: Self.download)
        let otherDownload = TestAppStore.appTransaction(created: harness.env.now - 60, appTransactionId: "704289579999")
        let stale = TestAppStore.appTransaction(created: harness.env.now - Double(harness.env.appStore.appTransactionMaxAge) - 60,
                                                appTransactionId: Self.download)
        #expect(proven(router, signedTransaction: transaction, deviceVerificationId: nil, signedAppTransaction: otherDownload).code
                == "proof_mismatch")
        let staleAnswer = proven(router, signedTransaction: transaction, deviceVerificationId: nil, signedAppTransaction: stale)
        #expect(staleAnswer.status == 400 && staleAnswer.code == "invalid_signed_data", "\(staleAnswer.text)")
        let withoutDownload = tokenless(harness.env, device: nil)
        #expect(proven(router, signedTransaction: withoutDownload, deviceVerificationId: nil, signedAppTransaction: fresh).status == 200)
        try nothingLinked(harness, linker, "a transaction naming no app download is not shown held by the app transaction")

        let response = proven(router, signedTransaction: transaction, deviceVerificationId: nil, signedAppTransaction: fresh)
        #expect(response.status == 200, "\(response.text)")
        #expect(linker.waitUntilIdle(timeout: .seconds(60)))
        #expect(harness.store.appAccountTokens.token(of: Self.original) == Self.user)
    }

    @Test("a refused request links nothing: unknown offer (404), not eligible, consent rescinded (403); the same proof answered links")
    func refusedRequestsNeverLink() throws {
        let (harness, linker) = try linkingHarness()
        defer { linker.close() }
        let env = harness.env
        try env.putOffer(TestEnvironment.demoRule())
        try env.putOffer(TestEnvironment.demoRule("lapsed-only", eligibility: EligibilityCriteria(requireLapsed: true, minPaidDays: 1)))
        let router = env.composition.router
        let transaction = tokenless(env)

        let unknown = sign(router, offerId: "no-such-offer", signedTransaction: transaction)
        #expect(unknown.status == 404, "\(unknown.text)")
        try nothingLinked(harness, linker, "an unknown offer links nothing")
        let notEligible = sign(router, offerId: "lapsed-only", signedTransaction: transaction)
        #expect(notEligible.status == 403 && notEligible.code == "not_eligible", "\(notEligible.text)")
        try nothingLinked(harness, linker, "a refusal links nothing")

        // The same device's proof of a minor whose consent was rescinded: refused, and not linked.
        let minor = tokenless(env, id: "2000000701", original: "2000000700", extra: ["appTransactionId": Self.download])
        harness.store.appAccountTokens.add(originalTransactionId: "2000000700")
        let rescind = TestAppStore.sign([
            "notificationType": "RESCIND_CONSENT", "notificationUUID": "rescind-link", "version": "2.0",
            "signedDate": TestAppStore.ms(env.now - 60),
            "appData": ["appAppleId": 1234, "bundleId": TestEnvironment.bundleId, "environment": "Production",
                        "signedAppTransactionInfo": TestAppStore.appTransaction(created: env.now - 3600, appTransactionId: Self.download)],
        ])
        #expect(env.send("POST", "/v1/notifications/appstore", role: nil, json: TestAppStore.json(["signedPayload": rescind])).status == 200)
        let rescinded = sign(router, signedTransaction: minor)
        #expect(rescinded.status == 403 && rescinded.code == "consent_rescinded", "\(rescinded.text)")
        let rescindedIntro = proven(router, signedTransaction: minor, transactionId: "2000000700")
        #expect(rescindedIntro.status == 403 && rescindedIntro.code == "consent_rescinded", "\(rescindedIntro.text)")
        try nothingLinked(harness, linker, "a consent rescinded links nothing")

        // Answered: linked.
        let signed = sign(router, signedTransaction: transaction)
        #expect(signed.status == 200, "\(signed.text)")
        #expect(linker.waitUntilIdle(timeout: .seconds(60)))
        #expect(harness.store.appAccountTokens.token(of: Self.original) == Self.user)
        #expect(harness.store.appAccountTokens.token(of: "2000000700") == nil)
    }
}
