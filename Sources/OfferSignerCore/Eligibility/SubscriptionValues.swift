/// A value per subscription (`originalTransactionId`) of one user's group, for the facts'
/// passes: kept in two arrays and found by comparing keys in turn. A user has a few
/// subscriptions in a group, so this costs a few string comparisons where a `Dictionary`
/// hashed every key for every lookup (issue 38: ~400 instructions a lookup, a dozen a signature);
/// the order of ``values`` is the order keys were first set, which no caller depends on.
struct SubscriptionValues<Value> {
    private(set) var keys: [String] = []
    private(set) var values: [Value] = []

    subscript(subscription: String) -> Value? {
        get { keys.firstIndex(of: subscription).map { values[$0] } }
        set {
            if let index = keys.firstIndex(of: subscription) {
                if let newValue { values[index] = newValue } else { keys.remove(at: index); values.remove(at: index) }
            } else if let newValue {
                keys.append(subscription)
                values.append(newValue)
            }
        }
    }

    /// Whether any subscription and its value satisfy `predicate`.
    func contains(where predicate: (String, Value) throws -> Bool) rethrows -> Bool {
        for index in keys.indices where try predicate(keys[index], values[index]) { return true }
        return false
    }
}
