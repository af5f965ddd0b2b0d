internal import CPKCS11
import Foundation
import OfferSignerCore

/// A P-256 private key that never leaves its PKCS#11 token: each signature is `C_SignInit` /
/// `C_Sign` with CKM_ECDSA over the SHA-256 digest (computed here, with OpenSSL), on a session
/// of the token's pool. The public key is read from the token when the key is opened, and a
/// test signature is checked against it then.
public final class PKCS11PrivateKey: P256SigningKey, @unchecked Sendable { // @unchecked: the object handle is behind a PlainMutex; the rest never changes
    public let publicKey: P256PublicKey
    public let reference: PKCS11KeyReference
    /// The token's label and the module's own description, for `keys check`.
    public var tokenLabel: String { token.label }
    public var moduleDescription: String { token.module.libraryDescription }
    /// What an operator should know but that does not stop the service (an extractable key).
    public let warnings: [String]
    private let token: PKCS11Token
    /// The key object's handle in the token's current connection (handles do not outlive it).
    private let object: PlainMutex<(generation: Int, handle: CK_OBJECT_HANDLE)>

    /// Loads the module, finds the token and logs in (the PIN read from `environment`), finds
    /// the key and its public key, and checks that a test signature verifies.
    public static func open(_ reference: PKCS11KeyReference,
                            environment: [String: String] = ProcessInfo.processInfo.environment) throws(PKCS11Error) -> PKCS11PrivateKey {
        let pin: [UInt8]?
        if let variable = reference.pinVariable {
            guard let value = environment[variable] else { throw .pinNotSet(variable: variable) }
            pin = Array(value.utf8)
        } else {
            pin = nil
        }
        let module = try PKCS11Module.load(path: reference.module)
        let token = try PKCS11Token.token(module: module, uri: reference.uri, pin: pin, pinVariable: reference.pinVariable)
        let found = try token.withSession { session, generation throws(PKCS11Error) in
            try Self.find(reference.uri, in: session, generation: generation)
        }
        let key = PKCS11PrivateKey(reference: reference, token: token, found: found)
        let probe = Array("offer-signer key check \(reference.uri.text)".utf8)
        let signature = try key.rawSignatureThrowingPKCS11(probe)
        guard key.publicKey.isValidSignature(rawSignature: signature, of: probe) else { throw .publicKeyMismatch(uri: reference.uri.text) }
        return key
    }

    private struct Found {
        let handle: CK_OBJECT_HANDLE
        let generation: Int
        let publicKey: P256PublicKey
        let warnings: [String]
    }

    private init(reference: PKCS11KeyReference, token: PKCS11Token, found: Found) {
        self.reference = reference
        self.token = token
        publicKey = found.publicKey
        warnings = found.warnings
        object = PlainMutex((found.generation, found.handle))
    }

    public func rawSignature(_ message: [UInt8]) throws(SigningKeyError) -> [UInt8] {
        do {
            return try rawSignatureThrowingPKCS11(message)
        } catch {
            throw .keyUnavailable(error.description)
        }
    }

    public func derSignature(_ message: [UInt8]) throws(SigningKeyError) -> [UInt8] {
        let raw = try rawSignature(message)
        guard let der = ECDSASignatureEncoding.der(fromRaw: raw) else {
            throw .openSSL(OpenSSLError("converting an R‖S signature to DER", diagnostics: []))
        }
        return der
    }

