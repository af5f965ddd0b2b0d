import Foundation
import Testing
@testable import OfferSignerCore

/// Every numeric field of Apple's models, signed with extreme values and sent through the real
/// verifier: each payload is either refused with an error naming the field, or accepted with
/// numbers that everything downstream (history mapping, facts, eligibility, JSON) handles
/// without trapping.
@Suite struct ExtremeNumberTests {
    let chain = AppStoreTestChain.make()
    let verifier: SignedDataVerifier

    init() throws {
        verifier = try AppStoreTestSetup.verifier(roots: [chain.root])
    }

    /// JSON number literals at and past the edges of `Int64`, `Int32` and the accepted date
    /// range, and numbers that are not integers.
    static let extremes = [
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
        "18446744073709551616", "123456789012345678901234567890", "2147483647", "2147483648", "-2147483648",
        "-2147483649", "-1", "0", "-0", "253402300799999", "253402300800000", "9007199254740993", "1e300", "-1e300",
        "1.5", "0.0", "1E3", "4102444800000",
    ]

    /// The JSON keys of the numeric properties of `sample` (Apple's models name a property
    /// `rawX` when it holds the raw value of the JSON field `x`), and of the objects it nests.
    static func numericFields(of sample: Any, prefix: String = "") -> [String] {
        Mirror(reflecting: sample).children.flatMap { child -> [String] in
            guard var name = child.label else { return [] }
            if name.hasPrefix("raw") { name = name.dropFirst(3).prefix(1).lowercased() + String(name.dropFirst(4)) }
            let valueType = type(of: child.value)
            if valueType == Int64?.self || valueType == Int32?.self || valueType == Int?.self { return [prefix + name] }
            let mirror = Mirror(reflecting: child.value)
            if mirror.displayStyle == .optional, let wrapped = mirror.children.first?.value,
               Mirror(reflecting: wrapped).displayStyle == .struct {
                return numericFields(of: wrapped, prefix: prefix + name + ".")
            }
            return []
        }
    }

    /// The JSON keys of the `Int32` properties among ``numericFields(of:prefix:)``.
    static func int32Fields(of sample: Any, prefix: String = "") -> Set<String> {
        Set(Mirror(reflecting: sample).children.flatMap { child -> [String] in
            guard var name = child.label else { return [] }
            if name.hasPrefix("raw") { name = name.dropFirst(3).prefix(1).lowercased() + String(name.dropFirst(4)) }
            if type(of: child.value) == Int32?.self { return [prefix + name] }
            let mirror = Mirror(reflecting: child.value)
            if mirror.displayStyle == .optional, let wrapped = mirror.children.first?.value,
               Mirror(reflecting: wrapped).displayStyle == .struct {
                return Array(int32Fields(of: wrapped, prefix: prefix + name + "."))
            }
            return []
        })
    }

    /// The documented range of each range-checked field, by model (dates: 1970 to 9999 in
    /// milliseconds; prices, counts and app IDs: at least 0; a refund's share: 0 to 100 000).
    static let dates: ClosedRange<Int64> = 0...253_402_300_799_999
    static let transactionRanges: [String: ClosedRange<Int64>] = [
        "purchaseDate": dates, "originalPurchaseDate": dates, "expiresDate": dates, "signedDate": dates,
        "revocationDate": dates, "quantity": 0...Int64.max, "price": 0...Int64.max, "revocationPercentage": 0...100_000,
    ]
    static let renewalRanges: [String: ClosedRange<Int64>] = [
        "gracePeriodExpiresDate": dates, "signedDate": dates, "recentSubscriptionStartDate": dates, "renewalDate": dates,
        "renewalPrice": 0...Int64.max,
    ]
    static let notificationRanges: [String: ClosedRange<Int64>] = [
        "signedDate": dates, "data.appAppleId": 0...Int64.max, "summary.appAppleId": 0...Int64.max,
        "summary.succeededCount": 0...Int64.max, "summary.failedCount": 0...Int64.max,
        "externalPurchaseToken.tokenCreationDate": dates, "externalPurchaseToken.appAppleId": 0...Int64.max,
    ]

