import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
@testable import OfferSignerService
@testable import OfferSignerStore
import Testing

/// Apple's data as the App Store sends it in 2026, end to end: every notification type
/// acknowledged and kept, `RESCIND_CONSENT` honoured until an operator clears it, offers of
/// every type counted in the wait between offers, and today's transaction fields kept.
@Suite("Apple's data as it is in 2026")
struct AppleCurrentDataTests {
    static let user = "5b0f3c52-2b8f-4f6a-9d7e-1f2a3b4c5d6e"
    static let download = "704289572911"

    func post(_ env: TestEnvironment, _ signedPayload: String) -> TestResponse {
        env.send("POST", "/v1/notifications/appstore", role: nil, json: TestAppStore.json(["signedPayload": signedPayload]))
    }

    func sign(_ env: TestEnvironment, user: String = user) -> TestResponse {
        env.send("POST", "/v1/offers/sign", json: #"{"productId": "\#(TestEnvironment.product)", "offerId": "winback", "userId": "\#(user)"}"#)
    }

    func notificationCount(_ env: TestEnvironment) throws -> Int64 {
        try env.database.read { db in try db.scalar("SELECT COUNT(*) FROM notifications") ?? -1 }
    }

    /// A notification of `type` (and `subtype`) with the body Apple gives that type: `data`
    /// (with a subscription or one-time transaction, or none), `summary`, `externalPurchaseToken` or `appData`.
    static func notification(_ env: TestEnvironment, type: String, subtype: String?, uuid: String) -> String {
        let signed = TestAppStore.ms(env.now - 60)
        var payload: [String: Any] = ["notificationType": type, "notificationUUID": uuid, "version": "2.0", "signedDate": signed]
        if let subtype { payload["subtype"] = subtype }
        let app: [String: Any] = ["appAppleId": 1234, "bundleId": TestEnvironment.bundleId, "environment": "Production"]
        switch type {
        case "RENEWAL_EXTENSION" where subtype == "SUMMARY":
            payload["summary"] = app.merging(["productId": TestEnvironment.product, "requestIdentifier": "mass-1",
                                              "storefrontCountryCodes": ["USA"], "succeededCount": 10, "failedCount": 0]) { a, _ in a }
        case "EXTERNAL_PURCHASE_TOKEN":
            payload["externalPurchaseToken"] = ["externalPurchaseId": "b2f0c9c7-0b6b-4e4e-8c5a-2d1c3b4a5f6e", "tokenCreationDate": signed,
                                                "appAppleId": 1234, "bundleId": TestEnvironment.bundleId]
        case "RESCIND_CONSENT":
            payload["appData"] = app.merging(["signedAppTransactionInfo": TestAppStore.appTransaction(
                created: env.now - 3600, appTransactionId: download)]) { a, _ in a }
        case "TEST":
            payload["data"] = app
        case "ONE_TIME_CHARGE", "CONSUMPTION_REQUEST":
            let consumable = TestAppStore.sign([
                "transactionId": "c-\(uuid)", "originalTransactionId": "c-\(uuid)", "bundleId": TestEnvironment.bundleId,
                "productId": "coins", "purchaseDate": signed, "originalPurchaseDate": signed, "quantity": 1, "type": "Consumable",
                "inAppOwnershipType": "PURCHASED", "signedDate": signed, "environment": "Production", "storefront": "USA",
                "storefrontId": "143441", "price": 990, "currency": "USD", "transactionReason": "PURCHASE", "appTransactionId": download,
            ])
            payload["data"] = app.merging(["signedTransactionInfo": consumable, "consumptionRequestReason": "UNINTENDED_PURCHASE"]) { a, _ in a }
        default:
            let transaction = TestAppStore.transaction(
                id: "t-\(uuid)", original: "sub-\(uuid)", user: user, purchased: env.now - 40 * 86_400, expires: env.now - 10 * 86_400,
                signed: env.now - 120, extra: ["appTransactionId": download, "billingPlanType": "MONTHLY_COMMITMENT",
                                              "commitmentInfo": ["commitmentPeriodCount": 12, "commitmentPrice": 99_900],
                                              "advancedCommerceInfo": ["requestReferenceId": "r-1", "items": [["SKU": "a"]]],
                                              "offerPeriod": "P1M", "someFieldOf2027": true])
            let renewal = TestAppStore.renewal(original: "sub-\(uuid)", signed: env.now - 120,
                                               extra: ["appTransactionId": download, "renewalBillingPlanType": "MONTHLY_COMMITMENT",
                                                       "offerPeriod": "P1M", "eligibleWinBackOfferIds": ["wb-1"]])
            payload["data"] = app.merging(["signedTransactionInfo": transaction, "signedRenewalInfo": renewal, "status": 2]) { a, _ in a }
        }
        return TestAppStore.sign(payload)
    }

    /// Every type and subtype pair in Apple's documentation and its app-store-server-library
    /// (3.1), and one this build cannot know.
    static let typesAndSubtypes: [(String, String?)] = [
        ("SUBSCRIBED", "INITIAL_BUY"), ("SUBSCRIBED", "RESUBSCRIBE"),
        ("DID_CHANGE_RENEWAL_PREF", "UPGRADE"), ("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE"), ("DID_CHANGE_RENEWAL_PREF", nil),
        ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED"), ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED"),
        ("OFFER_REDEEMED", "INITIAL_BUY"), ("OFFER_REDEEMED", "RESUBSCRIBE"), ("OFFER_REDEEMED", "UPGRADE"),
        ("OFFER_REDEEMED", "DOWNGRADE"), ("OFFER_REDEEMED", nil),
        ("DID_RENEW", nil), ("DID_RENEW", "BILLING_RECOVERY"),
        ("EXPIRED", "VOLUNTARY"), ("EXPIRED", "BILLING_RETRY"), ("EXPIRED", "PRICE_INCREASE"), ("EXPIRED", "PRODUCT_NOT_FOR_SALE"),
        ("DID_FAIL_TO_RENEW", nil), ("DID_FAIL_TO_RENEW", "GRACE_PERIOD"), ("GRACE_PERIOD_EXPIRED", nil),
        ("PRICE_INCREASE", "PENDING"), ("PRICE_INCREASE", "ACCEPTED"),
        ("REFUND", nil), ("REFUND_DECLINED", nil), ("REFUND_REVERSED", nil), ("CONSUMPTION_REQUEST", nil),
        ("RENEWAL_EXTENDED", nil), ("RENEWAL_EXTENSION", "SUMMARY"), ("RENEWAL_EXTENSION", "FAILURE"), ("REVOKE", nil), ("TEST", nil),
        ("EXTERNAL_PURCHASE_TOKEN", "UNREPORTED"), ("ONE_TIME_CHARGE", nil), ("RESCIND_CONSENT", nil),
        ("METADATA_UPDATE", nil), ("MIGRATION", nil), ("PRICE_CHANGE", nil),
        ("A_TYPE_OF_2027", "A_SUBTYPE_OF_2027"),
    ]

