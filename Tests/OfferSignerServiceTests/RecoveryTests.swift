import AppStoreServerAPIMock
import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
@testable import OfferSignerService
@testable import OfferSignerStore
import Testing

/// `appstore recover` and the scheduled recovery: notifications the webhook never received are
/// found in Apple's Notification History, verified, stored once, and change eligibility.
@Suite("Recovering missed notifications")
struct RecoveryTests {
    static let day = AppStoreAPIHarness.day

    /// A notification as Apple lists it: its JWS and a failed (or successful) delivery.
    static func listed(_ payload: String, transactionId: String, type: String, at date: Date, delivered: Bool) -> MockNotification {
        MockNotification(signedDate: TestSignedData.ms(date), transactionId: transactionId, notificationType: type, signedPayload: payload,
                         attempts: [(TestSignedData.ms(date), delivered ? "SUCCESS" : "TIMED_OUT")])
    }

    @Test("notifications withheld from the webhook are found, stored once, and change eligibility")
    func healsAGap() throws {
        let harness = try AppStoreAPIHarness()
        let env = harness.env
        try env.putOffer(TestEnvironment.demoRule(eligibility: EligibilityCriteria(requireLapsed: true, minPaidDays: 60, excludeRefunded: true)))
        let now = env.now
        // Two users whose three paid months ended 100 days ago; the webhook got those notifications.
        for user in ["came-back", "refunded"] {
            for month in 0..<3 {
                let start = now - Double(190 - month * 30) * Self.day
                let transaction = TestAppStore.transaction(id: "\(user)-\(month)", original: "\(user)-0", user: user, purchased: start,
                                                           expires: start + 30 * Self.day, signed: now - 20 * Self.day + Double(month))
                let payload = TestAppStore.notification(type: "DID_RENEW", transaction: transaction, signed: now - 20 * Self.day + Double(month))
                #expect(env.send("POST", "/v1/notifications/appstore", role: nil, json: TestAppStore.json(["signedPayload": payload])).status == 200)
                harness.store.add(Self.listed(payload, transactionId: "\(user)-0", type: "DID_RENEW", at: now - 20 * Self.day + Double(month),
                                              delivered: true))
            }
        }
        #expect(harness.verdicts("came-back")["winback"] == [] && harness.verdicts("refunded")["winback"] == [])

        // While the service was down: one user subscribed again, the other was refunded. Apple's retries ran out.
        let resubscribed = TestAppStore.transaction(id: "came-back-9", original: "came-back-0", user: "came-back", purchased: now - 5 * Self.day,
                                                    expires: now + 25 * Self.day, signed: now - 5 * Self.day)
        let refund = TestAppStore.transaction(id: "refunded-2", original: "refunded-0", user: "refunded", purchased: now - 130 * Self.day,
                                              expires: now - 100 * Self.day, revoked: now - 4 * Self.day, signed: now - 4 * Self.day)
        harness.store.add(Self.listed(TestAppStore.notification(type: "SUBSCRIBED", transaction: resubscribed, signed: now - 5 * Self.day),
                                      transactionId: "came-back-0", type: "SUBSCRIBED", at: now - 5 * Self.day, delivered: false))
        harness.store.add(Self.listed(TestAppStore.notification(type: "REFUND", transaction: refund, signed: now - 4 * Self.day),
                                      transactionId: "refunded-0", type: "REFUND", at: now - 4 * Self.day, delivered: false))

        let outcome = try harness.recovery.recover(bundleId: TestEnvironment.bundleId, environment: .production,
                                                   from: now - 30 * Self.day, to: now)
        #expect(outcome.found == 8 && outcome.stored == 2 && outcome.duplicates == 6 && outcome.refusedCount == 0 && outcome.complete)
        #expect(harness.verdicts("came-back")["winback"] == ["requireLapsed"])
        #expect(harness.verdicts("refunded")["winback"] == ["excludeRefunded"])
        #expect(try harness.count("SELECT COUNT(*) FROM notifications") == 8)

        // Idempotent on notificationUUID: a second pass stores nothing.
        let again = try harness.recovery.recover(bundleId: TestEnvironment.bundleId, environment: .production, from: now - 30 * Self.day, to: now)
        #expect(again.found == 8 && again.stored == 0 && again.duplicates == 8)
        #expect(try harness.count("SELECT COUNT(*) FROM notifications") == 8)
        let window = try #require(try harness.syncStore.lastRecoveredWindow(bundleId: TestEnvironment.bundleId, environment: "Production"))
        #expect(window.end == now.milliseconds && window.found == 8 && window.stored == 0)
    }

