/// One failed eligibility criterion, as the service reports it in `reasons`.
public struct EligibilityReason: Sendable, Equatable, Decodable {
    /// The criterion's name, such as `minPaidDays`, `requireLapsed` or `consentRescinded`.
    public let criterion: String
    /// The rule's value for the criterion.
    public let required: JSONValue
    /// The customer's value.
    public let actual: JSONValue
    /// A sentence for support staff (not localized: show your own text to customers).
    public let message: String

    /// A reason with these values.
    public init(criterion: String, required: JSONValue, actual: JSONValue, message: String) {
        self.criterion = criterion
        self.required = required
        self.actual = actual
        self.message = message
    }
}
