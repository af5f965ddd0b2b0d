import OfferSignerCore
import OfferSignerHTTP

/// What a signing request names: the offer itself (`POST /v1/offers/sign`'s `offerId`), or a
/// placement whose offer the service picks (`POST /v1/offers/placement`'s `placement`).
protocol SignChoice {
    /// The body's member that holds it.
    static var member: String { get }
    /// Refuses a value of the wrong length or characters, naming the member.
    static func validate(_ value: String) throws(HTTPProblem)
}

/// `offerId`: 1–256 visible ASCII characters.
enum OfferChoice: SignChoice {
    static let member = "offerId"

    static func validate(_ value: String) throws(HTTPProblem) {
        if !Identifier.isValid(value) { throw .invalidRequest("'offerId' must be 1–256 visible ASCII characters") }
    }
}

/// `placement`: a rule ID.
enum PlacementChoice: SignChoice {
    static let member = "placement"

    static func validate(_ value: String) throws(HTTPProblem) {
        if !Identifier.isValidRuleId(value) { throw .invalidRequest("'placement' must be \(Identifier.ruleIdRequirement)") }
    }
}