    /// Whether the integer literal `number` must be refused in `field`: beyond its integer type
    /// (64 bits, or 32 for an `Int32` field), or outside the field's range in `ranges`. Literals
    /// that are not plain integers (`1.5`, `1e300`) are left to the decoder.
    static func mustRefuse(_ number: String, field: String, ranges: [String: ClosedRange<Int64>], int32: Set<String>) -> Bool {
        guard number.wholeMatch(of: /-?[0-9]+/) != nil else { return false }
        guard let value = Int64(number) else { return true }
        if int32.contains(field) && Int32(exactly: value) == nil { return true }
        return ranges[field].map { !$0.contains(value) } ?? false
    }

    /// `payload` as JSON text with the field at `path` (dot-separated) set to the literal `number`.
    static func payloadJSON(_ payload: [String: Any], setting path: String, to number: String) -> String {
        func set(_ object: [String: Any], _ keys: ArraySlice<Substring>) -> [String: Any] {
            var object = object
            let key = String(keys.first!)
            object[key] = keys.count == 1 ? "#NUMBER#" : set(object[key] as? [String: Any] ?? [:], keys.dropFirst())
            return object
        }
        let text = AppStoreTestJWS.json(set(payload, path.split(separator: ".")[...]))
        return text.replacingOccurrences(of: "\"#NUMBER#\"", with: number)
    }

    /// A fully populated value of each model, so that the mirror sees every property.
    static let sampleTransaction = try! JSONDecoder().decode(JWSTransactionDecodedPayload.self,
                                                             from: Data(AppStoreModelDecodingTests.transactionJSON.utf8))
    static let sampleRenewal = JWSRenewalInfoDecodedPayload(
        rawExpirationIntent: 1, rawAutoRenewStatus: 1, rawPriceIncreaseStatus: 0, gracePeriodExpiresDate: 1, rawOfferType: 1,
        signedDate: 1, recentSubscriptionStartDate: 1, renewalDate: 1, renewalPrice: 1)
    static let sampleNotification = ResponseBodyV2DecodedPayload(
        rawNotificationType: "TEST", notificationUUID: "x", signedDate: 1,
        data: NotificationData(appAppleId: 1, rawStatus: 1),
        summary: NotificationSummary(appAppleId: 1, succeededCount: 1, failedCount: 1),
        externalPurchaseToken: ExternalPurchaseToken(tokenCreationDate: 1, appAppleId: 1))

