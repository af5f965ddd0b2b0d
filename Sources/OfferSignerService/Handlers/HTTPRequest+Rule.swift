import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP

extension HTTPRequest {
    /// The body's rule (an offer's, or another kind's), whose `bundleId` may be left out when
    /// one app is configured; `defaults` adds what else the body may leave out (a placement's
    /// ID, taken from the path).
    func decodeRule<Rule: Decodable>(_ type: Rule.Type, _ configuration: KeyConfiguration,
                                     defaults: [CodingUserInfoKey: any Sendable] = [:]) throws(HTTPProblem) -> Rule {
        var userInfo = defaults
        if configuration.apps.count == 1 { userInfo[OfferRule.defaultBundleIdKey] = configuration.apps.keys.first! }
        return try decodeJSON(type, userInfo: userInfo)
    }
}
