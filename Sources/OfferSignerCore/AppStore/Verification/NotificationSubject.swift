/// The app and environment a notification is about, found where Apple's library looks.
struct NotificationSubject {
    let bundleId: String?
    let appAppleId: Int64?
    let environment: String?

    init(_ payload: ResponseBodyV2DecodedPayload) {
        if let data = payload.data {
            (bundleId, appAppleId, environment) = (data.bundleId, data.appAppleId, data.rawEnvironment)
        } else if let summary = payload.summary {
            (bundleId, appAppleId, environment) = (summary.bundleId, summary.appAppleId, summary.rawEnvironment)
        } else if let token = payload.externalPurchaseToken {
            (bundleId, appAppleId, environment) = (token.bundleId, token.appAppleId, token.environment.rawValue)
        } else {
            (bundleId, appAppleId, environment) = (nil, nil, nil)
        }
    }
}
