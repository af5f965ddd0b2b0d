/// One arm of an experiment: an offer of the app (or none, a no-offer control) and its share
/// of the users assigned from now on.
public struct ExperimentArm: Codable, Hashable, Sendable {
    /// The arm's name, unique within the experiment.
    public var armId: String
    /// The offer rule the arm's users are signed; nil for a no-offer arm.
    @EncodedAsNull public var offerId: String?
    /// The arm's weight: non-negative; users are drawn in proportion to it.
    public var weight: Double

    public init(armId: String, offerId: String?, weight: Double) {
        self.armId = armId
        self.offerId = offerId
        self.weight = weight
    }

    enum CodingKeys: String, CodingKey { case armId, offerId, weight }

    /// Decodes an arm; `offerId` must be present (an offer or `null`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        armId = try container.decode(String.self, forKey: .armId)
        guard container.contains(.offerId) else {
            throw DecodingError.keyNotFound(CodingKeys.offerId, .init(codingPath: container.codingPath,
                                                                     debugDescription: "'offerId' is required (null for a no-offer arm)"))
        }
        offerId = try container.decodeIfPresent(String.self, forKey: .offerId)
        weight = try container.decode(Double.self, forKey: .weight)
    }
}
