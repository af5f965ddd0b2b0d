/// The app and environment a notification is about, found where Apple's library looks:
/// `data`, `summary`, `externalPurchaseToken` or `appData`.
public struct NotificationSubject: Sendable, Hashable {
    public let bundleId: String?
    public let appAppleId: Int64?
    /// The environment as Apple sent it.
    public let environment: String?

    public init(_ payload: ResponseBodyV2DecodedPayload) {
        if let data = payload.data {
            (bundleId, appAppleId, environment) = (data.bundleId, data.appAppleId, data.rawEnvironment)
        } else if let summary = payload.summary {
            (bundleId, appAppleId, environment) = (summary.bundleId, summary.appAppleId, summary.rawEnvironment)
        } else if let token = payload.externalPurchaseToken {
            (bundleId, appAppleId, environment) = (token.bundleId, token.appAppleId, token.environment.rawValue)
        } else if let app = payload.appData {
            (bundleId, appAppleId, environment) = (app.bundleId, app.appAppleId, app.rawEnvironment)
        } else {
            (bundleId, appAppleId, environment) = (nil, nil, nil)
        }
    }
}
