import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

extension HTTPRequest {
    /// Decodes the JSON body, refusing malformed or mistyped JSON with a 400 naming the field,
    /// a key written twice in one object, and (unless `strictKeys` is false, for bodies that
    /// Apple writes) any unknown member.
    /// `userInfo` reaches the decoded types (``OfferRule/defaultBundleIdKey``).
    func decodeJSON<T: Decodable>(_ type: T.Type, strictKeys: Bool = true,
                                  userInfo: [CodingUserInfoKey: any Sendable] = [:]) throws(HTTPProblem) -> T {
        guard !body.isEmpty else { throw .invalidRequest("the request needs a JSON body") }
        do {
            let decoder = userInfo.isEmpty ? JSONCoding.decoder : JSONCoding.decoder(userInfo: userInfo)
            let data = Data(body)
            if strictKeys { return try decoder.decodeStrictly(T.self, from: data) }  // refuses duplicates too
            let value = try decoder.decode(T.self, from: data)
            try JSONDuplicateKeys.refuse(in: data)
            return value
        } catch {
            throw .invalidRequest(DecodingErrorText.describe(error))
        }
    }
}