    @Test("a notification that does not verify is refused and not stored; the rest of the page is")
    func refusesForgeries() throws {
        let harness = try AppStoreAPIHarness()
        let now = harness.env.now
        let transaction = TestAppStore.transaction(id: "f1", user: "someone", purchased: now - 40 * Self.day, expires: now - 10 * Self.day,
                                                   signed: now - Self.day)
        let genuine = TestAppStore.notification(transaction: transaction, signed: now - Self.day)
        let parts = genuine.split(separator: ".")
        let tampered = parts[0] + "." + Base64URL.encode(Array(TestAppStore.json(["notificationType": "REFUND",
                                                                                  "notificationUUID": "x", "signedDate": 1]).utf8)) + "." + parts[2]
        harness.store.add(Self.listed(genuine, transactionId: "f1", type: "DID_RENEW", at: now - Self.day, delivered: false))
        harness.store.add(Self.listed(String(tampered), transactionId: "f1", type: "REFUND", at: now - Self.day + 1, delivered: false))
        let outcome = try harness.recovery.recover(bundleId: TestEnvironment.bundleId, environment: .production, from: now - 2 * Self.day, to: now)
        #expect(outcome.found == 2 && outcome.stored == 1 && outcome.refusedCount == 1 && outcome.refusals.count == 1)
        #expect(try harness.count("SELECT COUNT(*) FROM notifications") == 1)
    }

    @Test("a history of forgeries is counted, not held: 60 refusals keep 20 reasons; --max-pages stops a window short, unrecorded")
    func boundedRefusalsAndPages() throws {
        let harness = try AppStoreAPIHarness()
        let now = harness.env.now
        let forged = TestAppStore.forged(TestAppStore.notification(transaction: nil, signed: now - Self.day))
        for index in 0..<60 {
            harness.store.add(Self.listed(forged, transactionId: "f\(index)", type: "DID_RENEW", at: now - Self.day + Double(index), delivered: false))
        }
        let outcome = try harness.recovery.recover(bundleId: TestEnvironment.bundleId, environment: .production, from: now - 2 * Self.day, to: now)
        #expect(outcome.found == 60 && outcome.refusedCount == 60 && outcome.refusals.count == NotificationRecovery.keptRefusals)
        #expect(AppStoreTool.describe(outcome).last == "  … and 40 more refused")

        let short = try harness.recovery.recover(bundleId: TestEnvironment.bundleId, environment: .production, from: now - 2 * Self.day,
                                                 to: now, maxPages: 1)
        #expect(short.pages == 1 && !short.complete, "one page read of the several the window has")
    }

    @Test("a notification history that pages for ever stops by itself at the default page bound, and at the time bound; both raisable settings")
    func endlessHistoryStops() throws {
        let harness = try AppStoreAPIHarness()
        let now = harness.env.now
        harness.store.makeNotificationHistoryEndless()
        var recovery = harness.recovery
        #expect(recovery.maxPages == NotificationRecovery.defaultMaxPages && recovery.maxSeconds == NotificationRecovery.defaultMaxSeconds)
        recovery.maxPages = 25
        let paged = try recovery.recover(bundleId: TestEnvironment.bundleId, environment: .production, from: now - Self.day, to: now)
        #expect(paged.pages == 25 && !paged.complete && paged.boundReached == "25 pages")
        #expect(AppStoreTool.describe(paged).last?.contains("stopped at its bound of 25 pages") == true)
        #expect(try harness.syncStore.lastRecoveredWindow(bundleId: TestEnvironment.bundleId, environment: "Production") == nil,
                "an unfinished window is not recorded")

        recovery.maxPages = 1_000_000
        recovery.maxSeconds = 0
        let timed = try recovery.recover(bundleId: TestEnvironment.bundleId, environment: .production, from: now - Self.day, to: now)
        #expect(timed.pages == 1 && timed.boundReached == "0 seconds")

