import Foundation
import OfferSignerCore

/// Signs synthetic App Store data with the test chain in Fixtures/appstore-chain, the way the
/// App Store does: ES256 over `header.payload`, the chain in `x5c`.
public enum TestSignedData {
    public static let bundleId = "com.example.app"
    public static let appAppleId: Int64 = 1234
    public static let product = "com.example.app.pro_monthly"
    public static let group = "group-1"
    /// When the test data was signed: after the test chain's notBefore.
    public static let signedDate = Date(timeIntervalSince1970: 1_800_000_000)

    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures").appendingPathComponent("appstore-chain")

    static func pem(_ name: String) -> String {
        try! String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
    }

    static func der(_ name: String) -> [UInt8] {
        let body = pem(name).split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        return Array(Data(base64Encoded: body)!)
    }

    /// The test chain's root, to trust in verifiers.
    public static let root = try! X509Certificate(der: der("root.pem"))
    /// The leaf's key, which signs everything the mock serves.
    public static let leafKey = try! P256PrivateKey(pkcs8PEM: pem("leaf.key"))
    static let x5c = ["leaf.pem", "intermediate.pem", "root.pem"].map { Data(der($0)).base64EncodedString() }

    /// A verifier that trusts the test root and knows the test app.
    public static func verifier(environments: Set<String> = ["Production", "Sandbox"]) -> SignedDataVerifier {
        try! SignedDataVerifier(rootCertificates: [root], apps: [SignedDataVerifier.App(bundleId: bundleId, appAppleId: appAppleId)],
                                acceptedEnvironments: environments)
    }

    /// A compact JWS of `payload` signed with `key` (the test leaf's by default) and the test chain.
    public static func sign(_ payload: [String: Any], key: P256PrivateKey = leafKey) -> String {
        let header: [String: Any] = ["alg": "ES256", "x5c": x5c]
        let input = Base64URL.encode(json(header).utf8) + "." + Base64URL.encode(json(payload).utf8)
        let der = try! key.signDER(Array(input.utf8))
        return input + "." + Base64URL.encode(ECDSASignatureEncoding.raw(fromDER: der)!)
    }

    /// `object` as JSON with sorted keys.
    public static func json(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// Milliseconds since 1970.
    public static func ms(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 * 1000) }

    /// A signed auto-renewable subscription transaction of a 30-day period from `purchased`
    /// (or until `expires`), for the customer `appAccountToken` when given.
    public static func transaction(id: String, original: String, product: String = product, purchased: Date,
                                   expires: Date? = nil, appAccountToken: String? = nil, signed: Date = signedDate,
                                   environment: String = "Production", bundleId: String = bundleId,
                                   key: P256PrivateKey = leafKey) -> String {
        var payload: [String: Any] = [
            "transactionId": id, "originalTransactionId": original, "bundleId": bundleId, "productId": product,
            "subscriptionGroupIdentifier": group, "purchaseDate": ms(purchased), "originalPurchaseDate": ms(purchased),
            "expiresDate": ms(expires ?? purchased.addingTimeInterval(30 * 86_400)), "quantity": 1,
            "type": "Auto-Renewable Subscription", "inAppOwnershipType": "PURCHASED", "signedDate": ms(signed),
            "environment": environment, "storefront": "USA", "storefrontId": "143441", "price": 9990, "currency": "USD",
            "transactionReason": "PURCHASE",
        ]
        if let appAccountToken { payload["appAccountToken"] = appAccountToken }
        return sign(payload, key: key)
    }

    /// A signed consumable purchase (in a customer's history, but no subscription).
    public static func consumable(id: String, purchased: Date, environment: String = "Production") -> String {
        sign([
            "transactionId": id, "originalTransactionId": id, "bundleId": bundleId, "productId": "com.example.app.coins",
            "purchaseDate": ms(purchased), "originalPurchaseDate": ms(purchased), "quantity": 1, "type": "Consumable",
            "inAppOwnershipType": "PURCHASED", "signedDate": ms(signedDate), "environment": environment,
            "storefront": "USA", "storefrontId": "143441", "price": 990, "currency": "USD", "transactionReason": "PURCHASE",
        ])
    }

    /// Signed renewal information.
    public static func renewal(original: String, autoRenewStatus: Int = 0, signed: Date = signedDate,
                               environment: String = "Production") -> String {
        sign([
            "originalTransactionId": original, "autoRenewProductId": product, "productId": product, "autoRenewStatus": autoRenewStatus,
            "signedDate": ms(signed), "environment": environment, "recentSubscriptionStartDate": ms(signed),
        ])
    }

    /// A signed notification carrying a transaction.
    public static func notification(type: String, uuid: String, transaction: String, signed: Date,
                                    environment: String = "Production") -> String {
        sign([
            "notificationType": type, "notificationUUID": uuid, "version": "2.0", "signedDate": ms(signed),
            "data": ["appAppleId": appAppleId, "bundleId": bundleId, "bundleVersion": "1.0", "environment": environment,
                     "status": 2, "signedTransactionInfo": transaction] as [String: Any],
        ])
    }

    /// The payload of a compact JWS, decoded without verification (for the mock's filters).
    public static func unverifiedPayload(_ jws: String) -> [String: Any] {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = Base64URL.decode(parts[1]),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [:] }
        return object
    }
}
