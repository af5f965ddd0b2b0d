internal import COpenSSL
import Foundation

/// StoreKit's proof that signed data belongs to the device that sends it. A transaction (or
/// app transaction) StoreKit hands the app carries `deviceVerification` and
/// `deviceVerificationNonce`; the app reads `AppStore.deviceVerificationID`. As Apple documents
/// for `Transaction.deviceVerification`: take the lowercased UUID string of the nonce, append
/// the lowercased UUID string of the device verification ID, and compute the SHA-384 of that
/// ASCII string; the signed data is the device's when the digest equals `deviceVerification`
/// (base64). A copy of the JWS sent from elsewhere, with any other device's ID, does not match.
public enum DeviceVerification {
    /// Whether `deviceVerificationId` is the ID of the device the signed data was made for.
    /// False for anything malformed: a nonce or ID that is not a UUID, a value that is not the
    /// base64 of 48 bytes.
    public static func matches(deviceVerification: String, nonce: String, deviceVerificationId: String) -> Bool {
        guard let nonce = UUID(uuidString: nonce), let device = UUID(uuidString: deviceVerificationId),
              let expected = Data(base64Encoded: deviceVerification), expected.count == Int(SHA384_DIGEST_LENGTH) else {
            return false
        }
        let digest = value(nonce: nonce, deviceVerificationId: device)
        return SHA256Digest.constantTimeEquals(digest, Array(expected))
    }

    /// The 48-byte SHA-384 of the lowercased nonce followed by the lowercased device verification ID.
    public static func value(nonce: UUID, deviceVerificationId: UUID) -> [UInt8] {
        let text = Array((nonce.uuidString.lowercased() + deviceVerificationId.uuidString.lowercased()).utf8)
        var digest = [UInt8](repeating: 0, count: Int(SHA384_DIGEST_LENGTH))
        text.withUnsafeBytes { input in
            _ = digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, nil, FetchedAlgorithms.sha384, nil)
            }
        }
        return digest
    }
}
