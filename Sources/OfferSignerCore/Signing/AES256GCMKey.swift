internal import COpenSSL

/// An AES-256-GCM key (OpenSSL's EVP): seals small secrets at rest with a random 96-bit
/// nonce and a 128-bit tag, bound to associated data (what the sealed text belongs to), so a
/// sealed text moved to another owner, cut or changed does not open.
public struct AES256GCMKey: Sendable {
    private let bytes: [UInt8]

    /// The length of a key, in bytes.
    public static let keyLength = 32
    static let nonceLength = 12
    static let tagLength = 16

    /// A key of exactly ``keyLength`` bytes; nil for any other length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.keyLength else { return nil }
        self.bytes = bytes
    }

    /// `nonce ‖ ciphertext ‖ tag` of `plaintext` with `associatedData` authenticated beside it.
    public func seal(_ plaintext: [UInt8], associatedData: [UInt8]) -> [UInt8] {
        let nonce = SecureRandom.bytes(Self.nonceLength)
        let context = EVP_CIPHER_CTX_new()!
        defer { EVP_CIPHER_CTX_free(context) }
        var out = [UInt8](repeating: 0, count: plaintext.count + 16)
        var tag = [UInt8](repeating: 0, count: Self.tagLength)
        var length: Int32 = 0, final: Int32 = 0
        let ok = EVP_EncryptInit_ex2(context, FetchedAlgorithms.aes256GCM, bytes, nonce, nil) == 1
            && (associatedData.isEmpty || EVP_EncryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count)) == 1)
            && EVP_EncryptUpdate(context, &out, &length, plaintext, Int32(plaintext.count)) == 1
            && out.withUnsafeMutableBufferPointer { EVP_EncryptFinal_ex(context, $0.baseAddress! + Int(length), &final) } == 1
            && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(Self.tagLength), &tag) == 1
        precondition(ok, "OpenSSL's AES-256-GCM failed: \(OpenSSLError.drain("sealing"))")
        return nonce + out[0..<Int(length + final)] + tag
    }

    /// The plaintext of `sealed` (as ``seal(_:associatedData:)`` made it), or nil when it was
    /// not sealed with this key and `associatedData`, or was changed.
    public func open(_ sealed: [UInt8], associatedData: [UInt8]) -> [UInt8]? {
        guard sealed.count >= Self.nonceLength + Self.tagLength else { return nil }
        let nonce = Array(sealed[0..<Self.nonceLength])
        let ciphertext = Array(sealed[Self.nonceLength..<(sealed.count - Self.tagLength)])
        var tag = Array(sealed[(sealed.count - Self.tagLength)...])
        let context = EVP_CIPHER_CTX_new()!
        defer { EVP_CIPHER_CTX_free(context) }
        var out = [UInt8](repeating: 0, count: ciphertext.count + 16)
        var length: Int32 = 0, final: Int32 = 0
        let ok = EVP_DecryptInit_ex2(context, FetchedAlgorithms.aes256GCM, bytes, nonce, nil) == 1
            && (associatedData.isEmpty || EVP_DecryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count)) == 1)
            && EVP_DecryptUpdate(context, &out, &length, ciphertext, Int32(ciphertext.count)) == 1
            && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(Self.tagLength), &tag) == 1
            && out.withUnsafeMutableBufferPointer { EVP_DecryptFinal_ex(context, $0.baseAddress! + Int(length), &final) } == 1
        guard ok else {
            ERR_clear_error()
            return nil
        }
        return Array(out[0..<Int(length + final)])
    }
}
