internal import COpenSSL

/// Converts ECDSA P-256 signatures between DER (what Apple's legacy format carries) and
/// the fixed 64-byte R‖S form (what JWS ES256 carries).
public enum ECDSASignatureEncoding {
    /// The 64-byte R‖S form of a DER signature; nil if `der` is not one.
    public static func raw(fromDER der: [UInt8]) -> [UInt8]? {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else {
            ERR_clear_error()
            return nil
        }
        defer { ECDSA_SIG_free(parsed) }
        guard let r = ECDSA_SIG_get0_r(parsed), let s = ECDSA_SIG_get0_s(parsed) else { return nil }
        var out = [UInt8](repeating: 0, count: 64)
        let ok = out.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(r, buffer.baseAddress, 32) == 32 && BN_bn2binpad(s, buffer.baseAddress! + 32, 32) == 32
        }
        return ok ? out : nil
    }

    /// The DER form of a 64-byte R‖S signature; nil if `raw` is not 64 bytes.
    public static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 64, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
        guard let r, let s else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        ECDSA_SIG_set0(signature, r, s)  // takes ownership of r and s
        var buffer: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_ECDSA_SIG(signature, &buffer)
        guard length > 0, let buffer else { return nil }
        defer { copenssl_free(buffer) }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(length)))
    }
}
