import Foundation
import Testing
@testable import OfferSignerCore

/// Reading again the payload of signed data stored after verification.
@Suite struct StoredSignedDataTests {
    static func segment(_ json: String) -> String { Base64URL.encode(Array(json.utf8)) }

    @Test func readsThePayloadOnly() throws {
        let jws = Self.segment("not even JSON") + "." + Self.segment(#"{"originalTransactionId": "o1", "expirationIntent": 3, "environment": "Sandbox"}"#) + ".sig"
        let renewal = try StoredSignedData.payload(JWSRenewalInfoDecodedPayload.self, of: jws)
        #expect(renewal.originalTransactionId == "o1" && renewal.expirationIntent == .customerDidNotConsentToPriceIncrease)
        #expect(renewal.environment == .sandbox)
    }

    @Test func refusesWhatIsNotACompactJWS() {
        #expect(throws: SignedDataError.self) { try StoredSignedData.payload(JWSRenewalInfoDecodedPayload.self, of: "a.b") }
        #expect(throws: SignedDataError.self) { try StoredSignedData.payload(JWSRenewalInfoDecodedPayload.self, of: "a.b.c.d") }
        #expect(throws: SignedDataError.self) { try StoredSignedData.payload(JWSRenewalInfoDecodedPayload.self, of: "a.!!!.c") }
        #expect(throws: SignedDataError.self) {
            try StoredSignedData.payload(JWSRenewalInfoDecodedPayload.self, of: "a." + Self.segment(#"{"expirationIntent": "three"}"#) + ".c")
        }
    }
}
