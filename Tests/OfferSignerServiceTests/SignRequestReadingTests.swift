import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
@testable import OfferSignerService
import Testing

/// Issue 16: the sign body's fast reading and its strict decoding agree on every body the fast
/// one takes, and every body it does not take goes to the strict decoder.
@Suite("Sign request: fast reading and strict decoding")
struct SignRequestReadingTests {
    func decoded(_ json: String) throws -> SignRequest {
        try HTTPRequest(method: "POST", path: "/v1/offers/sign", body: Array(json.utf8)).decodeJSON(SignRequest.self)
    }

    func same(_ a: SignRequest, _ b: SignRequest) -> Bool {
        a.productId == b.productId && a.offerId == b.offerId && a.userId == b.userId && a.bundleId == b.bundleId
            && a.format == b.format && a.transactionId == b.transactionId && a.environment == b.environment && a.proof == b.proof
    }

    @Test("bodies read fast are the requests the strict decoder makes of them")
    func agrees() throws {
        let bodies = [
            #"{"productId":"com.example.pro","offerId":"winback","userId":"bench-user-00000001"}"#,
            #"{"userId":"u","offerId":"o","productId":"p","format":"jws","bundleId":"com.example","environment":"Sandbox","transactionId":"2000"}"#,
            #"{"productId":"p","offerId":"o","userId":"","signedTransaction":"a.b.c","signedAppTransaction":"d.e.f","format":"legacy"}"#,
        ]
        for body in bodies {
            let fast = try #require(SignRequest(plainJSON: Array(body.utf8)), "\(body)")
            #expect(same(fast, try decoded(body)), "\(body)")
        }
    }

    @Test("an unknown field, a missing field, an unknown format or environment, a null or an escape are left to the strict decoder")
    func declines() {
        let bodies = [
            #"{"productId":"p","offerId":"o","userId":"u","extra":"x"}"#,
            #"{"productId":"p","offerId":"o"}"#,
            #"{"productId":"p","offerId":"o","userId":"u","format":"introductory-offer-eligibility"}"#,
            #"{"productId":"p","offerId":"o","userId":"u","format":"LEGACY"}"#,
            #"{"productId":"p","offerId":"o","userId":"u","environment":"production"}"#,
            #"{"productId":"p","offerId":"o","userId":"u","bundleId":null}"#,
            #"{"productId":"p","offerId":"o","userId":"u\u0031"}"#,
            #"{"productId":"p","offerId":"o","userId":"u","userId":"v"}"#,
        ]
        for body in bodies {
            #expect(SignRequest(plainJSON: Array(body.utf8)) == nil, "\(body)")
        }
    }

    @Test("a placement's body is read fast as the strict decoder reads it; its offerId is left to the strict decoder")
    func placementBodies() throws {
        let body = #"{"placement":"cancel_flow","productId":"p","userId":"u","format":"jws","environment":"Sandbox"}"#
        let fast = try #require(PlacementSignRequest(plainJSON: Array(body.utf8)))
        let strict = try HTTPRequest(method: "POST", path: "/v1/offers/placement", body: Array(body.utf8))
            .decodeJSON(PlacementSignRequest.self)
        #expect(fast.placement == "cancel_flow" && strict.placement == "cancel_flow")
        #expect(fast.productId == strict.productId && fast.userId == strict.userId && fast.format == .jws && strict.format == .jws
                && fast.environment == .sandbox && strict.environment == .sandbox)
        #expect(PlacementSignRequest(plainJSON: Array(#"{"placement":"c","offerId":"o","productId":"p","userId":"u"}"#.utf8)) == nil)
        #expect(PlacementSignRequest(plainJSON: Array(#"{"offerId":"o","productId":"p","userId":"u"}"#.utf8)) == nil)
        #expect(SignRequest(plainJSON: Array(#"{"placement":"c","productId":"p","userId":"u"}"#.utf8)) == nil)
    }
}
