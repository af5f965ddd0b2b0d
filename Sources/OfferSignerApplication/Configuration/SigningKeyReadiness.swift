import Foundation
import OfferSignerCore
import Synchronization

/// Whether every app's active signing key can sign now, for `/readyz`: a key held in a
/// hardware module is asked for a test signature (the answer is kept for `interval`, so a
/// readiness probe as often as it likes costs the module at most one signature per key and
/// interval); a key held in memory always can. A module that cannot sign (token removed, PIN
/// refused, HSM down) makes the instance not ready until it can again; the probe is also what
/// reconnects to a token put back while no request comes.
public final class SigningKeyReadiness: Sendable {
    private let keyRing: KeyRing
    private let interval: Duration
    private let last = Mutex<(at: ContinuousClock.Instant, unavailable: [String])?>(nil)

    /// The message signed by each test signature.
    static let probe = Array("offer-signer readiness probe".utf8)

    public init(keyRing: KeyRing, interval: Duration = .seconds(1)) {
        self.keyRing = keyRing
        self.interval = interval
    }

    /// The active keys (`bundleId` and key ID) that cannot sign now; empty when every one can.
    public func unavailableKeys() -> [String] {
        let now = ContinuousClock.now
        if let known = last.withLock({ $0 }), now - known.at < interval { return known.unavailable }
        var unavailable: [String] = []
        for app in keyRing.current.apps.values.sorted(by: { $0.bundleId < $1.bundleId }) {
            let key = app.activeKey
            guard case .pkcs11 = key.source else { continue }
            do {
                _ = try key.privateKey.rawSignature(Self.probe)
            } catch {
                unavailable.append("\(app.bundleId) \(key.keyId)")
            }
        }
        last.withLock { $0 = (now, unavailable) }
        return unavailable
    }
}
