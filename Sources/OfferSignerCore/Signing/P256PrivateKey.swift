internal import COpenSSL
import Foundation

/// An ECDSA P-256 private key held by OpenSSL, such as the App Store In-App Purchase key.
///
/// Signing from several threads at once is safe: each signature uses its own digest context,
/// copied from a template initialised once for the key (initialising one per signature,
/// with its algorithm fetches, cost about a fifth of the signature).
public final class P256PrivateKey: @unchecked Sendable { // @unchecked: owns an EVP_PKEY and a template context, neither mutated after init; each signature uses its own copy
    let pkey: OpaquePointer
    /// A SHA-256 ECDSA signing context initialised for `pkey`, only ever copied (nil if
    /// OpenSSL could not make it: each signature then initialises its own).
    private let template: OpaquePointer?

    /// Takes ownership of an `EVP_PKEY` that is known to hold a P-256 key.
    init(takingOwnershipOf pkey: OpaquePointer) {
        self.pkey = pkey
        var template = EVP_MD_CTX_new()
        if let context = template, EVP_DigestSignInit(context, nil, FetchedAlgorithms.sha256, nil, pkey) != 1 {
            EVP_MD_CTX_free(context)
            ERR_clear_error()
            template = nil
        }
        self.template = template
    }

    deinit {
        EVP_MD_CTX_free(template)
        EVP_PKEY_free(pkey)
    }

    /// Reads an unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`) holding a P-256 key.
    public convenience init(pkcs8PEM pem: String) throws(KeyError) {
        guard pem.contains("-----BEGIN PRIVATE KEY-----") else {
            throw KeyError.notPKCS8("no '-----BEGIN PRIVATE KEY-----' block")
        }
        let bytes = Array(pem.utf8)
        let key: OpaquePointer? = bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let key else {
            throw KeyError.notPKCS8(OpenSSLError.drain("reading a PKCS#8 private key").description)
        }
        guard P256PrivateKey.isP256(key) else {
            EVP_PKEY_free(key)
            throw KeyError.notP256
        }
        self.init(takingOwnershipOf: key)
    }

    /// A freshly generated key, from OpenSSL's cryptographic random source.
    public static func generate() throws(KeyError) -> P256PrivateKey {
        guard let key = copenssl_ec_generate("P-256") else {
            throw KeyError.generationFailed(OpenSSLError.drain("generating a P-256 key").description)
        }
        return P256PrivateKey(takingOwnershipOf: key)
    }

    /// The key as an unencrypted PKCS#8 PEM.
    public var pkcs8PEM: String {
        MemoryBIO.string { bio in PEM_write_bio_PrivateKey(bio, pkey, nil, nil, 0, nil, nil) == 1 } ?? ""
    }

    /// The public half.
    public var publicKey: P256PublicKey {
        // Round-trip through SubjectPublicKeyInfo so the public key owns no private material.
        try! P256PublicKey(spkiDER: P256PublicKey.spkiDER(of: pkey))
    }

    /// A DER-encoded ECDSA signature over SHA-256 of `message`.
    public func signDER<Bytes: ContiguousBytes>(_ message: Bytes) throws(OpenSSLError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw OpenSSLError.drain("allocating a digest context") }
        defer { EVP_MD_CTX_free(context) }
        if let template {
            guard EVP_MD_CTX_copy_ex(context, template) == 1 else { throw OpenSSLError.drain("copying a signing context") }
        } else {
            guard EVP_DigestSignInit(context, nil, FetchedAlgorithms.sha256, nil, pkey) == 1 else {
                throw OpenSSLError.drain("starting an ECDSA signature")
            }
        }
        // The context is used once: without this flag, OpenSSL 3 duplicates it again to finish.
        EVP_MD_CTX_set_flags(context, Int32(EVP_MD_CTX_FLAG_FINALISE))
        var signature = [UInt8](repeating: 0, count: 80)
        var length = signature.count
        let status = message.withUnsafeBytes { input in
            EVP_DigestSign(context, &signature, &length, input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count)
        }
        guard status == 1 else { throw OpenSSLError.drain("making an ECDSA signature") }
        return Array(signature.prefix(length))
    }

    static func isP256(_ key: OpaquePointer) -> Bool {
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC else { return false }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1 else { return false }
        let group = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return group == "prime256v1" || group == "P-256"
    }
}

/// Why a key could not be used.
public enum KeyError: Error, Equatable, CustomStringConvertible, Sendable {
    case notPKCS8(String)
    case notP256
    case invalidPublicKey(String)
    case generationFailed(String)

    public var description: String {
        switch self {
        case .notPKCS8(let detail): "not an unencrypted PKCS#8 PEM private key (\(detail))"
        case .notP256: "the key is not an EC P-256 (prime256v1) key"
        case .invalidPublicKey(let detail): "not a P-256 public key (\(detail))"
        case .generationFailed(let detail): "key generation failed (\(detail))"
        }
    }
}
