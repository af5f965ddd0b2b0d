internal import COpenSSL
import Foundation

/// One webhook secret as an HMAC-SHA256 key, keyed once: OpenSSL's HMAC (`EVP_MAC` "HMAC"
/// over SHA-256) is set up with the secret when this is made (the key's padded blocks hashed
/// once), and each signature duplicates that context (`EVP_MAC_CTX_dup`) and feeds it the
/// message, instead of keying a new one per post. The keyed context is only read after `init`,
/// so any number of threads may sign with one key at once.
public final class WebhookSigningKey: @unchecked Sendable { // @unchecked: the keyed EVP_MAC_CTX is never changed after init, only duplicated
    private let keyed: OpaquePointer

    /// Keys HMAC-SHA256 with `secret`'s UTF-8 bytes.
    public convenience init(secret: String) {
        self.init(key: Array(secret.utf8))
    }

    /// Keys HMAC-SHA256 with `key` (any length: a key longer than SHA-256's block is hashed, as
    /// RFC 2104 says and OpenSSL does).
    public init(key: [UInt8]) {
        // An empty key is a valid HMAC key; OpenSSL is given a non-null pointer to its zero bytes.
        let context = key.isEmpty
            ? withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1) { copenssl_hmac_sha256_keyed(FetchedAlgorithms.hmac, $0.baseAddress, 0) }
            : key.withUnsafeBufferPointer { copenssl_hmac_sha256_keyed(FetchedAlgorithms.hmac, $0.baseAddress, $0.count) }
        guard let context else { fatalError("OpenSSL could not key HMAC-SHA256: \(OpenSSLError.drain("keying HMAC"))") }
        keyed = context
    }

    deinit { EVP_MAC_CTX_free(keyed) }

    /// HMAC-SHA256 of the concatenation of `parts`, each fed to OpenSSL as it is (no copy of
    /// them joined).
    public func mac(_ parts: [UInt8]...) -> [UInt8] {
        guard let context = EVP_MAC_CTX_dup(keyed) else { fatalError("OpenSSL could not copy an HMAC context: \(OpenSSLError.drain("copying HMAC"))") }
        defer { EVP_MAC_CTX_free(context) }
        for part in parts where !part.isEmpty {
            let fed = part.withUnsafeBufferPointer { EVP_MAC_update(context, $0.baseAddress, $0.count) }
            guard fed == 1 else { fatalError("OpenSSL's HMAC update failed: \(OpenSSLError.drain("HMAC update"))") }
        }
        var digest = [UInt8](repeating: 0, count: 32)
        var length = 0
        let finished = digest.withUnsafeMutableBufferPointer { EVP_MAC_final(context, $0.baseAddress, &length, $0.count) }
        guard finished == 1, length == 32 else { fatalError("OpenSSL's HMAC final failed: \(OpenSSLError.drain("HMAC final"))") }
        return digest
    }
}
