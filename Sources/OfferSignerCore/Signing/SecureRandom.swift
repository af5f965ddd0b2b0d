internal import COpenSSL
import Foundation

/// Randomness from OpenSSL's cryptographically secure generator.
public enum SecureRandom {
    /// `count` random bytes. Traps only if the operating system's entropy source is broken.
    public static func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        precondition(RAND_bytes(&out, Int32(count)) == 1, "OpenSSL's random generator failed")
        return out
    }

    /// A random (version 4) UUID.
    public static func uuid() -> UUID {
        var bytes = bytes(16)
        bytes[6] = (bytes[6] & 0x0f) | 0x40
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// A time-ordered (version 7) UUID: 48 bits of Unix milliseconds, then 74 random bits.
    /// Consecutive values sort together, so an index over them grows at its end instead of
    /// touching a random page for every insert.
    public static func timeOrderedUUID(now: Date = Date()) -> UUID {
        var bytes = bytes(16)
        let milliseconds = UInt64(max(0, now.timeIntervalSince1970 * 1000))
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - UInt64(index)))) }
        bytes[6] = (bytes[6] & 0x0f) | 0x70
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// `uuid` in lower case (`xxxxxxxx-xxxx-…`), written directly: request IDs and nonces
    /// are made on every signing request.
    public static func lowercasedString(_ uuid: UUID) -> String {
        withUnsafeBytes(of: uuid.uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { out in
                let digits: StaticString = "0123456789abcdef"
                var position = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        out[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    out[position] = digits.utf8Start[Int(byte >> 4)]
                    out[position + 1] = digits.utf8Start[Int(byte & 0x0f)]
                    position += 2
                }
                return position
            }
        }
    }

    /// A random token of `byteCount` bytes, base64url.
    public static func token(byteCount: Int = 32) -> String {
        Base64URL.encode(bytes(byteCount))
    }
}
