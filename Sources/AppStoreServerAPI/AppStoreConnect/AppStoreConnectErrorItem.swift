import Foundation

/// One entry of an App Store Connect error answer's `errors[]`: Apple's `status`, `code`
/// (e.g. `ENTITY_ERROR.ATTRIBUTE.INVALID`, `RATE_LIMIT_EXCEEDED`), `title` and `detail`.
///
/// [ErrorResponse.Errors](https://developer.apple.com/documentation/appstoreconnectapi/errorresponse/errors)
public struct AppStoreConnectErrorItem: Codable, Hashable, Sendable, CustomStringConvertible {
    public var status: String
    public var code: String
    public var title: String
    public var detail: String?

    public init(status: String, code: String, title: String, detail: String? = nil) {
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
    }

    enum CodingKeys: String, CodingKey { case status, code, title, detail }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        status = (try? container.decodeIfPresent(String.self, forKey: .status)) ?? ""
        code = (try? container.decodeIfPresent(String.self, forKey: .code)) ?? ""
        title = (try? container.decodeIfPresent(String.self, forKey: .title)) ?? ""
        detail = try? container.decodeIfPresent(String.self, forKey: .detail)
    }

    /// `CODE: detail` (or the title when Apple gave no detail).
    public var description: String { "\(code): \(detail ?? title)" }

    /// The `errors[]` of an error answer's body; empty when it has none or is not JSON.
    static func list(in body: [UInt8]) -> [AppStoreConnectErrorItem] {
        struct Body: Decodable { let errors: [AppStoreConnectErrorItem]? }
        return ((try? JSONDecoder().decode(Body.self, from: Data(body)))?.errors ?? []).prefix(20).map { $0 }
    }
}