    @Test("the mirror finds the numeric fields of every model")
    func fieldsFound() {
        #expect(Set(Self.numericFields(of: Self.sampleTransaction)) == [
            "purchaseDate", "originalPurchaseDate", "expiresDate", "quantity", "signedDate", "revocationReason",
            "revocationDate", "offerType", "price", "revocationPercentage"])
        #expect(Self.numericFields(of: Self.sampleRenewal).count == 9)
        #expect(Set(Self.numericFields(of: Self.sampleNotification)) == [
            "signedDate", "data.appAppleId", "data.status", "summary.appAppleId", "summary.succeededCount",
            "summary.failedCount", "externalPurchaseToken.tokenCreationDate", "externalPurchaseToken.appAppleId"])
    }

    /// What a refusal must name: the field, or for `signedDate` (read first, to pick the time
    /// at which the chain must be valid) the chain's verdict at that time.
    func expectNamed(_ error: SignedDataError, _ field: String, _ number: String) {
        let last = String(field.split(separator: ".").last!)
        #expect(error.description.contains(last), "\(field) = \(number): \(error.description)")
    }

    /// Runs the accepted transaction through everything that reads it.
    func exercise(_ payload: JWSTransactionDecodedPayload) throws {
        guard let transaction = SubscriptionTransaction(verified: payload) else { return }
        for date in [transaction.purchaseDate, transaction.signedDate, transaction.expiresDate, transaction.revocationDate].compactMap({ $0 }) {
            #expect(AppStoreValueRanges.date.contains(date.milliseconds))
            _ = RFC3339.string(from: date)
        }
        try exerciseFacts([transaction], [])
    }

    func exerciseFacts(_ transactions: [SubscriptionTransaction], _ renewals: [SubscriptionRenewalState]) throws {
        for now in [Date(timeIntervalSince1970: 0), AppStoreTestSetup.signedAt, Date(timeIntervalSince1970: 253_402_300_799)] {
            let group = transactions.first?.subscriptionGroupIdentifier ?? "21000000"
            let facts = HistoryFacts.compute(transactions: transactions, renewalStates: renewals, subscriptionGroupIdentifier: group,
                                             environment: .production, now: now)
            let rule = OfferRule(offerId: "o", bundleId: AppStoreTestSetup.bundleId, productIds: ["p"], eligibility: EligibilityCriteria(
                requireLapsed: true, minPaidDays: 1, minDaysSinceExpiry: 0, maxDaysSinceExpiry: 36_500, waitBetweenOffersDays: 10,
                maxRedemptionsPerUser: 1, excludeRefunded: true, expirationIntents: [1]))
            _ = EligibilityEvaluator.evaluate(facts: facts, rule: rule, now: now)
            _ = try JSONCoding.encoder.encode(facts)
        }
    }

    @Test("extreme numbers in every field of a signed transaction: refused naming the field, or handled")
    func transactions() throws {
        let base = AppStoreTestSetup.transaction()
        let fields = Self.numericFields(of: Self.sampleTransaction)
        let int32 = Self.int32Fields(of: Self.sampleTransaction)
        var refused: Set<String> = []
        for field in fields {
            for number in Self.extremes {
                let jws = AppStoreTestJWS.sign(payloadJSON: Self.payloadJSON(base, setting: field, to: number),
                                               header: ["alg": "ES256", "x5c": chain.x5c], key: chain.leaf.key)
                switch Result(catching: { () throws(SignedDataError) in try verifier.verifyTransaction(jws) }) {
                case .success(let payload):
                    #expect(!Self.mustRefuse(number, field: field, ranges: Self.transactionRanges, int32: int32),
                            "\(field) = \(number) is out of range, yet accepted")
                    try exercise(payload)
                case .failure(let error):
                    expectNamed(error, field, number)
                    refused.insert(field)
                }
            }
        }
        #expect(refused == Set(fields), "each field has values that are refused")
    }

    @Test("extreme numbers in every field of signed renewal info: refused naming the field, or handled")
    func renewals() throws {
        let base = AppStoreTestSetup.renewalInfo()
        let transaction = try #require(SubscriptionTransaction(verified: try verifier.verifyTransaction(
            AppStoreTestJWS.sign(AppStoreTestSetup.transaction(), chain: chain))))
        let fields = Self.numericFields(of: Self.sampleRenewal)
        let int32 = Self.int32Fields(of: Self.sampleRenewal)
        var refused: Set<String> = []
        defer { #expect(refused == Set(fields), "each field has values that are refused") }
        for field in fields {
            for number in Self.extremes {
                let jws = AppStoreTestJWS.sign(payloadJSON: Self.payloadJSON(base, setting: field, to: number),
                                               header: ["alg": "ES256", "x5c": chain.x5c], key: chain.leaf.key)
                switch Result(catching: { () throws(SignedDataError) in try verifier.verifyRenewalInfo(jws) }) {
                case .success(let renewal):
                    #expect(!Self.mustRefuse(number, field: field, ranges: Self.renewalRanges, int32: int32),
                            "\(field) = \(number) is out of range, yet accepted")
                    guard let state = SubscriptionRenewalState(verified: renewal) else { continue }
                    #expect(AppStoreValueRanges.date.contains(state.signedDate.milliseconds))
                    _ = state.gracePeriodExpiresDate?.milliseconds
                    try exerciseFacts([transaction], [state])
                case .failure(let error):
                    expectNamed(error, field, number)
                    refused.insert(field)
                }
            }
        }
    }

    @Test("extreme numbers in every field of a notification: refused naming the field, or handled")
    func notifications() throws {
        let base = AppStoreTestSetup.notification(data: AppStoreTestSetup.notificationData())
        let fields = Self.numericFields(of: Self.sampleNotification)
        let int32 = Self.int32Fields(of: Self.sampleNotification)
        var refused: Set<String> = []
        for field in fields {
            for number in Self.extremes {
                // A summary or token replaces the data as the notification's subject.
                var payload = base
                if !field.hasPrefix("data.") && field.contains(".") {
                    payload["data"] = nil
                    payload[String(field.split(separator: ".")[0])] = ["bundleId": AppStoreTestSetup.bundleId,
                                                                      "environment": "Production", "externalPurchaseId": "x",
                                                                      "appAppleId": AppStoreTestSetup.appAppleId]
                }
                let jws = AppStoreTestJWS.sign(payloadJSON: Self.payloadJSON(payload, setting: field, to: number),
                                               header: ["alg": "ES256", "x5c": chain.x5c], key: chain.leaf.key)
                let result = Result(catching: { () throws(SignedDataError) in try verifier.verifyNotification(jws) })
                let outOfRange = Self.mustRefuse(number, field: field, ranges: Self.notificationRanges, int32: int32)
                switch result {
                case .success:
                    #expect(!outOfRange, "\(field) = \(number) is out of range, yet accepted")
                case .failure(.appAppleIdMismatch) where !outOfRange:
                    break  // an appAppleId in range, but another app's
                case .failure(let error):
                    expectNamed(error, field, number)
                    refused.insert(field)
                }
            }
        }
        #expect(refused == Set(fields), "each field has values that are refused")
    }

    @Test("a nested transaction whose expiresDate is near the 64-bit maximum refuses the notification, naming the field")
    func nestedExpiresDate() throws {
        let transaction = AppStoreTestJWS.sign(
            payloadJSON: Self.payloadJSON(AppStoreTestSetup.transaction(), setting: "expiresDate", to: "9223372036854775000"),
            header: ["alg": "ES256", "x5c": chain.x5c], key: chain.leaf.key)
        let notification = AppStoreTestJWS.sign(AppStoreTestSetup.notification(
            data: AppStoreTestSetup.notificationData(signedTransactionInfo: transaction)), chain: chain)
        #expect(throws: SignedDataError.nested(field: "signedTransactionInfo", .valueOutOfRange(
            field: "expiresDate", value: 9_223_372_036_854_775_000, expected: "a time from 1970 to 9999 in milliseconds since 1970"))) {
            try verifier.verifyNotification(notification)
        }
    }

    @Test("dates far outside any range never trap: milliseconds saturate, RFC 3339 clamps, whole days are bounded")
    func conversionsSaturate() {
        #expect(Date(milliseconds: .max).milliseconds == .max)
        #expect(Date(milliseconds: .min).milliseconds == .min)
        #expect(Date.distantFuture.milliseconds == 64_092_211_200_000)
        #expect(Date(timeIntervalSince1970: .infinity).milliseconds == .max)
        #expect(Date(timeIntervalSince1970: -.infinity).milliseconds == .min)
        #expect(Date(timeIntervalSince1970: .nan).milliseconds == 0)
        #expect(Date(milliseconds: 1_698_148_900_123).milliseconds == 1_698_148_900_123)
        #expect(RFC3339.string(from: Date(milliseconds: .max)) == "9999-12-31T23:59:59Z")
        #expect(RFC3339.string(from: Date(milliseconds: .min)) == "0000-01-01T00:00:00Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: .nan)) == "1970-01-01T00:00:00Z")
        #expect(HistoryFacts.wholeDays(.infinity) == 1_000_000_000)
        #expect(HistoryFacts.wholeDays(-.infinity) == -1_000_000_000)
        #expect(HistoryFacts.wholeDays(.nan) == 0)
        #expect(HistoryFacts.wholeDays(-43_200) == -1)
    }
}
