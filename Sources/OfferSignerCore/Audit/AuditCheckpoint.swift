import Foundation

/// A signed statement that the signature log's hash chain reached `chainHash` at `sequence`
/// at `timestamp`, made with the audit key (never an App Store key). Kept outside the
/// database (the JSON log, an export), checkpoints let an auditor prove that the log was not
/// rewritten afterwards by someone who could write the file but does not hold the audit key.
///
/// The signature is ECDSA P-256 / SHA-256, base64 DER, over the ASCII text
/// `offer-signer checkpoint v1\n<keyId>\n<sequence>\n<chainHash>\n<timestamp>\n`.
public struct AuditCheckpoint: Codable, Hashable, Sendable {
    /// The last chain entry the checkpoint vouches for.
    public var sequence: Int64
    /// That entry's hash.
    public var chainHash: String
    /// When it was signed, milliseconds since 1970.
    public var timestamp: Int64
    /// The audit key's ID from the keys file.
    public var keyId: String
    /// Base64 DER ECDSA signature over `signedBytes`.
    public var signature: String

    public init(sequence: Int64, chainHash: String, timestamp: Int64, keyId: String, signature: String) {
        self.sequence = sequence
        self.chainHash = chainHash
        self.timestamp = timestamp
        self.keyId = keyId
        self.signature = signature
    }

    /// Signs `link` at `timestamp` with `key`.
    public static func sign(_ link: ChainLink, at timestamp: Int64, keyId: String, key: any P256SigningKey) throws(SigningKeyError) -> AuditCheckpoint {
        let bytes = signedBytes(keyId: keyId, sequence: link.sequence, chainHash: link.hash, timestamp: timestamp)
        let signature = Data(try key.derSignature(bytes)).base64EncodedString()
        return AuditCheckpoint(sequence: link.sequence, chainHash: link.hash, timestamp: timestamp, keyId: keyId, signature: signature)
    }

    /// The chain position it vouches for.
    public var link: ChainLink { ChainLink(sequence: sequence, hash: chainHash) }

    /// The exact bytes the signature covers.
    public var signedBytes: [UInt8] {
        Self.signedBytes(keyId: keyId, sequence: sequence, chainHash: chainHash, timestamp: timestamp)
    }

    /// Whether the signature is valid under `key` for these fields.
    public func isValid(under key: P256PublicKey) -> Bool {
        guard let der = Data(base64Encoded: signature) else { return false }
        return key.isValidSignature(derSignature: Array(der), of: signedBytes)
    }

    /// Whether the signature is valid under any of `keys`.
    public func isValid(underAnyOf keys: [P256PublicKey]) -> Bool {
        keys.contains { isValid(under: $0) }
    }

    static func signedBytes(keyId: String, sequence: Int64, chainHash: String, timestamp: Int64) -> [UInt8] {
        Array("offer-signer checkpoint v1\n\(keyId)\n\(sequence)\n\(chainHash)\n\(timestamp)\n".utf8)
    }
}
