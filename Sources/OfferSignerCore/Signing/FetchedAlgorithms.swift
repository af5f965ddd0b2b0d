internal import COpenSSL

/// Algorithms fetched from OpenSSL's provider once for the life of the process. `EVP_sha256()`
/// makes OpenSSL 3 look the implementation up (under a global lock) on every use.
enum FetchedAlgorithms {
    /// SHA-256 from the default provider.
    nonisolated(unsafe) static let sha256: OpaquePointer = {
        guard let digest = EVP_MD_fetch(nil, "SHA256", nil) else {
            fatalError("OpenSSL has no SHA-256: \(OpenSSLError.drain("fetching SHA-256"))")
        }
        return digest
    }()

    /// SHA-384 from the default provider (StoreKit's device verification).
    nonisolated(unsafe) static let sha384: OpaquePointer = {
        guard let digest = EVP_MD_fetch(nil, "SHA384", nil) else {
            fatalError("OpenSSL has no SHA-384: \(OpenSSLError.drain("fetching SHA-384"))")
        }
        return digest
    }()
}
