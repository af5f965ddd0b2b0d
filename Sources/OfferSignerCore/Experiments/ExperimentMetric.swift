/// What an experiment compares between its arms, per assigned user at the horizon.
public enum ExperimentMetric: String, Codable, Hashable, Sendable, CaseIterable {
    /// The share of assigned users who pay full price at the horizon (1 or 0 per user).
    case retained
    /// Net revenue per assigned user from assignment to the horizon (refunds left out),
    /// winsorised at the experiment's cap; compared per currency.
    case revenue
}
