import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP

extension HTTPRequest {
    /// The body's rule (an offer's, or another kind's), whose `bundleId` may be left out when one app is configured.
    func decodeRule<Rule: Decodable>(_ type: Rule.Type, _ configuration: KeyConfiguration) throws(HTTPProblem) -> Rule {
        let onlyApp: [CodingUserInfoKey: any Sendable] = configuration.apps.count == 1
            ? [OfferRule.defaultBundleIdKey: configuration.apps.keys.first!] : [:]
        return try decodeJSON(type, userInfo: onlyApp)
    }
}
