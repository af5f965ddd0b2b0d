import Foundation

/// Reads again the payload of signed data this service verified before it stored it. No
/// signature or certificate is checked here: only use it on JWS that were verified when they
/// were stored (to fill in fields a newer schema keeps, say), never on anything received.
public enum StoredSignedData {
    /// The payload of the compact JWS `jws`, decoded as `type` (`JWSTransactionDecodedPayload`,
    /// `JWSRenewalInfoDecodedPayload`).
    /// Only the payload segment is decoded: the header and signature were checked when the
    /// data was stored, and skipping them keeps a migration over millions of rows quick.
    public static func payload<Payload: Decodable>(_ type: Payload.Type, of jws: String) throws(SignedDataError) -> Payload {
        let bytes = Array(jws.utf8)
        let dot = UInt8(ascii: ".")
        guard let first = bytes.firstIndex(of: dot), let second = bytes[(first + 1)...].firstIndex(of: dot),
              bytes[(second + 1)...].firstIndex(of: dot) == nil else { throw SignedDataError.notCompactJWS }
        guard let payload = Base64URL.decode(utf8: bytes[(first + 1)..<second]), !payload.isEmpty else {
            throw SignedDataError.malformedPayload("is not base64url")
        }
        return try SignedPayloadDecoder.decode(type, from: payload)
    }
}
