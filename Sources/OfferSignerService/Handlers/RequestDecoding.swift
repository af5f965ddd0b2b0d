import Foundation
import OfferSignerCore
import OfferSignerHTTP

extension HTTPRequest {
    /// Decodes the JSON body, refusing malformed or mistyped JSON with a 400 naming the field.
    /// `userInfo` reaches the decoded types (``OfferRule/defaultBundleIdKey``).
    func decodeJSON<T: Decodable>(_ type: T.Type, userInfo: [CodingUserInfoKey: any Sendable] = [:]) throws(HTTPProblem) -> T {
        guard !body.isEmpty else { throw .invalidRequest("the request needs a JSON body") }
        do {
            let decoder = userInfo.isEmpty ? JSONCoding.decoder : JSONCoding.decoder(userInfo: userInfo)
            return try decoder.decode(T.self, from: Data(body))
        } catch {
            throw .invalidRequest(DecodingErrorText.describe(error))
        }
    }
}
