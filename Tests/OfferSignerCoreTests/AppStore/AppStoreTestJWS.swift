import Synchronization
import Foundation
@testable import OfferSignerCore

/// Builds compact JWS strings the way the App Store signs its data: a header with `alg` and
/// `x5c`, a JSON payload, an ES256 R‖S signature over ASCII `header.payload`.
enum AppStoreTestJWS {
    /// Signs `payload` with the chain's leaf key, carrying the chain as `x5c`.
    static func sign(_ payload: [String: Any], chain: AppStoreTestChain) -> String {
        sign(payloadJSON: json(payload), header: ["alg": "ES256", "x5c": chain.x5c], key: chain.leaf.key)
    }

    /// Signs raw payload JSON under an arbitrary header.
    static func sign(payloadJSON: String, header: [String: Any], key: P256PrivateKey) -> String {
        let signingInput = Base64URL.encode(Array(json(header).utf8)) + "." + Base64URL.encode(Array(payloadJSON.utf8))
        let der = try! key.signDER(Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(ECDSASignatureEncoding.raw(fromDER: der)!)
    }

    static func json(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// The three segments of a compact JWS.
    static func segments(_ jws: String) -> [String] {
        jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// `jws` with its payload replaced by `payloadJSON` and the original signature kept.
    static func replacingPayload(of jws: String, with payloadJSON: String) -> String {
        let parts = segments(jws)
        return [parts[0], Base64URL.encode(Array(payloadJSON.utf8)), parts[2]].joined(separator: ".")
    }
}

/// A clock the tests move by hand.
final class AppStoreTestClock: Sendable {
    private let current: Mutex<Date>

    init(_ date: Date) { current = Mutex(date) }

    var now: Date { current.withLock { $0 } }
    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    var function: @Sendable () -> Date { { [self] in self.now } }
}
