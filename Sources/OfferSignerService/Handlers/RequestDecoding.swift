import Foundation
import OfferSignerCore
import OfferSignerHTTP

extension HTTPRequest {
    /// Decodes the JSON body, refusing malformed or mistyped JSON with a 400 naming the field.
    func decodeJSON<T: Decodable>(_ type: T.Type) throws(HTTPProblem) -> T {
        guard !body.isEmpty else { throw .invalidRequest("the request needs a JSON body") }
        do {
            return try JSONCoding.decoder.decodeStrictly(T.self, from: Data(body))
        } catch {
            throw .invalidRequest(DecodingErrorText.describe(error))
        }
    }
}
