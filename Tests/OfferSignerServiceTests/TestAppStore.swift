import Foundation
import OfferSignerCore

/// Signs synthetic App Store data with the test chain in Fixtures/appstore-chain, the way the
/// App Store does: ES256 over `header.payload`, the chain in `x5c`.
enum TestAppStore {
    static let folder = TestEnvironment.fixtures.appendingPathComponent("appstore-chain")

    static func pem(_ name: String) -> String {
        try! String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
    }

    static func der(_ name: String) -> [UInt8] {
        let body = pem(name).split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        return Array(Data(base64Encoded: body)!)
    }

    static let root = try! X509Certificate(der: der("root.pem"))
    static let leafKey = try! P256PrivateKey(pkcs8PEM: pem("leaf.key"))
    static let x5c = ["leaf.pem", "intermediate.pem", "root.pem"].map { Data(der($0)).base64EncodedString() }

    static func sign(_ payload: [String: Any]) -> String {
        sign(payloadJSON: json(payload))
    }

    /// Signs payload JSON as written (numbers no `JSONSerialization` would write included).
    static func sign(payloadJSON: String) -> String {
        sign(payloadSegment: Base64URL.encode(payloadJSON.utf8), key: leafKey, x5c: x5c)
    }

    /// The payload of a signed JWS, as JSON values.
    static func payload(of jws: String) -> [String: Any] {
        let segment = jws.split(separator: ".")[1]
        return try! JSONSerialization.jsonObject(with: Data(Base64URL.decode(String(segment))!)) as! [String: Any]
    }

    /// The forged chain in Fixtures/forged-chain: Apple's shape and OIDs under a root the tests never trust.
    static let forgedFolder = TestEnvironment.fixtures.appendingPathComponent("forged-chain")
    static let forgedKey = try! P256PrivateKey(pkcs8PEM: try! String(contentsOf: forgedFolder.appendingPathComponent("leaf.key"), encoding: .utf8))
    static let forgedX5c = ["leaf.pem", "intermediate.pem", "root.pem"].map { name in
        let pem = try! String(contentsOf: forgedFolder.appendingPathComponent(name), encoding: .utf8)
        return pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
    }

    /// `jws`'s payload signed again with the forged chain.
    static func forged(_ jws: String) -> String {
        sign(payloadSegment: String(jws.split(separator: ".")[1]), key: forgedKey, x5c: forgedX5c)
    }

    private static func sign(payloadSegment: String, key: P256PrivateKey, x5c: [String]) -> String {
        let header = ["alg": "ES256", "x5c": x5c] as [String: Any]
        let input = Base64URL.encode(json(header).utf8) + "." + payloadSegment
        let der = try! key.signDER(Array(input.utf8))
        return input + "." + Base64URL.encode(ECDSASignatureEncoding.raw(fromDER: der)!)
    }

    /// A signed app transaction (`AppTransaction.shared.jwsRepresentation`), signed at `created`.
    static func appTransaction(created: Date, appTransactionId: String? = "704289572911", environment: String = "Production",
                               bundleId: String = TestEnvironment.bundleId, appAppleId: Int64 = 1234) -> String {
        var payload: [String: Any] = [
            "receiptType": environment, "appAppleId": appAppleId, "bundleId": bundleId, "applicationVersion": "7.1",
            "receiptCreationDate": ms(created), "originalPurchaseDate": ms(created - 400 * 86_400),
            "originalApplicationVersion": "1.0", "deviceVerification": "dGVzdA==",
            "deviceVerificationNonce": "48ccfa42-7431-4f22-9908-7e88983e105a", "originalPlatform": "iOS",
        ]
        if let appTransactionId { payload["appTransactionId"] = appTransactionId }
        return sign(payload)
    }

    static func json(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    static func ms(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 * 1000) }

    /// A signed auto-renewable subscription transaction.
    static func transaction(id: String, original: String? = nil, user: String?, product: String = TestEnvironment.product,
                            group: String = "group-1", purchased: Date, expires: Date, revoked: Date? = nil,
                            offerType: Int? = nil, offerId: String? = nil, discount: String? = nil, price: Int = 9990,
                            storefront: String = "USA", signed: Date, environment: String = "Production",
                            reason: String = "PURCHASE", bundleId: String = TestEnvironment.bundleId,
                            extra: [String: Any] = [:]) -> String {
        var payload: [String: Any] = [
            "transactionId": id, "originalTransactionId": original ?? id, "bundleId": bundleId,
            "productId": product, "subscriptionGroupIdentifier": group, "purchaseDate": ms(purchased),
            "originalPurchaseDate": ms(purchased), "expiresDate": ms(expires), "quantity": 1,
            "type": "Auto-Renewable Subscription", "inAppOwnershipType": "PURCHASED", "signedDate": ms(signed),
            "environment": environment, "storefront": storefront, "storefrontId": "143441", "price": price,
            "currency": "USD", "transactionReason": reason,
        ]
        if let user { payload["appAccountToken"] = user }
        if let revoked { payload["revocationDate"] = ms(revoked); payload["revocationReason"] = 0 }
        if let offerType { payload["offerType"] = offerType }
        if let offerId { payload["offerIdentifier"] = offerId }
        if let discount { payload["offerDiscountType"] = discount }
        payload.merge(extra) { _, new in new }
        return sign(payload)
    }

    /// A signed renewal info; `extra` adds or replaces fields (`expirationIntent`,
    /// `isInBillingRetryPeriod`, `eligibleWinBackOfferIds`).
    static func renewal(original: String, gracePeriodEnds: Date? = nil, signed: Date, environment: String = "Production",
                        extra: [String: Any] = [:]) -> String {
        var payload: [String: Any] = [
            "originalTransactionId": original, "autoRenewProductId": TestEnvironment.product, "productId": TestEnvironment.product,
            "autoRenewStatus": 1, "signedDate": ms(signed), "environment": environment, "recentSubscriptionStartDate": ms(signed),
        ]
        if let gracePeriodEnds { payload["gracePeriodExpiresDate"] = ms(gracePeriodEnds); payload["isInBillingRetryPeriod"] = true }
        payload.merge(extra) { _, new in new }
        return sign(payload)
    }

    /// A signed notification carrying a transaction and, optionally, renewal info.
    static func notification(type: String = "DID_RENEW", uuid: String = UUID().uuidString.lowercased(), transaction: String?,
                             renewal: String? = nil, signed: Date, appAppleId: Int64 = 1234, environment: String = "Production",
                             bundleId: String = TestEnvironment.bundleId) -> String {
        var data: [String: Any] = ["appAppleId": appAppleId, "bundleId": bundleId, "bundleVersion": "1.0",
                                   "environment": environment, "status": 1]
        if let transaction { data["signedTransactionInfo"] = transaction }
        if let renewal { data["signedRenewalInfo"] = renewal }
        return sign(["notificationType": type, "notificationUUID": uuid, "version": "2.0", "signedDate": ms(signed), "data": data])
    }
}
