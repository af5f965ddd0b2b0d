import Foundation

/// Randomness from OpenSSL's cryptographically secure generator (small draws served from a
/// block it fills at once: ``RandomBlocks``).
public enum SecureRandom {
    private static let blocks = RandomBlocks()

    /// `count` random bytes. Traps only if the operating system's entropy source is broken.
    public static func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { blocks.fill($0) }
        return out
    }

    /// A random (version 4) UUID.
    public static func uuid() -> UUID {
        var bytes = randomUUIDBytes()
        bytes.6 = (bytes.6 & 0x0f) | 0x40
        bytes.8 = (bytes.8 & 0x3f) | 0x80
        return UUID(uuid: bytes)
    }

    /// A time-ordered (version 7) UUID: 48 bits of Unix milliseconds, then 74 random bits.
    /// Consecutive values sort together, so an index over them grows at its end instead of
    /// touching a random page for every insert.
    public static func timeOrderedUUID(now: Date = Date()) -> UUID {
        var bytes = randomUUIDBytes()
        let milliseconds = UInt64(max(0, now.timeIntervalSince1970 * 1000))
        withUnsafeMutableBytes(of: &bytes) { out in
            for index in 0..<6 { out[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - UInt64(index)))) }
        }
        bytes.6 = (bytes.6 & 0x0f) | 0x70
        bytes.8 = (bytes.8 & 0x3f) | 0x80
        return UUID(uuid: bytes)
    }

    /// 16 random bytes in a UUID's layout (no heap allocation).
    private static func randomUUIDBytes() -> uuid_t {
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { blocks.fill($0) }
        return bytes
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
