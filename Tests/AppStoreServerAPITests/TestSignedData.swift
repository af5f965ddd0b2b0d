import Foundation
import OfferSignerCore

/// Signs synthetic App Store data with the test chain in Fixtures/appstore-chain, the way the
/// App Store does: ES256 over `header.payload`, the chain in `x5c`.
enum TestSignedData {
    static let bundleId = "com.example.app"
    static let appAppleId: Int64 = 1234
    static let product = "com.example.app.pro_monthly"
    static let group = "group-1"
    /// When the test data was signed: after the test chain's notBefore.
    static let signedDate = Date(timeIntervalSince1970: 1_800_000_000)

    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures").appendingPathComponent("appstore-chain")

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

    /// A verifier that trusts the test root and knows the test app.
    static func verifier(environments: Set<String> = ["Production", "Sandbox"]) -> SignedDataVerifier {
        try! SignedDataVerifier(rootCertificates: [root], apps: [SignedDataVerifier.App(bundleId: bundleId, appAppleId: appAppleId)],
                                acceptedEnvironments: environments)
    }

    static func sign(_ payload: [String: Any], key: P256PrivateKey = leafKey) -> String {
        let header: [String: Any] = ["alg": "ES256", "x5c": x5c]
        let input = Base64URL.encode(json(header).utf8) + "." + Base64URL.encode(json(payload).utf8)
        let der = try! key.signDER(Array(input.utf8))
        return input + "." + Base64URL.encode(ECDSASignatureEncoding.raw(fromDER: der)!)
    }

    static func json(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    static func ms(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 * 1000) }

    /// A signed auto-renewable subscription transaction, `purchased` days after `signedDate`'s epoch.
    static func transaction(id: String, original: String, product: String = product, purchased: Date,
                            environment: String = "Production", bundleId: String = bundleId,
                            key: P256PrivateKey = leafKey) -> String {
        sign([
            "transactionId": id, "originalTransactionId": original, "bundleId": bundleId, "productId": product,
            "subscriptionGroupIdentifier": group, "purchaseDate": ms(purchased), "originalPurchaseDate": ms(purchased),
            "expiresDate": ms(purchased.addingTimeInterval(30 * 86_400)), "quantity": 1, "type": "Auto-Renewable Subscription",
            "inAppOwnershipType": "PURCHASED", "signedDate": ms(signedDate), "environment": environment,
            "storefront": "USA", "storefrontId": "143441", "price": 9990, "currency": "USD", "transactionReason": "PURCHASE",
        ], key: key)
    }

    /// Signed renewal information.
    static func renewal(original: String, environment: String = "Production") -> String {
        sign([
            "originalTransactionId": original, "autoRenewProductId": product, "productId": product, "autoRenewStatus": 0,
            "signedDate": ms(signedDate), "environment": environment, "recentSubscriptionStartDate": ms(signedDate),
        ])
    }

    /// A signed notification carrying a transaction.
    static func notification(type: String, uuid: String, transaction: String, signed: Date) -> String {
        sign([
            "notificationType": type, "notificationUUID": uuid, "version": "2.0", "signedDate": ms(signed),
            "data": ["appAppleId": appAppleId, "bundleId": bundleId, "bundleVersion": "1.0", "environment": "Production",
                     "status": 2, "signedTransactionInfo": transaction] as [String: Any],
        ])
    }

    /// The payload of a compact JWS, decoded without verification (for the mock's filters).
    static func unverifiedPayload(_ jws: String) -> [String: Any] {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = Base64URL.decode(parts[1]),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [:] }
        return object
    }
}
