import OfferSignerApplication
import OfferSignerHTTP
import OfferSignerStore

/// Which app a request is about, by the sign endpoint's convention: the `bundleId` it names,
/// which must be a configured app, or else the only configured app.
enum AppSelection {
    /// The bundle ID of the app `named`, or of the only configured app when `named` is nil.
    /// - Parameter source: where the caller names the app (`?bundleId=`), for the refusal.
    static func bundleId(_ named: String?, in configuration: KeyConfiguration, source: String) throws(HTTPProblem) -> String {
        guard let app = configuration.app(bundleId: named) else {
            if let named { throw .notFound("no app with bundleId '\(named)' is configured") }
            throw .invalidRequest("add \(source) (more than one app is configured)")
        }
        return app.bundleId
    }
}
