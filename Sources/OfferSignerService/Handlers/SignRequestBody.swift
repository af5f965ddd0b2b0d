import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP

/// The body of a signing request: product, user, app, format, transaction, environment and the
/// customer's proof, and what is to be signed (``SignChoice``: an offer or a placement).
struct SignRequestBody<Choice: SignChoice>: Decodable {
    /// The value of `Choice.member`: the offer's ID, or the placement's.
    var choice: String
    var productId: String
    var userId: String
    var bundleId: String?
    var format: PromotionalOfferFormat
    var transactionId: String?
    /// Whose history decides: Production unless the body names `"environment": "Sandbox"`.
    var environment: AppStoreEnvironment
    /// The customer's `Transaction.jwsRepresentation` and `AppTransaction.shared.jwsRepresentation`,
    /// and the device's `AppStore.deviceVerificationID`.
    var proof: CustomerProof

    /// A member's name.
    struct Member: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Member.self)
        choice = try container.decode(String.self, forKey: Member(Choice.member))
        productId = try container.decode(String.self, forKey: Member("productId"))
        userId = try container.decode(String.self, forKey: Member("userId"))
        bundleId = try container.decodeIfPresent(String.self, forKey: Member("bundleId"))
        format = try container.decodeFormat(forKey: Member("format"))
        transactionId = try container.decodeIfPresent(String.self, forKey: Member("transactionId"))
        environment = try container.decodeEnvironment(forKey: Member("environment"))
        proof = try container.decodeProof(signedTransaction: Member("signedTransaction"),
                                          signedAppTransaction: Member("signedAppTransaction"),
                                          deviceVerificationId: Member("deviceVerificationId"))
    }

    /// The body read without `JSONDecoder` when it is a flat object of plain strings (see
    /// `FlatJSONObject`) whose every member is a field of the request, with the required ones
    /// present and a known format and environment; nil otherwise, and the caller decodes it
    /// strictly (which words any refusal). Both readings agree on every body this accepts.
    init?(plainJSON body: [UInt8]) {
        guard let members = FlatJSONObject.strings(body) else { return nil }
        var choice: String?, productId: String?, userId: String?, formatName: String?, environmentName: String?
        var proof = CustomerProof()
        for (name, value) in members {
            switch name {
            case Choice.member: choice = value
            case "productId": productId = value
            case "userId": userId = value
            case "bundleId": bundleId = value
            case "format": formatName = value
            case "transactionId": transactionId = value
            case "environment": environmentName = value
            case "signedTransaction": proof.signedTransaction = value
            case "signedAppTransaction": proof.signedAppTransaction = value
            case "deviceVerificationId": proof.deviceVerificationId = value
            default: return nil
            }
        }
        guard let choice, let productId, let userId,
              let format = PromotionalOfferFormat(rawValue: formatName ?? PromotionalOfferFormat.legacy.rawValue),
              let environment = AppStoreEnvironment(rawValue: environmentName ?? AppStoreEnvironment.production.rawValue) else {
            return nil
        }
        self.choice = choice
        self.productId = productId
        self.userId = userId
        self.format = format
        self.environment = environment
        self.proof = proof
    }

    /// The body of `request`: read fast when it is plain, decoded strictly otherwise.
    static func read(_ request: HTTPRequest) throws -> Self {
        try Self(plainJSON: request.body) ?? request.decodeJSON(Self.self)
    }

    /// Refuses IDs of the wrong length or characters, with the field named.
    func validate() throws(HTTPProblem) {
        try Choice.validate(choice)
        if !Identifier.isValid(productId) { throw .invalidRequest("'productId' must be 1–256 visible ASCII characters") }
        if let bundleId, !Identifier.isValid(bundleId) {
            throw .invalidRequest("'bundleId' must be 1–256 visible ASCII characters")
        }
        if let transactionId, !Identifier.isValid(transactionId, maxLength: 64) {
            throw .invalidRequest("'transactionId' must be 1–64 visible ASCII characters")
        }
        try proof.validate(userId: userId)
    }

    /// The request as the issuing pipeline takes it, for `offerId`, from `context`'s caller.
    func issueRequest(offerId: String, _ context: ServiceContext) -> IssueRequest {
        IssueRequest(bundleId: bundleId, productId: productId, offerId: offerId, userId: userId, format: format,
                     transactionId: transactionId, environment: environment, requestedBy: context.callerName,
                     requestId: context.requestId, proof: proof,
                     callerTrust: context.principal?.trust ?? .app)  // the routes need a key; none is believed least
    }
}
