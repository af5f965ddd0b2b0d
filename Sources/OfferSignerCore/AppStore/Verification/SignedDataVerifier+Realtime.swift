import Foundation

extension SignedDataVerifier {
    /// Verifies a Retention Messaging real-time request's `signedPayload` as a notification is
    /// verified (form, `x5c` chain to a configured root, Apple's OIDs, validity at
    /// `signedDate`, ES256 signature), then finds the app it is for and checks the environment,
    /// as Apple's `verifyAndDecodeRealtimeRequest` does for one app:
    ///
    /// - the request names no bundle ID, only `appAppleId`: the app is the configured app with
    ///   that `appAppleId`. In Production there must be one (Apple: never answer a request for
    ///   another app). Outside Production, where Apple's library does not compare the
    ///   `appAppleId`, a request whose `appAppleId` no app has is taken for the only
    ///   configured app if that app has no `appAppleId` configured, and refused otherwise;
    /// - the environment must be accepted, and its `requestIdentifier` a UUID.
    public func verifyRealtimeRequest(_ signedPayload: String) throws(SignedDataError) -> VerifiedRealtimeRequest {
        let payload = try verifiedPayload(signedPayload, as: DecodedRealtimeRequestBody.self)
        let production = payload.rawEnvironment == AppStoreEnvironment.production.rawValue
        let app: App
        if let configured = apps.values.first(where: { $0.appAppleId == payload.appAppleId }) {
            app = configured
        } else if !production, apps.count == 1, let only = apps.values.first, only.appAppleId == nil {
            app = only
        } else {
            throw SignedDataError.unknownAppAppleId(payload.appAppleId)
        }
        try checkEnvironment(payload.rawEnvironment)
        guard let environment = payload.environment else { throw SignedDataError.environmentNotAccepted(payload.rawEnvironment) }
        guard UUID(uuidString: payload.requestIdentifier) != nil else {
            throw SignedDataError.undecodablePayload(type: "DecodedRealtimeRequestBody", reason: "requestIdentifier is not a UUID")
        }
        return VerifiedRealtimeRequest(payload: payload, bundleId: app.bundleId, environment: environment)
    }
}
