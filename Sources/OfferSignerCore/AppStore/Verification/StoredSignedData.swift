import Foundation

/// Reads again the payload of signed data this service verified before it stored it. No
/// signature or certificate is checked here: only use it on JWS that were verified when they
/// were stored (to fill in fields a newer schema keeps, say), never on anything received.
public enum StoredSignedData {
    /// The payload of the compact JWS `jws`, decoded as `type` (`JWSTransactionDecodedPayload`,
    /// `JWSRenewalInfoDecodedPayload`).
    public static func payload<Payload: Decodable>(_ type: Payload.Type, of jws: String) throws(SignedDataError) -> Payload {
        try SignedPayloadDecoder.decode(type, from: CompactJWS(parsing: jws).payload)
    }
}
