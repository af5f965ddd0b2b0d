import Foundation

/// A compact JWS split into its parts, nothing verified yet.
struct CompactJWS {
    /// The protected header fields Apple's verifier reads.
    struct Header: Decodable {
        let alg: String?
        let x5c: [String]?
    }

    let header: Header
    /// The decoded payload bytes (JSON).
    let payload: Data
    /// The decoded signature bytes.
    let signature: [UInt8]
    /// The bytes the signature covers: ASCII `header.payload` exactly as received.
    let signingInput: [UInt8]

    /// Splits `text` into header, payload and signature and decodes each from base64url.
    init(parsing text: String) throws(SignedDataError) {
        // Split the UTF-8 bytes, not Characters: JWS are ASCII, and grapheme breaking of a
        // several-kilobyte string was a quarter of ingestion time.
        let bytes = Array(text.utf8)
        let dots = bytes.indices.filter { bytes[$0] == UInt8(ascii: ".") }
        guard dots.count == 2 else { throw SignedDataError.notCompactJWS }
        let segments = [bytes[..<dots[0]], bytes[(dots[0] + 1)..<dots[1]], bytes[(dots[1] + 1)...]]
        // One item, one text: another spelling of the same bytes (padding, stray low bits) is
        // refused, so that nothing keyed on the text can be multiplied by re-encoding it.
        guard Base64URL.isCanonical(utf8: segments[0]) else { throw SignedDataError.malformedHeader(Self.notCanonical) }
        guard Base64URL.isCanonical(utf8: segments[1]) else { throw SignedDataError.malformedPayload(Self.notCanonical) }
        guard Base64URL.isCanonical(utf8: segments[2]) else { throw SignedDataError.malformedSignature }
        guard let headerBytes = Base64URL.decode(utf8: segments[0]) else {
            throw SignedDataError.malformedHeader("is not base64url")
        }
        do {
            header = try JSONDecoder().decode(Header.self, from: headerBytes)
        } catch {
            throw SignedDataError.malformedHeader("is not a JSON object with a string alg and an x5c array of strings")
        }
        guard let payloadBytes = Base64URL.decode(utf8: segments[1]), !payloadBytes.isEmpty else {
            throw SignedDataError.malformedPayload("is not base64url")
        }
        guard let signatureBytes = Base64URL.decode(utf8: segments[2]) else {
            throw SignedDataError.malformedSignature
        }
        payload = payloadBytes
        signature = Array(signatureBytes)
        signingInput = Array(bytes[..<dots[1]])
    }

    private static let notCanonical = "is not base64url as a JWS writes it (padding, or non-zero bits past the last byte)"

}
