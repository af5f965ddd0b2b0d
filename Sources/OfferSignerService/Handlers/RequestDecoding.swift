import Foundation
import OfferSignerCore
import OfferSignerHTTP

extension HTTPRequest {
    /// Decodes the JSON body, refusing malformed or mistyped JSON with a 400 naming the field,
    /// and (unless `strictKeys` is false, for bodies that Apple writes) any unknown member.
    func decodeJSON<T: Decodable>(_ type: T.Type, strictKeys: Bool = true) throws(HTTPProblem) -> T {
        guard !body.isEmpty else { throw .invalidRequest("the request needs a JSON body") }
        do {
            let data = Data(body)
            return try strictKeys ? JSONCoding.decoder.decodeStrictly(T.self, from: data) : JSONCoding.decoder.decode(T.self, from: data)
        } catch {
            throw .invalidRequest(DecodingErrorText.describe(error))
        }
    }
}
