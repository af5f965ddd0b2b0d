internal import COpenSSL
import Foundation

/// An ECDSA P-256 public key, to verify signatures made by the matching private key.
public final class P256PublicKey: @unchecked Sendable { // @unchecked: owns an EVP_PKEY, never mutated after init; each verification uses its own context
    let pkey: OpaquePointer

    init(takingOwnershipOf pkey: OpaquePointer) {
        self.pkey = pkey
    }

    deinit { EVP_PKEY_free(pkey) }

    /// Reads a DER SubjectPublicKeyInfo.
    public convenience init(spkiDER: [UInt8]) throws(KeyError) {
        let key: OpaquePointer? = spkiDER.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let key else { throw KeyError.invalidPublicKey(OpenSSLError.drain("reading a public key").description) }
        guard P256PrivateKey.isP256(key) else {
            EVP_PKEY_free(key)
            throw KeyError.notP256
        }
        self.init(takingOwnershipOf: key)
    }

    /// Reads a PEM `-----BEGIN PUBLIC KEY-----` block.
    public convenience init(pem: String) throws(KeyError) {
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        guard let der = Data(base64Encoded: body) else { throw KeyError.invalidPublicKey("not base64 PEM") }
        try self.init(spkiDER: Array(der))
    }

    /// The DER SubjectPublicKeyInfo.
    public var spkiDER: [UInt8] { P256PublicKey.spkiDER(of: pkey) }

    /// The PEM `-----BEGIN PUBLIC KEY-----` block.
    public var pem: String {
        MemoryBIO.string { bio in PEM_write_bio_PUBKEY(bio, pkey) == 1 } ?? ""
    }

    /// Whether `signature` (DER) is a valid ECDSA P-256 / SHA-256 signature of `message`.
    public func isValidSignature<Bytes: ContiguousBytes>(derSignature signature: [UInt8], of message: Bytes) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer {
            EVP_MD_CTX_free(context)
            ERR_clear_error()
        }
        guard EVP_DigestVerifyInit(context, nil, FetchedAlgorithms.sha256, nil, pkey) == 1 else { return false }
        return message.withUnsafeBytes { input in
            EVP_DigestVerify(context, signature, signature.count,
                             input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count) == 1
        }
    }

    /// Whether `signature` in the 64-byte R‖S form (as JWS ES256 uses) is valid for `message`.
    public func isValidSignature<Bytes: ContiguousBytes>(rawSignature signature: [UInt8], of message: Bytes) -> Bool {
        guard let der = ECDSASignatureEncoding.der(fromRaw: signature) else { return false }
        return isValidSignature(derSignature: der, of: message)
    }

    static func spkiDER(of pkey: OpaquePointer) -> [UInt8] {
        var buffer: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_PUBKEY(pkey, &buffer)
        guard length > 0, let buffer else { return [] }
        defer { copenssl_free(buffer) }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(length)))
    }
}
