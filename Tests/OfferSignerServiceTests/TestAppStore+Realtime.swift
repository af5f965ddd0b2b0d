import Foundation
import OfferSignerCore

extension TestAppStore {
    /// The test chain's look-alike under an untrusted root (Fixtures/forged-chain).
    static let forgedFolder = TestEnvironment.fixtures.appendingPathComponent("forged-chain")
    static let forgedKey = try! P256PrivateKey(pkcs8PEM: try! String(contentsOf: forgedFolder.appendingPathComponent("leaf.key"),
                                                                      encoding: .utf8))
    static let forgedX5c = ["leaf.pem", "intermediate.pem", "root.pem"].map { name in
        let pem = try! String(contentsOf: forgedFolder.appendingPathComponent(name), encoding: .utf8)
        return pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
    }

    /// `payload` signed by the forged chain's leaf, the forged chain in `x5c`.
    static func forge(_ payload: [String: Any]) -> String {
        let header = ["alg": "ES256", "x5c": forgedX5c] as [String: Any]
        let input = Base64URL.encode(json(header).utf8) + "." + Base64URL.encode(json(payload).utf8)
        let der = try! forgedKey.signDER(Array(input.utf8))
        return input + "." + Base64URL.encode(ECDSASignatureEncoding.raw(fromDER: der)!)
    }

    /// The payload of a Retention Messaging real-time request (`DecodedRealtimeRequestBody`).
    static func realtimePayload(original: String, product: String = TestEnvironment.product, locale: String = "en-US",
                                requestIdentifier: String = UUID().uuidString, appAppleId: Int64 = 1234,
                                environment: String = "Production", signed: Date) -> [String: Any] {
        ["originalTransactionId": original, "appAppleId": appAppleId, "productId": product, "userLocale": locale,
         "requestIdentifier": requestIdentifier, "signedDate": ms(signed), "environment": environment]
    }

    /// A signed Retention Messaging real-time request, as the App Store sends it.
    static func realtimeRequest(original: String, product: String = TestEnvironment.product, locale: String = "en-US",
                                requestIdentifier: String = UUID().uuidString, appAppleId: Int64 = 1234,
                                environment: String = "Production", signed: Date) -> String {
        sign(realtimePayload(original: original, product: product, locale: locale, requestIdentifier: requestIdentifier,
                             appAppleId: appAppleId, environment: environment, signed: signed))
    }
}
