import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// Whose history decides a request: Production's, unless the request names another App Store
/// environment (a TestFlight or development build names `Sandbox`), which this deployment
/// must accept (`OFFER_SIGNER_ENVIRONMENTS`). Sandbox and production history never mix.
enum EnvironmentSelection {
    /// The environment named by `name` (`Production` or `Sandbox`), Production when nil.
    /// - Parameter source: where the caller names it (`?environment=`), for the refusal.
    static func environment(_ name: String?, accepted: Set<String>, source: String) throws(HTTPProblem) -> AppStoreEnvironment {
        guard let name else { return .production }
        guard let environment = AppStoreEnvironment(rawValue: name) else {
            throw .invalidRequest("\(source) must be Production or Sandbox, not '\(name)'")
        }
        guard accepted.contains(environment.rawValue) else { throw notAccepted(environment, accepted: accepted) }
        return environment
    }

    /// The refusal of an environment this deployment does not take signed data from.
    static func notAccepted(_ environment: AppStoreEnvironment, accepted: Set<String>) -> HTTPProblem {
        .invalidRequest("this service keeps no \(environment.rawValue) history (OFFER_SIGNER_ENVIRONMENTS is \(accepted.sorted().joined(separator: ",")))")
    }
}
