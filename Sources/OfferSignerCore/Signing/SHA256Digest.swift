internal import COpenSSL
import Foundation

/// SHA-256 through OpenSSL.
public enum SHA256Digest {
    /// The 32-byte digest of `bytes`.
    public static func hash<Bytes: ContiguousBytes>(_ bytes: Bytes) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        digest.withUnsafeMutableBufferPointer { hash(bytes, into: $0) }
        return digest
    }

    /// The digest of `bytes` as 64 lowercase hex characters: hashed into a buffer on the stack
    /// and written as text in place (the group-commit writer hashes every record it appends).
    public static func hex<Bytes: ContiguousBytes>(_ bytes: Bytes) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(SHA256_DIGEST_LENGTH)) { digest in
            digest.initialize(repeating: 0)
            hash(bytes, into: digest)
            return UnsafeBufferPointer(digest).hexString
        }
    }

    /// Writes the digest of `bytes` into `digest` (``SHA256_DIGEST_LENGTH`` bytes).
    private static func hash<Bytes: ContiguousBytes>(_ bytes: Bytes, into digest: UnsafeMutableBufferPointer<UInt8>) {
        bytes.withUnsafeBytes { input in
            _ = EVP_Digest(input.baseAddress, input.count, digest.baseAddress, nil, FetchedAlgorithms.sha256, nil)
        }
    }

    /// Compares two byte strings in time that depends only on their lengths.
    public static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.withUnsafeBytes { l in
            rhs.withUnsafeBytes { r in CRYPTO_memcmp(l.baseAddress, r.baseAddress, l.count) == 0 }
        }
    }
}

extension Sequence where Element == UInt8 {
    /// Lowercase hexadecimal.
    public var hexString: String {
        withContiguousStorageIfAvailable(hexText) ?? Array(self).withUnsafeBufferPointer(hexText)
    }
}

/// `bytes` as lowercase hexadecimal, written into the string's storage in place.
private func hexText(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    String(unsafeUninitializedCapacity: bytes.count * 2) { out in
        for (index, byte) in bytes.enumerated() {
            out[2 * index] = hexDigit(byte >> 4)
            out[2 * index + 1] = hexDigit(byte & 0x0f)
        }
        return bytes.count * 2
    }
}

/// The lowercase hex digit of `nibble` (0–15).
@inline(__always)
private func hexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
}

extension Array where Element == UInt8 {
    /// Decodes lowercase or uppercase hexadecimal; nil for odd lengths or other characters.
    public init?(hexString: String) {
        let chars = Array(hexString.utf8)
        guard chars.count % 2 == 0 else { return nil }
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(chars.count / 2)
        var index = 0
        while index < chars.count {
            guard let high = value(chars[index]), let low = value(chars[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self = bytes
    }
}
