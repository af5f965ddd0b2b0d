import Foundation
import OfferSignerCore

extension TestAppStore {
    /// The payload of a Retention Messaging real-time request (`DecodedRealtimeRequestBody`).
    static func realtimePayload(original: String, product: String = TestEnvironment.product, locale: String = "en-US",
                                requestIdentifier: String = UUID().uuidString, appAppleId: Int64 = 1234,
                                environment: String = "Production", signed: Date) -> [String: Any] {
        ["originalTransactionId": original, "appAppleId": appAppleId, "productId": product, "userLocale": locale,
         "requestIdentifier": requestIdentifier, "signedDate": ms(signed), "environment": environment]
    }

    /// A signed Retention Messaging real-time request, as the App Store sends it.
    static func realtimeRequest(original: String, product: String = TestEnvironment.product, locale: String = "en-US",
                                requestIdentifier: String = UUID().uuidString, appAppleId: Int64 = 1234,
                                environment: String = "Production", signed: Date) -> String {
        sign(realtimePayload(original: original, product: product, locale: locale, requestIdentifier: requestIdentifier,
                             appAppleId: appAppleId, environment: environment, signed: signed))
    }
}
