/// An ECDSA P-256 private key that signs SHA-256 digests of messages, wherever it is held:
/// in this process (``P256PrivateKey``, read from a `.p8` file) or in a hardware module that
/// never lets it out (a PKCS#11 token). Every signature the service makes goes through this.
public protocol P256SigningKey: AnyObject, Sendable {
    /// The public half, to verify the signatures with.
    var publicKey: P256PublicKey { get }

    /// A DER-encoded ECDSA signature over SHA-256 of `message` (Apple's legacy format, checkpoints).
    func derSignature(_ message: [UInt8]) throws(SigningKeyError) -> [UInt8]

    /// The 64-byte R‖S ECDSA signature over SHA-256 of `message` (JWS ES256).
    func rawSignature(_ message: [UInt8]) throws(SigningKeyError) -> [UInt8]
}

/// Why a signing key made no signature.
public enum SigningKeyError: Error, CustomStringConvertible, Sendable {
    /// OpenSSL failed on a key held in this process.
    case openSSL(OpenSSLError)
    /// The module holding the key cannot sign now (the token was removed, the module or the
    /// network HSM behind it is down, every session is busy): worth retrying later.
    case keyUnavailable(String)

    public var description: String {
        switch self {
        case .openSSL(let error): error.description
        case .keyUnavailable(let reason): "the signing key's module cannot sign now: \(reason)"
        }
    }
}

extension P256PrivateKey: P256SigningKey {
    /// ``signDER(_:)`` itself: the `.p8` path costs what it did before keys could live elsewhere.
    public func derSignature(_ message: [UInt8]) throws(SigningKeyError) -> [UInt8] {
        do {
            return try signDER(message)
        } catch {
            throw .openSSL(error)
        }
    }

    /// OpenSSL's DER signature in the R‖S form.
    public func rawSignature(_ message: [UInt8]) throws(SigningKeyError) -> [UInt8] {
        let der = try derSignature(message)
        guard let raw = ECDSASignatureEncoding.raw(fromDER: der) else {
            throw .openSSL(OpenSSLError("converting an ECDSA signature to R‖S", diagnostics: []))
        }
        return raw
    }
}
