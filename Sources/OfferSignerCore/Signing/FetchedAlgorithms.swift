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

    /// AES-256-GCM from the default provider (webhook secrets sealed at rest).
    nonisolated(unsafe) static let aes256GCM: OpaquePointer = {
        guard let cipher = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil) else {
            fatalError("OpenSSL has no AES-256-GCM: \(OpenSSLError.drain("fetching AES-256-GCM"))")
        }
        return cipher
    }()

    /// HMAC from the default provider (webhook signatures, keyed once per secret).
    nonisolated(unsafe) static let hmac: OpaquePointer = {
        guard let mac = EVP_MAC_fetch(nil, "HMAC", nil) else {
            fatalError("OpenSSL has no HMAC: \(OpenSSLError.drain("fetching HMAC"))")
        }
        return mac
    }()
}