    /// Signs on a session of the pool; a failed call is tried once more on a fresh session
    /// (after reconnecting, when the token was lost), so a token put back is used at once.
    private func rawSignatureThrowingPKCS11(_ message: [UInt8]) throws(PKCS11Error) -> [UInt8] {
        let digest = SHA256Digest.hash(message)
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try token.withSession { session, generation throws(PKCS11Error) in
                    try session.signECDSA(digest: digest, with: try handle(in: session, generation: generation))
                }
            } catch {
                guard attempt < 2, case .call = error else { throw error }
            }
        }
    }

    /// The key's handle in the connection of `generation`, found again after a reconnection.
    private func handle(in session: PKCS11Session, generation: Int) throws(PKCS11Error) -> CK_OBJECT_HANDLE {
        let known = object.withLock { $0 }
        if known.generation == generation { return known.handle }
        let handle = try Self.privateKeyHandle(reference.uri, in: session)
        object.withLock { $0 = (generation, handle) }
        return handle
    }

    /// The one private key object `uri` names.
    private static func privateKeyHandle(_ uri: PKCS11URI, in session: PKCS11Session) throws(PKCS11Error) -> CK_OBJECT_HANDLE {
        var template: [PKCS11Session.Attribute] = [.number(UInt(CKA_CLASS), UInt(CKO_PRIVATE_KEY))]
        if let label = uri.object { template.append(.init(UInt(CKA_LABEL), Array(label.utf8))) }
        if let id = uri.id { template.append(.init(UInt(CKA_ID), id)) }
        let handles = try session.findObjects(template)
        guard let handle = handles.first else { throw .objectNotFound(uri: uri.text) }
        guard handles.count == 1 else { throw .severalObjects(uri: uri.text, count: handles.count) }
        return handle
    }

    /// The key's handle, its public key (a public-key object with the same CKA_ID, else label;
    /// else the key's CKA_PUBLIC_KEY_INFO or CKA_EC_POINT), and warnings about its attributes.
    private static func find(_ uri: PKCS11URI, in session: PKCS11Session, generation: Int) throws(PKCS11Error) -> Found {
        let handle = try privateKeyHandle(uri, in: session)
        let keyType = try session.attribute(UInt(CKA_KEY_TYPE), of: handle)
        guard keyType == PKCS11Session.Attribute.number(0, UInt(CKK_EC)).value else { throw .notP256(uri: uri.text) }
        if let parameters = try session.attribute(UInt(CKA_EC_PARAMS), of: handle), parameters != PKCS11Session.p256Parameters {
            throw .notP256(uri: uri.text)
        }
        var publicKey: P256PublicKey?
        let id = try session.attribute(UInt(CKA_ID), of: handle) ?? []
        let label = try session.attribute(UInt(CKA_LABEL), of: handle) ?? []
        for (type, value) in [(UInt(CKA_ID), id), (UInt(CKA_LABEL), label)] where !value.isEmpty && publicKey == nil {
            let template: [PKCS11Session.Attribute] = [.number(UInt(CKA_CLASS), UInt(CKO_PUBLIC_KEY)), .init(type, value)]
            for candidate in try session.findObjects(template) {
                if let point = try session.attribute(UInt(CKA_EC_POINT), of: candidate), let key = PublicKeyEncoding.p256(ecPoint: point) {
                    publicKey = key
                    break
                }
            }
        }
        if publicKey == nil, let info = try session.attribute(UInt(CKA_PUBLIC_KEY_INFO), of: handle), !info.isEmpty {
            publicKey = try? P256PublicKey(spkiDER: info)
        }
        if publicKey == nil, let point = try session.attribute(UInt(CKA_EC_POINT), of: handle) {
            publicKey = PublicKeyEncoding.p256(ecPoint: point)
        }
        guard let publicKey else { throw .noPublicKey(uri: uri.text) }
        var warnings: [String] = []
        if try session.attribute(UInt(CKA_EXTRACTABLE), of: handle) == [1] {
            warnings.append("WARNING: the key \(uri.text) is extractable (CKA_EXTRACTABLE true): the token would let it out; "
                            + "make keys with CKA_EXTRACTABLE false")
        }
        if try session.attribute(UInt(CKA_SENSITIVE), of: handle) == [0] {
            warnings.append("WARNING: the key \(uri.text) is not sensitive (CKA_SENSITIVE false): the token would show its value")
        }
        return Found(handle: handle, generation: generation, publicKey: publicKey, warnings: warnings)
    }
}

/// A P-256 public key from the forms tokens give it in.
enum PublicKeyEncoding {
    /// The SubjectPublicKeyInfo prefix of an uncompressed P-256 point (id-ecPublicKey, prime256v1).
    private static let spkiPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01,
        0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]

    /// The key of a CKA_EC_POINT: the DER OCTET STRING of the uncompressed point (as the
    /// standard says), or the bare point (as some modules give it).
    static func p256(ecPoint: [UInt8]) -> P256PublicKey? {
        var point = ecPoint
        if point.count == 67, point[0] == 0x04, point[1] == 0x41 { point = Array(point.dropFirst(2)) }
        guard point.count == 65, point[0] == 0x04 else { return nil }
        return try? P256PublicKey(spkiDER: spkiPrefix + point)
    }
}
