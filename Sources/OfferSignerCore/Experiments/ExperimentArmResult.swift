/// What one arm's users did, as the experiment's report shows it.
public struct ExperimentArmResult: Codable, Hashable, Sendable {
    public var armId: String
    @EncodedAsNull public var offerId: String?
    /// The arm's current weight.
    public var weight: Double
    /// Users assigned (intention to treat: whatever became of their request).
    public var assigned = 0
    /// Assigned users ever found eligible for the arm's offer (held out ones included).
    public var eligible = 0
    /// Assigned users the arm's offer was signed for.
    public var signed = 0
    /// Assigned users who redeemed the arm's offer (a redemption matched to a signature, as
    /// the outcomes feature matches) between assignment and horizon.
    public var redeemed = 0
    /// Assigned users whose horizon has passed: they, and only they, are analysed.
    public var matured = 0
    /// Assigned users whose horizon has not passed yet.
    public var maturing = 0
    /// Outcomes of the matured users at their horizon.
    public var retained = 0
    public var churned = 0
    public var refunded = 0
    public var inOffer = 0
    /// `retained` / `matured` (nil before any user matured).
    @EncodedAsNull public var retainedRate: Double?
    /// Per currency, the matured users' net revenue winsorised at the cap, in milli-units.
    public var revenue: [String: Int64] = [:]
    /// Per currency, `revenue` / `matured` (milli-units per user).
    public var revenuePerUser: [String: Double] = [:]

    public init(armId: String, offerId: String?, weight: Double) {
        self.armId = armId
        self.offerId = offerId
        self.weight = weight
    }
}
