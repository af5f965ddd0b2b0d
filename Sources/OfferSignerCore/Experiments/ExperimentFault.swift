/// One reason an experiment cannot be saved or started, with the code the refusal carries.
public struct ExperimentFault: Codable, Hashable, Sendable {
    /// `invalid_request` (a field's value), `invalid_arms`, `duplicate_arm_id`,
    /// `invalid_weights`, `unknown_placement`, `unknown_offer`.
    public var code: String
    /// The sentence, naming the field.
    public var message: String

    public init(_ code: String, _ message: String) {
        self.code = code
        self.message = message
    }
}
