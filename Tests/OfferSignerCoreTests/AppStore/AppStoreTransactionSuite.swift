import Foundation
@testable import OfferSignerCore

/// A suite that signs transactions with its own chain and verifies them with a verifier
/// trusting that chain's root.
protocol AppStoreTransactionSuite {
    var chain: AppStoreTestChain { get }
    var verifier: SignedDataVerifier { get }
}

extension AppStoreTransactionSuite {
    /// A transaction signed by `chain` (this suite's chain when nil) at `signedAt`.
    func signedTransaction(_ chain: AppStoreTestChain? = nil, signedAt: Date? = AppStoreTestSetup.signedAt) -> String {
        AppStoreTestJWS.sign(AppStoreTestSetup.transaction(signedAt: signedAt), chain: chain ?? self.chain)
    }

    /// `jws`'s payload re-signed by the leaf key under a header with the given `alg` and `x5c`.
    func header(of jws: String, alg: String? = "ES256", x5c: [String]?) -> String {
        var header: [String: Any] = [:]
        header["alg"] = alg
        header["x5c"] = x5c
        let parts = AppStoreTestJWS.segments(jws)
        return AppStoreTestJWS.sign(payloadJSON: String(decoding: Base64URL.decode(parts[1])!, as: UTF8.self),
                                    header: header, key: chain.leaf.key)
    }
}