    @Test("every notification type and subtype Apple sends, and an unknown one, is verified, kept and answered 200")
    func everyType() throws {
        #expect(Set(NotificationTypeV2.allCases.map(\.rawValue)).isSubset(of: Set(Self.typesAndSubtypes.map(\.0))),
                "a type this build knows is missing from the list")
        #expect(Set(NotificationSubtype.allCases.map(\.rawValue)).isSubset(of: Set(Self.typesAndSubtypes.compactMap(\.1))))
        let env = try TestEnvironment()
        for (index, (type, subtype)) in Self.typesAndSubtypes.enumerated() {
            let uuid = String(format: "00000000-0000-4000-8000-%012d", index)
            let response = post(env, Self.notification(env, type: type, subtype: subtype, uuid: uuid))
            #expect(response.status == 200 && response.json["status"] as? String == "stored", "\(type) \(subtype ?? ""): \(response.text)")
        }
        #expect(try notificationCount(env) == Int64(Self.typesAndSubtypes.count))
        // Apple's retry of any of them is acknowledged and changes nothing.
        let retry = post(env, Self.notification(env, type: "RESCIND_CONSENT", subtype: nil, uuid: String(format: "00000000-0000-4000-8000-%012d", 34)))
        #expect(retry.status == 200 && retry.json["status"] as? String == "duplicate")
        #expect(try notificationCount(env) == Int64(Self.typesAndSubtypes.count))
    }

    @Test("a RESCIND_CONSENT whose signed app transaction is forged, or of another app, is refused and nothing is kept")
    func forgedAppData() throws {
        let env = try TestEnvironment()
        let app: [String: Any] = ["appAppleId": 1234, "bundleId": TestEnvironment.bundleId, "environment": "Production"]
        let forged = TestAppStore.forged(TestAppStore.appTransaction(created: env.now - 60, appTransactionId: Self.download))
        let otherApp = TestAppStore.appTransaction(created: env.now - 60, appTransactionId: Self.download, bundleId: "com.other.app")
        for (uuid, appTransaction) in [("f-1", forged), ("f-2", otherApp)] {
            let payload = TestAppStore.sign(["notificationType": "RESCIND_CONSENT", "notificationUUID": uuid, "version": "2.0",
                                             "signedDate": TestAppStore.ms(env.now - 60),
                                             "appData": app.merging(["signedAppTransactionInfo": appTransaction]) { a, _ in a }])
            let response = post(env, payload)
            #expect(response.status == 400 && response.code == "invalid_signed_data", "\(response.text)")
        }
        #expect(try notificationCount(env) == 0)
        #expect(try env.consents.events(bundleId: nil, afterId: 0, limit: 10).isEmpty)
    }

    /// A lapsed subscriber of the demo offer whose transactions name their app download.
    func lapsedWithDownload() throws -> (TestEnvironment, AppStoreFlow) {
        let env = try TestEnvironment()
        let flow = AppStoreFlow(env: env)
        flow.paidMonths("sub", user: Self.user, from: -150, count: 3, extra: ["appTransactionId": Self.download])
        try env.putOffer(TestEnvironment.demoRule(eligibility: EligibilityCriteria(requireLapsed: true, minPaidDays: 60)))
        return (env, flow)
    }

    func rescind(_ env: TestEnvironment, uuid: String = "rescind-1", signed: Date? = nil) -> TestResponse {
        let payload = TestAppStore.sign([
            "notificationType": "RESCIND_CONSENT", "notificationUUID": uuid, "version": "2.0",
            "signedDate": TestAppStore.ms(signed ?? env.now - 60),
            "appData": ["appAppleId": 1234, "bundleId": TestEnvironment.bundleId, "environment": "Production",
                        "signedAppTransactionInfo": TestAppStore.appTransaction(created: env.now - 3600, appTransactionId: Self.download)],
        ])
        return post(env, payload)
    }

    @Test("after RESCIND_CONSENT no offer is signed for the customer (403 consent_rescinded), until an admin clears it with a reason")
    func consentRescinded() throws {
        let (env, _) = try lapsedWithDownload()
        #expect(sign(env).status == 200)
        #expect(rescind(env).status == 200)

        let refused = sign(env)
        #expect(refused.status == 403 && refused.code == "consent_rescinded", "\(refused.text)")
        #expect((refused.json["detail"] as? String)?.contains(Self.download) == true)
        let intro = env.send("POST", "/v1/offers/introductory-eligibility",
                             json: #"{"productId": "\#(TestEnvironment.product)", "userId": "\#(Self.user)", "transactionId": "sub0"}"#)
        #expect(intro.status == 403 && intro.code == "consent_rescinded", Comment(rawValue: intro.text))
        let offers = env.send("GET", "/v1/users/\(Self.user)/offers")
        let verdict = try #require((offers.json["offers"] as? [[String: Any]])?.first)
        #expect(verdict["eligible"] as? Bool == false)
        #expect((verdict["reasons"] as? [[String: Any]])?.first?["criterion"] as? String == "consentRescinded")
        let history = env.send("GET", "/v1/users/\(Self.user)/history", role: .marketing)
        let shown = try #require((history.json["consentRescinded"] as? [[String: Any]])?.first)
        #expect(shown["appTransactionId"] as? String == Self.download && shown["action"] as? String == "rescind")

        // Only an admin clears it, and only with a reason.
        #expect(env.send("POST", "/v1/admin/consents/\(Self.download)/clear", role: .marketing, json: #"{"reason": "x"}"#).status == 403)
        #expect(env.send("POST", "/v1/admin/consents/\(Self.download)/clear", role: .admin, json: #"{"reason": "  "}"#).code == "invalid_request")
        #expect(env.send("POST", "/v1/admin/consents/999/clear", role: .admin, json: #"{"reason": "x"}"#).status == 404)
        let cleared = env.send("POST", "/v1/admin/consents/\(Self.download)/clear", role: .admin,
                               json: #"{"reason": "guardian consented again, ticket 4411"}"#)
        #expect(cleared.status == 200, "\(cleared.text)")
        #expect(sign(env).status == 200)

        // Apple's late retry of the same notification changes nothing; the audit trail has both, with who and why.
        #expect(rescind(env).json["status"] as? String == "duplicate")
        #expect(sign(env).status == 200)
        let events = try #require(env.send("GET", "/v1/admin/consents", role: .auditor).json["items"] as? [[String: Any]])
        #expect(events.map { $0["action"] as? String } == ["rescind", "clear"])
        #expect(events[1]["reason"] as? String == "guardian consented again, ticket 4411")
        #expect(events[1]["actor"] as? String == "admin-key")
        #expect(events[0]["notificationUUID"] as? String == "rescind-1")
    }

    @Test("a rescinding signed before a clearing but delivered after it does not undo the clearing; a newer one does")
    func orderOfEvents() throws {
        let (env, _) = try lapsedWithDownload()
        #expect(rescind(env, uuid: "r-1", signed: env.now - 600).status == 200)
        #expect(env.send("POST", "/v1/admin/consents/\(Self.download)/clear", role: .admin, json: #"{"reason": "ok"}"#).status == 200)
        #expect(rescind(env, uuid: "r-0", signed: env.now - 900).status == 200)
        #expect(sign(env).status == 200)
        #expect(rescind(env, uuid: "r-2", signed: env.now + 60).status == 200)
        #expect(sign(env).code == "consent_rescinded")
    }

    @Test("a proof naming the rescinded app download is refused even when the history does not name it")
    func proofNamesDownload() throws {
        let env = try TestEnvironment()
        let flow = AppStoreFlow(env: env)
        flow.paidMonths("sub", user: Self.user, from: -150, count: 3)
        try env.putOffer(TestEnvironment.demoRule(eligibility: EligibilityCriteria(requireLapsed: true, minPaidDays: 60)))
        #expect(rescind(env).status == 200)
        #expect(sign(env).status == 200, "the history names no app download")
        let proof = TestAppStore.transaction(id: "sub2", original: "sub0", user: Self.user, purchased: flow.at(-90), expires: flow.at(-60),
                                             signed: flow.at(-1), reason: "RENEWAL", extra: ["appTransactionId": Self.download])
        let response = env.send("POST", "/v1/offers/sign", json: TestAppStore.json([
            "productId": TestEnvironment.product, "offerId": "winback", "userId": Self.user, "signedTransaction": proof]))
        #expect(response.status == 403 && response.code == "consent_rescinded", "\(response.text)")
    }

    @Test("a retention request for a customer whose consent was rescinded gets Apple's default: the empty answer, nothing signed")
    func retentionDefault() throws {
        let (env, _) = try lapsedWithDownload()
        _ = try env.rules.put(RetentionRule(ruleId: "save", bundleId: TestEnvironment.bundleId, priority: 1,
                                            messageIdentifier: "11111111-1111-4111-8111-111111111111", offerId: "winback"),
                              by: "test", at: env.now)
        #expect(rescind(env).status == 200)
        let before = try env.signatures.verifyIntegrity().records
        let payload = TestAppStore.realtimeRequest(original: "sub0", requestIdentifier: UUID().uuidString, signed: env.now - 1)
        let response = env.send("POST", "/v1/retention/appstore", role: nil, json: TestAppStore.json(["signedPayload": payload]))
        #expect(response.status == 200 && response.text == "{}", "\(response.text)")
        #expect(try env.signatures.verifyIntegrity().records == before)
    }

    @Test("today's fields are kept and shown in the history: appTransactionId, offerPeriod, billingPlanType, commitmentInfo, advancedCommerceInfo")
    func fieldsKept() throws {
        let env = try TestEnvironment()
        #expect(post(env, Self.notification(env, type: "DID_RENEW", subtype: nil, uuid: "n-fields")).status == 200)
        let history = env.send("GET", "/v1/users/\(Self.user)/history", role: .marketing)
        let transaction = try #require((history.json["transactions"] as? [[String: Any]])?.first)
        #expect(transaction["appTransactionId"] as? String == Self.download)
        #expect(transaction["offerPeriod"] as? String == "P1M")
        #expect(transaction["billingPlanType"] as? String == "MONTHLY_COMMITMENT")
        #expect((transaction["commitmentInfo"] as? [String: Any])?["commitmentPeriodCount"] as? Int == 12)
        #expect(((transaction["advancedCommerceInfo"] as? [String: Any])?["items"] as? [[String: Any]])?.first?["SKU"] as? String == "a")
        let renewal = try #require((history.json["renewals"] as? [[String: Any]])?.first)
        #expect(renewal["appTransactionId"] as? String == Self.download)
        #expect(renewal["eligibleWinBackOfferIds"] as? [String] == ["wb-1"])
    }

    @Test("an App Store retention offer (type 5) and an offer code (type 3, ONE_TIME) count in the wait between offers; waitCountsOfferTypes narrows it")
    func offersOfEveryType() throws {
        let env = try TestEnvironment()
        let flow = AppStoreFlow(env: env)
        flow.paidMonths("a", user: "retained", from: -300, count: 6)
        flow.notify(flow.period("a-ret", original: "a0", user: "retained", from: -100, to: -70, offerType: 5, offerId: "stay-50",
                                discount: "PAY_AS_YOU_GO", price: 4990, extra: ["offerPeriod": "P1M"]))
        flow.paidMonths("b", user: "coded", from: -300, count: 6)
        flow.notify(flow.period("b-code", original: "b0", user: "coded", from: -100, to: -70, reason: "PURCHASE", offerType: 3,
                                offerId: "SPRING", discount: "ONE_TIME", price: 2990))
        try env.putOffer(TestEnvironment.demoRule(eligibility: EligibilityCriteria(requireLapsed: true, waitBetweenOffersDays: 120)))
        for user in ["retained", "coded"] {
            let refused = sign(env, user: user)
            #expect(refused.status == 403 && refused.code == "not_eligible", "\(user): \(refused.text)")
            let reason = try #require((refused.json["reasons"] as? [[String: Any]])?.first)
            #expect(reason["criterion"] as? String == "waitBetweenOffersDays" && reason["actual"] as? Int == 100)
        }
        let history = env.send("GET", "/v1/users/retained/history", role: .marketing)
        let last = try #require(((history.json["groups"] as? [[String: Any]])?.first)?["lastOffer"] as? [String: Any])
        #expect(last["offerType"] as? Int == 5 && last["offerIdentifier"] as? String == "stay-50")

        try env.putOffer(TestEnvironment.demoRule(eligibility: EligibilityCriteria(requireLapsed: true, waitBetweenOffersDays: 120,
                                                                                   waitCountsOfferTypes: [2, 4])))
        #expect(sign(env, user: "retained").status == 200)
        #expect(sign(env, user: "coded").status == 200)
    }

    @Test("waitCountsOfferTypes is validated: not empty, no introductory type, no repeats, only with waitBetweenOffersDays")
    func waitTypesValidated() throws {
        let env = try TestEnvironment()
        for (types, wait) in [([Int](), 30), ([1, 2], 30), ([2, 2], 30), ([2], nil as Int?)] {
            let rule = TestEnvironment.demoRule(eligibility: EligibilityCriteria(waitBetweenOffersDays: wait, waitCountsOfferTypes: types))
            let body = String(decoding: try JSONCoding.encoder.encode(rule), as: UTF8.self)
            let response = env.send("PUT", "/v1/admin/offers/winback", role: .marketing, json: body)
            #expect(response.status == 400 && response.code == "invalid_request", "\(types) \(String(describing: wait)): \(response.text)")
            #expect((response.json["detail"] as? String)?.contains("waitCountsOfferTypes") == true)
        }
    }
}