        // The scheduled job stops too, with the settings' bounds, and says so in a warning.
        var settings = ServiceSettings()
        #expect(settings.recoverMaxPages == 1000 && settings.recoverMaxDuration == 600)
        settings = try ServiceSettings.resolve(arguments: ["--recover-max-pages", "3", "--recover-max-duration", "9"], environment: [:])
        #expect(settings.recoverMaxPages == 3 && settings.recoverMaxDuration == 9)
        #expect(throws: (any Error).self) {
            try ServiceSettings.resolve(arguments: [], environment: ["OFFER_SIGNER_RECOVER_MAX_PAGES": "0"])
        }
        var bounded = harness.recovery
        bounded.maxPages = settings.recoverMaxPages
        let lines = LogLines()
        NotificationRecoveryJob(recovery: bounded, interval: .seconds(3600), logger: Logger(minimumLevel: .info) { lines.append($0) }).runOnce()
        #expect(lines.text.contains("stopped at its bound"), "\(lines.text)")
    }

    @Test("the scheduled recovery starts where the last window ended (less the overlap), and records each window")
    func scheduled() throws {
        let harness = try AppStoreAPIHarness()
        let now = harness.env.now
        let job = NotificationRecoveryJob(recovery: harness.recovery, interval: .seconds(3600), logger: .silent)
        job.runOnce()
        var windows = harness.store.requests.compactMap { try? JSONSerialization.jsonObject(with: $0.request.body) as? [String: Any] }
        #expect((windows.last?["startDate"] as? NSNumber)?.int64Value == (now - Self.day).milliseconds, "no window yet: the last day")
        #expect((windows.last?["endDate"] as? NSNumber)?.int64Value == now.milliseconds)

        let transaction = TestAppStore.transaction(id: "s1", user: "late", purchased: now - 10 * Self.day, expires: now + 20 * Self.day,
                                                   signed: now - 60)
        harness.store.add(Self.listed(TestAppStore.notification(type: "SUBSCRIBED", transaction: transaction, signed: now - 60),
                                      transactionId: "s1", type: "SUBSCRIBED", at: now - 60, delivered: false))
        job.runOnce()
        windows = harness.store.requests.compactMap { try? JSONSerialization.jsonObject(with: $0.request.body) as? [String: Any] }
        #expect((windows.last?["startDate"] as? NSNumber)?.int64Value == (now - 300).milliseconds)
        #expect(try harness.count("SELECT COUNT(*) FROM notifications") == 1)
        #expect(try harness.count("SELECT COUNT(*) FROM appstore_recovered_windows") == 2)

        // Started, the job runs a round at once; stopped, it ends without waiting out its hour
        // (the 60 s ceiling only catches a stop that waits for the next round).
        harness.store.clearRequests()
        job.start()
        let deadline = Date() + 60
        while harness.store.requests.isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        let (_, stopping) = measure { job.stop() }
        #expect(!harness.store.requests.isEmpty)
        #expect(stopping < 60, "stopped after \(stopping) s")
    }

    @Test("a window older than Apple keeps is cut to what Apple keeps, and says so")
    func retention() throws {
        let harness = try AppStoreAPIHarness()
        let now = harness.env.now
        let outcome = try harness.recovery.recover(bundleId: TestEnvironment.bundleId, environment: .production,
                                                   from: now - 400 * Self.day, to: now - 10 * Self.day)
        #expect(outcome.requestedStart == now - 400 * Self.day && outcome.start == now - 180 * Self.day + 3600)
        let body = try #require(try JSONSerialization.jsonObject(with: harness.store.requests[0].request.body) as? [String: Any])
        #expect((body["startDate"] as? NSNumber)?.int64Value == (now - 180 * Self.day + 3600).milliseconds)
        #expect(AppStoreTool.describe(outcome).joined().contains("Apple keeps 180 days"))
        #expect(throws: NotificationRecovery.Failure.self) {
            try harness.recovery.recover(bundleId: TestEnvironment.bundleId, environment: .production, from: now - 400 * Self.day,
                                         to: now - 300 * Self.day)
        }
    }
}

/// Runs `body` and returns its value and the seconds it took.
func measure<T>(_ body: () throws -> T) rethrows -> (T, Double) {
    let start = ContinuousClock.now
    let value = try body()
    return (value, (ContinuousClock.now - start).seconds)
}
